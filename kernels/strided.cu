// CUDA strided copy kernel and its extern "C" launcher: the gather and
// scatter of non-contiguous operands (kernels/strided.h).  One thread per
// element in a grid-stride loop (a range launch, launch_cuda.cuh); the innermost axis is the fastest so that
// neighbouring threads touch neighbouring elements of the contiguous side.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "strided.h"

template <typename T>
__global__ void gm_strided_copy_kernel(gm_strided_geom g, const T *src, T *dst) {
  GRID_STRIDE(k, g.n) {
    int64_t so, d;
    gm_strided_offsets(&g, k, &so, &d);
    dst[d] = src[so];
  }
}

extern "C" int gm_cuda_strided_copy(int ctype, const gm_strided_geom *g, const void *src, void *dst, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(g->n, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(gm_strided_copy_kernel<T>, l.grid, l.block, l.s, g->n, 1)(*g, (const T *)(src), (T *)(dst))
  GM_ANY_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}
