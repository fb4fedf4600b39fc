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

// The index-carrying engine and the search, every ctype (scan.h).
#define GM_CU_LINES(T, E, ...)                                                                            \
  __device__ void lines_line(int op, int flag, size_t len, size_t inner, const T *x, T *y, int64_t *yi, T *wv, \
                             int64_t *wi) {                                                               \
    gm_lines_line_##E(op, flag, len, inner, x, y, yi, wv, wi);                                            \
  }                                                                                                       \
  __device__ void search_one(int mode, size_t n, const T *s, const int64_t *sorter, const T *v, size_t i,   \
                             void *out) {                                                                 \
    gm_search_one_##E(mode, n, s, sorter, v, i, out);                                                     \
  }
GM_CTYPES(GM_CU_LINES)
#undef GM_CU_LINES

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

// Bytes of one line's scratch: 2 len indices then 2 len values, rounded
// up to 8 so that the next line's indices stay aligned.
__host__ __device__ inline size_t gm_lines_scratch(size_t len, size_t esize) {
  return (2 * len * (esize + sizeof(int64_t)) + 7) / 8 * 8;
}

// Line i of the index-carrying engine: its scratch is 2 len indices then
// 2 len values (the indices' alignment is the strictest).
template <typename T>
__global__ void lines_kernel(int op, int flag, size_t lines, size_t len, size_t inner, const T *x, T *y, int64_t *yi,
                             char *w) {
  const size_t on = gm_lines_out_len(op, len), wb = gm_lines_scratch(len, sizeof(T));
  GRID_STRIDE(i, lines) {
    size_t s = gm_scan_line_start(i, len, inner), o = gm_scan_line_start(i, on, inner);
    int64_t *wi = w ? (int64_t *)(void *)(w + wb * i) : NULL;
    lines_line(op, flag, len, inner, x + s, y ? y + o : NULL, yi + o, wi ? (T *)(void *)(wi + 2 * len) : NULL, wi);
  }
}

template <typename T>
__global__ void search_kernel(int mode, size_t n, const T *s, const int64_t *sorter, size_t m, const T *v, void *out) {
  GRID_STRIDE(i, m) { search_one(mode, n, s, sorter, v, i, out); }
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

// Cumulative extremes need no scratch; the sorting ops 2 len (values and
// indices) per line, from the stream's scratch.
extern "C" int gm_cuda_lines_axis(int ctype, int op, int flag, size_t outer, size_t len, size_t inner, const void *x,
                                  void *y, int64_t *yi, const gm_launch_ctx *lc) {
  const size_t lines = gm_lines_count(op, outer, inner), esize = gm_ctype_bytes(ctype);
  if (esize == 0) return (int)cudaErrorInvalidValue;
  void *w = NULL;
  int err = op == GM_LINES_CUMEXT ? 0 : gm_scratch_alloc(lc, lines * gm_lines_scratch(len, esize), &w);
  if (err != 0) return err;
  gm_launch l(lines, lc->stream);
#define LAUNCH(T)                                                                                              \
  GM_LAUNCH_RANGE(lines_kernel<T>, l.grid, l.block, l.s, lines, 8 * len)(op, flag, lines, len, inner, (const T *)x, \
                                                                         (T *)y, yi, (char *)w)
  switch (ctype) {
    GM_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    default:
      err = (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
  if (err == 0) err = (int)cudaGetLastError();
  if (w) gm_scratch_free(lc, w);
  return err;
}

extern "C" int gm_cuda_search(int ctype, int mode, size_t n, const void *s, const int64_t *sorter, size_t m,
                              const void *v, void *out, const gm_launch_ctx *lc) {
  gm_launch l(m, lc->stream);
#define LAUNCH(T) \
  GM_LAUNCH_RANGE(search_kernel<T>, l.grid, l.block, l.s, m, 4 * (n + 1))(mode, n, (const T *)s, sorter, m, (const T *)v, out)
  GM_ANY_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}
