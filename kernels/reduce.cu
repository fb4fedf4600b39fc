// Whole-array reductions (core/ops/reduce_ops.h) on the device: sum in double,
// min and max with NaN propagation (any NaN element gives NaN, as on the
// host).  Range launches only (no barriers, no shared memory) and one
// scratch array (the caller's allocator, gm_scratch_alloc) of partials:
//  - reduce_pass: slot t folds pieces t, t + slots, ... of REDUCE_PIECE
//    adjacent elements (a warp reads adjacent pieces: whole sectors; a
//    chunk of slots on the emulated device streams through a few
//    contiguous runs) and stores its partial.  The sum keeps an
//    accumulator per position in the piece (independent adds, vector adds
//    on a CPU), min and max four;
//  - reduce_pass again on the partials (double), each pass dividing
//    their count by about REDUCE_PIECE * REDUCE_SLOT_PIECES, down to one
//    value, which is copied to the host.
#include <math.h>

#include "launch_cuda.cuh"

#define REDUCE_PIECE GM_SLOT_PIECE // adjacent elements a slot folds at a time
#define REDUCE_SLOT_PIECES 8 // pieces per slot before more slots are used
#define REDUCE_MAX_SLOTS ((size_t)1024 * 256)

// op: 0 sum, 1 min, 2 max.  NaN is carried explicitly: a < b is false for NaN.
__device__ static inline double combine(int op, double a, double b) {
  if (op == 0) return a + b;
  if (isnan(a) || isnan(b)) return NAN;
  return op == 1 ? (b < a ? b : a) : (b > a ? b : a);
}

__device__ static inline double identity(int op) { return op == 0 ? 0.0 : (op == 1 ? INFINITY : -INFINITY); }

// Slot t's fold for op OP (a template argument: no branch on the op per
// element) of pieces t, t + slots, ... of REDUCE_PIECE elements, with
// four independent accumulators (no chain of dependent adds).  A slot
// with no element gives the identity of the op.
template <int OP, typename T>
__device__ __forceinline__ double slot_fold(size_t t, size_t n, size_t slots, const T *x) {
  double a0 = identity(OP), a1 = a0, a2 = a0, a3 = a0;
  for (size_t i = t * REDUCE_PIECE; i < n; i += slots * REDUCE_PIECE) {
    const size_t end = n - i < REDUCE_PIECE ? n : i + REDUCE_PIECE;
    size_t k = i;
    for (; end - k >= 4; k += 4) {
      a0 = combine(OP, a0, (double)x[k]);
      a1 = combine(OP, a1, (double)x[k + 1]);
      a2 = combine(OP, a2, (double)x[k + 2]);
      a3 = combine(OP, a3, (double)x[k + 3]);
    }
    for (; k < end; k++) a0 = combine(OP, a0, (double)x[k]);
  }
  return combine(OP, combine(OP, a0, a1), combine(OP, a2, a3));
}

template <typename T>
__global__ void reduce_pass(int op, size_t n, size_t slots, const T *x, double *part) {
  if (op == 0)
    GRID_STRIDE(t, slots) part[t] = gm_slot_sum(t, n, slots, x);
  else if (op == 1)
    GRID_STRIDE(t, slots) part[t] = slot_fold<1>(t, n, slots, x);
  else
    GRID_STRIDE(t, slots) part[t] = slot_fold<2>(t, n, slots, x);
}

// Slots for n elements: about REDUCE_SLOT_PIECES pieces each, at most
// REDUCE_MAX_SLOTS (then a slot folds more pieces).
static size_t slots_for(size_t n) {
  size_t slots = (n + REDUCE_PIECE * REDUCE_SLOT_PIECES - 1) / (REDUCE_PIECE * REDUCE_SLOT_PIECES);
  return slots > REDUCE_MAX_SLOTS ? REDUCE_MAX_SLOTS : slots;
}

// Partials of every pass after the first, summed: the scratch size.
static size_t scratch_for(size_t slots) {
  size_t total = slots + 1;
  for (size_t n = slots; n > 1; n = slots_for(n)) total += slots_for(n);
  return total;
}

extern "C" int gm_cuda_reduce(int ctype, int op, size_t n, const void *x, double *result, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  cudaStream_t s = (cudaStream_t)stream;
  if (n == 0) { // no grid of 0 blocks: the identity of the op
    *result = op == 0 ? 0.0 : (op == 1 ? INFINITY : -INFINITY);
    return 0;
  }
  size_t slots = slots_for(n);
  double *part = NULL;
  int serr = gm_scratch_alloc(lc, scratch_for(slots) * sizeof(double), (void **)&part);
  if (serr != 0) return serr;
  gm_launch l(slots, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(reduce_pass<T>, l.grid, l.block, s, slots, (double)n / (double)slots)(op, n, slots, (const T *)(x), part)
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
  double *in = part; // the partials of the last pass
  while (slots > 1) { // passes over the partials down to one value
    const size_t next = slots_for(slots);
    gm_launch m(next, stream);
    GM_LAUNCH_RANGE(reduce_pass<double>, m.grid, m.block, s, next, (double)slots / (double)next)(
        op, slots, next, (const double *)in, in + slots);
    in += slots;
    slots = next;
  }
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaMemcpyAsync(result, in, sizeof(double), cudaMemcpyDeviceToHost, s);
  gm_scratch_free(lc, part);
  cudaError_t sync = cudaStreamSynchronize(s);
  if (err == cudaSuccess) err = sync;
  return (int)err;
}
