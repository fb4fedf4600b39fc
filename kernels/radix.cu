// The radix sort of the sorts along an axis on the device (kernels/radix.h;
// src/device/kernel_tables.h sends the sorting ops' lines of
// gm_sort_radix_min() elements or more here).  A few long lines, one after
// the other: per pass of 8 bits, the chunks' histograms (an item per
// chunk), the counts' scan (an item per digit, then one for the digits'
// bases) and the chunks' stable scatter (an item per chunk), all range
// launches of radix.h's functions, which the host runs too; then the
// sorted run written out (an item per element) or, for mode and unique,
// finished by one item.  Many lines stay with kernels/scan.cu's merge
// sort, a line per item: a whole-line radix sort per thread keeps 256
// counters per key byte in local memory (tools/suite.d/26-ptxas.sh
// refuses its spills).  The scratch comes from the launch's
// stream-ordered allocator.  Launchers return the cudaError_t of the
// launches.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "radix.h"
#include "select.h"

namespace {

#define GM_CU_RADIX(T, E, ...)                                                                                  \
  __device__ void chunk_hist(int desc, unsigned shift, size_t c, size_t chunk, size_t len, size_t st,           \
                             const T *src, size_t *cnt) {                                                       \
    gm_radix_chunk_hist_##E(desc, shift, c, chunk, len, st, src, cnt);                                          \
  }                                                                                                             \
  __device__ void chunk_scatter(int desc, unsigned shift, size_t c, size_t chunk, size_t len, size_t st,        \
                                const T *src, const int64_t *si, T *dv, int64_t *di, const size_t *cnt,         \
                                const size_t *tot) {                                                            \
    gm_radix_chunk_scatter_##E(desc, shift, c, chunk, len, st, src, si, dv, di, cnt, tot);                      \
  }                                                                                                             \
  __device__ void finish(int op, size_t len, size_t inner, const T *s, const int64_t *si, T *y, int64_t *yi) {  \
    gm_radix_finish_##E(op, len, inner, s, si, y, yi);                                                          \
  }                                                                                                             \
  __device__ void sel_chunk(int desc, size_t k, size_t c, size_t chunk, size_t len, size_t st, const T *x,       \
                            gm_sel_item *h, size_t *cnt) {                                                      \
    gm_sel_chunk_##E(desc, k, c, chunk, len, st, x, h, cnt);                                                    \
  }                                                                                                             \
  __device__ void sel_out(size_t k, const gm_sel_item *h, size_t st, const T *x, size_t inner, T *y,            \
                          int64_t *yi) {                                                                        \
    gm_sel_out_##E(k, h, st, x, inner, y, yi);                                                                  \
  }                                                                                                             \
  __device__ void sel_line(int desc, size_t k, size_t len, size_t inner, const T *x, T *y, int64_t *yi,         \
                           gm_sel_item *h) {                                                                    \
    gm_sel_line_##E(desc, k, len, inner, x, y, yi, h);                                                          \
  }
GM_REAL_CTYPES(GM_CU_RADIX)
#undef GM_CU_RADIX

template <typename T>
__global__ void radix_hist_kernel(int desc, unsigned shift, size_t nch, size_t chunk, size_t len, size_t st, const T *src,
                            size_t *cnt) {
  GRID_STRIDE(c, nch) { chunk_hist(desc, shift, c, chunk, len, st, src, cnt); }
}

__global__ void radix_digit_scan_kernel(size_t nch, size_t *cnt, size_t *tot) {
  GRID_STRIDE(d, (size_t)GM_RADIX_DIGITS) { gm_radix_digit_scan(d, nch, cnt, tot); }
}

__global__ void radix_bases_kernel(size_t *tot) {
  GRID_STRIDE(i, (size_t)1) { gm_radix_exclusive(tot, GM_RADIX_DIGITS); }
}

template <typename T>
__global__ void radix_scatter_kernel(int desc, unsigned shift, size_t nch, size_t chunk, size_t len, size_t st, const T *src,
                               const int64_t *si, T *dv, int64_t *di, const size_t *cnt, const size_t *tot) {
  GRID_STRIDE(c, nch) { chunk_scatter(desc, shift, c, chunk, len, st, src, si, dv, di, cnt, tot); }
}

// argsort's (and sort's) copy out: element k of the sorted run
template <typename T>
__global__ void radix_out_kernel(size_t len, size_t inner, const T *s, const int64_t *si, T *y, int64_t *yi) {
  GRID_STRIDE(k, len) {
    finish(GM_LINES_ARGSORT, 1, inner, s + k, si ? si + k : NULL, y ? y + k * inner : NULL, yi ? yi + k * inner : NULL);
  }
}

// mode and unique of the sorted run: one item
template <typename T>
__global__ void radix_finish_kernel(int op, size_t len, const T *s, const int64_t *si, T *y, int64_t *yi) {
  GRID_STRIDE(i, (size_t)1) { finish(op, len, 1, s, si, y, yi); }
}

// One long line x (stride inner) sorted into the scratch w (2 len values)
// and wi (2 len indices, or NULL), then written out to y/yi; cnt holds
// (nch + 1) x 256 counts.  Every pass runs (the host skips those of one
// digit; here that would need the counts back on the host): the sorted run
// ends at 0 for an odd number of passes, at len for an even one.
template <typename T>
void sort_long(int op, int desc, size_t len, size_t inner, size_t chunk, const T *x, T *y, int64_t *yi, T *w,
               int64_t *wi, size_t *cnt, void *s) {
  const size_t nch = gm_radix_chunks(len, chunk);
  size_t *tot = cnt + nch * GM_RADIX_DIGITS, o = 0, st = inner;
  const T *src = x;
  const int64_t *si = NULL;
  gm_launch gc(nch, s), gd(GM_RADIX_DIGITS, s), g1(1, s), ge(len, s);
  for (unsigned p = 0; p < sizeof(T); p++) {
    const unsigned shift = 8 * p;
    GM_LAUNCH_RANGE(radix_hist_kernel<T>, gc.grid, gc.block, gc.s, nch, chunk)(desc, shift, nch, chunk, len, st, src, cnt);
    GM_LAUNCH_RANGE(radix_digit_scan_kernel, gd.grid, gd.block, gd.s, GM_RADIX_DIGITS, nch)(nch, cnt, tot);
    GM_LAUNCH_RANGE(radix_bases_kernel, g1.grid, g1.block, g1.s, 1, GM_RADIX_DIGITS)(tot);
    GM_LAUNCH_RANGE(radix_scatter_kernel<T>, gc.grid, gc.block, gc.s, nch, 2 * chunk)(desc, shift, nch, chunk, len, st, src, si,
                                                                           w + o, wi ? wi + o : NULL, cnt, tot);
    src = w + o, si = wi ? wi + o : NULL, st = 1, o = len - o;
  }
  if (op == GM_LINES_ARGSORT)
    GM_LAUNCH_RANGE(radix_out_kernel<T>, ge.grid, ge.block, ge.s, len, 2)(len, inner, src, si, y, yi);
  else
    GM_LAUNCH_RANGE(radix_finish_kernel<T>, g1.grid, g1.block, g1.s, 1, 4 * len)(op, len, src, si, y, yi);
}

template <typename T>
int few_long(int op, int flag, size_t lines, size_t len, size_t inner, size_t chunk, const T *x, T *y, int64_t *yi,
             const gm_launch_ctx *lc) {
  const size_t nch = gm_radix_chunks(len, chunk), vb = (2 * len * sizeof(T) + 7) / 8 * 8;
  const size_t ib = yi ? 2 * len * sizeof(int64_t) : 0, on = gm_lines_out_len(op, len);
  void *w = NULL;
  int err = gm_scratch_alloc(lc, vb + ib + (nch + 1) * GM_RADIX_DIGITS * sizeof(size_t), &w);
  if (err != 0) return err;
  int64_t *wi = yi ? (int64_t *)(void *)((char *)w + vb) : NULL;
  size_t *cnt = (size_t *)(void *)((char *)w + vb + ib);
  for (size_t i = 0; i < lines; i++) {
    size_t s = gm_scan_line_start(i, len, inner), o = gm_scan_line_start(i, on, inner);
    sort_long<T>(op, op == GM_LINES_ARGSORT && flag, len, inner, chunk, x + s, y ? y + o : NULL, yi ? yi + o : NULL,
                 (T *)w, wi, cnt, lc->stream);
  }
  err = (int)cudaGetLastError();
  gm_scratch_free(lc, w);
  return err;
}

// ---- the selection of topk and kthvalue (kernels/select.h) ----

template <typename T>
__global__ void select_chunk_kernel(int desc, size_t k, size_t nch, size_t chunk, size_t len, size_t st, const T *x,
                                    gm_sel_item *h, size_t *cnt) {
  GRID_STRIDE(c, nch) { sel_chunk(desc, k, c, chunk, len, st, x, h, cnt); }
}

// the chunks' heaps merged and written out: one item
template <typename T>
__global__ void select_merge_kernel(size_t k, size_t nch, gm_sel_item *h, const size_t *cnt, size_t st, const T *x,
                                    T *y, int64_t *yi) {
  GRID_STRIDE(i, (size_t)1) {
    gm_sel_merge(k, nch, h, cnt);
    sel_out(k, h, st, x, st, y, yi);
  }
}

template <typename T>
__global__ void select_line_kernel(int desc, size_t k, size_t lines, size_t len, size_t inner, const T *x, T *y,
                                   int64_t *yi, gm_sel_item *h) {
  GRID_STRIDE(i, lines) {
    size_t s = gm_scan_line_start(i, len, inner), o = gm_scan_line_start(i, k, inner);
    sel_line(desc, k, len, inner, x + s, y + o, yi + o, h + k * i);
  }
}

template <typename T>
int select_lines(int desc, size_t k, size_t lines, size_t len, size_t inner, size_t chunk, const T *x, T *y,
                 int64_t *yi, const gm_launch_ctx *lc) {
  const bool few = lines <= GM_RADIX_FEW_LINES && len > chunk;
  const size_t nch = few ? gm_radix_chunks(len, chunk) : 0, items = few ? nch * k : lines * k;
  void *w = NULL;
  int err = gm_scratch_alloc(lc, items * sizeof(gm_sel_item) + nch * sizeof(size_t), &w);
  if (err != 0) return err;
  gm_sel_item *h = (gm_sel_item *)w;
  size_t *cnt = (size_t *)(void *)(h + items);
  gm_launch gc(few ? nch : lines, lc->stream), g1(1, lc->stream);
  for (size_t i = 0; few && i < lines; i++) {
    size_t s = gm_scan_line_start(i, len, inner), o = gm_scan_line_start(i, k, inner);
    GM_LAUNCH_RANGE(select_chunk_kernel<T>, gc.grid, gc.block, gc.s, nch, chunk)(desc, k, nch, chunk, len, inner,
                                                                                x + s, h, cnt);
    GM_LAUNCH_RANGE(select_merge_kernel<T>, g1.grid, g1.block, g1.s, 1, nch * k)(k, nch, h, cnt, inner, x + s, y + o,
                                                                               yi + o);
  }
  if (!few)
    GM_LAUNCH_RANGE(select_line_kernel<T>, gc.grid, gc.block, gc.s, lines, len)(desc, k, lines, len, inner, x, y, yi,
                                                                               h);
  err = (int)cudaGetLastError();
  gm_scratch_free(lc, w);
  return err;
}

}  // namespace

// topk / kthvalue's selection (gm_scan_ops' select): the first k of each
// line's stable sort of x (outer, len, inner) into y, yi (outer, k, inner).
extern "C" int gm_cuda_radix_select(int ctype, int desc, size_t k, size_t outer, size_t len, size_t inner,
                                    size_t chunk, const void *x, void *y, int64_t *yi, const gm_launch_ctx *lc) {
#define LAUNCH(T) return select_lines<T>(desc, k, outer * inner, len, inner, chunk, (const T *)x, (T *)y, yi, lc);
  switch (ctype) {
    GM_REAL_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    default:
      return (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
}

// The sorting ops of kernels/scan.h's index-carrying engine (argsort with
// flag descending, mode, unique) on the lines of x (outer, len, inner)
// into y and yi as gm_cuda_lines_axis; yi NULL: the values only (the sort
// of gm_cuda_sort_axis).  Lines longer than chunk, at most
// GM_RADIX_FEW_LINES of them (src/device/kernel_tables.h sends only
// those), sort in chunks.
extern "C" int gm_cuda_radix_lines(int ctype, int op, int flag, size_t outer, size_t len, size_t inner, size_t chunk,
                                   const void *x, void *y, int64_t *yi, const gm_launch_ctx *lc) {
  const size_t lines = outer * inner;
#define LAUNCH(T) return few_long<T>(op, flag, lines, len, inner, chunk, (const T *)x, (T *)y, yi, lc);
  switch (ctype) {
    GM_REAL_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    default:
      return (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
}
