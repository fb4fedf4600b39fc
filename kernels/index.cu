// The gather/scatter engine of the indexing forms on the device
// (index.h): a gather moves elements by their offsets, one thread per
// result element, by element size (it only copies bits); a scatter runs
// one thread per written element (a run of index.h), so no two threads
// write one element and no atomics are needed: duplicates combine in
// index order, the same bits as the host for every ctype and mode.
// Range launches (no barriers, no thread reads another's result).
// Launchers return the cudaError_t of the launch.
#include <cuda_runtime.h>

#include "index.h"
#include "launch_cuda.cuh"

namespace {

template <typename U>
__global__ void index_gather_kernel(size_t n, const U *x, const int64_t *off, U *y) {
  GRID_STRIDE(i, n) { y[i] = x[off[i]]; }
}

#define GM_CU_INDEX(T, ...)                                                                              \
  __device__ void scatter_run(int mode, size_t r, const int64_t *dst, const int64_t *start,               \
                              const int64_t *spos, const T *src, T *y) {                                  \
    gm_index_scatter_run_##T(mode, r, dst, start, spos, src, y);                                          \
  }
GM_CTYPES(GM_CU_INDEX)
#undef GM_CU_INDEX

template <typename T>
__global__ void index_scatter_kernel(int mode, size_t runs, const int64_t *dst, const int64_t *start,
                                     const int64_t *spos, const T *src, T *y) {
  GRID_STRIDE(r, runs) { scatter_run(mode, r, dst, start, spos, src, y); }
}

}  // namespace

extern "C" int gm_cuda_index_gather(int ctype, size_t n, const void *x, const int64_t *off, void *y,
                                    const gm_launch_ctx *lc) {
  gm_launch l(n, lc->stream);
#define LAUNCH(U) \
  GM_LAUNCH_RANGE(index_gather_kernel<U>, l.grid, l.block, l.s, n, 1)(n, (const U *)x, off, (U *)y)
  switch (gm_ctype_bytes(ctype)) {
    case 1:
      LAUNCH(uint8_t);
      break;
    case 2:
      LAUNCH(uint16_t);
      break;
    case 4:
      LAUNCH(uint32_t);
      break;
    case 8:
      LAUNCH(uint64_t);
      break;
    default:
      return (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_index_scatter(int ctype, int mode, size_t runs, const int64_t *dst, const int64_t *start,
                                     const int64_t *spos, const void *src, void *y, const gm_launch_ctx *lc) {
  gm_launch l(runs, lc->stream);
#define LAUNCH(T)                                                                                 \
  GM_LAUNCH_RANGE(index_scatter_kernel<T>, l.grid, l.block, l.s, runs, 2)(mode, runs, dst, start, spos, \
                                                                          (const T *)src, (T *)y)
  switch (ctype) {
    GM_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    default:
      return (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
  return (int)cudaGetLastError();
}
