/* Host loops of the strided elementwise engine (core/ops/strided_ew_ops.h): the
 * element functions of kernels/strided_ew.h over an N-d iteration space.
 *
 * gm_par_for splits the flat row-major index range over the cores; a
 * chunk walks it one run of the innermost (coalesced) axis at a time.
 * Each run calls a counted loop specialised for its inner strides:
 * every operand contiguous (the whole of a contiguous op, after
 * coalescing), one input repeated (stride 0: a row or column stretched,
 * a number), or general strides; an operand that steps far along the
 * innermost axis (a transposed view) is walked in tiles.
 * GM_SIMD_CLONES builds AVX-512 and AVX2 versions.  Compiled with the
 * flags of src/host/elementwise.c (CMakeLists.txt) so pow vectorizes as
 * there. */
#include "../core/ops/strided_ew_ops.h"

#include <math.h>

#include "../core/exec/par.h"
#include "simd.h"

#ifdef GPUMAT_HAVE_MVEC
/* libmvec's SIMD pow for the pow loops (kernels/mvec.h has the one-argument
 * functions; only these loops call pow). */
__attribute__((simd("notinbranch"))) extern double pow(double, double);
__attribute__((simd("notinbranch"))) extern float powf(float, float);
#endif

/* Inner loops: o[r*ro + i*so] := f(a[r*ra + i*sa], b[r*rb + i*sb]) for
 * r < rows, i < n (st: so, sa, sb, ro, ra, rb), on void pointers so one
 * table indexed by ctype, op and variant holds them.  Whole rows go in
 * one call: a call per row cost as much as a short row's loop. */
typedef void (*inner_fn)(int64_t rows, int64_t n, void *o, const void *a, const void *b, const int64_t *st);

/* BC_INNER_R(R, T, f): inputs T, output R (bool for the comparisons);
 * BC_ROWS(R, T, f, DECL, A, B): the row loop around `o[i] = f(A, B)`; DECL
 * reads a repeated operand once per row (a local the loop can unswitch on:
 * x ^ 0.5's square root, kernels/strided_ew.h). */
#define BC_ROWS(R, T, f, DECL, A, B)                                                                  \
  for (int64_t r = 0; r < rows; r++) {                                                                \
    R *o = (R *)ov + r * st[3];                                                                       \
    const T *a = (const T *)av + r * st[4], *b = (const T *)bv + r * st[5];                           \
    DECL                                                                                              \
    for (int64_t i = 0; i < n; i++) o[i] = gm_bc_##f##_##T(A, B);                                     \
  }
#define BC_INNER(T, f) BC_INNER_R(T, T, f)
#define BC_INNER_R(R, T, f)                                                                           \
  GM_SIMD_CLONES static void bc_##f##_##T##_cc(int64_t rows, int64_t n, void *ov, const void *av,     \
                                              const void *bv, const int64_t *st) {                    \
    BC_ROWS(R, T, f, , a[i], b[i])                                                                    \
  }                                                                                                   \
  GM_SIMD_CLONES static void bc_##f##_##T##_cs(int64_t rows, int64_t n, void *ov, const void *av,     \
                                              const void *bv, const int64_t *st) {                    \
    BC_ROWS(R, T, f, const T bs = *b;, a[i], bs)                                                      \
  }                                                                                                   \
  GM_SIMD_CLONES static void bc_##f##_##T##_sc(int64_t rows, int64_t n, void *ov, const void *av,     \
                                              const void *bv, const int64_t *st) {                    \
    BC_ROWS(R, T, f, const T as = *a;, as, b[i])                                                      \
  }                                                                                                   \
  static void bc_##f##_##T##_gen(int64_t rows, int64_t n, void *ov, const void *av, const void *bv,   \
                                 const int64_t *st) {                                                 \
    for (int64_t r = 0; r < rows; r++) {                                                              \
      R *o = (R *)ov + r * st[3];                                                                     \
      const T *a = (const T *)av + r * st[4], *b = (const T *)bv + r * st[5];                         \
      for (int64_t i = 0; i < n; i++) o[i * st[0]] = gm_bc_##f##_##T(a[i * st[1]], b[i * st[2]]);     \
    }                                                                                                 \
  }

typedef enum { V_CC, V_CS, V_SC, V_GEN, N_VARIANTS } variant;

/* One set of loops per op and ctype the op table (kernels/op_table.h)
 * says it runs on: the BINARY rows whose kinds include the ctype's kind,
 * and the comparisons (bool out) on every ctype. */
#define BC_OP_INNER_(T, f, ...) BC_INNER(T, f)
#define BC_CMP_INNER_(T, f, ...) BC_INNER_R(bool, T, f)
#define BC_OP_ROW_(T, f, E, ...) [GM_BC_##E] = {bc_##f##_##T##_cc, bc_##f##_##T##_cs, bc_##f##_##T##_sc, bc_##f##_##T##_gen},
#define BC_LOOPS_(K, T) GM_BINARY_OPS_OF_WITH(K, BC_OP_INNER_, T) GM_BCAST_CMP_OPS_WITH(BC_CMP_INNER_, T)
#define BC_ROW_(K, T, E) [GM_##E] = {GM_BINARY_OPS_OF_WITH(K, BC_OP_ROW_, T) GM_BCAST_CMP_OPS_WITH(BC_OP_ROW_, T)},
#define BC_FLOAT_LOOPS_(T, ...) BC_LOOPS_(FLOAT, T)
#define BC_INT_LOOPS_(T, ...) BC_LOOPS_(INT, T)
#define BC_BOOL_LOOPS_(T, ...) BC_LOOPS_(BOOL, T)
#define BC_FLOAT_ROW_(T, E, ...) BC_ROW_(FLOAT, T, E)
#define BC_INT_ROW_(T, E, ...) BC_ROW_(INT, T, E)
#define BC_BOOL_ROW_(T, E, ...) BC_ROW_(BOOL, T, E)
/* complex: its BINARY rows and its comparisons (== and !=) */
#define BC_CX_LOOPS_(T, ...) \
  GM_BINARY_OPS_OF_WITH(COMPLEX, BC_OP_INNER_, T) GM_BCAST_CMP_OPS_OF_WITH(COMPLEX, BC_CMP_INNER_, T)
#define BC_CX_ROW_(T, E, ...) \
  [GM_##E] = {GM_BINARY_OPS_OF_WITH(COMPLEX, BC_OP_ROW_, T) GM_BCAST_CMP_OPS_OF_WITH(COMPLEX, BC_OP_ROW_, T)},
/* (bool through the row: C spells it _Bool, as the generated names do) */
GM_FLOAT_CTYPES(BC_FLOAT_LOOPS_)
GM_INTEGER_CTYPES(BC_INT_LOOPS_)
GM_BOOL_CTYPES(BC_BOOL_LOOPS_)
GM_COMPLEX_CTYPES(BC_CX_LOOPS_)

static const inner_fn inner_table[GM_N_CTYPES][GM_N_BCAST][N_VARIANTS] = {
    GM_FLOAT_CTYPES(BC_FLOAT_ROW_) GM_INTEGER_CTYPES(BC_INT_ROW_) GM_BOOL_CTYPES(BC_BOOL_ROW_)
        GM_COMPLEX_CTYPES(BC_CX_ROW_)};

/* Comparisons of floats and doubles into bools, by hand in AVX2.  GCC 12
 * narrows each compare's 64-bit (32-bit) masks to bytes with a chain of
 * shuffles and masks at every level: 100K doubles took 20 us against
 * numpy's 14 (x:gt(0.5) 1.3-1.4x numpy's time at 100K-1M), 100K floats
 * 7.8 us.  Here, as in NumPy's SIMD loops, 32 compares pack to 32 bytes
 * by signed-saturating packs (a mask is 0 or -1 in every width: three
 * levels from doubles, two from floats), one permute (and for doubles one
 * in-lane byte shuffle) restores the order, and one AND makes 0/1 (14 us
 * and 6.0 us).  Each row's predicate is its C operator's: ordered and
 * quiet, != unordered (NaN != x holds); the tail runs the generic element
 * function.  Picked at run time where the CPU has AVX2 (inner_of). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CMP_PRED_GT _CMP_GT_OQ
#define CMP_PRED_GE _CMP_GE_OQ
#define CMP_PRED_LT _CMP_LT_OQ
#define CMP_PRED_LE _CMP_LE_OQ
#define CMP_PRED_EQ _CMP_EQ_OQ
#define CMP_PRED_NE _CMP_NEQ_UQ

/* The packs work within 128-bit lanes, so their results come out of
 * order: from doubles in pairs, 0-1 4-5 ... 28-29 in the low lane and 2-3
 * 6-7 ... 30-31 in the high one (qwords 0 2 1 3, then the byte shuffle in
 * each lane, restore it); from floats in groups of four, dwords 0 4 1 5 2
 * 6 3 7 (tests: spec/broadcast_spec.lua, "long rows"). */
__attribute__((target("avx2"))) static inline void pack_store_double(bool *o, const __m256d m[8]) {
  __m256i i[8];
  for (int k = 0; k < 8; k++) i[k] = _mm256_castpd_si256(m[k]);
  __m256i ab = _mm256_packs_epi32(i[0], i[1]), cd = _mm256_packs_epi32(i[2], i[3]);
  __m256i ef = _mm256_packs_epi32(i[4], i[5]), gh = _mm256_packs_epi32(i[6], i[7]);
  __m256i r = _mm256_packs_epi16(_mm256_packs_epi32(ab, cd), _mm256_packs_epi32(ef, gh));
  r = _mm256_permute4x64_epi64(r, _MM_SHUFFLE(3, 1, 2, 0));
  r = _mm256_shuffle_epi8(r, _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15, 0, 1, 8, 9, 2,
                                              3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15));
  _mm256_storeu_si256((__m256i *)(void *)o, _mm256_and_si256(r, _mm256_set1_epi8(1)));
}

__attribute__((target("avx2"))) static inline void pack_store_float(bool *o, const __m256 m[4]) {
  __m256i i[4];
  for (int k = 0; k < 4; k++) i[k] = _mm256_castps_si256(m[k]);
  __m256i r = _mm256_packs_epi16(_mm256_packs_epi32(i[0], i[1]), _mm256_packs_epi32(i[2], i[3]));
  r = _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  _mm256_storeu_si256((__m256i *)(void *)o, _mm256_and_si256(r, _mm256_set1_epi8(1)));
}

/* T's vector type V, its lanes W, and the intrinsics' suffix X (pd, ps);
 * LA, LB: the lanes of a and b at element i + W * k (a load or a
 * broadcast); EA, EB: one element, for the tail. */
#define CMP_ROWS(T, V, W, X, f, E, LA, LB, EA, EB)                                              \
  for (int64_t r = 0; r < rows; r++) {                                                          \
    bool *o = (bool *)ov + r * st[3];                                                           \
    const T *a = (const T *)av + r * st[4], *b = (const T *)bv + r * st[5];                     \
    int64_t i = 0;                                                                              \
    for (; i + 32 <= n; i += 32) {                                                              \
      V m[32 / W];                                                                              \
      for (int k = 0; k < 32 / W; k++) m[k] = _mm256_cmp_##X(LA, LB, CMP_PRED_##E);              \
      pack_store_##T(o + i, m);                                                                 \
    }                                                                                           \
    for (; i < n; i++) o[i] = gm_bc_##f##_##T(EA, EB);                                          \
  }
#define CMP_AVX2_FN(T, V, W, X, f, E, v, LA, LB, EA, EB)                                                    \
  __attribute__((target("avx2"))) static void cmp_##T##_##f##_##v(int64_t rows, int64_t n, void *ov,       \
                                                                  const void *av, const void *bv,           \
                                                                  const int64_t *st) {                      \
    CMP_ROWS(T, V, W, X, f, E, LA, LB, EA, EB)                                                              \
  }
#define CMP_AVX2_(f, E, T, V, W, X)                                                                          \
  CMP_AVX2_FN(T, V, W, X, f, E, cc, _mm256_loadu_##X(a + i + W * k), _mm256_loadu_##X(b + i + W * k), a[i], b[i]) \
  CMP_AVX2_FN(T, V, W, X, f, E, cs, _mm256_loadu_##X(a + i + W * k), _mm256_set1_##X(*b), a[i], *b)             \
  CMP_AVX2_FN(T, V, W, X, f, E, sc, _mm256_set1_##X(*a), _mm256_loadu_##X(b + i + W * k), *a, b[i])
#define CMP_AVX2_DOUBLE_(f, E, ...) CMP_AVX2_(f, E, double, __m256d, 4, pd)
#define CMP_AVX2_FLOAT_(f, E, ...) CMP_AVX2_(f, E, float, __m256, 8, ps)
GM_BCAST_CMP_OPS(CMP_AVX2_DOUBLE_)
GM_BCAST_CMP_OPS(CMP_AVX2_FLOAT_)
#define CMP_ROW_(T, f, E, ...) [GM_BC_##E] = {cmp_##T##_##f##_cc, cmp_##T##_##f##_cs, cmp_##T##_##f##_sc},
static const inner_fn cmp_double_table[GM_N_BCAST][V_GEN] = {GM_BCAST_CMP_OPS_WITH(CMP_ROW_, double)};
static const inner_fn cmp_float_table[GM_N_BCAST][V_GEN] = {GM_BCAST_CMP_OPS_WITH(CMP_ROW_, float)};

/* The loop of op on ctype t in variant v: the AVX2 comparison of floats
 * or doubles where there is one and the CPU runs it. */
static inner_fn inner_of(gm_ctype t, int op, variant v) {
  if ((t == GM_DOUBLE || t == GM_FLOAT) && v != V_GEN) {
    inner_fn f = (t == GM_DOUBLE ? cmp_double_table : cmp_float_table)[op][v];
    if (f && __builtin_cpu_supports("avx2")) return f;
  }
  return inner_table[t][op][v];
}
#else
static inner_fn inner_of(gm_ctype t, int op, variant v) { return inner_table[t][op][v]; }
#endif

/* where: o := c ? a : b, c bool (st: the four inner strides), read as
 * bytes: GCC 12 vectorizes no loop that loads _Bool ("no vectype"), and
 * a random mask made the branchy scalar loop 5-8x slower than an add */
typedef void (*where_fn)(int64_t n, void *o, const void *c, const void *a, const void *b, const int64_t *st);

#define WHERE_INNER(T, ...)                                                                          \
  GM_SIMD_CLONES static void where_##T##_cc(int64_t n, void *ov, const void *cv, const void *av,    \
                                            const void *bv, const int64_t *st) {                     \
    T *o = ov;                                                                                       \
    const unsigned char *c = cv;                                                                              \
    const T *a = av, *b = bv;                                                                        \
    (void)st;                                                                                        \
    for (int64_t i = 0; i < n; i++) o[i] = gm_bc_where_##T(c[i] != 0, a[i], b[i]);                        \
  }                                                                                                  \
  /* a number operand (x[mask] = v is where(mask, v, x, {out = x})) */                             \
  GM_SIMD_CLONES static void where_##T##_ca(int64_t n, void *ov, const void *cv, const void *av,    \
                                            const void *bv, const int64_t *st) {                     \
    T *o = ov;                                                                                       \
    const unsigned char *c = cv;                                                                              \
    const T a = *(const T *)av, *b = bv;                                                             \
    (void)st;                                                                                        \
    for (int64_t i = 0; i < n; i++) o[i] = gm_bc_where_##T(c[i] != 0, a, b[i]);                           \
  }                                                                                                  \
  GM_SIMD_CLONES static void where_##T##_cb(int64_t n, void *ov, const void *cv, const void *av,    \
                                            const void *bv, const int64_t *st) {                     \
    T *o = ov;                                                                                       \
    const unsigned char *c = cv;                                                                              \
    const T *a = av, b = *(const T *)bv;                                                             \
    (void)st;                                                                                        \
    for (int64_t i = 0; i < n; i++) o[i] = gm_bc_where_##T(c[i] != 0, a[i], b);                           \
  }                                                                                                  \
  static void where_##T##_gen(int64_t n, void *ov, const void *cv, const void *av, const void *bv,  \
                              const int64_t *st) {                                                   \
    T *o = ov;                                                                                       \
    const unsigned char *c = cv;                                                                              \
    const T *a = av, *b = bv;                                                                        \
    for (int64_t i = 0; i < n; i++)                                                                  \
      o[i * st[0]] = gm_bc_where_##T(c[i * st[1]] != 0, a[i * st[2]], b[i * st[3]]);                     \
  }

GM_CTYPES(WHERE_INNER)
/* the variants by inner strides: all contiguous, a or b a number (stride
 * 0, the others contiguous), any */
enum { W_CC, W_CA, W_CB, W_GEN, N_WHERE };
#define WHERE_ROW_(T, E, ...) [GM_##E] = {where_##T##_cc, where_##T##_ca, where_##T##_cb, where_##T##_gen},
static const where_fn where_table[GM_N_CTYPES][N_WHERE] = {GM_CTYPES(WHERE_ROW_)};

static int where_variant(const int64_t *inner) {
  if (inner[0] != 1 || inner[1] != 1) return W_GEN;
  if (inner[2] == 1 && inner[3] == 1) return W_CC;
  if (inner[2] == 0 && inner[3] == 1) return W_CA;
  if (inner[2] == 1 && inner[3] == 0) return W_CB;
  return W_GEN;
}

/* Everything one chunk needs; p[k] is operand k's base (a number
 * operand points at its value, of its ctype ct[k], in `local`).  The
 * inputs are of ctype t; a comparison's output and where's cond are bool. */
typedef struct st_job {
  gm_ctype t;
  int op; /* gm_bcast_op, or -1 for where */
  const gm_strided *s;
  gm_ctype ct[GM_STRIDED_MAX_OPS];
  char *p[GM_STRIDED_MAX_OPS];
  _Alignas(16) unsigned char local[GM_STRIDED_MAX_OPS][16];
  int64_t es[GM_STRIDED_MAX_OPS]; /* operand k's element size in bytes */
} st_job;

static variant classify(const int64_t *inner) {
  if (inner[0] != 1) return V_GEN;
  if (inner[1] == 1 && inner[2] == 1) return V_CC;
  if (inner[1] == 1 && inner[2] == 0) return V_CS;
  if (inner[1] == 0 && inner[2] == 1) return V_SC;
  return V_GEN;
}

/* rows runs of n elements along the innermost axis from offsets off,
 * row r at off + r * step (step: the strides of the next axis). */
static void run_inner(const st_job *j, int64_t rows, int64_t n, const int64_t *off, const int64_t *inner,
                      const int64_t *step) {
  const gm_strided *s = j->s;
  void *q[GM_STRIDED_MAX_OPS];
  for (int k = 0; k < s->nops; k++) q[k] = j->p[k] + off[k] * j->es[k];
  if (j->op < 0) {
    where_fn f = where_table[j->t][where_variant(inner)];
    for (int64_t r = 0; r < rows; r++) {
      void *qr[GM_STRIDED_MAX_OPS];
      for (int k = 0; k < 4; k++) qr[k] = (char *)q[k] + r * step[k] * j->es[k];
      f(n, qr[0], qr[1], qr[2], qr[3], inner);
    }
    return;
  }
  int64_t st[6] = {inner[0], inner[1], inner[2], step[0], step[1], step[2]};
  inner_of(j->t, j->op, classify(inner))(rows, n, q[0], q[1], q[2], st);
}

/* The next row's offsets (row: the outer axes' indices, off: the row's
 * first elements), carrying as an odometer does. */
static void next_row(const gm_strided *s, int64_t *row, int64_t *off) {
  for (int d = s->ndim - 2; d >= 0; d--) {
    for (int k = 0; k < s->nops; k++) off[k] += s->strides[k][d];
    if (++row[d] < s->dims[d]) return;
    for (int k = 0; k < s->nops; k++) off[k] -= s->dims[d] * s->strides[k][d];
    row[d] = 0;
  }
}

/* Row by row from the first's offsets, stepped by next_row: the index
 * division per row (gm_strided_ew_offsets) cost as much as a short row's
 * loop (X + row with 10 columns: 5000 rows of 10 elements). */
static void chunk(void *arg, size_t begin, size_t end) {
  const st_job *j = arg;
  const gm_strided *s = j->s;
  int last = s->ndim - 1;
  int64_t len = s->dims[last], inner[GM_STRIDED_MAX_OPS] = {0}, off[GM_STRIDED_MAX_OPS], row[GM_STRIDED_MAX_DIMS];
  for (int k = 0; k < s->nops; k++) inner[k] = s->strides[k][last];
  if (last == 0) { /* one axis (contiguous operands coalesce to it): no row arithmetic, whose
                    * three 64-bit divisions were a fifth of a 1K x + y's loop */
    for (int k = 0; k < s->nops; k++) off[k] = (int64_t)begin * inner[k];
    run_inner(j, 1, (int64_t)(end - begin), off, inner, inner);
    return;
  }
  int64_t i = (int64_t)begin, col = i % len, q = i / len;
  for (int d = last - 1; d >= 0; d--) {
    row[d] = q % s->dims[d];
    q /= s->dims[d];
  }
  int64_t step[GM_STRIDED_MAX_OPS] = {0};
  for (int k = 0; k < s->nops && last > 0; k++) step[k] = s->strides[k][last - 1];
  gm_strided_ew_offsets(s, i - col, off); /* the row's first elements */
  while (i < (int64_t)end) {
    int64_t n = len - col < (int64_t)end - i ? len - col : (int64_t)end - i, at[GM_STRIDED_MAX_OPS];
    /* whole rows up to the end of the next axis (or of the chunk) in one call */
    int64_t rows = col == 0 && last > 0 ? (int64_t)(end - (size_t)i) / len : 1;
    if (last > 0 && rows > s->dims[last - 1] - row[last - 1]) rows = s->dims[last - 1] - row[last - 1];
    if (rows < 1) rows = 1;
    for (int k = 0; k < s->nops; k++) at[k] = off[k] + col * inner[k];
    run_inner(j, rows, n, at, inner, step);
    i += (rows - 1) * len + n;
    col = 0;
    if (rows > 1) { /* to the last row run, then on as after one row */
      row[last - 1] += rows - 1;
      for (int k = 0; k < s->nops; k++) off[k] += (rows - 1) * step[k];
    }
    next_row(s, row, off);
  }
}

/* ---- tiles ----
 * An operand that steps far along the innermost axis but little along
 * the next (a transposed view) would touch a new cache line and page per
 * element; walking square tiles of the last two axes keeps both its lines
 * and the output's in the cache (numpy walks such an operand element by
 * element).  128 x 128: on this project's AMD Zen 3, 32 x 32 tiles (the
 * first choice) ran a 1000 x 1000 float `a:t() + b` at 4.5 ns per element
 * against the plain walk's 2.2 (each tile's first row missed with 32
 * short streams the prefetcher never learned), 128 x 128 at 2.6, and at
 * 2048 and 4096 the 128 x 128 tiles were the fastest tried (4.8-4.9 ns
 * per element; 32 x 32 6.1-7.3, the plain walk 9-10). */

#define TILE 128

/* Whether some operand steps further along the innermost axis than
 * along the next one. */
static int wants_tiles(const gm_strided *s) {
  if (s->ndim < 2 || s->dims[s->ndim - 1] < TILE || s->dims[s->ndim - 2] < TILE) return 0;
  for (int k = 0; k < s->nops; k++) {
    int64_t in = s->strides[k][s->ndim - 1], out = s->strides[k][s->ndim - 2];
    in = in < 0 ? -in : in;
    out = out < 0 ? -out : out;
    if (in > 1 && out < in) return 1;
  }
  return 0;
}

/* Tiles [begin, end): tile t is (outer index, tile row, tile column). */
static void tile_chunk(void *arg, size_t begin, size_t end) {
  const st_job *j = arg;
  const gm_strided *s = j->s;
  int last = s->ndim - 1;
  int64_t rows = s->dims[last - 1], cols = s->dims[last];
  int64_t tr = (rows + TILE - 1) / TILE, tc = (cols + TILE - 1) / TILE, inner[GM_STRIDED_MAX_OPS] = {0};
  for (int k = 0; k < s->nops; k++) inner[k] = s->strides[k][last];
  for (int64_t t = (int64_t)begin; t < (int64_t)end; t++) {
    int64_t o = t / (tr * tc), i = t / tc % tr * TILE, c = t % tc * TILE;
    int64_t r_end = i + TILE < rows ? i + TILE : rows, n = c + TILE < cols ? TILE : cols - c;
    for (int64_t r = i; r < r_end; r++) {
      int64_t off[GM_STRIDED_MAX_OPS];
      gm_strided_ew_offsets(s, (o * rows + r) * cols + c, off);
      run_inner(j, 1, n, off, inner, inner);
    }
  }
}

static void set_base(st_job *j, int k, const void *p) {
  j->es[k] = (int64_t)gm_ctype_size(j->ct[k]);
  if (p) {
    j->p[k] = (char *)(uintptr_t)p;
  } else { /* a number: its value in the ctype, repeated by stride 0 */
    gm_ctype_set(j->ct[k], j->local[k], 0, j->s->scalar[k]);
    j->p[k] = (char *)j->local[k];
  }
}

static void run(st_job *j, double cost) {
  const gm_strided *s = j->s;
  if (wants_tiles(s)) {
    int64_t rows = s->dims[s->ndim - 2], cols = s->dims[s->ndim - 1];
    int64_t tiles = gm_strided_count(s) / (rows * cols) * ((rows + TILE - 1) / TILE) * ((cols + TILE - 1) / TILE);
    gm_par_for((size_t)tiles, 1, cost * TILE * TILE, tile_chunk, j);
    return;
  }
  gm_par_for((size_t)gm_strided_count(s), 16, cost, chunk, j);
}

static gm_status host_binary(void *ctx, gm_ctype t, gm_bcast_op op, const gm_strided *s, void *out, const void *a,
                             const void *b) {
  (void)ctx;
  static const double cost[GM_N_BCAST] = {
#define X(f, E, lua, kinds, result, c, ...) [GM_BC_##E] = c,
      GM_BCAST_OPS(X)
#undef X
  };
  bool cmp = gm_bc_is_cmp(op);
  st_job j; /* (local, the numbers' slots, is written by set_base where used) */
  j.t = t;
  j.op = (int)op;
  j.s = s;
  j.ct[0] = cmp ? GM_BOOL : t;
  j.ct[1] = j.ct[2] = j.ct[3] = t;
  set_base(&j, 0, out);
  set_base(&j, 1, a);
  set_base(&j, 2, b);
  double c = gm_par_elem_cost(cost[op], gm_ctype_size(t));
  if (s->ndim == 1 && gm_par_inline((size_t)s->dims[0], c)) {
    /* one axis, inline: the loop chunk and run_inner would call (their
     * steps were a tenth of a 1K-element op's fixed cost) */
    const int64_t st[6] = {s->strides[0][0], s->strides[1][0], s->strides[2][0],
                           s->strides[0][0], s->strides[1][0], s->strides[2][0]};
    inner_of(t, (int)op, classify(st))(1, s->dims[0], j.p[0], j.p[1], j.p[2], st);
  } else {
    run(&j, c);
  }
  return GM_OK;
}

static gm_status host_where(void *ctx, gm_ctype t, const gm_strided *s, void *out, const void *cond, const void *a,
                            const void *b) {
  (void)ctx;
  st_job j = {.t = t, .op = -1, .s = s, .ct = {t, GM_BOOL, t, t}};
  set_base(&j, 0, out);
  set_base(&j, 1, cond);
  set_base(&j, 2, a);
  set_base(&j, 3, b);
  run(&j, gm_par_elem_cost(1.0, gm_ctype_size(t)));
  return GM_OK;
}

const gm_strided_ew_ops gm_host_strided_ew_ops = {.binary = host_binary, .where = host_where};
