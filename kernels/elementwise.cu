// CUDA kernels of the elementwise area and their extern "C" launchers
// (called through src/device/kernel_tables.h).  Grid-stride loops over the
// element functions of elementwise.h, the same ones the host loops run.
// Launchers return the cudaError_t of the launch (0 on success).
#include <cuda_runtime.h>

#include "elementwise.h"
#include "launch_cuda.cuh"

namespace {

// The element functions by op number (rows of op_table.h).
#define GM_CU_UNARY(T)                                                           \
  __device__ __forceinline__ T unary_op(int op, T x) { return gm_unary_##T(op, x); }            \
  __device__ __forceinline__ T scalar_op(int op, T x, T alpha) { return gm_scalar_##T(op, x, alpha); } \
  __device__ __forceinline__ T lt_op(T x, T y) { return gm_lt_##T(x, y); }                      \
  __device__ __forceinline__ T sign_op(T x) { return gm_sign_##T(x); }                          \
  __device__ __forceinline__ T axpby_op(T a, T v, T b, T y) { return gm_axpby_##T(a, v, b, y); }

GM_CU_UNARY(float)
GM_CU_UNARY(double)
// integer mats: the GM_UNARY_INT_OPS rows (gm_unary_<T> switches over them)
#define GM_CU_INT_UNARY_(T, ...) \
  __device__ __forceinline__ T unary_op(int op, T x) { return gm_unary_##T(op, x); }
GM_INTEGER_CTYPES(GM_CU_INT_UNARY_)
// complex mats: the GM_UNARY_COMPLEX_OPS rows
GM_COMPLEX_CTYPES(GM_CU_INT_UNARY_)
// predicates of every ctype (overloads, so the kernel template names one)
#define GM_CU_PRED_(T, ...) \
  __device__ __forceinline__ bool predicate_op(int op, T x) { return gm_predicate_##T(op, x); }
GM_CTYPES(GM_CU_PRED_)

// The op is a template argument inside the loop (the dispatch picks the
// instance once per thread), so the loop body is one element function:
// no switch per element, and the emulated device's loop vectorizes.  An
// op number outside the table takes the switch (which leaves x as it is).
template <typename T, int OP>
__device__ __forceinline__ void unary_each(size_t n, T *x) {
  GRID_STRIDE(i, n) x[i] = unary_op(OP, x[i]);
}

template <typename T, int OP = 0>
__device__ __forceinline__ void unary_dispatch(int op, size_t n, T *x) {
  if constexpr (OP < GM_N_UNARY) {
    if (op == OP) unary_each<T, OP>(n, x);
    else unary_dispatch<T, OP + 1>(op, n, x);
  } else {
    GRID_STRIDE(i, n) x[i] = unary_op(op, x[i]);
  }
}

template <typename T>
__global__ void unary_kernel(int op, size_t n, T *x) {
  unary_dispatch<T>(op, n, x);
}

// y (bool) := predicate op of x (a GM_PREDICATE_OPS row)
template <typename T>
__global__ void predicate_kernel(int op, size_t n, const T *x, bool *y) {
  GRID_STRIDE(i, n) y[i] = predicate_op(op, x[i]);
}

template <typename T, int OP>
__device__ __forceinline__ void scalar_each(size_t n, T alpha, T *x) {
  GRID_STRIDE(i, n) x[i] = scalar_op(OP, x[i], alpha);
}

template <typename T, int OP = 0>
__device__ __forceinline__ void scalar_dispatch(int op, size_t n, T alpha, T *x) {
  if constexpr (OP < GM_N_SCALAR) {
    if (op == OP) scalar_each<T, OP>(n, alpha, x);
    else scalar_dispatch<T, OP + 1>(op, n, alpha, x);
  } else {
    GRID_STRIDE(i, n) x[i] = scalar_op(op, x[i], alpha);
  }
}

// op: a GM_SCALAR_OPS row (expt, add, min, max)
template <typename T>
__global__ void scalar_kernel(int op, size_t n, T alpha, T *x) {
  scalar_dispatch<T>(op, n, alpha, x);
}

template <typename T>
__global__ void geem_kernel(size_t n, T alpha, const T *a, const T *b, T beta, T *c) {
  GRID_STRIDE(i, n) c[i] = axpby_op(alpha, a[i] * b[i], beta, c[i]);
}

template <typename T>
__global__ void lt_kernel(size_t n, const T *x, T *y) {
  GRID_STRIDE(i, n) y[i] = lt_op(x[i], y[i]);
}

template <typename T>
__global__ void add_sign_kernel(size_t n, T alpha, const T *a, T beta, T *b) {
  GRID_STRIDE(i, n) b[i] = axpby_op(alpha, sign_op(a[i]), beta, b[i]);
}

// Row-broadcast kernels: ROWS_2D (launch_cuda.cuh), several rows per
// block for narrow rows, no per-element 64-bit division.
template <typename T>
__global__ void geerv_kernel(size_t rows, size_t cols, T alpha, const T *a, const T *x, T beta, T *b) {
  ROWS_2D(r, c, rows, cols) {
    const size_t i = r * cols + c;
    b[i] = axpby_op(alpha, a[i] * x[c], beta, b[i]);
  }
}

// kind 0: rows (scales[r]), 1: columns (scales[c])
template <typename T>
__global__ void scale_kernel(int kind, size_t rows, size_t cols, const T *s, const T *a, T *r_) {
  if (kind == 0)
    ROWS_2D(r, c, rows, cols) r_[r * cols + c] = s[r] * a[r * cols + c];
  else
    ROWS_2D(r, c, rows, cols) r_[r * cols + c] = s[c] * a[r * cols + c];
}

// Sums along an axis, in double for both ctypes as on the host, without
// barriers.  Pass 1 splits the long dimension into slots so that short
// dimensions still give many threads: part[slot * n_out + o] holds the
// slot's partial sum of output o.  Pass 2 adds the slots of each output
// (in levels of GM_SUM_GROUP, then the finish) and applies y := alpha * s
// + beta * y in double (as the host does); with one slot per output pass
// 1 writes y itself and there is no scratch.
//  colsum: items (slot, group of a cache line of columns), geometry from
//          gm_colsum_plan (kernels/launch.h): chunks of adjacent rows on
//          the CPU model, rows interleaved over the slots on a GPU;
//  rowsum: rows of up to GM_ROW_CHUNK elements: a thread per row, one
//          pass (rowsum_kernel); longer rows: items (row, slot), slot t
//          sums pieces t, t + slots, ... of its row (rowsum_slots_kernel).
#define GM_ROW_CHUNK 32

// The accumulators of a column group: `a` has a compile-time length and
// is indexed only by unrolled constants (`if (j < w)` for the last,
// narrower group), so it stays in registers (a runtime index puts it in
// local memory: a load, an add and a store per element).  A step adds two rows (two loads in flight per
// column, half the dependent adds).
template <typename T, size_t G>
__device__ __forceinline__ void colsum_walk(double (&a)[G], const T *x, size_t off, size_t ld, size_t n, size_t w) {
  size_t k = 0;
  if (w == G) {
    for (; n - k >= 2; k += 2, off += 2 * ld)
#pragma unroll
      for (size_t j = 0; j < G; j++) a[j] += (double)x[off + j] + (double)x[off + ld + j];
    if (k < n)
#pragma unroll
      for (size_t j = 0; j < G; j++) a[j] += (double)x[off + j];
    return;
  }
  for (; n - k >= 2; k += 2, off += 2 * ld)
#pragma unroll
    for (size_t j = 0; j < G; j++)
      if (j < w) a[j] += (double)x[off + j] + (double)x[off + ld + j];
  if (k < n)
#pragma unroll
    for (size_t j = 0; j < G; j++)
      if (j < w) a[j] += (double)x[off + j];
}

// Pass 1 of the column sums: item (slot t, group at column c0) sums rows
// t * span + k * step, k < count (below rows), of its group; with one slot
// (y) it writes the sums, else its partials.
template <typename T>
__global__ void colsum_part_kernel(size_t rows, size_t cols, size_t span, size_t step, size_t count,
                                   size_t n_slots, const T *x, double *part, double alpha, double beta, T *y) {
  constexpr size_t G = GM_COL_GROUP / sizeof(T);
  const size_t n_groups = (cols + G - 1) / G;
  GRID_STRIDE(i, n_slots * n_groups) {
    const size_t t = n_groups == 1 ? i : i / n_groups, c0 = n_groups == 1 ? 0 : i % n_groups * G;
    const size_t r0 = t * span, w = cols - c0 < G ? cols - c0 : G;
    const size_t reach = r0 < rows ? (rows - r0 + step - 1) / step : 0, n = reach < count ? reach : count;
    double a[G];
#pragma unroll
    for (size_t j = 0; j < G; j++) a[j] = 0.0;
    colsum_walk<T, G>(a, x, r0 * cols + c0, step * cols, n, w);
#pragma unroll
    for (size_t j = 0; j < G; j++) {
      if (j >= w) continue;
      if (y)
        y[c0 + j] = (T)gm_axpby_double(alpha, a[j], beta, (double)y[c0 + j]);
      else
        part[t * cols + c0 + j] = a[j];
    }
  }
}

// One level of the slot partials' tree: group g of output o adds partials
// g * GM_SUM_GROUP .. of o, in order (n_in per output).
#define GM_SUM_GROUP 32
__global__ void sum_regroup_kernel(size_t n_out, size_t n_in, const double *in, double *out) {
  const size_t n_groups = (n_in + GM_SUM_GROUP - 1) / GM_SUM_GROUP;
  GRID_STRIDE(i, n_out * n_groups) {
    const size_t g = i / n_out, o = i % n_out, end = n_in - g * GM_SUM_GROUP < GM_SUM_GROUP ? n_in : (g + 1) * GM_SUM_GROUP;
    double s = 0.0;
    for (size_t p = g * GM_SUM_GROUP; p < end; p++) s += in[p * n_out + o];
    out[g * n_out + o] = s;
  }
}

// The sum of xr[0..n) in double with 4 independent accumulators
// (instruction-level parallelism on the GPU, vector lanes on the CPU).
template <typename T>
__device__ __forceinline__ double row_sum(const T *xr, size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t c = 0;
  for (; c + 4 <= n; c += 4) {
    s0 += (double)xr[c];
    s1 += (double)xr[c + 1];
    s2 += (double)xr[c + 2];
    s3 += (double)xr[c + 3];
  }
  for (; c < n; c++) s0 += (double)xr[c];
  return (s0 + s1) + (s2 + s3);
}

// Long rows: items (row r, slot t), `slots` per row; slot t sums pieces
// t, t + slots, ... of GM_ROW_PIECE adjacent elements of its row with an
// accumulator per position in the piece (a warp reads adjacent pieces;
// vector adds on the CPU, where a chunk of items streams along rows).
// One slot per row writes y itself.
#define GM_ROW_PIECE GM_SLOT_PIECE
template <typename T>
__global__ void rowsum_slots_kernel(size_t rows, size_t cols, size_t slots, const T *x, double *part,
                                    double alpha, double beta, T *y) {
  GRID_STRIDE(i, rows * slots) {
    const size_t r = i / slots, t = i % slots;
    const double sum = gm_slot_sum(t, cols, slots, x + r * cols);
    if (y)
      y[r] = (T)gm_axpby_double(alpha, sum, beta, (double)y[r]);
    else
      part[t * rows + r] = sum;
  }
}

template <typename T>
__global__ void rowsum_kernel(size_t rows, size_t cols, const T *x, double alpha, double beta, T *y) {
  GRID_STRIDE(r, rows) y[r] = (T)gm_axpby_double(alpha, row_sum(x + r * cols, cols), beta, (double)y[r]);
}

template <typename T>
__global__ void sum_finish_kernel(size_t n_out, size_t n_chunks, const double *part, double alpha, double beta,
                                  T *y) {
  GRID_STRIDE(o, n_out) {
    double s = 0;
    for (size_t ch = 0; ch < n_chunks; ch++) s += part[ch * n_out + o];
    y[o] = (T)gm_axpby_double(alpha, s, beta, (double)y[o]);
  }
}

}  // namespace


extern "C" int gm_cuda_ew_unary(int ctype, int op, size_t n, void *x, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(n, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(unary_kernel<T>, l.grid, l.block, l.s, n, 1)(op, n, (T *)(x))
  GM_CTYPE_DO(ctype, LAUNCH)
  switch (ctype) {  // integer mats (the core allows only GM_UNARY_INT_OPS rows there)
#define GM_INT_CASE_(T, E, ...) \
  case GM_##E: LAUNCH(T); break;
    GM_INTEGER_CTYPES(GM_INT_CASE_)
    GM_COMPLEX_CTYPES(GM_INT_CASE_)  // complex mats: the GM_UNARY_COMPLEX_OPS rows
#undef GM_INT_CASE_
    default:
      if (ctype != GM_FLOAT && ctype != GM_DOUBLE) return (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_predicate(int ctype, int op, size_t n, const void *x, void *y, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(n, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(predicate_kernel<T>, l.grid, l.block, l.s, n, 1)(op, n, (const T *)(x), (bool *)(y))
  GM_ANY_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_ew_scalar(int ctype, int kind, size_t n, double alpha, void *x, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(n, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(scalar_kernel<T>, l.grid, l.block, l.s, n, 1)(kind, n, (T)alpha, (T *)(x))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_ew_geem(int ctype, size_t n, double alpha, const void *a, const void *b, double beta,
                               void *c, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(n, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(geem_kernel<T>, l.grid, l.block, l.s, n, 1)(n, (T)alpha, (const T *)(a), (const T *)(b), (T)beta, (T *)(c))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_ew_lt(int ctype, size_t n, const void *x, void *y, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(n, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(lt_kernel<T>, l.grid, l.block, l.s, n, 1)(n, (const T *)(x), (T *)(y))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_ew_add_sign(int ctype, size_t n, double alpha, const void *a, double beta, void *b,
                                   const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(n, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(add_sign_kernel<T>, l.grid, l.block, l.s, n, 1)(n, (T)alpha, (const T *)(a), (T)beta, (T *)(b))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_ew_geerv(int ctype, size_t rows, size_t cols, double alpha, const void *a, const void *x,
                                double beta, void *b, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch_rows l(rows, cols, stream);
#define LAUNCH(T) GM_LAUNCH_ROWS(geerv_kernel<T>, l.grid, l.block, l.s, rows, cols)(rows, cols, (T)alpha, (const T *)(a), (const T *)(x), (T)beta, (T *)(b))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_ew_scale(int ctype, int kind, size_t rows, size_t cols, const void *s, const void *a,
                                void *r, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch_rows l(rows, cols, stream);
#define LAUNCH(T) GM_LAUNCH_ROWS(scale_kernel<T>, l.grid, l.block, l.s, rows, cols)(kind, rows, cols, (const T *)(s), (const T *)(a), (T *)(r))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

// Pass 2 (or the whole of an empty sum, len == 0: y := beta * y).
static int sum_finish(int ctype, size_t n_out, size_t n_chunks, const double *part, double alpha, double beta,
                      void *y, void *stream) {
  gm_launch l(n_out, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(sum_finish_kernel<T>, l.grid, l.block, l.s, n_out, 1)(n_out, n_chunks, part, alpha, beta, (T *)(y))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

// Row sums of rows short enough for one chunk: one pass, a thread per row.
static int rowsum_direct(int ctype, size_t rows, size_t cols, double alpha, const void *x, double beta, void *y,
                         void *stream) {
  gm_launch l(rows, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(rowsum_kernel<T>, l.grid, l.block, l.s, rows, cols)(rows, cols, (const T *)(x), alpha, beta, (T *)(y))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

// Pass 1 of the column sums (geometry g), into part, or with one slot
// (part null) into y.
static void colsum_launch(int ctype, size_t rows, size_t cols, const gm_colsum_geom &g, const void *x, double *part,
                          double alpha, double beta, void *y, void *stream) {
  const size_t bytes = gm_ctype_bytes(ctype);
  if (bytes == 0) return;
  const size_t gw = GM_COL_GROUP / bytes, items = g.slots * ((cols + gw - 1) / gw);
  gm_launch l(items, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(colsum_part_kernel<T>, l.grid, l.block, l.s, items, gw * g.count)( \
    rows, cols, g.span, g.step, g.count, g.slots, (const T *)(x), part, alpha, beta, part ? (T *)nullptr : (T *)(y))
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
}

// Pass 1 of the row sums: `slots` per row, into part, or with one slot
// (part null) into y.
static void rowsum_launch(int ctype, size_t rows, size_t cols, size_t slots, const void *x, double *part,
                          double alpha, double beta, void *y, void *stream) {
  gm_launch l(rows * slots, stream);
  const double work = (double)cols / (double)slots;
#define LAUNCH(T) GM_LAUNCH_RANGE(rowsum_slots_kernel<T>, l.grid, l.block, l.s, rows * slots, work)( \
    rows, cols, slots, (const T *)(x), part, alpha, beta, part ? (T *)nullptr : (T *)(y))
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
}

// Row sums: slots of about 8 pieces each, at most 4096 per row.
static size_t row_slots(size_t len) {
  const size_t slots = (len + 8 * GM_ROW_PIECE - 1) / (8 * GM_ROW_PIECE);
  return slots > 4096 ? 4096 : slots;
}

// Partials per output at every level of the regroup tree, summed.
static size_t sum_scratch(size_t n_slots) {
  size_t total = n_slots;
  for (size_t n = n_slots; n > GM_SUM_GROUP; n = (n + GM_SUM_GROUP - 1) / GM_SUM_GROUP) total += (n + GM_SUM_GROUP - 1) / GM_SUM_GROUP;
  return total;
}

// Pass 2: the slot partials of each output added in levels of
// GM_SUM_GROUP down to `most` per output, then the finish into y (the
// CPU model's finish adds its at most 4096 chunks serially: a launch per
// level would cost more there).
static int sum_merge(int ctype, size_t n_out, size_t n_slots, size_t most, double *part, double alpha, double beta,
                     void *y, void *stream) {
  double *in = part;
  for (; n_slots > most; n_slots = (n_slots + GM_SUM_GROUP - 1) / GM_SUM_GROUP) {
    double *out = in + n_slots * n_out;
    const size_t items = n_out * ((n_slots + GM_SUM_GROUP - 1) / GM_SUM_GROUP);
    gm_launch g(items, stream);
    GM_LAUNCH_RANGE(sum_regroup_kernel, g.grid, g.block, g.s, items, GM_SUM_GROUP)(n_out, n_slots, in, out);
    in = out;
  }
  return sum_finish(ctype, n_out, n_slots, in, alpha, beta, y, stream);
}

extern "C" int gm_cuda_ew_sum(int ctype, int axis, size_t rows, size_t cols, double alpha, const void *x,
                              double beta, void *y, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  const size_t n_out = axis == 0 ? cols : rows, len = axis == 0 ? rows : cols;
  if (n_out == 0) return 0;
  if (len == 0) return sum_finish(ctype, n_out, 0, nullptr, alpha, beta, y, stream); // no chunk of 0 to divide by
  if (axis != 0 && len <= GM_ROW_CHUNK) return rowsum_direct(ctype, rows, cols, alpha, x, beta, y, stream);
  const size_t bytes = gm_ctype_bytes(ctype);
  if (bytes == 0) return (int)cudaErrorInvalidValue;
  const gm_colsum_geom g = gm_colsum_plan(rows, cols, bytes, lc->cpu_model);
  const size_t n_slots = axis == 0 ? g.slots : row_slots(len);
  double *part = NULL;
  if (n_slots > 1) {
    int err = gm_scratch_alloc(lc, sum_scratch(n_slots) * n_out * sizeof(double), (void **)&part);
    if (err != 0) return err;
  }
  if (axis == 0)
    colsum_launch(ctype, rows, cols, g, x, part, alpha, beta, y, stream);
  else
    rowsum_launch(ctype, rows, cols, n_slots, x, part, alpha, beta, y, stream);
  int err = (int)cudaGetLastError();
  if (part) {
    // the GPU's forms merge in levels (also the interleaved column sums the
    // CPU model runs on small operands, so the specs run the regroup)
    const bool gpu_form = !lc->cpu_model || (axis == 0 && g.step > 1);
    const size_t most = gpu_form ? GM_SUM_GROUP : 4096;
    if (err == 0) err = sum_merge(ctype, n_out, n_slots, most, part, alpha, beta, y, stream);
    gm_scratch_free(lc, part);
  }
  return err;
}
