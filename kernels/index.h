/* Per-item functions of the gather/scatter engine of every indexing form
 * (m[{idx}], m[mask], take, take_along_axis, put_along_axis, the Torch7
 * index_* / scatter* / masked_* functions), shared by the host loops
 * (src/host/index.c) and the CUDA kernels (kernels/index.cu, which the
 * emulated device also runs), so every backend gives the same bits.
 *
 * Offsets are element offsets (int64, negative allowed: views with
 * negative strides) from a view's first element, computed and checked on
 * the host by core/ops/index.c before any kernel runs.  A scatter comes
 * grouped: run r writes the one element dst[r] from the sources
 * spos[start[r] .. start[r+1]) in their original order, so one thread
 * owns each written element.  No atomics: duplicates accumulate in index
 * order on every device, which makes scatter_add_ deterministic (the
 * float sums do not depend on thread timing) for every ctype. */
#ifndef GM_KERNELS_INDEX_H
#define GM_KERNELS_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/model/ctype_list.h"
#include "hd.h"
#include "complex_ops.h"
#include "half_ops.h"
#include "int_ops.h"

#define GM_INDEX_SET 0  /* the last source wins */
#define GM_INDEX_ADD 1  /* sum (bool: or) */
#define GM_INDEX_PROD 2 /* product (bool: and) */
#define GM_INDEX_AMAX 3 /* maximum (NaN wins) */
#define GM_INDEX_AMIN 4 /* minimum (NaN wins) */
#define GM_INDEX_MEAN 5 /* the sum divided by the count (integers: floor) */
#define GM_INDEX_OP 15  /* the mode's bits naming the op */
/* or'ed into a mode: the reduction starts from the run's first source,
 * not from y's element (PyTorch's include_self = false) */
#define GM_INDEX_NO_SELF 16

/* add and multiply: floats as C does, integers wrapping (int_ops.h:
 * signed overflow would be UB), bool as or / and; mean's division by the
 * count c >= 1: floats as C does, integers floored (PyTorch's
 * div_(count, "floor")), the count exact in int64 (PyTorch counts in the
 * mat's type, which wraps for int8 beyond 127 sources), so the quotient
 * always fits T; bool mats never get a mean (the binding refuses). */
#define GM_INDEX_FLOAT_(T, ...)                                  \
  GM_HD T gm_index_add_##T(T a, T b) { return a + b; }            \
  GM_HD T gm_index_mul_##T(T a, T b) { return a * b; }            \
  GM_HD T gm_index_div_##T(T a, int64_t c) { return a / (T)c; }   \
  GM_HD bool gm_index_nan_##T(T a) { return a != a; }
#define GM_INDEX_INT_(T, E, name, kw, blas, cublas, etype, S, npy, strto, digits, mpi, nccl, KIND, ...) \
  GM_HD T gm_index_add_##T(T a, T b) { return gm_iadd_##T(a, b); }                                  \
  GM_HD T gm_index_mul_##T(T a, T b) { return gm_imul_##T(a, b); }                                  \
  GM_HD T gm_index_div_##T(T a, int64_t c) {                                                         \
    if ((KIND) == GM_KIND_UINT) return (T)((uint64_t)a / (uint64_t)c);                               \
    return (T)gm_ifloordiv_int64_t((int64_t)a, c);                                                   \
  }                                                                                                  \
  GM_HD bool gm_index_nan_##T(T a) { return (void)a, false; }
#define GM_INDEX_BOOL_(T, ...)                                   \
  GM_HD T gm_index_add_##T(T a, T b) { return a || b; }           \
  GM_HD T gm_index_mul_##T(T a, T b) { return a && b; }           \
  GM_HD T gm_index_div_##T(T a, int64_t c) { return (void)c, a; } \
  GM_HD bool gm_index_nan_##T(T a) { return (void)a, false; }
GM_FLOAT_CTYPES(GM_INDEX_FLOAT_)
GM_INTEGER_CTYPES(GM_INDEX_INT_)
GM_BOOL_CTYPES(GM_INDEX_BOOL_)
#undef GM_INDEX_FLOAT_
#undef GM_INDEX_INT_
#undef GM_INDEX_BOOL_

#define GM_INDEX_COMBINE_(T, ...)                                                                        \
  GM_HD T gm_index_combine_##T(int mode, T a, T b) {                                                  \
    switch (mode) {                                                                                   \
      case GM_INDEX_ADD:                                                                              \
        return gm_index_add_##T(a, b);                                                                \
      case GM_INDEX_PROD:                                                                             \
        return gm_index_mul_##T(a, b);                                                                \
      case GM_INDEX_AMAX:                                                                             \
        return (gm_index_nan_##T(b) || b > a) ? b : a;                                                             \
      case GM_INDEX_AMIN:                                                                             \
        return (gm_index_nan_##T(b) || b < a) ? b : a;                                                             \
      default:                                                                                        \
        return b;                                                                                     \
    }                                                                                                 \
  }
GM_REAL_CTYPES(GM_INDEX_COMBINE_)
#undef GM_INDEX_COMBINE_

/* complex: sum and product (complex_ops.h), mean's division of each
 * part by the count; no order, so no amax/amin (the core refuses those
 * modes for complex mats) */
#define GM_INDEX_CX_(T, R, S)                                                          \
  GM_HD T gm_index_combine_##T(int mode, T a, T b) {                                    \
    if (mode == GM_INDEX_ADD) return gm_cxadd_##T(a, b);                                \
    if (mode == GM_INDEX_PROD) return gm_cxmul_##T(a, b);                               \
    return b;                                                                           \
  }                                                                                     \
  GM_HD T gm_index_div_##T(T a, int64_t c) { return gm_cxmake_##T(a.re / (R)c, a.im / (R)c); }
GM_CX_ROWS(GM_INDEX_CX_)
#undef GM_INDEX_CX_

/* Run r of a grouped scatter (the file's comment): mode's op over y's
 * element (unless GM_INDEX_NO_SELF) and the run's sources in order,
 * accumulated in A: T itself, float32 for the half types (loaded exactly
 * with LD, the result rounded once on store with ST, half_ops.h: NumPy's
 * float32 compute, PyTorch's float accumulation); SET moves bits. */
#define GM_INDEX_RUN_(T, A, LD, ST)                                                                  \
  GM_HD void gm_index_scatter_run_##T(int mode, size_t r, const int64_t *dst, const int64_t *start,    \
                                      const int64_t *spos, const T *src, T *y) {                      \
    int64_t lo = start[r], hi = start[r + 1], k = lo;                                                 \
    int op = mode & GM_INDEX_OP;                                                                      \
    if (op == GM_INDEX_SET) {                                                                         \
      y[dst[r]] = src[spos[hi - 1]];                                                                  \
      return;                                                                                         \
    }                                                                                                 \
    A acc = (mode & GM_INDEX_NO_SELF) ? LD(src[spos[k++]]) : LD(y[dst[r]]);                           \
    int step = op == GM_INDEX_MEAN ? GM_INDEX_ADD : op;                                               \
    for (; k < hi; k++) acc = gm_index_combine_##A(step, acc, LD(src[spos[k]]));                      \
    if (op == GM_INDEX_MEAN) acc = gm_index_div_##A(acc, hi - lo + ((mode & GM_INDEX_NO_SELF) ? 0 : 1)); \
    y[dst[r]] = ST(acc);                                                                              \
  }
#define GM_INDEX_SAME_(x) (x)
#define GM_INDEX_RUN_T_(T, ...) GM_INDEX_RUN_(T, T, GM_INDEX_SAME_, GM_INDEX_SAME_)
#define GM_INDEX_RUN_HALF_(T, ...) GM_INDEX_RUN_(T, float, gm_hload_##T, gm_hstore_##T)
GM_REAL_CTYPES(GM_INDEX_RUN_T_)
GM_COMPLEX_CTYPES(GM_INDEX_RUN_T_)
GM_HALF_CTYPES(GM_INDEX_RUN_HALF_)
#undef GM_INDEX_RUN_T_
#undef GM_INDEX_RUN_HALF_
#undef GM_INDEX_SAME_
#undef GM_INDEX_RUN_

#endif
