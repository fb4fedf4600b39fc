/* The host's radix sort of lines (kernels/radix.h), the sorts' engine
 * from gm_sort_radix_min() elements on (src/host/scan.c dispatches): a few
 * long lines one after the other, each pass's histograms and scatters on
 * chunks of the line over the cores (gm_par_for) and the counts' scan
 * between them; many lines each sorted whole by one caller, the lines
 * over the cores. */
#include <stdlib.h>

#include "../core/exec/par.h"
#include "../core/mem/hostpool.h"
#include "../core/ops/scan.h"
#include "../../kernels/radix.h"
#include "radix.h"

/* One pass of one long line (or its tail: finish). */
typedef struct radix_job {
  gm_ctype t;
  int desc, op;
  unsigned shift;
  size_t chunk, len, st, inner;
  const void *src;
  const int64_t *si;
  void *dv, *y;
  int64_t *di, *yi;
  size_t *cnt, *tot;
} radix_job;

static void hist_chunks(void *arg, size_t begin, size_t end) {
  const radix_job *j = arg;
#define X(T, E, ...)                                                                                            \
  case GM_##E:                                                                                                  \
    for (size_t c = begin; c < end; c++)                                                                        \
      gm_radix_chunk_hist_##E(j->desc, j->shift, c, j->chunk, j->len, j->st, (const T *)j->src, j->cnt);      \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
}

static void scatter_chunks(void *arg, size_t begin, size_t end) {
  const radix_job *j = arg;
#define X(T, E, ...)                                                                                            \
  case GM_##E:                                                                                                  \
    for (size_t c = begin; c < end; c++)                                                                        \
      gm_radix_chunk_scatter_##E(j->desc, j->shift, c, j->chunk, j->len, j->st, (const T *)j->src, j->si,       \
                                 (T *)j->dv, j->di, j->cnt, j->tot);                                            \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
}

/* The sorted run src/si's elements [begin, end) written out (argsort's
 * copy; mode and unique take the whole line, begin 0). */
static void finish_range(void *arg, size_t begin, size_t end) {
  const radix_job *j = arg;
#define X(T, E, ...)                                                                                            \
  case GM_##E:                                                                                                  \
    gm_radix_finish_##E(j->op, end - begin, j->inner, (const T *)j->src + begin, j->si ? j->si + begin : NULL,  \
                        j->y ? (T *)j->y + begin * j->inner : NULL, j->yi ? j->yi + begin * j->inner : NULL);   \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
}

/* Sorts the long line j->src (stride j->st) into w (values: 2 len of
 * es bytes) and wi (2 len, or NULL); j->src/si end at the sorted run. */
static void sort_long(radix_job *j, size_t es, char *w, int64_t *wi) {
  const size_t n = j->len, nch = gm_radix_chunks(n, j->chunk);
  const void *x = j->src;
  size_t o = 0;
  for (unsigned p = 0; p < es; p++) {
    j->shift = 8 * p;
    gm_par_for(nch, 1, (double)j->chunk, hist_chunks, j);
    for (size_t d = 0; d < GM_RADIX_DIGITS; d++) gm_radix_digit_scan(d, nch, j->cnt, j->tot);
    if (gm_radix_trivial(j->tot, n)) continue;
    gm_radix_exclusive(j->tot, GM_RADIX_DIGITS);
    j->dv = w + o * es;
    j->di = wi ? wi + o : NULL;
    gm_par_for(nch, 1, 2.0 * (double)j->chunk, scatter_chunks, j);
    j->src = j->dv, j->si = j->di, j->st = 1, o = n - o;
  }
  if (j->src != x) return;
  for (size_t k = 0; k < n; k++) { /* every key equal: the line as it is */
    memcpy(w + k * es, (const char *)x + k * j->st * es, es);
    if (wi) wi[k] = (int64_t)k;
  }
  j->src = w, j->si = wi;
}

/* Scratch from the host pool (mem/hostpool.h): a long line's two
 * buffers are as large as the line, and fresh malloc'd pages are faulted
 * in one by one on every sort (about 2 ms per 4 MB); the pool keeps them
 * faulted in for the next call.  NULL on failure. */
typedef struct scratch {
  void *p;
  size_t size;
} scratch;

static void *scratch_get(scratch *s, size_t bytes) {
  if (gm_host_scratch(bytes ? bytes : 1, &s->p, &s->size) != GM_OK) s->p = NULL;
  return s->p;
}

static void scratch_put(scratch *s) {
  if (s->p) gm_host_scratch_free(s->p, s->size);
}

/* ---- 32-bit keys with 32-bit positions: one MSD pass, then buckets ----
 *
 * Sorts and argsorts of a long line of 4-byte elements (float, int32,
 * uint32) of fewer than 2^32 elements sort 8-byte pairs, key << 32 |
 * position, instead of the values and int64 positions of the passes above
 * (12 bytes read and written per element and pass, 4 passes).  Equal keys
 * keep their positions ascending, so a pair's order as a uint64 is the
 * stable order.  The first pass (chunks over the cores) scatters the pairs
 * by the key's top 11 bits into 2048 buckets, which then sort each by
 * itself (buckets over the cores): at most `cache` pairs, by LSD passes of
 * 11 bits that stay in the cache; more, by another MSD pass of the next
 * bits; at most `leaf`, by insertion.  Each sorted bucket is written out at
 * once (values from the keys, positions + 1), while it is in the cache. */
#define PB 11
#define PD (1u << PB)

typedef struct pair_job {
  gm_ctype t;
  int desc;
  size_t n, st, inner, chunk, nch, cache, leaf;
  const void *x;
  void *y;
  int64_t *yi;
  uint64_t *a, *b;
  uint32_t *cnt;  /* nch x PD: the chunks' counts, then their offsets */
  size_t *base;   /* PD + 1: the buckets' starts */
  uint32_t *diff; /* nch: the bits where a chunk's keys differ from key0 */
  uint32_t key0;
  unsigned shift, width; /* the first pass's digit: the top differing bits */
} pair_job;

/* The 4-byte types' keys (kernels/radix.h) as 32 bits. */
static inline uint32_t key_FLOAT(float v, int desc) { return (uint32_t)gm_radix_key_FLOAT(v, desc); }
static inline uint32_t key_INT32(int32_t v, int desc) { return (uint32_t)gm_radix_key_INT32(v, desc); }
static inline uint32_t key_UINT32(uint32_t v, int desc) { return (uint32_t)gm_radix_key_UINT32(v, desc); }

/* The sorted pairs p[0, m) written out at pos: values from the keys
 * (kernels/radix.h, gm_radix_pair_value_E), positions + 1. */
#define PAIR_EMIT(T, E)                                                                       \
  do {                                                                                        \
    T *y = j->y ? (T *)j->y + pos * j->inner : NULL;                                          \
    for (size_t k = 0; y && k < m; k++)                                                       \
      y[k * j->inner] = gm_radix_pair_value_##E(p[k], j->desc, (const T *)j->x, j->st);       \
  } while (0)
static void pair_emit(const pair_job *j, const uint64_t *p, size_t m, size_t pos) {
  switch (j->t) {
    case GM_FLOAT: PAIR_EMIT(float, FLOAT); break;
    case GM_INT32: PAIR_EMIT(int32_t, INT32); break;
    default: PAIR_EMIT(uint32_t, UINT32); break;
  }
  int64_t *yi = j->yi ? j->yi + pos * j->inner : NULL;
  for (size_t k = 0; yi && k < m; k++) yi[k * j->inner] = (int64_t)(uint32_t)p[k] + 1;
}

static void pair_insertion(uint64_t *p, size_t m) {
  for (size_t k = 1; k < m; k++) {
    uint64_t v = p[k];
    size_t i = k;
    for (; i > 0 && p[i - 1] > v; i--) p[i] = p[i - 1];
    p[i] = v;
  }
}

/* h[0, mask] (zeroed first) counts the digits (p >> shift) & mask of
 * p[0, m); whether one digit holds them all (a pass that moves nothing). */
static int pair_hist(const uint64_t *p, size_t m, unsigned shift, uint32_t mask, uint32_t *h) {
  memset(h, 0, ((size_t)mask + 1) * sizeof *h);
  for (size_t k = 0; k < m; k++) h[(p[k] >> shift) & mask]++;
  return h[(p[0] >> shift) & mask] == m;
}

/* p[0, m) to t in the order of that digit, stably; h[d] ends as the end
 * of digit d's run. */
static void pair_scatter(const uint64_t *p, uint64_t *t, size_t m, unsigned shift, uint32_t mask, uint32_t *h) {
  uint32_t s = 0;
  for (uint32_t d = 0; d <= mask; d++) {
    uint32_t c = h[d];
    h[d] = s;
    s += c;
  }
  for (size_t k = 0; k < m; k++) t[h[(p[k] >> shift) & mask]++] = p[k];
}

/* pair_scatter by PD digits through write-combining buffers (buf: PD x
 * 8 pairs): a digit's pairs go out a cache line at a time, so the split
 * of a bucket bigger than the cache touches 2048 lines of t rarely, not
 * at every pair. */
static void pair_scatter_wc(const uint64_t *p, uint64_t *t, size_t m, unsigned shift, uint32_t *h, uint64_t *buf) {
  uint8_t fill[PD];
  uint32_t s = 0;
  for (uint32_t d = 0; d < PD; d++) {
    uint32_t c = h[d];
    h[d] = s, s += c, fill[d] = 0;
  }
  for (size_t k = 0; k < m; k++) {
    uint64_t v = p[k];
    uint32_t d = (uint32_t)(v >> shift) & (PD - 1);
    buf[d * 8 + fill[d]++] = v;
    if (fill[d] == 8) {
      memcpy(t + h[d], buf + d * 8, 8 * sizeof *t);
      h[d] += 8, fill[d] = 0;
    }
  }
  for (uint32_t d = 0; d < PD; d++) {
    memcpy(t + h[d], buf + d * 8, fill[d] * sizeof *t);
    h[d] += fill[d];
  }
}

/* Sorts the bucket p[0, m), whose keys agree above their low `bits` bits,
 * with t[0, m) as scratch, and writes it out at pos. */
static void pair_sort(const pair_job *j, uint64_t *p, uint64_t *t, size_t m, unsigned bits, size_t pos) {
  uint32_t h[PD];
  if (m <= j->leaf || bits == 0) { /* bits 0: equal keys, positions ascending already */
    if (bits) pair_insertion(p, m);
    pair_emit(j, p, m, pos);
    return;
  }
  if (m > j->cache && bits > PB) { /* too big for the cache: split by the top PB bits (fewer are slower: */
    unsigned w = PB, shift = 32 + bits - w; /* more bits are left for the LSD passes) */
    uint32_t mask = PD - 1;
    if (pair_hist(p, m, shift, mask, h)) {
      pair_sort(j, p, t, m, bits - w, pos);
      return;
    }
    uint64_t *buf = malloc(PD * 8 * sizeof *buf); /* none: the plain scatter */
    if (buf) pair_scatter_wc(p, t, m, shift, h, buf);
    else pair_scatter(p, t, m, shift, mask, h);
    free(buf);
    for (size_t d = 0, s = 0; d <= mask; s = h[d++])
      if (h[d] > s) pair_sort(j, t + s, p + s, h[d] - s, bits - w, pos + s);
    return;
  }
  unsigned passes = (bits + PB - 1) / PB, width = (bits + passes - 1) / passes;
  for (unsigned lo = 0; lo < bits; lo += width) { /* LSD passes of equal widths (the last maybe narrower) */
    unsigned w = bits - lo < width ? bits - lo : width;
    uint32_t mask = (1u << w) - 1;
    if (pair_hist(p, m, 32 + lo, mask, h)) continue;
    pair_scatter(p, t, m, 32 + lo, mask, h);
    uint64_t *s = p;
    p = t, t = s;
  }
  pair_emit(j, p, m, pos);
}

/* The first pass over chunks [begin, end) of the line: the counts of the
 * keys' top PB bits (hist), or the pairs scattered to the chunks' offsets. */
#define PAIR_TOP_LOOP(T, E, BODY)                                                                \
  for (size_t c = begin; c < end; c++) {                                                         \
    uint32_t *h = j->cnt + c * PD;                                                               \
    const T *x = j->x;                                                                           \
    size_t lo = c * j->chunk, hi = j->n - lo < j->chunk ? j->n : lo + j->chunk;                  \
    uint32_t acc = 0; /* the bits where the chunk's keys differ from key0 */                    \
    for (size_t k = lo; k < hi; k++) {                                                           \
      uint32_t key = key_##E(x[k * j->st], j->desc);                                             \
      BODY;                                                                                      \
    }                                                                                            \
    j->diff[c] = acc;                                                                            \
  }
#define PAIR_TOP_TYPES(BODY)                                      \
  switch (j->t) {                                                 \
    case GM_FLOAT: PAIR_TOP_LOOP(float, FLOAT, BODY) break;       \
    case GM_INT32: PAIR_TOP_LOOP(int32_t, INT32, BODY) break;     \
    case GM_UINT32: PAIR_TOP_LOOP(uint32_t, UINT32, BODY) break;  \
    default: break;                                               \
  }

static void pair_top_hist(void *arg, size_t begin, size_t end) {
  const pair_job *j = arg;
  const uint32_t mask = (1u << j->width) - 1;
  for (size_t c = begin; c < end; c++) memset(j->cnt + c * PD, 0, PD * sizeof *j->cnt);
  PAIR_TOP_TYPES(h[(key >> j->shift) & mask]++; acc |= key ^ j->key0)
}

static void pair_top_scatter(void *arg, size_t begin, size_t end) {
  const pair_job *j = arg;
  const uint32_t mask = (1u << j->width) - 1;
  PAIR_TOP_TYPES(j->a[h[(key >> j->shift) & mask]++] = (uint64_t)key << 32 | (uint32_t)k)
}

static void pair_buckets(void *arg, size_t begin, size_t end) {
  const pair_job *j = arg;
  for (size_t d = begin; d < end; d++) {
    size_t s = j->base[d], m = j->base[d + 1] - s;
    if (m) pair_sort(j, j->a + s, j->b + s, m, j->shift, s);
  }
}

/* The first pass's counts, by the keys' top PB bits; where those are the
 * same in every key, again by the top PB of the bits where the keys
 * differ (int32 in 0..999: one pass of their low 10 bits, not buckets of
 * everything). */
static void pair_digit(pair_job *j) {
  uint32_t diff = 0;
  switch (j->t) {
    case GM_FLOAT: j->key0 = key_FLOAT(*(const float *)j->x, j->desc); break;
    case GM_INT32: j->key0 = key_INT32(*(const int32_t *)j->x, j->desc); break;
    default: j->key0 = key_UINT32(*(const uint32_t *)j->x, j->desc); break;
  }
  j->width = PB, j->shift = 32 - PB;
  gm_par_for(j->nch, 1, (double)j->chunk, pair_top_hist, j);
  for (size_t c = 0; c < j->nch; c++) diff |= j->diff[c];
  unsigned hi = 0;
  while (hi < 32 && (diff >> hi)) hi++;
  if (hi > 32 - PB) return;
  j->width = hi < PB ? hi : PB;
  j->shift = hi - j->width;
  gm_par_for(j->nch, 1, (double)j->chunk, pair_top_hist, j);
}

/* One line: the first pass, the buckets' starts and the chunks' offsets
 * (digit order, then chunk order: stable), the buckets. */
static void pair_line(pair_job *j) {
  pair_digit(j);
  size_t s = 0;
  for (size_t d = 0; d < PD; d++) {
    j->base[d] = s;
    for (size_t c = 0; c < j->nch; c++) {
      uint32_t t = j->cnt[c * PD + d];
      j->cnt[c * PD + d] = (uint32_t)s;
      s += t;
    }
  }
  j->base[PD] = s;
  gm_par_for(j->nch, 1, 2.0 * (double)j->chunk, pair_top_scatter, j);
  gm_par_for(PD, 1, 4.0 * (double)j->n / PD + 1, pair_buckets, j);
}

/* Whether a few long lines sort by pairs (above): sort and argsort of the
 * 4-byte types, positions within 32 bits. */
static int pairs_fit(const gm_host_radix_args *a) { return gm_radix_pairs_fit((int)a->t, a->op, a->len); }

/* The chunk length (the first pass: at least n / 64, few counts) and the
 * bucket sizes follow a->chunk, so the specs' small chunks reach every
 * path: the cache's bucket is half a default chunk (256 KB of pairs, with
 * its scratch as much again), insertion up to 32. */
static size_t pair_cache(const gm_host_radix_args *a) { return a->chunk / 2 > 2 ? a->chunk / 2 : 2; }
static size_t pair_leaf(const gm_host_radix_args *a) {
  size_t leaf = a->chunk / 2048 > 32 ? 32 : a->chunk / 2048;
  return leaf > 2 ? leaf : 2;
}

static gm_status pairs_few_long(const gm_host_radix_args *a) {
  const size_t n = a->len, chunk = a->chunk > (n + 63) / 64 ? a->chunk : (n + 63) / 64;
  const size_t nch = gm_radix_chunks(n, chunk), leaf = pair_leaf(a);
  scratch sw = {0}, sc = {0};
  uint64_t *w = scratch_get(&sw, 2 * n * sizeof *w);
  size_t *base = scratch_get(&sc, (PD + 1) * sizeof *base + nch * (PD + 1) * sizeof(uint32_t));
  gm_status st = GM_OK;
  if (!w || !base) st = gm_fail(GM_ENOMEM, "sort: out of host memory for the radix scratch");
  for (size_t i = 0; st == GM_OK && i < a->outer * a->inner; i++) {
    size_t s = gm_scan_line_start(i, n, a->inner);
    pair_job j = {a->t, a->flag, n, a->inner, a->inner, chunk, nch, pair_cache(a), leaf, (const char *)a->x + s * 4, a->y ? (char *)a->y + s * 4 : NULL,
                  a->yi ? a->yi + s : NULL, w, w + n, (uint32_t *)(void *)(base + PD + 1), base, NULL, 0, 0, 0};
    j.diff = j.cnt + nch * PD;
    pair_line(&j);
  }
  scratch_put(&sw);
  scratch_put(&sc);
  return st;
}

/* A few long lines, one after the other, each over the cores. */
static gm_status few_long(const gm_host_radix_args *a, size_t es) {
  if (pairs_fit(a)) return pairs_few_long(a);
  const size_t n = a->len, nch = gm_radix_chunks(n, a->chunk);
  scratch sw = {0}, swi = {0}, scnt = {0};
  char *w = scratch_get(&sw, 2 * n * es);
  int64_t *wi = a->yi ? scratch_get(&swi, 2 * n * sizeof *wi) : NULL;
  size_t *cnt = scratch_get(&scnt, (nch + 1) * GM_RADIX_DIGITS * sizeof *cnt);
  gm_status st = GM_OK;
  if (!w || !cnt || (a->yi && !wi)) st = gm_fail(GM_ENOMEM, "sort: out of host memory for the radix scratch");
  for (size_t i = 0; st == GM_OK && i < a->outer * a->inner; i++) {
    size_t s = gm_scan_line_start(i, n, a->inner), os = gm_scan_line_start(i, gm_lines_out_len(a->op, n), a->inner);
    radix_job j = {a->t, a->op == GM_LINES_ARGSORT && a->flag, a->op, 0, a->chunk, n, a->inner, a->inner,
                   (const char *)a->x + s * es, NULL, NULL, a->y ? (char *)a->y + os * es : NULL, NULL,
                   a->yi ? a->yi + os : NULL, cnt, cnt + nch * GM_RADIX_DIGITS};
    sort_long(&j, es, w, wi);
    if (a->op == GM_LINES_ARGSORT) gm_par_for(n, 1, 2.0, finish_range, &j);
    else finish_range(&j, 0, n);
  }
  scratch_put(&sw);
  scratch_put(&swi);
  scratch_put(&scnt);
  return st;
}

/* Many lines: a chunk of lines per thread, each line sorted whole. */
#define PAIR_FILL(T, E)                                                          \
  for (size_t k = 0; k < n; k++)                                                 \
    w[k] = (uint64_t)key_##E(((const T *)j.x)[k * a->inner], j.desc) << 32 | k;
typedef struct lines_job {
  const gm_host_radix_args *a;
  size_t es;
  int failed;
} lines_job;

/* Lines [begin, end) each sorted whole as pairs (4-byte keys: the LSD
 * passes of pair_sort, 11 bits and 8 bytes a pass, not 8 bits and 12). */
static void pair_lines(lines_job *lj, size_t begin, size_t end) {
  const gm_host_radix_args *a = lj->a;
  const size_t n = a->len;
  scratch sw = {0};
  uint64_t *w = scratch_get(&sw, 2 * n * sizeof *w);
  if (!w) {
    __atomic_store_n(&lj->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  for (size_t i = begin; i < end; i++) {
    size_t s = gm_scan_line_start(i, n, a->inner);
    pair_job j = {a->t, a->flag, n, a->inner, a->inner, 0, 0, pair_cache(a), pair_leaf(a), (const char *)a->x + s * 4,
                  a->y ? (char *)a->y + s * 4 : NULL, a->yi ? a->yi + s : NULL, w, w + n, NULL, NULL, NULL, 0, 0, 0};
    switch (a->t) {
      case GM_FLOAT: PAIR_FILL(float, FLOAT) break;
      case GM_INT32: PAIR_FILL(int32_t, INT32) break;
      default: PAIR_FILL(uint32_t, UINT32) break;
    }
    pair_sort(&j, w, w + n, n, 32, 0);
  }
  scratch_put(&sw);
}

static void lines_chunk(void *arg, size_t begin, size_t end) {
  lines_job *lj = arg;
  const gm_host_radix_args *a = lj->a;
  if (pairs_fit(a)) {
    pair_lines(lj, begin, end);
    return;
  }
  const size_t n = a->len, on = gm_lines_out_len(a->op, n);
  scratch sw = {0};
  int64_t *wi = scratch_get(&sw, 2 * n * (lj->es + sizeof(int64_t))); /* indices first: the strictest alignment */
  if (!wi) {
    __atomic_store_n(&lj->failed, 1, __ATOMIC_RELAXED);
    return;
  }
#define X(T, E, ...)                                                                                            \
  case GM_##E:                                                                                                  \
    for (size_t i = begin; i < end; i++) {                                                                      \
      size_t s = gm_scan_line_start(i, n, a->inner), o = gm_scan_line_start(i, on, a->inner);                   \
      gm_radix_lines_line_##E(a->op, a->flag, n, a->inner, (const T *)a->x + s, a->y ? (T *)a->y + o : NULL,    \
                              a->yi ? a->yi + o : NULL, (T *)(void *)(wi + 2 * n), wi);                         \
    }                                                                                                           \
    break;
  switch (a->t) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
  scratch_put(&sw);
}

gm_status gm_host_radix(const gm_host_radix_args *a) {
  const size_t es = gm_ctype_size(a->t), lines = a->outer * a->inner;
  if (lines <= GM_RADIX_FEW_LINES && a->len > a->chunk) return few_long(a, es);
  lines_job lj = {a, es, 0};
  gm_par_for(lines, 1, 4.0 * (double)a->len + 1, lines_chunk, &lj);
  return lj.failed ? gm_fail(GM_ENOMEM, "sort: out of host memory for the radix scratch") : GM_OK;
}
