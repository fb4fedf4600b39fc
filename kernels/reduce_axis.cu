// Reductions along an axis (m:sum(axis), m:argmax(axis), gm.softmax, ...)
// on the device: one kernel for every axis and op, on the array seen as
// (outer, len, inner) and reduced over the middle index (kernels/
// reduce_axis.h has the accumulators, shared with the host loops).
//
// A block of AX_THREADS threads handles `cols` columns (outputs) at a
// time with `lanes` threads per column (cols * lanes = AX_THREADS); lane l
// folds elements l, l + lanes, ... of its column and the lanes are merged
// in shared memory (no warp shuffles, so the CPU model of the emulated
// device runs the same code).  Two mappings keep the loads coalesced:
//  rows (inner == 1): the lanes of a column are adjacent threads reading
//    adjacent elements of one row; up to 32 lanes (a warp per row), so a
//    block covers several short rows;
//  columns (inner > 1): adjacent threads take adjacent columns (adjacent
//    elements of a row of the (len, inner) slab), 32 of them, and the 8
//    lanes split the axis.
// Softmax writes every element of its column after the merge.
// Few outputs with a long axis (a whole-mat reduction is one output) would
// leave most of the device idle: the axis is then also split over
// blockIdx.y, each split leaves partial accumulators in scratch, a second
// kernel merges them in split order (gm_ax_merge is order-independent for
// ties) and, for softmax, a third writes the elements.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "reduce_axis.h"

namespace {

#define AX_THREADS 256

// y holds doubles for argmax/argmin (1-based indices), else T.
template <typename T>
__device__ inline void put(int op, void *y, size_t i, double v) {
  if (gm_ax_is_arg(op))
    ((double *)y)[i] = v;
  else
    ((T *)y)[i] = (T)v;
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
    const size_t k0 = blockIdx.y * chunk, k1 = len - k0 < chunk ? len : k0 + chunk;
    gm_axacc c = gm_ax_init(op);
    if (live)
      for (size_t k = k0 + lane; k < k1; k += lanes) gm_ax_step(op, &c, (double)x[base + k * inner], (long long)k);
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

// Rows (inner == 1) with few outputs and a long axis, barrier-free (a
// range launch): items (row o, slot t), `slots` slots per row; slot t
// folds pieces t, t + slots, ... of AX_PIECE adjacent elements, so a
// warp's threads read adjacent pieces (a few wide loads each) and, on the
// CPU model, a chunk of slots streams through a few contiguous runs.
// Sums fold a piece with four accumulators (no chain of dependent adds).
#define AX_PIECE 16
template <typename T>
__device__ inline void fold_piece(int op, gm_axacc *c, const T *xr, size_t k0, size_t k1) {
  if (op == GM_AX_SUM || op == GM_AX_MEAN) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    size_t k = k0;
    for (; k1 - k >= 4; k += 4) {
      s0 += (double)xr[k];
      s1 += (double)xr[k + 1];
      s2 += (double)xr[k + 2];
      s3 += (double)xr[k + 3];
    }
    for (; k < k1; k++) s0 += (double)xr[k];
    c->a += (s0 + s1) + (s2 + s3);
  } else {
    for (size_t k = k0; k < k1; k++) gm_ax_step(op, c, (double)xr[k], (long long)k);
  }
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

// Lanes per column: up to a warp along a row (inner == 1; the whole block
// for fewer than 8 rows), else 8 (the 32 adjacent columns of a block take
// the rest of its threads).
unsigned lanes_for(size_t outer, size_t len, size_t inner) {
  if (inner != 1) return AX_THREADS / 32;
  unsigned rows = 1, most = 32, lanes = 1;
  while (rows < outer && rows < 8) rows *= 2;
  if (AX_THREADS / rows > most) most = AX_THREADS / rows; // few rows: the whole block on them
  while (lanes < most && lanes < len) lanes *= 2;
  return lanes;
}

// Blocks along the outputs (x) and splits of the axis (y): a long axis
// with few outputs (a whole-mat reduction is one) is split so that about
// AX_TARGET_BLOCKS blocks share the work, each fold at least AX_MIN_CHUNK
// elements of a column.
#define AX_TARGET_BLOCKS 512
#define AX_MIN_CHUNK 65536
dim3 grid_for(size_t outer, size_t len, size_t inner, unsigned lanes) {
  const unsigned cols = AX_THREADS / lanes;
  const size_t tiles = ((inner == 1 ? outer : inner) + cols - 1) / cols;
  const size_t n_groups = inner == 1 ? tiles : outer * tiles;
  dim3 g(n_groups < GM_MAX_GRID ? (unsigned)n_groups : GM_MAX_GRID);
  if (n_groups < AX_TARGET_BLOCKS) {
    size_t want = (AX_TARGET_BLOCKS + n_groups - 1) / n_groups, most = (len + AX_MIN_CHUNK - 1) / AX_MIN_CHUNK;
    size_t splits = want < most ? want : most;
    g.y = splits < 1 ? 1 : splits > GM_MAX_GRID ? GM_MAX_GRID : (unsigned)splits;
  }
  return g;
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
                 const void *x, void *y, cudaStream_t s) {
  const size_t n_out = outer * inner, chunk = (len + grid.y - 1) / grid.y;
  gm_axacc *part = NULL;
  int err = gm_cuda_scratch_alloc(s, (size_t)grid.y * n_out * sizeof *part, (void **)&part);
  if (err != 0) return err;
#define LAUNCH(T)                                       \
  GM_LAUNCH_SYNC(reduce_axis_kernel<T>, grid, AX_THREADS, 0, s) \
  (op, ddof, outer, len, inner, lanes, chunk, (const T *)x, y, part)
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
  merge_parts(ctype, op, ddof, n_out, len, inner, (size_t)grid.y, part, x, y, s);
  err = (int)cudaGetLastError();
  gm_cuda_scratch_free(s, part);
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
int launch_slots(int ctype, int op, int ddof, size_t outer, size_t len, const void *x, void *y, cudaStream_t s) {
  size_t slots = slots_for(outer, len);
  gm_axacc *part = NULL;
  int err = gm_cuda_scratch_alloc(s, slot_scratch(slots) * outer * sizeof *part, (void **)&part);
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
  gm_cuda_scratch_free(s, part);
  return err;
}

}  // namespace

// y := the reduction op of x (outer, len, inner) over len: outer * inner
// elements (softmax: x's shape), of ctype `ctype`, or double for
// argmax/argmin.  outer * inner > 0.
extern "C" int gm_cuda_reduce_axis(int ctype, int op, int ddof, size_t outer, size_t len, size_t inner,
                                   const void *x, void *y, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  const unsigned lanes = lanes_for(outer, len, inner);
  const dim3 grid = grid_for(outer, len, inner, lanes);
  if (grid.y > 1 && inner == 1) // rows: the barrier-free slot form
    return launch_slots(ctype, op, ddof, outer, len, x, y, s);
  if (grid.y > 1) return launch_split(ctype, op, ddof, outer, len, inner, lanes, grid, x, y, s);
#define LAUNCH(T)                                             \
  GM_LAUNCH_SYNC(reduce_axis_kernel<T>, grid, AX_THREADS, 0, s) \
  (op, ddof, outer, len, inner, lanes, len, (const T *)x, y, (gm_axacc *)NULL)
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}
