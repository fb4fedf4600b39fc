/* The strided engine's iteration space: broadcasting and coalescing. */
#include "strided.h"

#include <stdio.h>
#include <string.h>

_Static_assert(GM_MAX_RANK <= GM_STRIDED_MAX_DIMS, "gm_strided holds every rank of a mat");

void gm_format_dims(int rank, const size_t *dims, char *buf, size_t size) {
  if (rank == 0) {
    snprintf(buf, size, "scalar");
    return;
  }
  size_t used = 0;
  buf[0] = '\0';
  for (int d = 0; d < rank && used < size; d++) {
    int n = snprintf(buf + used, size - used, d ? "x%zu" : "%zu", dims[d]);
    if (n < 0) break;
    used += (size_t)n;
  }
}

gm_status gm_broadcast_dims(int rank_a, const size_t *da, int rank_b, const size_t *db, int *rank,
                            size_t dims[GM_MAX_RANK]) {
  int r = rank_a > rank_b ? rank_a : rank_b;
  for (int i = 1; i <= r; i++) {
    size_t x = i <= rank_a ? da[rank_a - i] : 1, y = i <= rank_b ? db[rank_b - i] : 1;
    if (x != y && x != 1 && y != 1) {
      char sa[160], sb[160];
      gm_format_dims(rank_a, da, sa, sizeof sa);
      gm_format_dims(rank_b, db, sb, sizeof sb);
      return gm_fail(GM_EINVAL, "cannot broadcast %s with %s", sa, sb);
    }
    dims[r - i] = x == 1 ? y : x;
  }
  *rank = r;
  return GM_OK;
}

/* Only the first rank axes are zeroed: every reader stops at ndim and
 * nops, and a memset of the whole struct (360 bytes, a rep stos) was 5 %
 * of a 1K gm.add(x, 1, {out = y}). */
void gm_strided_init(gm_strided *s, int rank, const size_t *dims) {
  s->ndim = rank;
  s->nops = 0;
  for (int d = 0; d < rank; d++) {
    s->dims[d] = (int64_t)dims[d];
    for (int k = 0; k < GM_STRIDED_MAX_OPS; k++) s->strides[k][d] = 0;
  }
  for (int k = 0; k < GM_STRIDED_MAX_OPS; k++) s->scalar[k] = 0;
}

void gm_strided_operand(gm_strided *s, int k, const gm_mat *m, double v) {
  if (k >= s->nops) s->nops = k + 1;
  for (int d = 0; d < s->ndim; d++) s->strides[k][d] = 0;
  if (!m) {
    s->scalar[k] = v;
    return;
  }
  const int64_t *st = m->strides; /* views' own strides: no staging copy */
  int shift = s->ndim - m->rank; /* missing leading axes stretch */
  for (int d = 0; d < m->rank; d++) s->strides[k][shift + d] = m->dims[d] == 1 ? 0 : st[d];
}

/* Moves axis `from` to position `to` (to <= from) in dims and strides. */
static void move_axis(gm_strided *s, int from, int to) {
  s->dims[to] = s->dims[from];
  for (int k = 0; k < s->nops; k++) s->strides[k][to] = s->strides[k][from];
}

/* Whether outer axis o and the following (inner) axis i step as one. */
static int mergeable(const gm_strided *s, int o, int i) {
  for (int k = 0; k < s->nops; k++)
    if (s->strides[k][o] != s->strides[k][i] * s->dims[i]) return 0;
  return 1;
}

void gm_strided_coalesce(gm_strided *s) {
  int n = 0;
  for (int d = 0; d < s->ndim; d++)
    if (s->dims[d] != 1) move_axis(s, d, n++);
  if (n == 0) { /* one element: a single axis of 1 */
    s->dims[0] = 1;
    for (int k = 0; k < s->nops; k++) s->strides[k][0] = 0;
    s->ndim = 1;
    return;
  }
  /* merge from the inside out: axis m is the innermost kept so far */
  int m = 0;
  for (int d = 1; d < n; d++) {
    if (mergeable(s, m, d)) {
      s->dims[m] *= s->dims[d];
      for (int k = 0; k < s->nops; k++) s->strides[k][m] = s->strides[k][d];
    } else {
      move_axis(s, d, ++m);
    }
  }
  s->ndim = m + 1;
}
