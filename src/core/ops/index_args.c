/* The index values of the indexing forms (core/ops/index.h): read from an
 * integer mat or a list, checked against an axis length without
 * overflow (int64's extremes and uint64 values above int64's range are
 * just out of range), and the positions of a bool mask or of nonzero
 * elements. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "../exec/exec.h"
#include "../exec/par.h"
#include "../mem/hostpool.h"
#include "../model/simd.h"
#include "index.h"

/* From the host pool: an index as large as the selection is read on
 * every call (take of 4M positions: 32 MB), and fresh malloc'd pages
 * are faulted in one by one each time. */
static gm_status arg_alloc(gm_index_arg *a, size_t n) {
  a->n = n;
  a->v = NULL;
  if (n > (SIZE_MAX - 1) / sizeof *a->v || gm_host_scratch(n * sizeof *a->v + 1, (void **)&a->v, &a->cap) != GM_OK)
    return gm_fail(GM_ENOMEM, "index: out of host memory for %zu indices", n);
  return GM_OK;
}

void gm_index_arg_free(gm_index_arg *a) {
  if (a->v) gm_host_scratch_free(a->v, a->cap);
  a->v = NULL;
}

gm_status gm_index_arg_from_values(size_t n, const int64_t *v, gm_index_arg *a) {
  a->rank = 1;
  a->dims[0] = n;
  GM_TRY(arg_alloc(a, n));
  if (n) memcpy(a->v, v, n * sizeof *v);
  return GM_OK;
}

/* The values of m as gm_value (host copy) in a new array. */
static gm_status read_values(gm_mat *m, gm_value **vals) {
  *vals = malloc(m->size * sizeof **vals + 1);
  if (!*vals) return gm_fail(GM_ENOMEM, "index: out of host memory for %zu values", m->size);
  gm_status st = m->size ? gm_mat_read_values(m, *vals) : GM_OK;
  if (st != GM_OK) {
    free(*vals);
    *vals = NULL;
  }
  return st;
}

/* a->v := the n integer elements at p (ctype t) as int64: one
 * conversion pass (parallel, convert.c); a uint64 above int64's range
 * becomes INT64_MAX, out of any range. */
static void int64_values(gm_ctype t, const void *p, size_t n, int64_t *v) {
  if (t == GM_INT64) {
    memcpy(v, p, n * sizeof *v);
    return;
  }
  if (t != GM_UINT64) {
    gm_convert(GM_INT64, v, t, p, n);
    return;
  }
  const uint64_t *u = p;
  for (size_t i = 0; i < n; i++) v[i] = u[i] > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u[i];
}

/* Normalizing a's values in parallel, from src (an int64 index mat's
 * elements: read once, no copy first) or in place (src NULL); bad: the
 * least position of a value out of range (SIZE_MAX: none), left as it
 * was in v for the message. */
typedef struct norm_job {
  int64_t *v;
  const int64_t *src;
  size_t len, bad;
} norm_job;

static gm_status normalize(gm_index_arg *a, const int64_t *src, size_t len);

gm_status gm_index_arg_from_mat(gm_mat *idx, size_t len, gm_index_arg *a) {
  int kind = gm_ctype_kind(idx->ctype);
  if (kind != GM_KIND_INT && kind != GM_KIND_UINT)
    return gm_fail(GM_EINVAL, "index mat must have an integer ctype, got %s", gm_ctype_name(idx->ctype));
  a->rank = idx->rank;
  memcpy(a->dims, idx->dims, sizeof a->dims);
  GM_TRY(arg_alloc(a, idx->size));
  if (idx->size == 0) return GM_OK;
  gm_exec e = gm_exec_host();
  gm_operand op = {idx, GM_INPUT, NULL};
  gm_status st = gm_acquire(&e, &op, 1);
  if (st == GM_OK) {
    /* int64 (take's usual index): checked and made 0-based on the way
     * from the mat, where a copy, a check and a pass in place were three
     * passes over it (take of 100K positions: a third of its time); other
     * types converted into a->v first, then normalized there */
    const int64_t *src = op.ptr;
    if (idx->ctype != GM_INT64) {
      int64_values(idx->ctype, op.ptr, idx->size, a->v);
      src = NULL;
    }
    st = normalize(a, src, len);
    gm_status rs = gm_release(&e, &op, 1);
    if (st == GM_OK) st = rs;
  }
  if (st != GM_OK) gm_index_arg_free(a);
  return st;
}

/* Whether every value of v[0..n) is a position of 1..len or -len..-1: a
 * loop without branches, which vectorizes (the per-element branches below
 * cost 3-4 cycles per position, half of a 143K-position take). */
GM_SIMD_CLONES static bool all_in_range(const int64_t *v, size_t n, int64_t len) {
  const uint64_t l = (uint64_t)len;
  uint64_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t x = (uint64_t)v[i]; /* 1..len: x - 1 < len; -len..-1: x + len < len (both wrap elsewhere) */
    bad |= (uint64_t)(x - 1 >= l) & (uint64_t)(x + l >= l);
  }
  return bad == 0;
}

/* v[i] := the 0-based position of s[i] (s may be v), every value known
 * to be in range. */
GM_SIMD_CLONES static void to_positions(int64_t *v, const int64_t *s, size_t n, int64_t len) {
  for (size_t i = 0; i < n; i++) v[i] = s[i] > 0 ? s[i] - 1 : len + s[i];
}

static void norm_chunk(void *arg, size_t begin, size_t end) {
  norm_job *j = arg;
  const int64_t *s = j->src ? j->src : j->v;
  if (j->len <= (size_t)INT64_MAX && all_in_range(s + begin, end - begin, (int64_t)j->len)) {
    to_positions(j->v + begin, s + begin, end - begin, (int64_t)j->len);
    return;
  }
  if (j->src) memcpy(j->v + begin, j->src + begin, (end - begin) * sizeof *j->v); /* then in place */
  for (size_t i = begin; i < end; i++) {
    int64_t v = j->v[i];
    if (v >= 1 && (uint64_t)v <= j->len) {
      j->v[i] = v - 1;
    } else if (v < 0 && (uint64_t)(-(v + 1)) < j->len) { /* -v <= len without negating INT64_MIN */
      j->v[i] = (int64_t)j->len + v;
    } else {
      size_t b = __atomic_load_n(&j->bad, __ATOMIC_RELAXED);
      while (i < b && !__atomic_compare_exchange_n(&j->bad, &b, i, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      }
      return;
    }
  }
}

static gm_status normalize(gm_index_arg *a, const int64_t *src, size_t len) {
  norm_job j = {a->v, src, len, SIZE_MAX};
  gm_par_for(a->n, 1, 1.0, norm_chunk, &j); /* 4M positions of take: a pass as long as the gather's */
  if (j.bad == SIZE_MAX) return GM_OK;
  return gm_fail(GM_ERANGE, "index %lld is out of range for length %zu (1..%zu, or -%zu..-1 from the end)",
                 (long long)a->v[j.bad], len, len, len);
}

gm_status gm_index_normalize(gm_index_arg *a, size_t len) { return normalize(a, NULL, len); }

/* a := the positions of m's nonzero elements. */
static gm_status positions(gm_mat *m, gm_index_arg *a) {
  gm_value *vals = NULL;
  GM_TRY(read_values(m, &vals));
  size_t n = 0;
  for (size_t i = 0; i < m->size; i++) n += vals[i].is_int ? vals[i].i != 0 : vals[i].d != 0;
  a->rank = 1;
  a->dims[0] = n;
  gm_status st = arg_alloc(a, n);
  for (size_t i = 0, k = 0; st == GM_OK && i < m->size; i++)
    if (vals[i].is_int ? vals[i].i != 0 : vals[i].d != 0) a->v[k++] = (int64_t)i;
  free(vals);
  return st;
}

gm_status gm_index_mask_positions(gm_mat *mask, gm_index_arg *a) {
  if (mask->ctype != GM_BOOL) return gm_fail(GM_EINVAL, "mask must be a bool mat, got %s", gm_ctype_name(mask->ctype));
  return positions(mask, a);
}

gm_status gm_index_nonzero_positions(gm_mat *m, gm_index_arg *a) { return positions(m, a); }

gm_status gm_index_mask_coords(gm_mat *mask, gm_index_arg *args) {
  gm_index_arg pos = {0};
  GM_TRY(gm_index_mask_positions(mask, &pos));
  gm_status st = GM_OK;
  int made = 0;
  for (; st == GM_OK && made < mask->rank; made++) {
    args[made] = (gm_index_arg){0};
    st = gm_index_arg_from_values(pos.n, pos.v, &args[made]);
  }
  if (st != GM_OK) made--; /* the failed one holds nothing */
  for (size_t k = 0; st == GM_OK && k < pos.n; k++) {
    size_t flat = (size_t)pos.v[k];
    for (int d = mask->rank - 1; d >= 0; d--) {
      args[d].v[k] = (int64_t)(flat % mask->dims[d]);
      flat /= mask->dims[d];
    }
  }
  if (st != GM_OK)
    for (int d = 0; d < made; d++) gm_index_arg_free(&args[d]);
  gm_index_arg_free(&pos);
  return st;
}

/* The broadcast dims of args (trailing axes aligned) into a's rank/dims. */
static gm_status broadcast_dims(int n, const gm_index_arg *args, gm_index_arg *a) {
  a->rank = 0;
  for (int q = 0; q < n; q++) a->rank = args[q].rank > a->rank ? args[q].rank : a->rank;
  for (int d = 0; d < a->rank; d++) a->dims[d] = 1;
  for (int q = 0; q < n; q++) {
    int shift = a->rank - args[q].rank;
    for (int d = 0; d < args[q].rank; d++) {
      size_t *o = &a->dims[d + shift], id = args[q].dims[d];
      if (id != 1 && *o != 1 && id != *o)
        return gm_fail(GM_EINVAL, "index mats of lengths %zu and %zu on one axis do not broadcast together", id, *o);
      if (id != 1) *o = id;
    }
  }
  size_t total = 0;
  GM_TRY(gm_dims_size(a->rank, a->dims, &total));
  return arg_alloc(a, total);
}

gm_status gm_index_broadcast_flat(int n, const gm_index_arg *args, const size_t *lens, gm_index_arg *a) {
  GM_TRY(broadcast_dims(n, args, a));
  for (size_t i = 0; i < a->n; i++) {
    int64_t pos = 0;
    for (int q = 0; q < n; q++) {
      size_t flat = i, at = 0, stride = 1;
      int shift = a->rank - args[q].rank;
      for (int d = args[q].rank - 1; d >= 0; d--) {
        size_t c = flat % a->dims[d + shift];
        flat /= a->dims[d + shift];
        if (args[q].dims[d] != 1) at += c * stride;
        stride *= args[q].dims[d];
      }
      pos = pos * (int64_t)lens[q] + args[q].v[at];
    }
    a->v[i] = pos;
  }
  return GM_OK;
}
