// CUDA kernel of the integer and bool matrix products (kernels/imatmul.h)
// and its extern "C" launcher (also run by the emulated device): one
// thread per element of c in a grid-stride loop, adjacent threads on
// adjacent columns (y's row reads coalesce; x's row is shared by a warp).
// The element function is the one the host's rows agree with.
#include <cuda_runtime.h>

#include "imatmul.h"
#include "launch_cuda.cuh"

#define GM_IMM_KERNEL_(N, L, E, W, B)                                                                   \
  __global__ void gm_imatmul_kernel_##N(size_t n, int64_t p, int64_t q, int64_t r, const L *x, const L *y, \
                                        L *c) {                                                         \
    GRID_STRIDE(k, n) {                                                                                 \
      const int64_t j = (int64_t)k % r, t = (int64_t)k / r, b = t / p;                                  \
      c[k] = gm_imm_dot_##N(x + t * q, 1, y + b * q * r + j, r, q);                                     \
    }                                                                                                   \
  }
GM_IMM_ROWS(GM_IMM_KERNEL_)
#undef GM_IMM_KERNEL_

extern "C" int gm_cuda_imatmul(int ctype, size_t batch, size_t p, size_t q, size_t r, const void *x, const void *y,
                               void *c, const gm_launch_ctx *lc) {
  const size_t n = batch * p * r;
  if (n == 0) return 0;
  gm_launch l(n, lc->stream);
  switch (ctype) {
#define GM_IMM_CASE_(N, L, E, W, B)                                                                         \
  case GM_##E:                                                                                             \
    GM_LAUNCH_RANGE(gm_imatmul_kernel_##N, l.grid, l.block, l.s, n, q > 0 ? q : 1)(                         \
        n, (int64_t)p, (int64_t)q, (int64_t)r, (const L *)x, (const L *)y, (L *)c);                         \
    break;
    GM_IMM_ROWS(GM_IMM_CASE_)
#undef GM_IMM_CASE_
    default: return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}
