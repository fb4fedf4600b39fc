// CUDA kernels of the NN area and their extern "C" launchers (called
// through src/device/kernel_tables.h).  One thread per output or gradient element, each
// calling the gather-style element function of nn.h that the host loops
// also use, so every element has exactly one writer: convolve_, max_pool_
// and the x gradients are race-free by ownership.  dF/dw is a
// reduction over every output for each w element: blocks on grid.y take w
// elements, blocks on grid.x split the output rows of the whole batch, the
// threads of a block stride along a row (coalesced), the block sums in
// shared memory (in double) and adds once per w element with atomicAdd.
// Launchers return the cudaError_t of the launch.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "nn.h"

namespace {

#define GM_CU_NN(T)                                                                                \
  __device__ T conv_at(const T *x, const T *w, const gm_nn_geom *g, int64_t b, int64_t i, int64_t j) { \
    return gm_conv2d_at_##T(x, w, g, b, i, j);                                                     \
  }                                                                                                \
  __device__ T conv_dx_at(const T *w, const T *yd, const gm_nn_geom *g, int64_t b, int64_t i, int64_t j) { \
    return gm_conv2d_dx_at_##T(w, yd, g, b, i, j);                                                 \
  }                                                                                                \
  __device__ T pool_at(const T *x, const gm_nn_geom *g, int64_t b, int64_t i, int64_t j) {         \
    return gm_max_pool_at_##T(x, g, b, i, j);                                                      \
  }                                                                                                \
  __device__ T pool_dx_at(const T *x, const T *y, const T *yd, const gm_nn_geom *g, int64_t b, int64_t i, \
                          int64_t j) {                                                             \
    return gm_max_pool_dx_at_##T(x, y, yd, g, b, i, j);                                            \
  }

GM_CU_NN(float)
GM_CU_NN(double)

// Per-element kernels over image rows (batch item and row: one division
// per row) x the row's elements: ROWS_2D's geometry (launch_cuda.cuh),
// several image rows per block for narrow images (28 wide: 8 rows of 32
// threads), launched as range kernels.
#define NN_ROWS(b, i, j, n_rows, height, width)                                        \
  ROWS_2D(row_, j, (size_t)(n_rows), (size_t)(width))                                  \
    for (int64_t b = (int64_t)row_ / (height), i = (int64_t)row_ % (height), once_ = 1; once_; once_ = 0)

template <typename T>
__global__ void convolve_kernel(gm_nn_geom g, const T *x, const T *w, T *y) {
  NN_ROWS(b, i, j, g.batch * g.yh, g.yh, g.yw) y[(b * g.yh + i) * g.yw + j] += conv_at(x, w, &g, b, i, j);
}

template <typename T>
__global__ void max_pool_kernel(gm_nn_geom g, const T *x, T *y) {
  NN_ROWS(b, i, j, g.batch * g.yh, g.yh, g.yw) y[(b * g.yh + i) * g.yw + j] = pool_at(x, &g, b, i, j);
}

template <typename T>
__global__ void conv_dx_kernel(gm_nn_geom g, const T *w, const T *yd, T *xd) {
  NN_ROWS(b, i, j, g.batch * g.xh, g.xh, g.xw) xd[(b * g.xh + i) * g.xw + j] += conv_dx_at(w, yd, &g, b, i, j);
}

template <typename T>
__global__ void conv_dw_kernel(gm_nn_geom g, const T *x, const T *yd, T *wd) {
  __shared__ double sh[GM_MAX_BLOCK];
  const int64_t nk = g.kh * g.kw, rows = g.batch * g.yh;
  for (int64_t k = blockIdx.y; k < nk; k += gridDim.y) {
    const int64_t k0 = k / g.kw, k1 = k % g.kw;
    int64_t o0lo, o0hi, o1lo, o1hi; // the outputs whose window puts w[k] inside x (as gm_conv2d_dw_at)
    gm_nn_span(g.anchor0 - k0 - g.start0, g.xh - 1 + g.anchor0 - k0 - g.start0, g.stride0, g.yh, &o0lo, &o0hi);
    gm_nn_span(g.anchor1 - k1 - g.start1, g.xw - 1 + g.anchor1 - k1 - g.start1, g.stride1, g.yw, &o1lo, &o1hi);
    double s = 0;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
      const int64_t b = r / g.yh, o0 = r % g.yh;
      if (o0 < o0lo || o0 >= o0hi) continue; // uniform across the block
      const T *ydr = yd + (b * g.yh + o0) * g.yw;
      const int64_t xrow = (b * g.xh + g.start0 + o0 * g.stride0 + k0 - g.anchor0) * g.xw;
      const int64_t xcol = g.start1 + k1 - g.anchor1; // + o1 * stride1 stays inside the row
      for (int64_t o1 = o1lo + threadIdx.x; o1 < o1hi; o1 += blockDim.x)
        s += (double)ydr[o1] * (double)x[xrow + xcol + o1 * g.stride1];
    }
    s = gm_block_sum(s, sh);
    if (threadIdx.x == 0) atomicAdd(&wd[k], (T)s);
  }
}

template <typename T>
__global__ void pool_dx_kernel(gm_nn_geom g, const T *x, const T *y, const T *yd, T *xd) {
  NN_ROWS(b, i, j, g.batch * g.xh, g.xh, g.xw) xd[(b * g.xh + i) * g.xw + j] += pool_dx_at(x, y, yd, &g, b, i, j);
}

// The geometry of NN_ROWS: gm_launch_rows over image rows x width.
struct nn_rows_launch : gm_launch_rows {
  size_t rows, width;
  nn_rows_launch(int64_t rows_, int64_t width_, void *stream)
      : gm_launch_rows((size_t)rows_, (size_t)width_, stream), rows((size_t)rows_), width((size_t)width_) {}
};

}  // namespace


extern "C" int gm_cuda_nn_convolve(int ctype, const gm_nn_geom *g, const void *x, const void *w, void *y,
                                   void *stream) {
  nn_rows_launch l(g->batch * g->yh, g->yw, stream);
  if (ctype == 0)
    GM_LAUNCH_RANGE(convolve_kernel<float>, l.grid, l.block, l.s, l.rows, l.width)(*g, CF(x), CF(w), F(y));
  else
    GM_LAUNCH_RANGE(convolve_kernel<double>, l.grid, l.block, l.s, l.rows, l.width)(*g, CD(x), CD(w), D(y));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_nn_derive_convolve(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *w,
                                          void *wd, const void *yd, void *stream) {
  nn_rows_launch lx(g->batch * g->xh, g->xw, stream);
  // dw: w elements on grid.y, about 1024 blocks in all over the output rows
  const size_t nk = (size_t)(g->kh * g->kw), rows = (size_t)(g->batch * g->yh);
  const unsigned gy = gm_spread(nk, 1, nk), gx = gm_spread(1024, gy, rows);
  const dim3 wgrid(gx, gy);
  if (ctype == 0) {
    GM_LAUNCH_RANGE(conv_dx_kernel<float>, lx.grid, lx.block, lx.s, lx.rows, lx.width)(*g, CF(w), CF(yd), F(xd));
    GM_LAUNCH_SYNC(conv_dw_kernel<float>, wgrid, GM_MAX_BLOCK, 0, lx.s)(*g, CF(x), CF(yd), F(wd));
  } else {
    GM_LAUNCH_RANGE(conv_dx_kernel<double>, lx.grid, lx.block, lx.s, lx.rows, lx.width)(*g, CD(w), CD(yd), D(xd));
    GM_LAUNCH_SYNC(conv_dw_kernel<double>, wgrid, GM_MAX_BLOCK, 0, lx.s)(*g, CD(x), CD(yd), D(wd));
  }
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_nn_max_pool(int ctype, const gm_nn_geom *g, const void *x, void *y, void *stream) {
  nn_rows_launch l(g->batch * g->yh, g->yw, stream);
  if (ctype == 0)
    GM_LAUNCH_RANGE(max_pool_kernel<float>, l.grid, l.block, l.s, l.rows, l.width)(*g, CF(x), F(y));
  else
    GM_LAUNCH_RANGE(max_pool_kernel<double>, l.grid, l.block, l.s, l.rows, l.width)(*g, CD(x), D(y));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_nn_derive_max_pool(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *y,
                                          const void *yd, void *stream) {
  nn_rows_launch l(g->batch * g->xh, g->xw, stream);
  if (ctype == 0)
    GM_LAUNCH_RANGE(pool_dx_kernel<float>, l.grid, l.block, l.s, l.rows, l.width)(*g, CF(x), CF(y), CF(yd), F(xd));
  else
    GM_LAUNCH_RANGE(pool_dx_kernel<double>, l.grid, l.block, l.s, l.rows, l.width)(*g, CD(x), CD(y), CD(yd), D(xd));
  return (int)cudaGetLastError();
}
