/* The segment loops of src/host/reduce_axis.c for one element type:
 * included there once per T (float, double) with T defined, after ax_job,
 * ax_seg, put, AX_SPECIALIZE, LANES and TILE, and IT an integer type of
 * T's width for indices within a segment (segments are shorter than
 * 2^31).  No include guard. */
#define AX_CAT3(a, b) a##_##b
#define AX_CAT(a, b) AX_CAT3(a, b)
#define AXN(name) AX_CAT(name, T)

/* ---- rows mode (inner == 1): n contiguous elements ---- */

/* Sums are blocked (lanes restart every ROW_BLOCK elements, columns every
 * COL_BLOCK rows, and the block sums are added up), so the rounding error
 * grows with the block length plus the number of blocks instead of the
 * axis length. */
/* n <= ROW_BLOCK elements in LANES double lanes (vectorizes without
 * reassociating); inlined into each SIMD clone that calls it. */
AX_INLINE double AXN(lanes_sum)(const T *restrict x, size_t n) {
  double acc[LANES] = {0};
  size_t i = 0;
  for (; i + LANES <= n; i += LANES)
    for (size_t l = 0; l < LANES; l++) acc[l] += (double)x[i + l];
  for (; i < n; i++) acc[0] += (double)x[i];
  double s = 0;
  for (size_t l = 0; l < LANES; l++) s += acc[l];
  return s;
}

GM_SIMD_CLONES static double AXN(block_sum)(const T *restrict x, size_t n) { return AXN(lanes_sum)(x, n); }

GM_SIMD_CLONES static double AXN(block_sqdev)(const T *restrict x, size_t n, double m) {
  double acc[LANES] = {0};
  size_t i = 0;
  for (; i + LANES <= n; i += LANES)
    for (size_t l = 0; l < LANES; l++) {
      double d = (double)x[i + l] - m;
      acc[l] += d * d;
    }
  for (; i < n; i++) acc[0] += ((double)x[i] - m) * ((double)x[i] - m);
  double s = 0;
  for (size_t l = 0; l < LANES; l++) s += acc[l];
  return s;
}

static double AXN(row_sum)(const T *x, size_t n) {
  double total = 0;
  for (size_t b = 0; b < n; b += ROW_BLOCK) total += AXN(block_sum)(x + b, n - b < ROW_BLOCK ? n - b : ROW_BLOCK);
  return total;
}

/* Sum of (x - m)^2. */
static double AXN(row_sqdev)(const T *x, size_t n, double m) {
  double total = 0;
  for (size_t b = 0; b < n; b += ROW_BLOCK)
    total += AXN(block_sqdev)(x + b, n - b < ROW_BLOCK ? n - b : ROW_BLOCK, m);
  return total;
}

/* Best of n >= LANES elements per lane (value, 0-based index): NaN first,
 * then strictly better, so each lane keeps its first of ties.  In T with
 * an index of T's width (IT), so the selects vectorize. */
GM_SIMD_CLONES static void AXN(row_best)(const T *restrict x, size_t n, int want_max, T *restrict best,
                                         IT *restrict idx) {
  for (size_t l = 0; l < LANES; l++) {
    best[l] = x[l];
    idx[l] = (IT)l;
  }
  /* one loop per direction: a select inside the lane loop vectorizes */
#define AX_ROW_BEST(BETTER)                                    \
  for (size_t i = LANES; i + LANES <= n; i += LANES)           \
    for (size_t l = 0; l < LANES; l++) {                       \
      T v = x[i + l], b = best[l];                             \
      int take = (BETTER) | ((v != v) & (b == b));             \
      best[l] = take ? v : b;                                  \
      idx[l] = take ? (IT)(i + l) : idx[l];                    \
    }
  if (want_max) {
    AX_ROW_BEST(v > b)
  } else {
    AX_ROW_BEST(v < b)
  }
#undef AX_ROW_BEST
}

/* The best of n elements, value only (no index to carry: a fraction of
 * row_best's work); a NaN sticks, so any NaN gives NaN.  In GCC's vector
 * types, AX_NACC accumulators of VB bytes (the selects' latency hidden):
 * GCC vectorizes no plain-C form of this loop, whose select keeps a NaN
 * (its value-only variants ran 3-6x slower than numpy's max). */
#define AX_NACC 4
#define AX_DEFINE_ROW_EXTREME(NAME, VB, ATTR)                                                  \
  ATTR static T NAME(const T *restrict x, size_t n, int want_max) {                            \
    typedef T vt __attribute__((vector_size(VB)));                                             \
    typedef IT vi __attribute__((vector_size(VB)));                                            \
    enum { VN = VB / sizeof(T) };                                                              \
    vt b[AX_NACC];                                                                             \
    vi nm[AX_NACC];                                                                            \
    for (int a = 0; a < AX_NACC; a++) {                                                        \
      b[a] = (vt){0} + x[0];                                                                   \
      nm[a] = (vi){0};                                                                         \
    }                                                                                          \
    size_t i = 0;                                                                              \
    for (; i + AX_NACC * VN <= n; i += AX_NACC * VN)                                           \
      for (int a = 0; a < AX_NACC; a++) {                                                      \
        vt v;                                                                                  \
        memcpy(&v, x + i + (size_t)a * VN, sizeof v);                                          \
        vi take = want_max ? (vi)(v > b[a]) : (vi)(v < b[a]);                                  \
        b[a] = (vt)(((vi)v & take) | ((vi)b[a] & ~take));                                      \
        nm[a] |= (vi)(v != v);                                                                 \
      }                                                                                        \
    int nan = 0;                                                                               \
    T m = x[0];                                                                                \
    for (int a = 0; a < AX_NACC; a++)                                                          \
      for (int l = 0; l < VN; l++) {                                                           \
        nan |= nm[a][l] != 0;                                                                  \
        T v = b[a][l];                                                                         \
        m = (want_max ? v > m : v < m) ? v : m;                                                \
      }                                                                                        \
    for (; i < n; i++) {                                                                       \
      T v = x[i];                                                                              \
      nan |= v != v;                                                                           \
      m = (want_max ? v > m : v < m) ? v : m;                                                  \
    }                                                                                          \
    return nan ? (T)NAN : m;                                                                   \
  }
AX_DEFINE_ROW_EXTREME(AXN(row_extreme16), 16, )
AX_DEFINE_ROW_EXTREME(AXN(row_extreme32), 32, GM_AVX2_TARGET)
#undef AX_DEFINE_ROW_EXTREME
#undef AX_NACC

static T AXN(row_extreme)(const T *x, size_t n, int want_max) {
  return GM_CPU_HAS_AVX2() ? AXN(row_extreme32)(x, n, want_max) : AXN(row_extreme16)(x, n, want_max);
}

/* The first k with x[k] == m (m NaN: the first NaN) of n elements, one of
 * which is: whether a block of 64 holds it is a compare-and-or that
 * vectorizes, then the block is scanned. */
GM_SIMD_CLONES static size_t AXN(first_equal)(const T *restrict x, size_t n, T m) {
  const int nan = m != m;
  size_t k0 = 0;
  for (; k0 + 64 <= n; k0 += 64) {
    int hit = 0;
    if (nan)
      for (size_t l = 0; l < 64; l++) hit |= x[k0 + l] != x[k0 + l];
    else
      for (size_t l = 0; l < 64; l++) hit |= x[k0 + l] == m;
    if (hit) break;
  }
  for (size_t k = k0; k < n; k++)
    if (nan ? x[k] != x[k] : x[k] == m) return k;
  return 0; /* not reached: m is one of the elements */
}

/* Sum of exp(x - m) (m finite), with the element type's exp (AX_EXP_T). */
GM_SIMD_CLONES static double AXN(row_expsum)(const T *restrict x, size_t n, double m) {
  double acc[LANES] = {0};
  size_t i = 0;
  for (; i + LANES <= n; i += LANES)
    for (size_t l = 0; l < LANES; l++) acc[l] += (double)AX_CAT(AX_EXP, T)((double)x[i + l] - m);
  for (; i < n; i++) acc[0] += (double)AX_CAT(AX_EXP, T)((double)x[i] - m);
  double s = 0;
  for (size_t l = 0; l < LANES; l++) s += acc[l];
  return s;
}

/* y[k] := exp(x[k] - m) / sum */
GM_SIMD_CLONES static void AXN(row_softmax)(const T *restrict x, size_t n, double m, double sum, T *restrict y) {
  for (size_t k = 0; k < n; k++) y[k] = (T)((double)AX_CAT(AX_EXP, T)((double)x[k] - m) / sum);
}

/* The extreme of a row shorter than LANES, in T: the first NaN wins, then
 * strictly better, so ties keep the first index (gm_ax_better's rule, as
 * row_best's lanes).  gm_ax_step per element cost a k-means step's
 * argmin over 10 clusters about 15 instructions an element. */
static gm_axacc AXN(short_best)(int op, const T *x, size_t n) {
  T b = x[0];
  size_t bi = 0;
  if (b == b) {
    const int want_max = gm_ax_wants_max(op);
    for (size_t k = 1; k < n; k++) {
      T v = x[k];
      if (v != v) {
        b = v;
        bi = k;
        break;
      }
      if (want_max ? v > b : v < b) {
        b = v;
        bi = k;
      }
    }
  }
  return (gm_axacc){(double)b, 0, (long long)bi};
}

AX_INLINE void AXN(row_steps)(int op, const T *x, size_t n, gm_axacc *c) {
  for (size_t k = 0; k < n; k++) gm_ax_step(op, c, (double)x[k], (long long)k);
}

/* Accumulator of n >= 1 contiguous elements (indices relative to x). */
static gm_axacc AXN(fold_row)(int op, const T *x, size_t n) {
  gm_axacc c = gm_ax_init(op);
  if (is_sum(op)) {
    c.a = AXN(row_sum)(x, n);
  } else if (is_var(op)) {
    c.n = (long long)n;
    c.a = AXN(row_sum)(x, n) / (double)n;
    c.b = AXN(row_sqdev)(x, n, c.a);
  } else if (gm_ax_is_extreme(op) && n >= LANES && (!gm_ax_is_arg(op) || n * sizeof(T) <= EXTREME_TWO_PASS_BYTES)) {
    /* two passes: the value, then where it first is.  gm.argmax(X, 2) of
     * 1000 x 1000 floats took 1.25x numpy's time in row_best's selects of
     * value and index; the first occurrence (ties: the smaller index; a
     * NaN: the first NaN) is row_best's answer.  max/min of a row without
     * a zero skip the second: a tie then has one value (+0 and -0 are the
     * tie whose first one counts). */
    T m = AXN(row_extreme)(x, n, gm_ax_wants_max(op));
    if (!gm_ax_is_arg(op) && m == m && m != 0) return (gm_axacc){(double)m, 0, 0};
    size_t k = AXN(first_equal)(x, n, m);
    return (gm_axacc){(double)x[k], 0, (long long)k};
  } else if ((gm_ax_is_extreme(op) || gm_ax_is_lse(op)) && n >= LANES) {
    T best[LANES];
    IT idx[LANES];
    int want_max = gm_ax_is_lse(op) || gm_ax_wants_max(op);
    AXN(row_best)(x, n, want_max, best, idx);
    int xop = gm_ax_is_lse(op) ? GM_AX_MAX : op;
    gm_axacc e = gm_ax_init(xop);
    for (size_t l = 0; l < LANES; l++) gm_ax_merge(xop, &e, (gm_axacc){(double)best[l], 0, (long long)idx[l]});
    for (size_t k = n / LANES * LANES; k < n; k++) gm_ax_step(xop, &e, (double)x[k], (long long)k);
    if (!gm_ax_is_lse(op)) return e;
    if (isfinite(e.a)) return (gm_axacc){e.a, AXN(row_expsum)(x, n, e.a), 0};
    AX_SPECIALIZE(AXN(row_steps), x, n, &c) /* NaN or infinite max: the careful steps */
  } else if (gm_ax_is_extreme(op)) {
    return AXN(short_best)(op, x, n);
  } else {
    AX_SPECIALIZE(AXN(row_steps), x, n, &c)
  }
  return c;
}

/* Sums of `rows` whole rows of n <= ROW_BLOCK elements (row r at x + r *
 * so) into s: block_sum's lanes_sum (the same bits), inlined per row.
 * A 100 x 100 X:sum(2) spent as much in the calls per row (the clones'
 * dispatch, fold_row's tests) as in the rows. */
GM_SIMD_CLONES static void AXN(short_rows_sum)(const T *restrict x, size_t n, size_t so, size_t rows,
                                               double *restrict s) {
  for (size_t r = 0; r < rows; r++) s[r] = AXN(lanes_sum)(x + r * so, n);
}

/* Whole contiguous rows b..e (inner == 1, sl == 1, one segment each) to
 * their results: short rows (k-means' 20000 x 16 distances) spent more in
 * fold_tasks' segment arithmetic and dispatch per row than in the row. */
static void AXN(fold_rows)(const ax_job *j, size_t b, size_t e) {
  const T *x = (const T *)j->x;
  if (is_sum(j->op) && j->len <= ROW_BLOCK) {
    double s[64];
    for (size_t r0 = b; r0 < e; r0 += 64) {
      size_t m = e - r0 < 64 ? e - r0 : 64;
      AXN(short_rows_sum)(x + r0 * j->so, j->len, j->so, m, s);
      for (size_t k = 0; k < m; k++) {
        gm_axacc c = gm_ax_init(j->op);
        c.a = s[k];
        put(j, r0 + k, gm_ax_result(j->op, c, (long long)j->len, j->ddof));
      }
    }
    return;
  }
  for (size_t r = b; r < e; r++)
    put(j, r, gm_ax_result(j->op, AXN(fold_row)(j->op, x + r * j->so, j->len), (long long)j->len, j->ddof));
}

/* ---- softmax of whole rows in one pass of exps ---- */

/* The max of n >= 1 contiguous elements (NaN if one is NaN). */
static double AXN(row_max)(const T *x, size_t n) {
  if (n >= LANES) return (double)AXN(row_extreme)(x, n, 1);
  return AXN(short_best)(GM_AX_MAX, x, n).a;
}

/* Sum of n < LANES elements in order: block_sum's value for such n (its
 * remainder loop is lane 0's) without setting up and adding its lanes. */
static double AXN(short_sum)(const T *x, size_t n) {
  double s = 0;
  for (size_t k = 0; k < n; k++) s += (double)x[k];
  return s;
}

/* y[k] := y[k] / sum; y may be x (in place: no restrict). */
GM_SIMD_CLONES static void AXN(row_div)(T *y, size_t n, double sum) {
  for (size_t k = 0; k < n; k++) y[k] = (T)((double)y[k] / sum);
}

GM_SIMD_CLONES static void AXN(span_exp)(T *y, size_t n) {
  for (size_t k = 0; k < n; k++) y[k] = (T)AX_CAT(AX_EXP, T)((double)y[k]);
}

/* Rows r0..r1, which hold x - (their max): exponentiated in one pass over
 * the whole span (rows of 10 classes left most of an exp loop's lanes
 * idle), then each divided by its sum. */
static void AXN(softmax_span)(const ax_job *j, size_t r0, size_t r1) {
  size_t n = j->len;
  T *y = (T *)j->y;
  AXN(span_exp)(y + r0 * n, (r1 - r0) * n);
  for (size_t r = r0; r < r1; r++) {
    T *yr = y + r * n;
    if (n >= LANES) {
      AXN(row_div)(yr, n, AXN(row_sum)(yr, n));
      continue;
    }
    double sum = AXN(short_sum)(yr, n); /* a short row: no call of row_div's clones */
    for (size_t k = 0; k < n; k++) yr[k] = (T)((double)yr[k] / sum);
  }
}

/* ---- columns mode: n rows of w columns, `inner` apart ---- */

GM_SIMD_CLONES static void AXN(col_sum)(const T *restrict x, size_t n, size_t inner, size_t w, double *restrict s,
                                        double *restrict blk) {
  for (size_t c = 0; c < w; c++) s[c] = 0;
  for (size_t k0 = 0; k0 < n; k0 += COL_BLOCK) {
    size_t k1 = n - k0 < COL_BLOCK ? n : k0 + COL_BLOCK;
    for (size_t c = 0; c < w; c++) blk[c] = 0;
    size_t k = k0;
    for (; k + 4 <= k1; k += 4) { /* four rows per pass over blk */
      const T *r0 = x + k * inner, *r1 = r0 + inner, *r2 = r1 + inner, *r3 = r2 + inner;
      for (size_t c = 0; c < w; c++) blk[c] += ((double)r0[c] + (double)r1[c]) + ((double)r2[c] + (double)r3[c]);
    }
    for (; k < k1; k++) {
      const T *r = x + k * inner;
      for (size_t c = 0; c < w; c++) blk[c] += (double)r[c];
    }
    for (size_t c = 0; c < w; c++) s[c] += blk[c];
  }
}

GM_SIMD_CLONES static void AXN(col_sqdev)(const T *restrict x, size_t n, size_t inner, size_t w,
                                          const double *restrict m, double *restrict q, double *restrict blk) {
  for (size_t c = 0; c < w; c++) q[c] = 0;
  for (size_t k0 = 0; k0 < n; k0 += COL_BLOCK) {
    size_t k1 = n - k0 < COL_BLOCK ? n : k0 + COL_BLOCK;
    for (size_t c = 0; c < w; c++) blk[c] = 0;
    for (size_t k = k0; k < k1; k++) {
      const T *r = x + k * inner;
      for (size_t c = 0; c < w; c++) {
        double d = (double)r[c] - m[c];
        blk[c] += d * d;
      }
    }
    for (size_t c = 0; c < w; c++) q[c] += blk[c];
  }
}

GM_SIMD_CLONES static void AXN(col_best)(const T *restrict x, size_t n, size_t inner, size_t w, int want_max,
                                         int want_idx, T *restrict best, IT *restrict idx) {
  for (size_t c = 0; c < w; c++) {
    best[c] = x[c];
    idx[c] = 0;
  }
#define AX_COL_BEST(BETTER)                                    \
  for (size_t k = 1; k < n; k++) {                             \
    const T *r = x + k * inner;                                \
    for (size_t c = 0; c < w; c++) {                           \
      T v = r[c], b = best[c];                                 \
      int take = (BETTER) | ((v != v) & (b == b));             \
      best[c] = take ? v : b;                                  \
      idx[c] = take ? (IT)k : idx[c];                          \
    }                                                          \
  }
#define AX_COL_EXT(BETTER)                                     \
  for (size_t c = 0; c < w; c++) idx[c] = best[c] != best[c];  \
  for (size_t k = 1; k < n; k++) {                             \
    const T *r = x + k * inner;                                \
    for (size_t c = 0; c < w; c++) {                           \
      T v = r[c], b = best[c];                                 \
      best[c] = (BETTER) ? v : b;                              \
      idx[c] += v != v;                                        \
    }                                                          \
  }                                                            \
  for (size_t c = 0; c < w; c++) best[c] = idx[c] ? (T)NAN : best[c];
  if (want_idx) {
    if (want_max) {
      AX_COL_BEST(v > b)
    } else {
      AX_COL_BEST(v < b)
    }
  } else if (want_max) {
    AX_COL_EXT(v > b)
  } else {
    AX_COL_EXT(v < b)
  }
#undef AX_COL_BEST
#undef AX_COL_EXT
}

AX_INLINE void AXN(col_steps)(int op, const T *x, size_t n, size_t inner, size_t w, gm_axacc *acc) {
  for (size_t k = 0; k < n; k++) {
    const T *r = x + k * inner;
    for (size_t c = 0; c < w; c++) gm_ax_step(op, &acc[c], (double)r[c], (long long)k);
  }
}

/* Accumulators of the w columns of n >= 1 rows (indices relative to x). */
static void AXN(fold_cols)(int op, const T *x, size_t n, size_t inner, size_t w, gm_axacc *acc) {
  double s[TILE], q[TILE], blk[TILE];
  T best[TILE];
  IT idx[TILE];
  if (is_sum(op) || is_var(op)) {
    AXN(col_sum)(x, n, inner, w, s, blk);
    for (size_t c = 0; c < w; c++) acc[c] = (gm_axacc){s[c], 0, 0};
    if (!is_var(op)) return;
    for (size_t c = 0; c < w; c++) s[c] /= (double)n;
    AXN(col_sqdev)(x, n, inner, w, s, q, blk);
    for (size_t c = 0; c < w; c++) acc[c] = (gm_axacc){s[c], q[c], (long long)n};
  } else if (gm_ax_is_extreme(op)) {
    AXN(col_best)(x, n, inner, w, gm_ax_wants_max(op), gm_ax_is_arg(op), best, idx);
    for (size_t c = 0; c < w; c++) acc[c] = (gm_axacc){(double)best[c], 0, (long long)idx[c]};
  } else {
    for (size_t c = 0; c < w; c++) acc[c] = gm_ax_init(op);
    AX_SPECIALIZE(AXN(col_steps), x, n, inner, w, acc)
  }
}

/* ---- segments ---- */

static void AXN(fold_seg)(const ax_job *j, const ax_seg *s, gm_axacc *acc) {
  const T *x = (const T *)j->x + s->o * j->so + s->k0 * j->sl + s->c0;
  if (j->inner == 1 && j->sl == 1)
    acc[0] = AXN(fold_row)(j->op, x, s->n);
  else /* a tile of columns, rows sl apart (a lone strided column: w == 1) */
    AXN(fold_cols)(j->op, x, s->n, j->sl, s->w, acc);
  if (gm_ax_is_extreme(j->op))
    for (size_t c = 0; c < s->w; c++) acc[c].n += (long long)s->k0;
}

/* The segment's softmax elements from its columns' merged accumulators. */
static void AXN(softmax_seg)(const ax_job *j, const ax_seg *s, const gm_axacc *acc) {
  size_t off = (s->o * j->len + s->k0) * j->inner + s->c0;
  const T *x = (const T *)j->x + off;
  T *y = (T *)j->y + off;
  if (j->inner == 1 && isfinite(acc[0].a) && acc[0].b == acc[0].b) {
    AXN(row_softmax)(x, s->n, acc[0].a, acc[0].b, y);
    return;
  }
  for (size_t k = 0; k < s->n; k++)
    for (size_t c = 0; c < s->w; c++)
      y[k * j->inner + c] = (T)gm_ax_softmax(acc[c], (double)x[k * j->inner + c]);
}

/* Softmax of whole contiguous rows b..e with one exp per element (the
 * fold then softmax_seg compute each twice), in spans of about
 * SOFTMAX_SPAN elements (in the cache between the passes); the same
 * values as that path: exp of (T)(x - m), as AX_EXP rounds its argument.
 * A row whose max is not finite (NaN, an infinity) takes the careful
 * path.  y may be x: each row is read before it is written. */
static void AXN(softmax_rows)(const ax_job *j, size_t b, size_t e) {
  size_t n = j->len, start = b;
  const T *x = (const T *)j->x;
  T *y = (T *)j->y;
  for (size_t r = b; r < e; r++) {
    const T *xr = x + r * n;
    T *yr = y + r * n;
    double m = AXN(row_max)(xr, n);
    if (!isfinite(m)) {
      AXN(softmax_span)(j, start, r);
      gm_axacc acc[1];
      ax_seg s = segment(j, r);
      AXN(fold_seg)(j, &s, acc);
      AXN(softmax_seg)(j, &s, acc);
      start = r + 1;
      continue;
    }
    for (size_t k = 0; k < n; k++) yr[k] = (T)((double)xr[k] - m);
    if ((r + 1 - start) * n >= SOFTMAX_SPAN) {
      AXN(softmax_span)(j, start, r + 1);
      start = r + 1;
    }
  }
  AXN(softmax_span)(j, start, e);
}

#undef AXN
#undef AX_CAT
#undef AX_CAT3
