// Scans and the sort along an axis on the device (cumulative_sum,
// cumulative_prod, sort): one thread per line of (outer, inner), running
// the per-line functions of scan.h that the host loops run too, so both
// devices and the host give the same bits.  Range launches (no barriers,
// no thread reads another's line).  The sort is a stable bottom-up merge
// sort per line in a scratch of 2 * len elements per line: simple and
// correct for any line length; a long line is sorted by one thread (no
// segmented CUB sort yet: the emulated device could not run it).
// Launchers return the cudaError_t of the launch.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "scan.h"

namespace {

#define GM_CU_SCAN(T, ...)                                                                      \
  __device__ void scan_line(int op, int initial, size_t len, size_t inner, const T *x, T *y) {    \
    gm_scan_line_##T(op, initial, len, inner, x, y);                                            \
  }                                                                                             \
  __device__ void sort_line(int desc, size_t len, size_t inner, const T *x, T *y, T *w) {         \
    gm_sort_line_##T(desc, len, inner, x, y, w);                                                \
  }
GM_FLOAT_CTYPES(GM_CU_SCAN)
#undef GM_CU_SCAN
// bool and integer mats' scans, widened by the core (scan.h)
__device__ void scan_line(int op, int initial, size_t len, size_t inner, const uint64_t *x, uint64_t *y) {
  gm_scan_line_uint64_t(op, initial, len, inner, x, y);
}

// Line i: x's axis has len elements, y's len + initial.
template <typename T>
__global__ void scan_kernel(int op, int initial, size_t lines, size_t len, size_t inner, const T *x, T *y) {
  GRID_STRIDE(i, lines) {
    scan_line(op, initial, len, inner, x + gm_scan_line_start(i, len, inner),
              y + gm_scan_line_start(i, len + initial, inner));
  }
}

template <typename T>
__global__ void sort_kernel(int desc, size_t lines, size_t len, size_t inner, const T *x, T *y, T *w) {
  GRID_STRIDE(i, lines) {
    size_t start = gm_scan_line_start(i, len, inner);
    sort_line(desc, len, inner, x + start, y + start, w + 2 * len * i);
  }
}

// A switch over the float ctypes only (scan.h): others get
// cudaErrorInvalidValue.
#define GM_FLOAT_CTYPE_LAUNCH_(ctype, L)                   \
  switch (ctype) {                                        \
    GM_FLOAT_CTYPES_WITH(GM_CTYPE_DO_CASE_, L)            \
    default:                                              \
      return (int)cudaErrorInvalidValue;                  \
  }                                                       \
  return (int)cudaGetLastError()

}  // namespace

extern "C" int gm_cuda_scan_axis(int ctype, int op, int initial, size_t outer, size_t len, size_t inner,
                                 const void *x, void *y, const gm_launch_ctx *lc) {
  const size_t lines = outer * inner;
  gm_launch l(lines, lc->stream);
#define LAUNCH(T) \
  GM_LAUNCH_RANGE(scan_kernel<T>, l.grid, l.block, l.s, lines, len + 1)(op, initial, lines, len, inner, (const T *)x, (T *)y)
  if (ctype == GM_UINT64) { // int64 and uint64 mats of bool and integer scans (the core passes uint64)
    LAUNCH(uint64_t);
    return (int)cudaGetLastError();
  }
  GM_FLOAT_CTYPE_LAUNCH_(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_sort_axis(int ctype, int desc, size_t outer, size_t len, size_t inner, const void *x, void *y,
                                 const gm_launch_ctx *lc) {
  const size_t lines = outer * inner, esize = gm_ctype_bytes(ctype);
  if (esize == 0) return (int)cudaErrorInvalidValue;
  void *w = NULL;
  int err = gm_scratch_alloc(lc, 2 * lines * len * esize, &w);
  if (err != 0) return err;
  gm_launch l(lines, lc->stream);
#define LAUNCH(T)                                                                           \
  GM_LAUNCH_RANGE(sort_kernel<T>, l.grid, l.block, l.s, lines, 8 * len)(desc, lines, len, inner, (const T *)x, \
                                                                        (T *)y, (T *)w)
  switch (ctype) { // float ctypes only (gm_ctype_bytes was nonzero: one of them today)
    GM_FLOAT_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    default:
      err = (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
  if (err == 0) err = (int)cudaGetLastError();
  gm_scratch_free(lc, w);
  return err;
}
