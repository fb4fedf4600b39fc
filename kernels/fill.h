/* Fill: element function and host loops. */
#ifndef GM_KERNELS_FILL_H
#define GM_KERNELS_FILL_H

#include <stddef.h>

#include "../src/core/model/ctype_list.h"
#include "hd.h"

#define GM_DEFINE_FILL(T, ...)                                                \
  GM_HD void gm_fill_##T(T *x, size_t n, size_t incx, T alpha) {              \
    if (incx == 1) {                                                          \
      for (size_t i = 0; i < n; i++) x[i] = alpha;                            \
    } else {                                                                  \
      for (size_t i = 0; i < n; i++) x[i * incx] = alpha;                     \
    }                                                                         \
  }

GM_CTYPES(GM_DEFINE_FILL)

#endif
