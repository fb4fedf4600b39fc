// CUDA kernels of the NN area and their extern "C" launchers (called by
// src/device/cuda/nn.c).  One thread per output or gradient element, each
// calling the gather-style element function of nn.h that the host loops
// also use, so every element has exactly one writer: convolve_, max_pool_
// and the x gradients are race-free by ownership.  dF/dw sums over the
// batch: one thread per (w element, batch item) adds its partial sum with
// atomicAdd.  Launchers return the cudaError_t of the launch.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "nn.h"

namespace {

#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)blockDim.x * gridDim.x)

#define GM_CU_NN(T)                                                                                \
  __device__ T conv_at(const T *x, const T *w, const gm_nn_geom *g, int64_t b, int64_t i, int64_t j) { \
    return gm_conv2d_at_##T(x, w, g, b, i, j);                                                     \
  }                                                                                                \
  __device__ T conv_dx_at(const T *w, const T *yd, const gm_nn_geom *g, int64_t b, int64_t i, int64_t j) { \
    return gm_conv2d_dx_at_##T(w, yd, g, b, i, j);                                                 \
  }                                                                                                \
  __device__ T conv_dw_at(const T *x, const T *yd, const gm_nn_geom *g, int64_t b, int64_t i, int64_t j) { \
    return gm_conv2d_dw_at_##T(x, yd, g, b, i, j);                                                 \
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

template <typename T>
__global__ void convolve_kernel(gm_nn_geom g, const T *x, const T *w, T *y) {
  size_t per = (size_t)(g.yh * g.yw);
  GRID_STRIDE(i, (size_t)g.batch * per) {
    int64_t b = (int64_t)(i / per), r = (int64_t)(i % per);
    y[i] += conv_at(x, w, &g, b, r / g.yw, r % g.yw);
  }
}

template <typename T>
__global__ void max_pool_kernel(gm_nn_geom g, const T *x, T *y) {
  size_t per = (size_t)(g.yh * g.yw);
  GRID_STRIDE(i, (size_t)g.batch * per) {
    int64_t b = (int64_t)(i / per), r = (int64_t)(i % per);
    y[i] = pool_at(x, &g, b, r / g.yw, r % g.yw);
  }
}

template <typename T>
__global__ void conv_dx_kernel(gm_nn_geom g, const T *w, const T *yd, T *xd) {
  size_t per = (size_t)(g.xh * g.xw);
  GRID_STRIDE(i, (size_t)g.batch * per) {
    int64_t b = (int64_t)(i / per), r = (int64_t)(i % per);
    xd[i] += conv_dx_at(w, yd, &g, b, r / g.xw, r % g.xw);
  }
}

template <typename T>
__global__ void conv_dw_kernel(gm_nn_geom g, const T *x, const T *yd, T *wd) {
  size_t nk = (size_t)(g.kh * g.kw);
  GRID_STRIDE(i, nk * (size_t)g.batch) {
    int64_t b = (int64_t)(i / nk), k = (int64_t)(i % nk);
    atomicAdd(&wd[k], conv_dw_at(x, yd, &g, b, k / g.kw, k % g.kw));
  }
}

template <typename T>
__global__ void pool_dx_kernel(gm_nn_geom g, const T *x, const T *y, const T *yd, T *xd) {
  size_t per = (size_t)(g.xh * g.xw);
  GRID_STRIDE(i, (size_t)g.batch * per) {
    int64_t b = (int64_t)(i / per), r = (int64_t)(i % per);
    xd[i] += pool_dx_at(x, y, yd, &g, b, r / g.xw, r % g.xw);
  }
}

}  // namespace


extern "C" int gm_cuda_nn_convolve(int ctype, const gm_nn_geom *g, const void *x, const void *w, void *y,
                                   void *stream) {
  gm_launch l((size_t)(g->batch * g->yh * g->yw), stream);
  if (ctype == 0)
    convolve_kernel<float><<<l.grid, l.block, 0, l.s>>>(*g, CF(x), CF(w), F(y));
  else
    convolve_kernel<double><<<l.grid, l.block, 0, l.s>>>(*g, CD(x), CD(w), D(y));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_nn_derive_convolve(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *w,
                                          void *wd, const void *yd, void *stream) {
  gm_launch lx((size_t)(g->batch * g->xh * g->xw), stream);
  gm_launch lw((size_t)(g->kh * g->kw * g->batch), stream);
  if (ctype == 0) {
    conv_dx_kernel<float><<<lx.grid, lx.block, 0, lx.s>>>(*g, CF(w), CF(yd), F(xd));
    conv_dw_kernel<float><<<lw.grid, lw.block, 0, lw.s>>>(*g, CF(x), CF(yd), F(wd));
  } else {
    conv_dx_kernel<double><<<lx.grid, lx.block, 0, lx.s>>>(*g, CD(w), CD(yd), D(xd));
    conv_dw_kernel<double><<<lw.grid, lw.block, 0, lw.s>>>(*g, CD(x), CD(yd), D(wd));
  }
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_nn_max_pool(int ctype, const gm_nn_geom *g, const void *x, void *y, void *stream) {
  gm_launch l((size_t)(g->batch * g->yh * g->yw), stream);
  if (ctype == 0)
    max_pool_kernel<float><<<l.grid, l.block, 0, l.s>>>(*g, CF(x), F(y));
  else
    max_pool_kernel<double><<<l.grid, l.block, 0, l.s>>>(*g, CD(x), D(y));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_nn_derive_max_pool(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *y,
                                          const void *yd, void *stream) {
  gm_launch l((size_t)(g->batch * g->xh * g->xw), stream);
  if (ctype == 0)
    pool_dx_kernel<float><<<l.grid, l.block, 0, l.s>>>(*g, CF(x), CF(y), CF(yd), F(xd));
  else
    pool_dx_kernel<double><<<l.grid, l.block, 0, l.s>>>(*g, CD(x), CD(y), CD(yd), D(xd));
  return (int)cudaGetLastError();
}
