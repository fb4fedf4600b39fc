/* Strided copies: gathering a strided view into a contiguous temporary
 * and scattering it back (the core's staging of non-contiguous operands,
 * src/core/exec/stage.c).  The geometry and the per-element offset function
 * are shared by the host loop (src/host/strided.c) and the CUDA kernel
 * (kernels/strided.cu, also run by the emulated device). */
#ifndef GM_KERNELS_STRIDED_H
#define GM_KERNELS_STRIDED_H

#include <stddef.h>
#include <stdint.h>

#include "hd.h"

#define GM_STRIDED_MAX_RANK 8

/* dst[walk] = src[walk] for the row-major walk over dims, each side
 * stepping by its own element strides; axes already coalesced by the core
 * (no size-1 axes, rank >= 1). */
typedef struct gm_strided_geom {
  int rank;
  size_t n; /* product of dims */
  size_t dims[GM_STRIDED_MAX_RANK];
  int64_t src_strides[GM_STRIDED_MAX_RANK];
  int64_t dst_strides[GM_STRIDED_MAX_RANK];
} gm_strided_geom;

/* Offsets (elements) of the k-th element of the walk on each side. */
GM_HD void gm_strided_offsets(const gm_strided_geom *g, size_t k, int64_t *src, int64_t *dst) {
  int64_t s = 0, d = 0;
  for (int a = g->rank - 1; a >= 0; a--) {
    size_t i = k % g->dims[a];
    k /= g->dims[a];
    s += (int64_t)i * g->src_strides[a];
    d += (int64_t)i * g->dst_strides[a];
  }
  *src = s;
  *dst = d;
}

#endif
