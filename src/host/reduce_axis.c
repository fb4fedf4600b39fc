/* Host loops of the reductions along an axis (core/ops/reduce_axis_ops.h),
 * on the accumulators of kernels/reduce_axis.h that the device kernels
 * use too.
 *
 * x is (outer, len, inner), reduced over len.  Each column (one output)
 * is cut into fixed segments along the axis — CHUNK elements in rows mode
 * (inner == 1), CHUNK / w rows of a tile of w <= TILE adjacent columns
 * otherwise (whole rows of up to TILE elements, so reads run on past the
 * hardware prefetchers' 4 KiB page limit) — so big reductions spread over the cores
 * (gm_par_for over segments) whatever their shape, and results do not
 * depend on the thread count.  A segment leaves a gm_axacc per column;
 * when a column has several segments they are merged in order by a second
 * pass (gm_ax_merge), which for softmax is followed by the writing pass.
 *
 * Segments are folded by vectorizable loops where the op allows:
 *   sum/mean: double lanes along a row, a double per column of a tile;
 *   max/min/argmax/argmin: a best value and its index per lane/column,
 *     updated by selects (NaN first, then strictly better: the first of
 *     ties stays);
 *   var/std: two passes over the segment (sum, then squared deviations
 *     from the segment's mean), merged with Chan's formula;
 *   logsumexp/softmax rows: the max, then the sum of exp(x - max) (float
 *     with the float exp of the elementwise ops, so it vectorizes; the
 *     device computes exp in double, within float's tolerance of this).
 * prod and the column logsumexp fold by gm_ax_step, specialized per op. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/exec/par.h"
#include "../core/ops/reduce_axis_ops.h"
#include "../../kernels/elementwise.h"
#include "simd.h"

#define TILE 4096 /* about 260 KiB of stack for a segment's accumulators */
#define CHUNK ((size_t)1 << 20)
#define LANES 16
#define ROW_BLOCK 4096 /* elements per block of a row sum (a multiple of LANES) */
#define COL_BLOCK 64   /* rows per block of a column sum */
#define SOFTMAX_SPAN 2048 /* elements per span of whole-row softmax passes (in the cache) */
#define AX_INLINE static inline __attribute__((always_inline))
/* argmax/argmin of a segment up to this size find the value, then its
 * first index (the second pass reads the cache); longer ones carry the
 * index in one pass (row_best), reading memory once */
#define EXTREME_TWO_PASS_BYTES ((size_t)64 << 10)

typedef struct ax_job {
  gm_ctype t;
  int op, ddof;
  size_t outer, len, inner;
  size_t so, sl; /* element strides of outer and of the axis (inner's is 1) */
  size_t tiles, seg, parts; /* column tiles; axis elements per segment; segments per column */
  const void *x;
  void *y;
  gm_axacc *part; /* parts x outputs partial accumulators (NULL when parts == 1) */
} ax_job;

static int is_sum(int op) { return op == GM_AX_SUM || op == GM_AX_MEAN; }
static int is_var(int op) { return op == GM_AX_VAR || op == GM_AX_STD; }

/* A segment: outer index o, columns c0 .. c0 + w, axis elements k0 .. k0 + n. */
typedef struct ax_seg {
  size_t o, c0, w, k0, n, p;
} ax_seg;

static ax_seg segment(const ax_job *j, size_t task) {
  ax_seg s;
  s.p = task % j->parts;
  size_t rest = task / j->parts;
  s.c0 = rest % j->tiles * TILE;
  s.o = rest / j->tiles;
  s.w = j->inner - s.c0 < TILE ? j->inner - s.c0 : TILE;
  s.k0 = s.p * j->seg;
  s.n = j->len - s.k0 < j->seg ? j->len - s.k0 : j->seg;
  return s;
}

/* Output k := v (an int64 1-based index for argmax/argmin, else x's ctype). */
static void put(const ax_job *j, size_t k, double v) {
  if (gm_ax_is_arg(j->op)) {
    ((int64_t *)j->y)[k] = (int64_t)v;
    return;
  }
#define PUT_CASE(T, E, ...)      \
  case GM_##E:                   \
    ((T *)j->y)[k] = (T)v;       \
    break;
  GM_FLOAT_CTYPE_SWITCH(j->t, PUT_CASE, break)
#undef PUT_CASE
}

/* f(OP, args...) with OP a constant, for the ops folded by steps. */
#define AX_SPECIALIZE(f, ...)                               \
  switch (op) {                                             \
    case GM_AX_PROD: f(GM_AX_PROD, __VA_ARGS__); break;     \
    case GM_AX_SOFTMAX: f(GM_AX_SOFTMAX, __VA_ARGS__); break; \
    default: f(GM_AX_LOGSUMEXP, __VA_ARGS__); break;        \
  }

/* The loops for each ctype of GM_CTYPES (an include per type: IT and the
 * exp differ by type).
 * exp of the element type: float rows use the branch-free float exp of
 * the elementwise ops (about 1 ulp; vectorizes), double the C library's */
#define AX_EXP_float(v) gm_expf((float)(v))
#define AX_EXP_double(v) exp(v)

#define T float
#define IT int32_t
#include "reduce_axis_loops.h"
#undef T
#undef IT
#define T double
#define IT int64_t
#include "reduce_axis_loops.h"
#undef T
#undef IT

/* The per-ctype instances, indexed by ctype (GM_CTYPES). */
typedef void (*fold_fn)(const ax_job *j, const ax_seg *s, gm_axacc *acc);
typedef void (*softmax_fn)(const ax_job *j, const ax_seg *s, const gm_axacc *acc);
static const fold_fn fold_seg[GM_N_CTYPES] = {GM_FLOAT_CTYPE_TABLE(fold_seg)};
static const softmax_fn softmax_seg[GM_N_CTYPES] = {GM_FLOAT_CTYPE_TABLE(softmax_seg)};
typedef void (*rows_fn)(const ax_job *j, size_t b, size_t e);
static const rows_fn fold_rows[GM_N_CTYPES] = {GM_FLOAT_CTYPE_TABLE(fold_rows)};
static const rows_fn softmax_rows[GM_N_CTYPES] = {GM_FLOAT_CTYPE_TABLE(softmax_rows)};

/* ---- bool and integer mats: sum, prod, max, min, argmax, argmin ----
 * Exact 64-bit folds (gm_axint of kernels/reduce_axis.h, as the device),
 * a column per output, outputs spread over the cores; an output with a
 * long axis (the whole-mat forms) is cut into pieces folded in parallel and
 * merged in order, which gives the same bits (wrapping sums and products
 * are associative, extremes keep the first index).  y: the wrapped sum or
 * product (int64/uint64), the extreme in x's type, or the int64 index. */
/* c.v := the max or min (j->op) of x[b..e) read as VT (e > b). */
#define AXI_EXTREME(VT)                                                                               \
  {                                                                                                   \
    const VT *y = (const VT *)x;                                                                      \
    VT m = y[b];                                                                                      \
    if (j->op == GM_AX_MAX)                                                                           \
      for (size_t k = b + 1; k < e; k++) m = y[k] > m ? y[k] : m;                                     \
    else                                                                                              \
      for (size_t k = b + 1; k < e; k++) m = y[k] < m ? y[k] : m;                                     \
    c.v = (unsigned long long)m;                                                                      \
  }
/* c.v := the wrapped sum of x[b..e) of a 1- or 2-byte type read as VT, in
 * blocks of BLK elements summed in AT lanes that cannot overflow there
 * (255 * 2^24 < 2^32; 32767 * 2^15 < 2^31), then widened: the loop
 * vectorizes without a 64-bit add per element.  1M bools took 1.56 ms (a
 * scalar loop: GCC 12 vectorizes no loop that loads _Bool; numpy 0.44),
 * uint8 0.26.  Signed blocks widen through long long, so the sum wraps as
 * the 64-bit one. */
#define AXI_SUM_NARROW(VT, AT, BLK)                                                                   \
  {                                                                                                   \
    const VT *y = (const VT *)x;                                                                      \
    unsigned long long acc = 0;                                                                       \
    for (size_t k0 = b; k0 < e; k0 += (BLK)) {                                                        \
      const size_t k1 = e - k0 < (BLK) ? e : k0 + (BLK);                                              \
      AT s = 0;                                                                                       \
      for (size_t k = k0; k < k1; k++) s += (AT)y[k];                                                 \
      acc += (unsigned long long)(long long)s;                                                        \
    }                                                                                                 \
    c.v = acc;                                                                                        \
    return c;                                                                                         \
  }
/* c.v := any (max) or all (min) of the bools x[b..e) as bytes, in blocks
 * of 4 KiB that vectorize, stopping at the first block that settles it
 * (a true for any, a false for all): gm.any of 1M bools whose first is
 * true read all of them (24 us; numpy 11). */
#define AXI_EXTREME_BOOL                                                                              \
  {                                                                                                   \
    const unsigned char *y = (const unsigned char *)x;                                                \
    const int any = j->op == GM_AX_MAX;                                                               \
    unsigned char m = y[b];                                                                           \
    for (size_t k0 = b; k0 < e && (any ? m == 0 : m != 0); k0 += 4096) {                             \
      const size_t k1 = e - k0 < 4096 ? e : k0 + 4096;                                                \
      if (any) /* (max and min, not | and &: a buffer's bool may hold any nonzero byte) */           \
        for (size_t k = k0; k < k1; k++) m = y[k] > m ? y[k] : m;                                     \
      else                                                                                            \
        for (size_t k = k0; k < k1; k++) m = y[k] < m ? y[k] : m;                                     \
    }                                                                                                 \
    c.v = m;                                                                                          \
  }
#define AXI_RANGE(T, E, ...)                                                                          \
  GM_SIMD_CLONES static gm_axint int_range_##E(const ax_job *j, size_t q, size_t b, size_t e) {      \
    const T *x = (const T *)j->x + q / j->inner * j->so + q % j->inner;                               \
    const int uns = gm_ctype_kind(GM_##E) == GM_KIND_UINT;                                            \
    gm_axint c = gm_axi_init(j->op);                                                                  \
    if (j->op == GM_AX_SUM && j->sl == 1) { /* the common case, in a loop that vectorizes */          \
      if (GM_##E == GM_BOOL)                                                                          \
        AXI_SUM_NARROW(unsigned char, uint32_t, (size_t)1 << 24)                                      \
      else if (sizeof(T) == 1)                                                                        \
        AXI_SUM_NARROW(T, int32_t, (size_t)1 << 23)                                                   \
      else if (sizeof(T) == 2)                                                                        \
        AXI_SUM_NARROW(T, int32_t, (size_t)1 << 15)                                                   \
      unsigned long long acc = 0;                                                                     \
      for (size_t k = b; k < e; k++) acc += (unsigned long long)x[k];                                 \
      c.v = acc;                                                                                      \
      return c;                                                                                       \
    }                                                                                                 \
    if ((j->op == GM_AX_MAX || j->op == GM_AX_MIN) && j->sl == 1 && e > b) {                          \
      /* the value only (no index to keep: T's own order, a loop that                                 \
       * vectorizes; gm.any / gm.all of 1K bools took 14 instructions an                              \
       * element in the steps); n: an index, so that pieces merge.  Bools                             \
       * as bytes: GCC 12 vectorizes no loop that loads _Bool */                                      \
      if (GM_##E == GM_BOOL)                                                                          \
        AXI_EXTREME_BOOL                                                                              \
      else                                                                                            \
        AXI_EXTREME(T)                                                                                \
      c.n = (long long)b;                                                                             \
      return c;                                                                                       \
    }                                                                                                 \
    for (size_t k = b; k < e; k++) gm_axi_step(j->op, uns, &c, (unsigned long long)x[k * j->sl], (long long)k); \
    return c;                                                                                         \
  }
GM_BOOL_CTYPES(AXI_RANGE)
GM_INTEGER_CTYPES(AXI_RANGE)
#undef AXI_RANGE
#undef AXI_EXTREME
#undef AXI_SUM_NARROW
#undef AXI_EXTREME_BOOL
#define AXI_ENTRY(T, E, ...) [GM_##E] = int_range_##E,
static gm_axint (*const int_range[GM_N_CTYPES])(const ax_job *, size_t, size_t, size_t) = {
    GM_BOOL_CTYPES(AXI_ENTRY) GM_INTEGER_CTYPES(AXI_ENTRY)};
#undef AXI_ENTRY

static void int_store(const ax_job *j, size_t q, gm_axint c) {
  unsigned long long r = gm_axi_result(j->op, c);
  if (j->op == GM_AX_MAX || j->op == GM_AX_MIN)
    gm_ctype_write(j->t, j->y, q, (gm_value){true, gm_ctype_kind(j->t) == GM_KIND_UINT, (long long)r, 0, false, 0});
  else
    ((uint64_t *)j->y)[q] = r; /* int64 and uint64 share the representation */
}

static void int_fold(void *arg, size_t b, size_t e) {
  const ax_job *j = arg;
  for (size_t q = b; q < e; q++) int_store(j, q, int_range[j->t](j, q, 0, j->len));
}

/* one output's axis in pieces of j->seg elements, folded in parallel */
enum { INT_PIECES = 64 };
typedef struct int_split {
  const ax_job *j;
  size_t q;
  gm_axint part[INT_PIECES];
} int_split;

static void int_piece(void *arg, size_t b, size_t e) {
  int_split *s = arg;
  for (size_t p = b; p < e; p++) {
    size_t k0 = p * s->j->seg, k1 = k0 + s->j->seg < s->j->len ? k0 + s->j->seg : s->j->len;
    s->part[p] = int_range[s->j->t](s->j, s->q, k0, k1);
  }
}

static gm_status host_int_axis(gm_ctype t, int op, size_t outer, size_t so, size_t len, size_t sl, size_t inner,
                               const void *x, void *y) {
  if (op == GM_AX_MEAN || op == GM_AX_VAR || op == GM_AX_STD || gm_ax_is_lse(op) || !int_range[t])
    return gm_fail(GM_EINVAL, "reduce_axis: op %d takes float mats only here", op);
  ax_job j = {.t = t, .op = op, .outer = outer, .len = len, .inner = inner, .so = so, .sl = sl, .x = x, .y = y};
  size_t outs = outer * inner, threads = (size_t)gm_par_threads();
  if (outs >= threads || len < ((size_t)1 << 16)) {
    gm_par_for(outs, 1, (double)len * 2, int_fold, &j);
    return GM_OK;
  }
  j.seg = (len + INT_PIECES - 1) / INT_PIECES;
  size_t pieces = (len + j.seg - 1) / j.seg;
  int_split sp = {.j = &j};
  for (size_t q = 0; q < outs; q++) {
    sp.q = q;
    gm_par_for(pieces, 1, (double)j.seg * 2, int_piece, &sp);
    gm_axint c = sp.part[0];
    for (size_t p = 1; p < pieces; p++) gm_axi_merge(op, gm_ctype_kind(t) == GM_KIND_UINT, &c, sp.part[p]);
    int_store(&j, q, c);
  }
  return GM_OK;
}

/* Folds segment `task` into its accumulators; with one segment per
 * column also writes the results (softmax: the elements). */
static void fold_tasks(void *arg, size_t b, size_t e) {
  const ax_job *j = arg;
  gm_axacc acc[TILE];
  for (size_t task = b; task < e; task++) {
    ax_seg s = segment(j, task);
    fold_seg[j->t](j, &s, acc);
    size_t q0 = s.o * j->inner + s.c0;
    if (j->parts > 1) {
      for (size_t c = 0; c < s.w; c++) j->part[s.p * j->outer * j->inner + q0 + c] = acc[c];
    } else if (j->op == GM_AX_SOFTMAX) {
      softmax_seg[j->t](j, &s, acc);
    } else {
      for (size_t c = 0; c < s.w; c++) put(j, q0 + c, gm_ax_result(j->op, acc[c], (long long)j->len, j->ddof));
    }
  }
}

static void rows_tasks(void *arg, size_t b, size_t e) {
  const ax_job *j = arg;
  (j->op == GM_AX_SOFTMAX ? softmax_rows : fold_rows)[j->t](j, b, e);
}

/* Merges the segments of outputs b..e in order (into part 0 for softmax). */
static void merge_outputs(void *arg, size_t b, size_t e) {
  const ax_job *j = arg;
  size_t n_out = j->outer * j->inner;
  for (size_t q = b; q < e; q++) {
    gm_axacc c = j->part[q];
    for (size_t p = 1; p < j->parts; p++) gm_ax_merge(j->op, &c, j->part[p * n_out + q]);
    if (j->op == GM_AX_SOFTMAX)
      j->part[q] = c;
    else
      put(j, q, gm_ax_result(j->op, c, (long long)j->len, j->ddof));
  }
}

static void softmax_tasks(void *arg, size_t b, size_t e) {
  const ax_job *j = arg;
  for (size_t task = b; task < e; task++) {
    ax_seg s = segment(j, task);
    const gm_axacc *acc = j->part + s.o * j->inner + s.c0;
    softmax_seg[j->t](j, &s, acc);
  }
}

static gm_status host_axis_strided(void *ctx, gm_ctype t, int op, int ddof, size_t outer, size_t so, size_t len,
                                   size_t sl, size_t inner, const void *x, void *y) {
  (void)ctx;
  if ((unsigned)t >= GM_N_CTYPES) return gm_fail(GM_EINVAL, "reduce_axis: bad ctype");
  if (!gm_ctype_is_float(t)) return host_int_axis(t, op, outer, so, len, sl, inner, x, y);
  /* softmax writes y in x's layout, which only a contiguous x has */
  if (op == GM_AX_SOFTMAX && (so != len * inner || sl != inner))
    return gm_fail(GM_EINVAL, "softmax: the input must be contiguous");
  size_t width = inner < TILE ? inner : TILE;
  ax_job j = {.t = t, .op = op, .ddof = ddof, .outer = outer, .len = len, .inner = inner, .x = x, .y = y};
  j.so = so;
  j.sl = sl;
  j.tiles = (inner + TILE - 1) / TILE;
  j.seg = CHUNK / width > 0 ? CHUNK / width : 1;
  j.parts = (len + j.seg - 1) / j.seg;
  size_t n_out = outer * inner, tasks = outer * j.tiles * j.parts;
  if (j.parts > 1) {
    j.part = malloc(j.parts * n_out * sizeof *j.part);
    if (!j.part)
      return gm_fail(GM_ENOMEM, "%s: out of host memory for %zu partial results", "reduce_axis", j.parts * n_out);
  }
  double cost = (double)(j.seg < len ? j.seg : len) * (double)width * (is_sum(op) ? 1 : 4);
  if (inner == 1 && sl == 1 && j.parts == 1) { /* whole rows, one task each */
    gm_par_for(outer, 1, cost, rows_tasks, &j);
    return GM_OK;
  }
  gm_par_for(tasks, 1, cost, fold_tasks, &j);
  if (j.parts > 1) {
    gm_par_for(n_out, 1, (double)j.parts * 4, merge_outputs, &j);
    if (op == GM_AX_SOFTMAX) gm_par_for(tasks, 1, cost * 4, softmax_tasks, &j);
    free(j.part);
  }
  return GM_OK;
}

static gm_status host_axis(void *ctx, gm_ctype t, int op, int ddof, size_t outer, size_t len, size_t inner,
                           const void *x, void *y) {
  return host_axis_strided(ctx, t, op, ddof, outer, len * inner, len, inner, inner, x, y);
}

const gm_reduce_axis_ops gm_host_reduce_axis_ops = {.axis = host_axis, .axis_strided = host_axis_strided};
