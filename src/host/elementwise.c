/* Host loops of the elementwise area: the element functions of
 * kernels/elementwise.h applied over contiguous host arrays.
 *
 * Each loop is a plain counted loop so GCC vectorizes it; GM_SIMD_CLONES
 * builds AVX-512 and AVX2 versions; gm_par_for splits big loops across
 * the cores.  This file is compiled with -O3 -fno-math-errno
 * -fno-trapping-math (CMakeLists.txt): sqrt must become the SIMD
 * instruction, which errno handling prevents, and the selects of the
 * branch-free exp/log/tanh only if-convert when FP ops may be speculated.
 * IEEE results, NaN and infinity are untouched (no -ffast-math). */
#include "../core/ops/elementwise_ops.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../kernels/mvec.h" /* libmvec's SIMD double exp/tanh/... for the loops */

#include "../../kernels/elementwise.h"
#include "../../kernels/int_ops.h"
#include "../core/model/ctype.h"
#include "../core/exec/par.h"
#include "simd.h"

/* Everything one chunk of an op needs. */
typedef struct ew_job {
  gm_ctype t;
  int op;
  size_t rows, cols;
  double alpha, beta;
  const void *a, *b;
  void *c;
} ew_job;

/* Whether the byte ranges [p, p + bytes) and [q, q + bytes) intersect. */
static int overlap(const void *p, const void *q, size_t bytes) {
  uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
  return a < b + bytes && b < a + bytes;
}

/* Per-ctype chunk functions: NAME(arg, b, e) runs NAME_<T>(job, b, e)
 * for the job's ctype (instantiated with GM_CTYPES). */
#define CHUNK_BY_CTYPE(NAME)                                                           \
  static void NAME(void *arg, size_t b, size_t e) {                                   \
    static void (*const of[GM_N_CTYPES])(const ew_job *, size_t, size_t) = {          \
        GM_FLOAT_CTYPE_TABLE(NAME)};                                                        \
    const ew_job *j = arg;                                                            \
    of[j->t](j, b, e);                                                                \
  }

/* ---- unary: one loop per GM_UNARY_OPS row and ctype ---- */

#define UN_LOOP(T, NAME, E, ...)                                              \
  GM_SIMD_CLONES static void un_##NAME##_##T(T *x, size_t n) {               \
    for (size_t i = 0; i < n; i++) x[i] = gm_##NAME##_##T(x[i]);             \
  }
#define UN_ENTRY(T, NAME, E, ...) [GM_UN_##E] = un_##NAME##_##T,
/* out of place: x and y disjoint (gm.tanh(x) reads x once, writes y once) */
#define UN_INTO_LOOP(T, NAME, E, ...)                                                        \
  GM_SIMD_CLONES static void un_into_##NAME##_##T(const T *restrict x, T *restrict y, size_t n) { \
    for (size_t i = 0; i < n; i++) y[i] = gm_##NAME##_##T(x[i]);                             \
  }
#define UN_INTO_ENTRY(T, NAME, E, ...) [GM_UN_##E] = un_into_##NAME##_##T,

/* The unary chunk functions of ctype T over the rows of one kind: ROWS
 * is that kind's view of the table (GM_UNARY_OPS_WITH,
 * GM_UNARY_INT_OPS_WITH, GM_UNARY_COMPLEX_OPS_WITH; the core refuses the
 * other rows), LOOP and INTO the loops' makers (complex ones without SIMD
 * clones: struct elements). */
#define UN_CHUNKS_(T, ROWS, LOOP, INTO)                                                  \
  ROWS(LOOP, T)                                                                         \
  ROWS(INTO, T)                                                                         \
  static void un_chunk_##T(const ew_job *j, size_t b, size_t e) {                       \
    static void (*const loop[GM_N_UNARY])(T *, size_t) = {ROWS(UN_ENTRY, T)};           \
    loop[j->op]((T *)j->c + b, e - b);                                                  \
  }                                                                                     \
  static void un_into_chunk_##T(const ew_job *j, size_t b, size_t e) {                  \
    static void (*const loop[GM_N_UNARY])(const T *, T *, size_t) = {ROWS(UN_INTO_ENTRY, T)}; \
    loop[j->op]((const T *)j->a + b, (T *)j->c + b, e - b);                             \
  }
#define UN_LOOPS(T, ...) UN_CHUNKS_(T, GM_UNARY_OPS_WITH, UN_LOOP, UN_INTO_LOOP)
GM_FLOAT_CTYPES(UN_LOOPS)
#define UN_INT_LOOPS(T, ...) UN_CHUNKS_(T, GM_UNARY_INT_OPS_WITH, UN_LOOP, UN_INTO_LOOP)
GM_INTEGER_CTYPES(UN_INT_LOOPS)

#define UN_CX_LOOP(T, NAME, E, ...)                              \
  static void un_##NAME##_##T(T *x, size_t n) {                  \
    for (size_t i = 0; i < n; i++) x[i] = gm_##NAME##_##T(x[i]); \
  }
#define UN_CX_INTO_LOOP(T, NAME, E, ...)                                           \
  static void un_into_##NAME##_##T(const T *restrict x, T *restrict y, size_t n) { \
    for (size_t i = 0; i < n; i++) y[i] = gm_##NAME##_##T(x[i]);                  \
  }
#define UN_CX_LOOPS(T, ...) UN_CHUNKS_(T, GM_UNARY_COMPLEX_OPS_WITH, UN_CX_LOOP, UN_CX_INTO_LOOP)
GM_COMPLEX_CTYPES(UN_CX_LOOPS)

/* CHUNK_BY_CTYPE over the float and integer rows */
#define CHUNK_BY_NUMERIC_CTYPE(NAME)                                                  \
  static void NAME(void *arg, size_t b, size_t e) {                                   \
    static void (*const of[GM_N_CTYPES])(const ew_job *, size_t, size_t) = {          \
        GM_FLOAT_CTYPE_TABLE(NAME) GM_INTEGER_CTYPES_WITH(GM_CTYPE_ENTRY_, NAME)       \
            GM_COMPLEX_CTYPES_WITH(GM_CTYPE_ENTRY_, NAME)};                           \
    const ew_job *j = arg;                                                            \
    of[j->t](j, b, e);                                                                \
  }
CHUNK_BY_NUMERIC_CTYPE(un_chunk)
CHUNK_BY_NUMERIC_CTYPE(un_into_chunk)

/* the predicates' chunk function, over every ctype's loops below */
static void pred_chunk(void *arg, size_t b, size_t e);

/* ---- predicates: y (bool) := f(x), one loop per GM_PREDICATE_OPS row and ctype ---- */

#define PRED_LOOP(T, NAME, E, ...)                                                            \
  GM_SIMD_CLONES static void pred_##NAME##_##T(const T *restrict x, bool *restrict y, size_t n) { \
    for (size_t i = 0; i < n; i++) y[i] = gm_pred_##NAME##_##T(x[i]);                       \
  }
#define PRED_ENTRY(T, NAME, E, ...) [GM_PRED_##E] = pred_##NAME##_##T,
/* the predicate chunk of T over ROWS, one kind's view of the rows */
#define PRED_CHUNKS_(T, ROWS)                                                                 \
  ROWS(PRED_LOOP, T)                                                                          \
  static void pred_chunk_##T(const ew_job *j, size_t b, size_t e) {                          \
    static void (*const loop[GM_N_PREDICATE])(const T *, bool *, size_t) = {ROWS(PRED_ENTRY, T)}; \
    loop[j->op]((const T *)j->a + b, (bool *)j->c + b, e - b);                                \
  }
#define PRED_LOOPS(T, ...) PRED_CHUNKS_(T, GM_PREDICATE_OPS_WITH)
GM_REAL_CTYPES(PRED_LOOPS)
/* complex mats: the predicate rows with kind C */
#define PRED_CX_LOOPS(T, ...) PRED_CHUNKS_(T, GM_PREDICATE_COMPLEX_OPS_WITH)
GM_COMPLEX_CTYPES(PRED_CX_LOOPS)
/* the 16-bit floats: the float32 predicate of each loaded element */
#define PRED_HALF_LOOPS(T, ...)                                                               \
  static void pred_chunk_##T(const ew_job *j, size_t b, size_t e) {                          \
    const T *x = (const T *)j->a;                                                             \
    bool *y = (bool *)j->c;                                                                   \
    for (size_t i = b; i < e; i++) y[i] = gm_predicate_##T(j->op, x[i]);                      \
  }
GM_HALF_CTYPES(PRED_HALF_LOOPS)

/* a switch, not GM_CTYPE_TABLE: bool's rows paste _Bool in C */
static void pred_chunk(void *arg, size_t b, size_t e) {
  const ew_job *j = arg;
#define X(T, E, ...)          \
  case GM_##E:                \
    pred_chunk_##T(j, b, e);  \
    break;
  GM_CTYPE_SWITCH(j->t, X, break)
#undef X
}

static gm_status host_predicate(void *ctx, gm_ctype t, gm_predicate_op op, size_t n, const void *x, void *y) {
  (void)ctx;
  ew_job j = {.t = t, .op = (int)op, .a = x, .c = y};
  gm_par_for(n, 16, gm_par_elem_cost(1.0, gm_ctype_size(t)), pred_chunk, &j);
  return GM_OK;
}

static const double unary_cost[GM_N_UNARY] = {
#define X(name, E, lua, kinds, result, c, ...) [GM_UN_##E] = c,
    GM_UNARY_OPS(X)
#undef X
};

static gm_status host_unary(void *ctx, gm_ctype t, gm_unary_op op, size_t n, void *x) {
  (void)ctx;
  ew_job j = {.t = t, .op = (int)op, .c = x};
  gm_par_for(n, 16, gm_par_elem_cost(unary_cost[op], gm_ctype_size(t)), un_chunk, &j);
  return GM_OK;
}

static gm_status host_unary_into(void *ctx, gm_ctype t, gm_unary_op op, size_t n, const void *x, void *y) {
  (void)ctx;
  ew_job j = {.t = t, .op = (int)op, .a = x, .c = y};
  gm_par_for(n, 16, gm_par_elem_cost(unary_cost[op], gm_ctype_size(t)), un_into_chunk, &j);
  return GM_OK;
}

/* ---- scalar-parameter loops: one per GM_SCALAR_OPS row and ctype ---- */

#define SC_LOOP(T, NAME, E, ...)                                                  \
  GM_SIMD_CLONES static void sc_##NAME##_##T(T *x, size_t n, T alpha) {          \
    for (size_t i = 0; i < n; i++) x[i] = gm_scalar_##NAME##_##T(x[i], alpha);   \
  }
#define SC_ENTRY(T, NAME, E, ...) [GM_SC_##E] = sc_##NAME##_##T,

#define SCALAR_LOOPS(T, ...)                                                          \
  GM_SCALAR_OPS_WITH(SC_LOOP, T)                                                      \
  static void scalar_chunk_##T(const ew_job *j, size_t b, size_t e) {                 \
    static void (*const loop[GM_N_SCALAR])(T *, size_t, T) = {GM_SCALAR_OPS_WITH(SC_ENTRY, T)}; \
    loop[j->op]((T *)j->c + b, e - b, (T)j->alpha);                                   \
  }

GM_FLOAT_CTYPES(SCALAR_LOOPS)
CHUNK_BY_CTYPE(scalar_chunk)

static gm_status host_scalar(void *ctx, gm_ctype t, gm_scalar_op op, size_t n, double alpha, void *x) {
  (void)ctx;
  static const double cost[GM_N_SCALAR] = {
#define X(name, E, lua_name, kinds, result, c, ...) [GM_SC_##E] = c,
      GM_SCALAR_OPS(X)
#undef X
  };
  ew_job j = {.t = t, .op = (int)op, .alpha = alpha, .c = x};
  gm_par_for(n, 16, gm_par_elem_cost(cost[op], gm_ctype_size(t)), scalar_chunk, &j);
  return GM_OK;
}

/* ---- binary loops: geem, lt, add_sign ----
 * Each has a restrict version for disjoint arrays (vectorizes without
 * run-time alias checks), an in-place version for the written array
 * being an input (mul_ is geem_ with b = c), and a generic one for
 * partial overlaps of views on one storage. */

#define BINARY_LOOPS(T, ...)                                                                    \
  GM_SIMD_CLONES static void geem_rs_##T(size_t n, T alpha, const T *restrict a,                \
                                         const T *restrict b, T beta, T *restrict c) {          \
    for (size_t i = 0; i < n; i++) c[i] = gm_axpby_##T(alpha, a[i] * b[i], beta, c[i]);         \
  }                                                                                             \
  /* c[i] := alpha * a[i] * c[i] + beta * c[i] */                                               \
  GM_SIMD_CLONES static void geem_in_##T(size_t n, T alpha, const T *restrict a, T beta,        \
                                         T *restrict c) {                                       \
    for (size_t i = 0; i < n; i++) c[i] = gm_axpby_##T(alpha, a[i] * c[i], beta, c[i]);         \
  }                                                                                             \
  GM_SIMD_CLONES static void geem_sq_##T(size_t n, T alpha, T beta, T *c) {                     \
    for (size_t i = 0; i < n; i++) c[i] = gm_axpby_##T(alpha, c[i] * c[i], beta, c[i]);         \
  }                                                                                             \
  static void geem_any_##T(size_t n, T alpha, const T *a, const T *b, T beta, T *c) {           \
    for (size_t i = 0; i < n; i++) c[i] = gm_axpby_##T(alpha, a[i] * b[i], beta, c[i]);         \
  }                                                                                             \
  static void geem_##T(size_t n, T alpha, const T *a, const T *b, T beta, T *c) {               \
    if (a == c && b == c)                                                                       \
      geem_sq_##T(n, alpha, beta, c);                                                           \
    else if (b == c && !overlap(a, c, n * sizeof(T)))                                           \
      geem_in_##T(n, alpha, a, beta, c);                                                        \
    else if (a == c && !overlap(b, c, n * sizeof(T)))                                           \
      geem_in_##T(n, alpha, b, beta, c);                                                        \
    else if (!overlap(a, c, n * sizeof(T)) && !overlap(b, c, n * sizeof(T)))                    \
      geem_rs_##T(n, alpha, a, b, beta, c);                                                     \
    else                                                                                        \
      geem_any_##T(n, alpha, a, b, beta, c);                                                    \
  }                                                                                             \
  GM_SIMD_CLONES static void lt_rs_##T(size_t n, const T *restrict x, T *restrict y) {          \
    for (size_t i = 0; i < n; i++) y[i] = gm_lt_##T(x[i], y[i]);                                \
  }                                                                                             \
  static void lt_any_##T(size_t n, const T *x, T *y) {                                          \
    for (size_t i = 0; i < n; i++) y[i] = gm_lt_##T(x[i], y[i]);                                \
  }                                                                                             \
  GM_SIMD_CLONES static void add_sign_rs_##T(size_t n, T alpha, const T *restrict a, T beta,    \
                                             T *restrict b) {                                   \
    for (size_t i = 0; i < n; i++) b[i] = gm_axpby_##T(alpha, gm_sign_##T(a[i]), beta, b[i]);   \
  }                                                                                             \
  static void add_sign_any_##T(size_t n, T alpha, const T *a, T beta, T *b) {                   \
    for (size_t i = 0; i < n; i++) b[i] = gm_axpby_##T(alpha, gm_sign_##T(a[i]), beta, b[i]);   \
  }                                                                                             \
  static void binary_chunk_##T(const ew_job *j, size_t b, size_t e) {                          \
    const T *pa = (const T *)j->a + b, *pb = (const T *)j->b + b;                               \
    T *pc = (T *)j->c + b;                                                                      \
    size_t n = e - b, bytes = n * sizeof(T);                                                    \
    switch (j->op) {                                                                            \
      case 0: geem_##T(n, (T)j->alpha, pa, pb, (T)j->beta, pc); break;                          \
      case 1:                                                                                   \
        if (overlap(pa, pc, bytes))                                                             \
          lt_any_##T(n, pa, pc);                                                                \
        else                                                                                    \
          lt_rs_##T(n, pa, pc);                                                                 \
        break;                                                                                  \
      default:                                                                                  \
        if (overlap(pa, pc, bytes))                                                             \
          add_sign_any_##T(n, (T)j->alpha, pa, (T)j->beta, pc);                                 \
        else                                                                                    \
          add_sign_rs_##T(n, (T)j->alpha, pa, (T)j->beta, pc);                                  \
        break;                                                                                  \
    }                                                                                           \
  }

GM_FLOAT_CTYPES(BINARY_LOOPS)
CHUNK_BY_CTYPE(binary_chunk)

static gm_status host_geem(void *ctx, gm_ctype t, size_t n, double alpha, const void *a, const void *b,
                           double beta, void *c) {
  (void)ctx;
  ew_job j = {.t = t, .op = 0, .alpha = alpha, .beta = beta, .a = a, .b = b, .c = c};
  gm_par_for(n, 16, gm_par_elem_cost(1.0, gm_ctype_size(t)), binary_chunk, &j);
  return GM_OK;
}

static gm_status host_lt(void *ctx, gm_ctype t, size_t n, const void *x, void *y) {
  (void)ctx;
  ew_job j = {.t = t, .op = 1, .a = x, .b = x, .c = y};
  gm_par_for(n, 16, gm_par_elem_cost(1.0, gm_ctype_size(t)), binary_chunk, &j);
  return GM_OK;
}

static gm_status host_add_sign(void *ctx, gm_ctype t, size_t n, double alpha, const void *a, double beta,
                               void *b) {
  (void)ctx;
  ew_job j = {.t = t, .op = 2, .alpha = alpha, .beta = beta, .a = a, .b = a, .c = b};
  gm_par_for(n, 16, gm_par_elem_cost(1.0, gm_ctype_size(t)), binary_chunk, &j);
  return GM_OK;
}

/* ---- row-structured loops: geerv, scale (chunks are row ranges) ---- */

#define ROW_LOOPS(T, ...)                                                                       \
  GM_SIMD_CLONES static void geerv_row_##T(size_t cols, T alpha, const T *a, const T *x, T beta, \
                                           T *b) {                                              \
    for (size_t c = 0; c < cols; c++) b[c] = gm_axpby_##T(alpha, a[c] * x[c], beta, b[c]);      \
  }                                                                                             \
  GM_SIMD_CLONES static void scale_row_##T(size_t cols, T s, const T *a, T *r) {                \
    for (size_t c = 0; c < cols; c++) r[c] = s * a[c];                                          \
  }                                                                                             \
  GM_SIMD_CLONES static void scale_cols_##T(size_t cols, const T *s, const T *a, T *r) {        \
    for (size_t c = 0; c < cols; c++) r[c] = s[c] * a[c];                                       \
  }                                                                                             \
  static void row_chunk_##T(const ew_job *j, size_t b, size_t e) {                             \
    size_t n = j->cols;                                                                         \
    const T *v = j->b;                                                                          \
    for (size_t r = b; r < e; r++) {                                                            \
      const T *a = (const T *)j->a + r * n;                                                     \
      T *out = (T *)j->c + r * n;                                                               \
      if (j->op == 0)                                                                           \
        geerv_row_##T(n, (T)j->alpha, a, v, (T)j->beta, out);                                   \
      else if (j->op == 1)                                                                      \
        scale_row_##T(n, v[r], a, out);                                                         \
      else                                                                                      \
        scale_cols_##T(n, v, a, out);                                                           \
    }                                                                                           \
  }

GM_FLOAT_CTYPES(ROW_LOOPS)
CHUNK_BY_CTYPE(row_chunk)

static gm_status host_geerv(void *ctx, gm_ctype t, size_t rows, size_t cols, double alpha, const void *a,
                            const void *x, double beta, void *b) {
  (void)ctx;
  ew_job j = {.t = t, .op = 0, .cols = cols, .alpha = alpha, .beta = beta, .a = a, .b = x, .c = b};
  gm_par_for(rows, 1, (double)cols, row_chunk, &j);
  return GM_OK;
}

static gm_status host_scale(void *ctx, gm_ctype t, gm_scale_kind kind, size_t rows, size_t cols,
                            const void *scales, const void *a, void *result) {
  (void)ctx;
  ew_job j = {.t = t, .op = kind == GM_SCALE_ROWS ? 1 : 2, .cols = cols, .a = a, .b = scales, .c = result};
  gm_par_for(rows, 1, (double)cols, row_chunk, &j);
  return GM_OK;
}

/* ---- sum along an axis ----
 * Column sums stream whole rows into a row of accumulators of the ctype
 * (sequential reads, like numpy's axis-0 reduction); with
 * several threads each takes a block of rows and its own accumulators,
 * added up at the end.  Row sums are gm_lane_sum (simd.h),
 * like the whole-mat sum. */

typedef struct colsum_job {
  const ew_job *j;
  void *acc; /* parts x cols accumulators of the ctype */
  size_t parts;
} colsum_job;

#define SUM_LOOPS(T, ...)                                                                       \
  GM_SIMD_CLONES static void colsum_rows_##T(const T *x, size_t r0, size_t r1, size_t cols,     \
                                             T *acc) {                                          \
    for (size_t c = 0; c < cols; c++) acc[c] = 0;                                               \
    for (size_t r = r0; r < r1; r++) {                                                          \
      const T *row = x + r * cols;                                                              \
      for (size_t c = 0; c < cols; c++) acc[c] += row[c];                                       \
    }                                                                                           \
  }                                                                                             \
  GM_LANE_SUM(T)                                                                                \
  static void rowsum_chunk_##T(const ew_job *j, size_t b, size_t e) {                          \
    T *y = j->c;                                                                                \
    for (size_t r = b; r < e; r++) {                                                            \
      double s = gm_lane_sum_##T((const T *)j->a + r * j->cols, j->cols);                       \
      y[r] = (T)gm_axpby_double(j->alpha, s, j->beta, (double)y[r]);                           \
    }                                                                                           \
  }                                                                                             \
  static void colsum_finish_##T(const ew_job *j, const void *accv, size_t parts) {             \
    const T *acc = accv;                                                                        \
    T *y = j->c;                                                                                \
    for (size_t c = 0; c < j->cols; c++) {                                                      \
      double s = acc[c];                                                                        \
      for (size_t p = 1; p < parts; p++) s += acc[p * j->cols + c];                             \
      y[c] = (T)gm_axpby_double(j->alpha, s, j->beta, (double)y[c]);                           \
    }                                                                                           \
  }

GM_FLOAT_CTYPES(SUM_LOOPS)
CHUNK_BY_CTYPE(rowsum_chunk)

/* Part p of the rows into accumulator row p. */
static void colsum_part(void *arg, size_t b, size_t e) {
  const colsum_job *cj = arg;
  const ew_job *j = cj->j;
  for (size_t p = b; p < e; p++) {
    size_t r0 = j->rows * p / cj->parts, r1 = j->rows * (p + 1) / cj->parts;
#define X(T, E, ...)                                                        \
  case GM_##E:                                                              \
    colsum_rows_##T(j->a, r0, r1, j->cols, (T *)cj->acc + p * j->cols);     \
    break;
    GM_FLOAT_CTYPE_SWITCH(j->t, X, break)
#undef X
  }
}

static gm_status host_colsum(const ew_job *j) {
  size_t parts = (size_t)gm_par_threads();
  if ((double)j->rows * (double)j->cols < (double)(1u << 18) || j->rows < parts) parts = 1;
  void *acc = malloc(parts * j->cols * gm_ctype_size(j->t));
  if (!acc) return gm_fail(GM_ENOMEM, "sum_: out of host memory for %zu accumulators", parts * j->cols);
  colsum_job cj = {j, acc, parts};
  /* One task per part; the cost makes gm_par_for run them in parallel. */
  gm_par_for(parts, 1, parts > 1 ? (double)(1u << 30) : 0, colsum_part, &cj);
  static void (*const finish[GM_N_CTYPES])(const ew_job *, const void *, size_t) = {GM_FLOAT_CTYPE_TABLE(colsum_finish)};
  finish[j->t](j, acc, parts);
  free(acc);
  return GM_OK;
}

static gm_status host_sum(void *ctx, gm_ctype t, size_t rows, size_t cols, int axis, double alpha,
                          const void *x, double beta, void *y) {
  (void)ctx;
  ew_job j = {.t = t, .op = axis, .rows = rows, .cols = cols, .alpha = alpha, .beta = beta, .a = x, .c = y};
  if (axis == 0) return host_colsum(&j);
  gm_par_for(rows, 1, (double)cols, rowsum_chunk, &j);
  return GM_OK;
}

/* ---- contiguous fill ----
 * Big fills (beyond the caches) use streaming stores: the destination is
 * written without first being read into the cache, which halves the
 * memory traffic (this is what memset does too). */

#define FILL_STREAM_BYTES ((size_t)8 << 20)

#define FILL_LOOPS(T, VEC, SET1, STREAM)                                                        \
  GM_SIMD_CLONES static void fill_plain_##T(T *x, size_t n, T alpha) {                         \
    for (size_t i = 0; i < n; i++) x[i] = alpha;                                                \
  }                                                                                             \
  static void fill_stream_##T(T *x, size_t n, T alpha) {                                       \
    size_t i = 0;                                                                               \
    while (i < n && ((uintptr_t)(x + i) & 15)) x[i++] = alpha;                                  \
    VEC v = SET1(alpha);                                                                        \
    for (; i + 16 / sizeof(T) <= n; i += 16 / sizeof(T)) STREAM(x + i, v);                      \
    for (; i < n; i++) x[i] = alpha;                                                            \
    _mm_sfence();                                                                               \
  }

#if defined(__SSE2__)
#include <emmintrin.h>
FILL_LOOPS(float, __m128, _mm_set1_ps, _mm_stream_ps)
FILL_LOOPS(double, __m128d, _mm_set1_pd, _mm_stream_pd)
#endif
/* no streaming stores: the plain loop for every size */
#define PLAIN_FILL_LOOPS(T, ...)                                           \
  GM_SIMD_CLONES static void fill_plain_##T(T *x, size_t n, T alpha) {    \
    for (size_t i = 0; i < n; i++) x[i] = alpha;                           \
  }                                                                        \
  static void fill_stream_##T(T *x, size_t n, T alpha) { fill_plain_##T(x, n, alpha); }
#if !defined(__SSE2__)
GM_FLOAT_CTYPES(PLAIN_FILL_LOOPS)
#endif
/* bool and the integers: the plain loop (fills of those are the
 * constructors', where the streaming stores matter less) */
GM_BOOL_CTYPES(PLAIN_FILL_LOOPS)
GM_INTEGER_CTYPES(PLAIN_FILL_LOOPS)
/* the 16-bit floats and the complex types (structs: no SIMD clones) */
#define HALF_FILL_LOOPS(T, ...)                                                                     \
  static void fill_plain_##T(T *x, size_t n, T alpha) {                                            \
    for (size_t i = 0; i < n; i++) x[i] = alpha;                                                   \
  }                                                                                                \
  static void fill_stream_##T(T *x, size_t n, T alpha) { fill_plain_##T(x, n, alpha); }
GM_HALF_CTYPES(HALF_FILL_LOOPS)
/* ... and the complex types (a real alpha: imaginary part 0) */
GM_COMPLEX_CTYPES(HALF_FILL_LOOPS)

/* j->op: streaming stores (the fill is bigger than the caches) */
static void fill_chunk(void *arg, size_t b, size_t e) {
  const ew_job *j = arg;
#define X(T, E, ...)                                                   \
  case GM_##E:                                                         \
    if (j->op)                                                         \
      fill_stream_##T((T *)j->c + b, e - b, gm_sat_##T(j->alpha));     \
    else                                                               \
      fill_plain_##T((T *)j->c + b, e - b, gm_sat_##T(j->alpha));      \
    break;
  switch (j->t) {
    GM_CTYPES(X) /* every row: a ctype left out here was a fill_ that wrote nothing */
    default:
      break;
  }
#undef X
}

gm_status gm_host_fill_contiguous(gm_ctype t, size_t n, double alpha, void *x) {
  ew_job j = {.t = t, .op = n * gm_ctype_size(t) >= FILL_STREAM_BYTES, .alpha = alpha, .c = x};
  gm_par_for(n, 16, gm_par_elem_cost(1.0, gm_ctype_size(t)), fill_chunk, &j);
  return GM_OK;
}

const gm_elementwise_ops gm_host_elementwise_ops = {
    .unary = host_unary,
    .unary_into = host_unary_into,
    .predicate = host_predicate,
    .scalar = host_scalar,
    .geem = host_geem,
    .geerv = host_geerv,
    .lt = host_lt,
    .add_sign = host_add_sign,
    .sum = host_sum,
    .scale = host_scale,
};
