// Scans and the sort along an axis on the device (cumulative_sum,
// cumulative_prod, sort): one thread per line of (outer, inner), running
// the per-line functions of scan.h that the host loops run too, so both
// devices and the host give the same bits.  A scan of few long lines
// (the core's chunk > 0) runs scan.h's chunked passes instead: one thread
// per chunk folds it, one per line turns the totals into carries, one
// per chunk rescans it from its carry (three range launches).  Range launches (no barriers,
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
  __device__ T scan_total(int op, size_t a, size_t b, size_t inner, const T *x) {               \
    return gm_scan_total_##T(op, a, b, inner, x);                                               \
  }                                                                                             \
  __device__ void scan_carries(int op, size_t n, T *c) { gm_scan_carries_##T(op, n, c); }       \
  __device__ void scan_apply(int op, T acc, size_t a, size_t b, size_t inner, const T *x, T *y) { \
    gm_scan_apply_##T(op, acc, a, b, inner, x, y);                                              \
  }
GM_FLOAT_CTYPES(GM_CU_SCAN)
GM_CU_SCAN(uint64_t) // bool and integer mats' scans, widened by the core (scan.h)
#undef GM_CU_SCAN
#define GM_CU_SORT(T, ...)                                                                      \
  __device__ void sort_line(int desc, size_t len, size_t inner, const T *x, T *y, T *w) {         \
    gm_sort_line_##T(desc, len, inner, x, y, w);                                                \
  }
GM_FLOAT_CTYPES(GM_CU_SORT)
#undef GM_CU_SORT

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
GM_REAL_CTYPES(GM_CU_LINES)
#undef GM_CU_LINES

// Line i: x's axis has len elements, y's len + initial.
template <typename T>
__global__ void scan_kernel(int op, int initial, size_t lines, size_t len, size_t inner, const T *x, T *y) {
  GRID_STRIDE(i, lines) {
    scan_line(op, initial, len, inner, x + gm_scan_line_start(i, len, inner),
              y + gm_scan_line_start(i, len + initial, inner));
  }
}

// Long lines in chunks (scan.h's three passes): item i is chunk i % nc
// of line i / nc; c holds lines x nc totals, then carries.
template <typename T>
__global__ void scan_total_kernel(int op, size_t lines, size_t len, size_t inner, size_t chunk, const T *x, T *c) {
  const size_t nc = gm_scan_nchunks(len, chunk);
  GRID_STRIDE(i, lines * nc) {
    size_t k = i % nc;
    c[i] = scan_total(op, k * chunk, gm_scan_chunk_end(k, len, chunk), inner, x + gm_scan_line_start(i / nc, len, inner));
  }
}

template <typename T>
__global__ void scan_carry_kernel(int op, int initial, size_t lines, size_t len, size_t inner, size_t nc, T *c, T *y) {
  GRID_STRIDE(l, lines) {
    scan_carries(op, nc, c + l * nc);
    if (initial) y[gm_scan_line_start(l, len + 1, inner)] = op == GM_SCAN_SUM ? (T)0 : (T)1;
  }
}

template <typename T>
__global__ void scan_apply_kernel(int op, int initial, size_t lines, size_t len, size_t inner, size_t chunk,
                                  const T *x, const T *c, T *y) {
  const size_t nc = gm_scan_nchunks(len, chunk);
  GRID_STRIDE(i, lines * nc) {
    size_t k = i % nc, l = i / nc;
    scan_apply(op, c[i], k * chunk, gm_scan_chunk_end(k, len, chunk), inner, x + gm_scan_line_start(l, len, inner),
               y + gm_scan_line_start(l, len + initial, inner) + (size_t)initial * inner);
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


// The three passes of a chunked scan (chunk > 0), the chunk totals in a
// scratch of lines x chunks elements.  Launch texts name T (a macro, not
// a template) so the emulated device counts each ctype's kernels apart.
int scan_chunked(int ctype, int op, int initial, size_t lines, size_t len, size_t inner, size_t chunk, const void *x,
                 void *y, const gm_launch_ctx *lc) {
  const size_t nc = gm_scan_nchunks(len, chunk), items = lines * nc;
  const size_t esize = ctype == GM_UINT64 ? sizeof(uint64_t) : gm_ctype_bytes(ctype);
  void *c = NULL;
  int err = gm_scratch_alloc(lc, items * esize, &c);
  if (err != 0) return err;
  gm_launch l(items, lc->stream), m(lines, lc->stream);
#define PASSES(T)                                                                                                  \
  do {                                                                                                             \
    GM_LAUNCH_RANGE(scan_total_kernel<T>, l.grid, l.block, l.s, items, chunk)(op, lines, len, inner, chunk,        \
                                                                             (const T *)x, (T *)c);                \
    GM_LAUNCH_RANGE(scan_carry_kernel<T>, m.grid, m.block, m.s, lines, nc)(op, initial, lines, len, inner, nc,     \
                                                                          (T *)c, (T *)y);                         \
    GM_LAUNCH_RANGE(scan_apply_kernel<T>, l.grid, l.block, l.s, items, chunk)(op, initial, lines, len, inner, chunk, \
                                                                             (const T *)x, (const T *)c, (T *)y);  \
  } while (0)
  switch (ctype) { // float ctypes, and uint64 for bool and integer scans (widened by the core)
    GM_FLOAT_CTYPES_WITH(GM_CTYPE_DO_CASE_, PASSES)
    case GM_UINT64:
      PASSES(uint64_t);
      break;
    default:
      err = (int)cudaErrorInvalidValue;
  }
#undef PASSES
  if (err == 0) err = (int)cudaGetLastError();
  gm_scratch_free(lc, c);
  return err;
}

}  // namespace

// chunk 0: one thread per line; else the chunked passes (scan.h).
extern "C" int gm_cuda_scan_axis(int ctype, int op, int initial, size_t outer, size_t len, size_t inner, size_t chunk,
                                 const void *x, void *y, const gm_launch_ctx *lc) {
  const size_t lines = outer * inner;
  if (chunk > 0) return scan_chunked(ctype, op, initial, lines, len, inner, chunk, x, y, lc);
  gm_launch l(lines, lc->stream);
#define LAUNCH(T) \
  GM_LAUNCH_RANGE(scan_kernel<T>, l.grid, l.block, l.s, lines, len + 1)(op, initial, lines, len, inner, (const T *)x, (T *)y)
  switch (ctype) { // as scan_chunked
    GM_FLOAT_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    case GM_UINT64:
      LAUNCH(uint64_t);
      break;
    default:
      return (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
  return (int)cudaGetLastError();
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
    GM_REAL_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
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
  GM_REAL_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}
