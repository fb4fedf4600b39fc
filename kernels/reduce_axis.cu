// Reductions along an axis (m:sum(axis), m:argmax(axis), gm.softmax, ...)
// on the device: the array seen as (outer, len, inner) and reduced over the
// middle index (kernels/reduce_axis.h has the accumulators, shared with the
// host loops).  kernels/launch.h (gm_ax_plan) picks one of three forms:
//  ITEMS (reduce_axis_items, a range launch): item (split p, output q)
//    folds its part of column q serially; one split writes the results,
//    more leave partial accumulators for reduce_axis_merge.  Short rows
//    and many columns on a GPU; on the CPU model every case but SLOTS.
//  BLOCKS (reduce_axis_kernel): a block of AX_THREADS threads handles
//    `cols` columns at a time with `lanes` threads per column (cols *
//    lanes = AX_THREADS); lane l folds elements l, l + lanes, ... of its
//    column and the lanes are merged in shared memory (no warp shuffles,
//    so the CPU model runs the same code).  Loads stay coalesced:
//     rows (inner == 1): the lanes of a column are adjacent threads reading
//       adjacent elements of one row (up to 32 lanes, the whole block for
//       fewer than 8 rows);
//     columns (inner > 1): adjacent threads take adjacent columns,
//       pow2(inner) of them for inner < 32 (else 32), and the lanes split
//       the axis, so (1e6, 3) runs 64 lanes x 4 columns, 3 of 4 live.
//    Few outputs with a long axis also split the axis over blockIdx.y;
//    each split leaves partial accumulators in scratch, merged in split
//    order (gm_ax_merge is order-independent for ties) and, for softmax, a
//    third kernel writes the elements.
//  SLOTS (reduce_axis_slots): rows with few outputs and a long axis,
//    barrier-free slots of adjacent pieces, merged in levels.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "reduce_axis.h"
#include "elementwise.h" // gm_expf: float softmax exponentiates as the host does

namespace {

#define AX_THREADS GM_AX_THREADS

// y holds int64s for argmax/argmin (1-based indices), else T.
template <typename T>
__device__ inline void put(int op, void *y, size_t i, double v) {
  if (gm_ax_is_arg(op))
    ((long long *)y)[i] = (long long)v;
  else
    ((T *)y)[i] = (T)v;
}

// Folds elements k0, k0 + ks, ... < k1 of a column (element k at
// xc[k * step]) into c.  Sums fold with four independent accumulators
// (four loads in flight, no chain of dependent adds); the other ops step
// one element at a time.
template <typename T>
__device__ __forceinline__ void fold(int op, gm_axacc *c, const T *xc, size_t step, size_t k0, size_t k1, size_t ks) {
  size_t k = k0;
  if (op == GM_AX_SUM || op == GM_AX_MEAN) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (; k < k1 && k1 - k > 3 * ks; k += 4 * ks) {
      s0 += (double)xc[k * step];
      s1 += (double)xc[(k + ks) * step];
      s2 += (double)xc[(k + 2 * ks) * step];
      s3 += (double)xc[(k + 3 * ks) * step];
    }
    for (; k < k1; k += ks) s0 += (double)xc[k * step];
    c->a += (s0 + s1) + (s2 + s3);
  } else {
    for (; k < k1; k += ks) gm_ax_step(op, c, (double)xc[k * step], (long long)k);
  }
}

// Split over blockIdx.y: blocks with blockIdx.y = p fold axis elements
// [p * chunk, (p + 1) * chunk) of their columns; with `part` they leave
// their accumulators in part[p * outer * inner + q] for the merge kernel,
// else (one split) they write the results.
template <typename T>
__global__ void reduce_axis_kernel(int op, int ddof, size_t outer, size_t len, size_t inner, unsigned lanes,
                                   size_t chunk, const T *x, void *y, gm_axacc *part) {
  __shared__ gm_axacc sh[AX_THREADS];
  const bool rows = inner == 1;
  const unsigned cols = blockDim.x / lanes, t = threadIdx.x;
  const unsigned lane = rows ? t % lanes : t / cols, col = rows ? t / lanes : t % cols;
  const size_t tiles = ((rows ? outer : inner) + cols - 1) / cols;
  const size_t n_groups = rows ? tiles : outer * tiles;
  for (size_t g = blockIdx.x; g < n_groups; g += gridDim.x) {
    const size_t o = rows ? g * cols + col : g / tiles, j = rows ? 0 : (g % tiles) * cols + col;
    const bool live = rows ? o < outer : j < inner;
    const size_t base = o * len * inner + j; // element k of the column: base + k * inner
    // splits * chunk may pass len: a split that starts beyond folds nothing
    const size_t k0 = blockIdx.y * chunk < len ? blockIdx.y * chunk : len, k1 = len - k0 < chunk ? len : k0 + chunk;
    gm_axacc c = gm_ax_init(op);
    if (live) fold(op, &c, x + base, inner, k0 + lane, k1, lanes);
    sh[lane * cols + col] = c;
    __syncthreads();
    for (unsigned s = lanes / 2; s > 0; s /= 2) {
      if (lane < s) gm_ax_merge(op, &sh[lane * cols + col], sh[(lane + s) * cols + col]);
      __syncthreads();
    }
    c = sh[col];
    __syncthreads(); // sh is reused by the next group
    if (!live) continue;
    if (part) {
      if (lane == 0) part[blockIdx.y * outer * inner + o * inner + j] = c;
    } else if (op == GM_AX_SOFTMAX) {
      for (size_t k = lane; k < len; k += lanes) ((T *)y)[base + k * inner] = (T)gm_ax_softmax(c, (double)x[base + k * inner]);
    } else if (lane == 0) {
      put<T>(op, y, o * inner + j, gm_ax_result(op, c, (long long)len, ddof));
    }
  }
}

// Merges the n_split partial accumulators of each output in split order;
// writes the results, or for softmax the merged accumulator into part.
template <typename T>
__global__ void reduce_axis_merge(int op, int ddof, size_t n_out, size_t len, size_t n_split, gm_axacc *part,
                                  void *y) {
  for (size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x; q < n_out; q += (size_t)blockDim.x * gridDim.x) {
    gm_axacc c = part[q];
    for (size_t p = 1; p < n_split; p++) gm_ax_merge(op, &c, part[p * n_out + q]);
    if (op == GM_AX_SOFTMAX)
      part[q] = c;
    else
      put<T>(op, y, q, gm_ax_result(op, c, (long long)len, ddof));
  }
}

// Softmax elements of x (outer, len, inner) from the merged accumulators.
template <typename T>
__global__ void reduce_axis_softmax(size_t n, size_t len, size_t inner, const gm_axacc *acc, const T *x, T *y) {
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n; e += (size_t)blockDim.x * gridDim.x) {
    const size_t q = e / (len * inner) * inner + e % inner;
    y[e] = (T)gm_ax_softmax(acc[q], (double)x[e]);
  }
}

// exp in T's precision, as the host's softmax (src/host/reduce_axis_loops.h
// AX_EXP): float rounds its argument and takes the elementwise ops' exp.
template <typename T> __device__ __forceinline__ double ax_exp(double v) { return exp(v); }
template <> __device__ __forceinline__ double ax_exp<float>(double v) { return (double)gm_expf((float)v); }

// The max of a column (len > 0 elements, element k at xc[k * inner]) in
// *m; false when it is not finite (a NaN anywhere, an infinity).
template <typename T>
__device__ __forceinline__ bool finite_max(const T *xc, size_t len, size_t inner, double *m) {
  T mx = xc[0];
  bool nan = mx != mx;
  for (size_t k = 1; k < len; k++) {
    const T v = xc[k * inner];
    nan = nan || v != v;
    mx = v > mx ? v : mx;
  }
  *m = (double)mx;
  return !nan && *m - *m == 0; // isfinite's test without the header's overloads
}

// Softmax of a column from the online fold's accumulator (gm_ax_softmax):
// the path of columns whose max is not finite.  yc may be xc.
template <typename T>
__device__ void softmax_online(const T *xc, T *yc, size_t len, size_t inner) {
  gm_axacc c = gm_ax_init(GM_AX_SOFTMAX);
  fold(GM_AX_SOFTMAX, &c, xc, inner, 0, len, 1);
  for (size_t k = 0; k < len; k++) yc[k * inner] = (T)gm_ax_softmax(c, (double)xc[k * inner]);
}

// Softmax of one whole column (element k at xc[k * inner]) in passes, as
// the host computes it: the max, y := exp(x - max) in T, the sum of y in
// double, y / sum.  One exp per element where the online fold and
// gm_ax_softmax took two, in double (float softmax on the CPU model was
// 40 % libm's exp).  yc may be xc.  A column whose max is not finite takes
// softmax_online.  Rows (inner 1) go through reduce_axis_softmax_rows
// instead.
template <typename T>
__device__ void softmax_column(const T *xc, T *yc, size_t len, size_t inner) {
  double m;
  if (len == 0) return;
  if (!finite_max(xc, len, inner, &m)) {
    softmax_online(xc, yc, len, inner);
    return;
  }
  for (size_t k = 0; k < len; k++) yc[k * inner] = (T)ax_exp<T>((double)xc[k * inner] - m);
  double s = 0.0;
  for (size_t k = 0; k < len; k++) s += (double)yc[k * inner];
  for (size_t k = 0; k < len; k++) yc[k * inner] = (T)((double)yc[k * inner] / s);
}

// Rows r0..r1 of y (len each), which hold x - (their max): exponentiated
// in one loop over the whole span, then each divided by its sum in double.
template <typename T>
__device__ void softmax_span(T *y, size_t len, size_t r0, size_t r1) {
  T *ys = y + r0 * len;
  const size_t n = (r1 - r0) * len;
  for (size_t k = 0; k < n; k++) ys[k] = (T)ax_exp<T>((double)ys[k]);
  for (size_t r = r0; r < r1; r++) {
    T *yr = y + r * len;
    double s = 0.0;
    for (size_t k = 0; k < len; k++) s += (double)yr[k];
    for (size_t k = 0; k < len; k++) yr[k] = (T)((double)yr[k] / s);
  }
}

// Softmax of whole rows (inner 1, one split): item i takes `rows` adjacent
// rows (1 on a GPU, where a thread per row keeps a warp's rows adjacent;
// a span of about GM_AX_SOFTMAX_SPAN elements on the CPU model, whose
// vector exp over rows of ten classes left most lanes idle: an AVX-512
// clone ran all ten scalar).  Each row's max, then y := x - max (as T, the
// argument ax_exp rounds to anyway), exps over the span, sums and
// divisions per row: softmax_column's values.  A row whose max is not
// finite flushes the span before it and takes the online fold.  y may be
// x: a row is read before it is written.  len > 0.
template <typename T>
__global__ void reduce_axis_softmax_rows(size_t outer, size_t len, size_t rows, const T *x, T *y) {
  GRID_STRIDE(i, (outer + rows - 1) / rows) {
    const size_t r0 = i * rows, r1 = outer - r0 < rows ? outer : r0 + rows;
    size_t start = r0;
    for (size_t r = r0; r < r1; r++) {
      const T *xr = x + r * len;
      T *yr = y + r * len;
      double m;
      if (!finite_max(xr, len, 1, &m)) {
        softmax_span(y, len, start, r);
        softmax_online(xr, yr, len, 1);
        start = r + 1;
        continue;
      }
      for (size_t k = 0; k < len; k++) yr[k] = (T)((double)xr[k] - m);
    }
    softmax_span(y, len, start, r1);
  }
}

// ITEMS: item (split p, output q = (o, j)) folds elements [p * chunk,
// (p + 1) * chunk) of column q; with `part` it leaves the accumulator in
// part[p * n_out + q] for merge_parts, else (one split) it writes the
// result, for softmax every element of the column.  No division for one
// split or rows (inner 1), the common cases.
template <typename T>
__global__ void reduce_axis_items(int op, int ddof, size_t outer, size_t len, size_t inner, size_t chunk,
                                  size_t splits, const T *x, void *y, gm_axacc *part) {
  const size_t n_out = outer * inner;
  GRID_STRIDE(i, splits * n_out) {
    const size_t p = splits == 1 ? 0 : i / n_out, q = splits == 1 ? i : i % n_out;
    const size_t o = inner == 1 ? q : q / inner, j = inner == 1 ? 0 : q % inner;
    const size_t base = o * len * inner + j; // element k of the column: base + k * inner
    const T *xc = x + base;
    if (op == GM_AX_SOFTMAX && !part) { // one split: the whole column
      softmax_column(xc, (T *)y + base, len, inner);
      continue;
    }
    const size_t k0 = p * chunk < len ? p * chunk : len, k1 = len - k0 < chunk ? len : k0 + chunk; // (as above)
    gm_axacc c = gm_ax_init(op);
    fold(op, &c, xc, inner, k0, k1, 1);
    if (part)
      part[p * n_out + q] = c;
    else
      put<T>(op, y, q, gm_ax_result(op, c, (long long)len, ddof));
  }
}

// The type the tiles compare extremes in: T itself up to 4 bytes (exact
// in double, the same order and NaNs, and twice the lanes of a vector),
// double above, as gm_ax_step compares (int64 values past 2^53 tie there,
// and every device must pick the same index).
template <typename T, bool small = (sizeof(T) <= 4)> struct ax_cmp {
  typedef T type;
};
template <typename T> struct ax_cmp<T, false> {
  typedef double type;
};

// max/min/argmax/argmin of a whole tile (rows k0 .. k1 > k0 of its
// GM_AX_TILE columns at x + base), branch-free so that the CPU model's
// compares and selects vectorize (gm_ax_step's branches made argmax(1) of
// 1024x1024 17x the host): gm_ax_better's order, with k rising: the first
// element, then a strictly better value or the first NaN.
template <typename T>
__device__ __forceinline__ void tile_extremes(int op, const T *x, size_t base, size_t inner, size_t k0, size_t k1,
                                              gm_axacc *c) {
  typedef typename ax_cmp<T>::type C;
  const int mx = gm_ax_wants_max(op);
  C a[GM_AX_TILE];
  long long n[GM_AX_TILE];
#pragma unroll
  for (size_t j = 0; j < GM_AX_TILE; j++) a[j] = (C)x[base + k0 * inner + j], n[j] = (long long)k0;
  for (size_t k = k0 + 1; k < k1; k++)
#pragma unroll
    for (size_t j = 0; j < GM_AX_TILE; j++) {
      const C v = (C)x[base + k * inner + j];
      const bool t = (mx ? v > a[j] : v < a[j]) | ((v != v) & (a[j] == a[j]));
      a[j] = t ? v : a[j];
      n[j] = t ? (long long)k : n[j];
    }
#pragma unroll
  for (size_t j = 0; j < GM_AX_TILE; j++) c[j].a = (double)a[j], c[j].n = n[j];
}

// TILES (the CPU model's column reductions): item (split p, outer o, tile
// of GM_AX_TILE adjacent columns at j0) walks rows [p * chunk, ...) of its
// tile: a row's columns are adjacent, so sums become vector adds on a CPU
// (accumulators indexed by unrolled constants: registers under nvcc too).
// Partials (part) or, with one split, the results as reduce_axis_items.
template <typename T>
__global__ void reduce_axis_tiles(int op, int ddof, size_t outer, size_t len, size_t inner, size_t chunk,
                                  size_t splits, const T *x, void *y, gm_axacc *part) {
  const size_t tiles = (inner + GM_AX_TILE - 1) / GM_AX_TILE, n_items = outer * tiles, n_out = outer * inner;
  GRID_STRIDE(i, splits * n_items) {
    const size_t p = i / n_items, o = i % n_items / tiles, j0 = i % tiles * GM_AX_TILE;
    const size_t w = inner - j0 < GM_AX_TILE ? inner - j0 : GM_AX_TILE, base = o * len * inner + j0;
    const size_t k0 = p * chunk < len ? p * chunk : len, k1 = len - k0 < chunk ? len : k0 + chunk; // (as above)
    gm_axacc c[GM_AX_TILE];
#pragma unroll
    for (size_t j = 0; j < GM_AX_TILE; j++) c[j] = gm_ax_init(op);
    if (op == GM_AX_SUM || op == GM_AX_MEAN) {
      double a[GM_AX_TILE];
#pragma unroll
      for (size_t j = 0; j < GM_AX_TILE; j++) a[j] = 0.0;
      if (w == GM_AX_TILE) /* a whole tile: no test per column, so the CPU model's adds vectorize */
        for (size_t k = k0; k < k1; k++)
#pragma unroll
          for (size_t j = 0; j < GM_AX_TILE; j++) a[j] += (double)x[base + k * inner + j];
      else
        for (size_t k = k0; k < k1; k++)
#pragma unroll
          for (size_t j = 0; j < GM_AX_TILE; j++)
            if (j < w) a[j] += (double)x[base + k * inner + j];
#pragma unroll
      for (size_t j = 0; j < GM_AX_TILE; j++) c[j].a = a[j];
    } else if (gm_ax_is_extreme(op) && w == GM_AX_TILE && k0 < k1) {
      tile_extremes(op, x, base, inner, k0, k1, c);
    } else {
      for (size_t k = k0; k < k1; k++)
#pragma unroll
        for (size_t j = 0; j < GM_AX_TILE; j++)
          if (j < w) gm_ax_step(op, &c[j], (double)x[base + k * inner + j], (long long)k);
    }
#pragma unroll
    for (size_t j = 0; j < GM_AX_TILE; j++) {
      if (j >= w) continue;
      const size_t q = o * inner + j0 + j;
      if (part)
        part[p * n_out + q] = c[j];
      else if (op == GM_AX_SOFTMAX)
        for (size_t k = 0; k < len; k++) ((T *)y)[base + j + k * inner] = (T)gm_ax_softmax(c[j], (double)x[base + j + k * inner]);
      else
        put<T>(op, y, q, gm_ax_result(op, c[j], (long long)len, ddof));
    }
  }
}

// Rows (inner == 1) with few outputs and a long axis, barrier-free (a
// range launch): items (row o, slot t), `slots` slots per row; slot t
// folds pieces t, t + slots, ... of AX_PIECE adjacent elements, so a
// warp's threads read adjacent pieces (a few wide loads each) and, on the
// CPU model, a chunk of slots streams through a few contiguous runs.
#define AX_PIECE 16
template <typename T>
__device__ inline void fold_piece(int op, gm_axacc *c, const T *xr, size_t k0, size_t k1) {
  fold(op, c, xr, 1, k0, k1, 1);
}

template <typename T>
__global__ void reduce_axis_slots(int op, size_t outer, size_t len, size_t slots, const T *x, gm_axacc *part) {
  GRID_STRIDE(i, outer * slots) {
    const size_t o = i / slots, t = i % slots;
    const T *xr = x + o * len;
    gm_axacc c = gm_ax_init(op);
    for (size_t k = t * AX_PIECE; k < len; k += slots * AX_PIECE)
      fold_piece(op, &c, xr, k, len - k < AX_PIECE ? len : k + AX_PIECE);
    part[t * outer + o] = c;
  }
}

// One merge level of the slot partials: group g of output q merges
// partials g * AX_GROUP .. of q in order (n_in of them per output).
#define AX_GROUP 32
__global__ void reduce_axis_regroup(int op, size_t n_out, size_t n_in, const gm_axacc *in, gm_axacc *out) {
  const size_t n_groups = (n_in + AX_GROUP - 1) / AX_GROUP;
  GRID_STRIDE(i, n_out * n_groups) {
    const size_t g = i / n_out, q = i % n_out, end = n_in - g * AX_GROUP < AX_GROUP ? n_in : (g + 1) * AX_GROUP;
    gm_axacc c = in[g * AX_GROUP * n_out + q];
    for (size_t p = g * AX_GROUP + 1; p < end; p++) gm_ax_merge(op, &c, in[p * n_out + q]);
    out[g * n_out + q] = c;
  }
}

// The merge of n_parts partial accumulators per output, in order, into y,
// and for softmax the elements written from the merged accumulators.
// Shared by the split form and the slot form.
void merge_parts(int ctype, int op, int ddof, size_t n_out, size_t len, size_t inner, size_t n_parts,
                 gm_axacc *parts, const void *x, void *y, cudaStream_t s) {
  gm_launch m(n_out, s), w(n_out * len, s);
#define LAUNCH(T)                                                                                 \
  GM_LAUNCH(reduce_axis_merge<T>, m.grid, m.block, 0, s)(op, ddof, n_out, len, n_parts, parts, y); \
  if (op == GM_AX_SOFTMAX)                                                                        \
  GM_LAUNCH(reduce_axis_softmax<T>, w.grid, w.block, 0, s)(n_out * len, len, inner, parts, (const T *)x, (T *)y)
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
}

// The split form: partial accumulators in scratch (the device's
// stream-ordered scratch, launch_cuda.cuh), merged in split order, then
// (softmax) the elements written.
int launch_split(int ctype, int op, int ddof, size_t outer, size_t len, size_t inner, unsigned lanes, dim3 grid,
                 const void *x, void *y, const gm_launch_ctx *lc) {
  cudaStream_t s = (cudaStream_t)lc->stream;
  const size_t n_out = outer * inner, chunk = (len + grid.y - 1) / grid.y;
  gm_axacc *part = NULL;
  int err = gm_scratch_alloc(lc, (size_t)grid.y * n_out * sizeof *part, (void **)&part);
  if (err != 0) return err;
#define LAUNCH(T)                                       \
  GM_LAUNCH_SYNC(reduce_axis_kernel<T>, grid, AX_THREADS, 0, s) \
  (op, ddof, outer, len, inner, lanes, chunk, (const T *)x, y, part)
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
  merge_parts(ctype, op, ddof, n_out, len, inner, (size_t)grid.y, part, x, y, s);
  err = (int)cudaGetLastError();
  gm_scratch_free(lc, part);
  return err;
}

// Slots per row: about AX_SLOT_PIECES pieces each, at most AX_MAX_SLOTS
// items in all (beyond that a slot folds more pieces).
#define AX_SLOT_PIECES 8
#define AX_MAX_SLOTS (1024 * 256)
size_t slots_for(size_t outer, size_t len) {
  size_t slots = (len + AX_PIECE * AX_SLOT_PIECES - 1) / (AX_PIECE * AX_SLOT_PIECES), most = AX_MAX_SLOTS / outer;
  if (slots > most) slots = most;
  return slots ? slots : 1;
}

// Slot partials per output at each merge level, summed: the scratch size.
size_t slot_scratch(size_t slots) {
  size_t total = slots;
  for (size_t n = slots; n > AX_GROUP; n = (n + AX_GROUP - 1) / AX_GROUP) total += (n + AX_GROUP - 1) / AX_GROUP;
  return total;
}

// The barrier-free form for rows: slot partials, merge levels down to at
// most AX_GROUP per output, the last merge in order (and for softmax the
// elements written from the merged accumulators).
int launch_slots(int ctype, int op, int ddof, size_t outer, size_t len, const void *x, void *y, const gm_launch_ctx *lc) {
  cudaStream_t s = (cudaStream_t)lc->stream;
  size_t slots = slots_for(outer, len);
  gm_axacc *part = NULL;
  int err = gm_scratch_alloc(lc, slot_scratch(slots) * outer * sizeof *part, (void **)&part);
  if (err != 0) return err;
  gm_launch l(outer * slots, s);
#define LAUNCH(T)                                                                                       \
  GM_LAUNCH_RANGE(reduce_axis_slots<T>, l.grid, l.block, s, outer * slots, (double)len / (double)slots) \
  (op, outer, len, slots, (const T *)x, part)
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
  gm_axacc *in = part;
  for (; slots > AX_GROUP; slots = (slots + AX_GROUP - 1) / AX_GROUP) {
    gm_axacc *out = in + slots * outer;
    const size_t items = outer * ((slots + AX_GROUP - 1) / AX_GROUP);
    gm_launch g(items, s);
    GM_LAUNCH_RANGE(reduce_axis_regroup, g.grid, g.block, s, items, AX_GROUP)(op, outer, slots, in, out);
    in = out;
  }
  merge_parts(ctype, op, ddof, outer, len, 1, slots, in, x, y, s);
  err = (int)cudaGetLastError();
  gm_scratch_free(lc, part);
  return err;
}

// The ITEMS and TILES forms: one split writes the results, more leave
// partials in scratch for merge_parts.
int launch_items(int ctype, int op, int ddof, size_t outer, size_t len, size_t inner, size_t splits, bool tiled,
                 const void *x, void *y, const gm_launch_ctx *lc) {
  cudaStream_t s = (cudaStream_t)lc->stream;
  if (op == GM_AX_SOFTMAX && splits == 1 && inner == 1 && len > 0) {
    const size_t rows = gm_ax_softmax_rows(outer, len, lc->cpu_model), n_items = (outer + rows - 1) / rows;
    gm_launch r(n_items, s);
#define LAUNCH(T)                                                                                              \
  GM_LAUNCH_RANGE(reduce_axis_softmax_rows<T>, r.grid, r.block, s, n_items, 3.0 * (double)rows * (double)len) \
  (outer, len, rows, (const T *)x, (T *)y)
    GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
    return (int)cudaGetLastError();
  }
  const size_t n_out = outer * inner, chunk = splits > 1 ? (len + splits - 1) / splits : len;
  const size_t width = tiled ? (inner < GM_AX_TILE ? inner : GM_AX_TILE) : 1;
  const size_t items = splits * (tiled ? outer * ((inner + GM_AX_TILE - 1) / GM_AX_TILE) : n_out);
  gm_axacc *part = NULL;
  if (splits > 1) {
    int err = gm_scratch_alloc(lc, splits * n_out * sizeof *part, (void **)&part);
    if (err != 0) return err;
  }
  gm_launch l(items, s);
  const double work = (double)(chunk ? chunk : 1) * (double)width * (op == GM_AX_SOFTMAX && splits == 1 ? 3.0 : 1.0);
#define LAUNCH(T)                                                                                 \
  if (tiled)                                                                                      \
    GM_LAUNCH_RANGE(reduce_axis_tiles<T>, l.grid, l.block, s, items, work)                        \
    (op, ddof, outer, len, inner, chunk, splits, (const T *)x, y, part);                          \
  else                                                                                            \
    GM_LAUNCH_RANGE(reduce_axis_items<T>, l.grid, l.block, s, items, work)                        \
    (op, ddof, outer, len, inner, chunk, splits, (const T *)x, y, part)
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
  if (!part) return (int)cudaGetLastError();
  merge_parts(ctype, op, ddof, n_out, len, inner, splits, part, x, y, s);
  int err = (int)cudaGetLastError();
  gm_scratch_free(lc, part);
  return err;
}

// Bool and integer mats (sum, prod, max, min, argmax, argmin): item (p,
// q) folds part p (elements [p * chunk, (p + 1) * chunk)) of column q
// exactly (gm_axint of reduce_axis.h, as the host); with one split it
// writes the result, else its partial accumulator for
// reduce_axis_int_merge, which merges them in order.  y: the wrapped
// int64/uint64 sum or product, the extreme as T, or the int64 index.
template <typename T>
__device__ inline void put_int(int op, void *y, size_t q, gm_axint c) {
  const unsigned long long r = gm_axi_result(op, c);
  if (op == GM_AX_MAX || op == GM_AX_MIN)
    ((T *)y)[q] = (T)r;
  else
    ((unsigned long long *)y)[q] = r;
}

template <typename T>
__global__ void reduce_axis_int(int op, int uns, size_t outer, size_t len, size_t inner, size_t chunk, size_t splits,
                                const T *x, void *y, gm_axint *part) {
  const size_t n_out = outer * inner;
  GRID_STRIDE(i, splits * n_out) {
    const size_t p = i / n_out, q = i % n_out;
    const T *xc = x + q / inner * len * inner + q % inner;
    const size_t k0 = p * chunk < len ? p * chunk : len, k1 = len - k0 < chunk ? len : k0 + chunk;
    gm_axint c = gm_axi_init(op);
    for (size_t k = k0; k < k1; k++) gm_axi_step(op, uns, &c, (unsigned long long)xc[k * inner], (long long)k);
    if (part)
      part[p * n_out + q] = c;
    else
      put_int<T>(op, y, q, c);
  }
}

template <typename T>
__global__ void reduce_axis_int_merge(int op, int uns, size_t n_out, size_t splits, const gm_axint *part, void *y) {
  GRID_STRIDE(q, n_out) {
    gm_axint c = part[q];
    for (size_t p = 1; p < splits; p++) gm_axi_merge(op, uns, &c, part[p * n_out + q]);
    put_int<T>(op, y, q, c);
  }
}

#define AXI_UNS_CASE_(T, E, name, kw, p, P, ET, S, npy, st, dig, mpi, nccl, kind, ...) \
  case GM_##E:                                                                          \
    return (kind) == GM_KIND_UINT;
#define AXI_FLOAT_CASE_(T, E, ...) \
  case GM_##E:                     \
    return 1;
int ctype_is_float(int ctype) {
  switch (ctype) {
    GM_FLOAT_CTYPES(AXI_FLOAT_CASE_)
    default: return 0;
  }
}
int ctype_is_unsigned(int ctype) {
  switch (ctype) {
    GM_INTEGER_CTYPES(AXI_UNS_CASE_)
    default: return 0;
  }
}

// Few outputs with a long axis (the whole-mat forms: one output) split
// the axis into parts of at least AXI_CHUNK elements, at most AXI_ITEMS
// items in all, so a GPU has threads to run.
#define AXI_CHUNK 1024
#define AXI_ITEMS ((size_t)1 << 16)
int launch_int(int ctype, int op, size_t outer, size_t len, size_t inner, const void *x, void *y,
               const gm_launch_ctx *lc) {
  if (op == GM_AX_MEAN || op == GM_AX_VAR || op == GM_AX_STD || gm_ax_is_lse(op)) return (int)cudaErrorInvalidValue;
  cudaStream_t s = (cudaStream_t)lc->stream;
  const int uns = ctype_is_unsigned(ctype);
  const size_t n_out = outer * inner, most = AXI_ITEMS / n_out;
  size_t splits = (len + AXI_CHUNK - 1) / AXI_CHUNK;
  if (splits > most) splits = most;
  if (splits < 1) splits = 1;
  const size_t chunk = (len + splits - 1) / splits;
  gm_axint *part = NULL;
  if (splits > 1) {
    int err = gm_scratch_alloc(lc, splits * n_out * sizeof *part, (void **)&part);
    if (err != 0) return err;
  }
  gm_launch l(splits * n_out, s), m(n_out, s);
#define LAUNCH(T)                                                                                       \
  GM_LAUNCH_RANGE(reduce_axis_int<T>, l.grid, l.block, s, splits * n_out, (double)chunk)                \
  (op, uns, outer, len, inner, chunk, splits, (const T *)x, y, part);                                   \
  if (part) GM_LAUNCH_RANGE(reduce_axis_int_merge<T>, m.grid, m.block, s, n_out, (double)splits)        \
  (op, uns, n_out, splits, part, y)
  int err = 0;
  switch (ctype) {
    GM_BOOL_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    GM_INTEGER_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    default: err = (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
  if (err == 0) err = (int)cudaGetLastError();
  if (part) gm_scratch_free(lc, part);
  return err;
}

}  // namespace

// y := the reduction op of x (outer, len, inner) over len: outer * inner
// elements (softmax: x's shape), of ctype `ctype`, or int64 for
// argmax/argmin (bool and integer sums and products: int64/uint64).
// outer * inner > 0.
extern "C" int gm_cuda_reduce_axis(int ctype, int op, int ddof, size_t outer, size_t len, size_t inner,
                                   const void *x, void *y, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  cudaStream_t s = (cudaStream_t)stream;
  if (!ctype_is_float(ctype)) return launch_int(ctype, op, outer, len, inner, x, y, lc);
  const gm_ax_geom g = gm_ax_plan(outer, len, inner, lc->cpu_model);
  if (g.form == GM_AX_FORM_ITEMS || g.form == GM_AX_FORM_TILES)
    return launch_items(ctype, op, ddof, outer, len, inner, g.splits, g.form == GM_AX_FORM_TILES, x, y, lc);
  if (g.form == GM_AX_FORM_SLOTS) return launch_slots(ctype, op, ddof, outer, len, x, y, lc);
  const dim3 grid(g.grid_x, g.grid_y);
  if (grid.y > 1) return launch_split(ctype, op, ddof, outer, len, inner, g.lanes, grid, x, y, lc);
#define LAUNCH(T)                                             \
  GM_LAUNCH_SYNC(reduce_axis_kernel<T>, grid, AX_THREADS, 0, s) \
  (op, ddof, outer, len, inner, g.lanes, len, (const T *)x, y, (gm_axacc *)NULL)
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

