/* Plans of the indexing forms (core/ops/index.h): the result's dims and each
 * result element's offset in the indexed view, from checked positions;
 * then the reads and writes through a plan. */
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "../mem/hostpool.h"

/* The offset of row-major position flat (< the axes' size) over x's axes
 * [a, b); one axis needs no division. */
static int64_t axes_offset(const gm_mat *x, int a, int b, size_t flat) {
  if (b - a == 1) return (int64_t)flat * x->strides[a];
  int64_t off = 0;
  for (int d = b - 1; d >= a; d--) {
    off += (int64_t)(flat % x->dims[d]) * x->strides[d];
    flat /= x->dims[d];
  }
  return off;
}

/* From the host pool, as the index values (index_args.c). */
static gm_status plan_alloc(gm_index_plan *p) {
  GM_TRY(gm_dims_size(p->rank, p->dims, &p->n));
  p->off = NULL;
  if (p->n > (SIZE_MAX - 1) / sizeof *p->off ||
      gm_host_scratch(p->n * sizeof *p->off + 1, (void **)&p->off, &p->cap) != GM_OK)
    return gm_fail(GM_ENOMEM, "index: out of host memory for %zu offsets", p->n);
  return GM_OK;
}

void gm_index_plan_free(gm_index_plan *p) {
  if (p->off && p->cap) gm_host_scratch_free(p->off, p->cap); /* cap 0: pos's values, borrowed */
  p->off = NULL;
}

/* Whether take's offsets in x are its positions themselves: nothing
 * before or after the axes [axis, axis + k), which are row-major with a
 * last stride of 1 (a flat take from a contiguous mat: 4M positions are a
 * 32 MB plan saved). */
static bool takes_positions(const gm_mat *x, int axis, int k, size_t inner) {
  int64_t s = 1;
  if (inner != 1) return false;
  for (int d = 0; d < axis; d++)
    if (x->dims[d] != 1) return false;
  for (int d = axis + k - 1; d >= axis; s *= (int64_t)x->dims[d--])
    if (x->dims[d] != 1 && x->strides[d] != s) return false;
  return true;
}

gm_status gm_index_plan_take(const gm_mat *x, int axis, int k, const gm_index_arg *pos, gm_index_plan *p) {
  int rank = x->rank - k + pos->rank;
  if (rank > GM_MAX_RANK) return gm_fail(GM_EINVAL, "the result would have rank %d (at most %d)", rank, GM_MAX_RANK);
  size_t inner = 1, np = pos->n;
  p->rank = 0;
  for (int d = 0; d < axis; d++) p->dims[p->rank++] = x->dims[d];
  for (int d = 0; d < pos->rank; d++) p->dims[p->rank++] = pos->dims[d];
  for (int d = axis + k; d < x->rank; d++) inner *= p->dims[p->rank++] = x->dims[d];
  if (takes_positions(x, axis, k, inner)) { /* the offsets are the positions: no copy (cap 0: borrowed) */
    GM_TRY(gm_dims_size(p->rank, p->dims, &p->n));
    p->off = pos->v, p->cap = 0;
    return GM_OK;
  }
  GM_TRY(plan_alloc(p));
  size_t outer = np > 0 && inner > 0 ? p->n / (np * inner) : 0, i = 0;
  for (size_t o = 0; o < outer; o++) { /* nested: no division per element */
    int64_t ob = axes_offset(x, 0, axis, o);
    for (size_t q = 0; q < np; q++) {
      int64_t qb = ob + axes_offset(x, axis, axis + k, (size_t)pos->v[q]);
      for (size_t r = 0; r < inner; r++) p->off[i++] = qb + axes_offset(x, axis + k, x->rank, r);
    }
  }
  return GM_OK;
}

/* take_along_axis's result dims (core/ops/index.h's rules). */
static gm_status along_dims(const gm_mat *x, int axis, const gm_index_arg *idx, gm_index_plan *p) {
  if (idx->rank != x->rank)
    return gm_fail(GM_EINVAL, "the index mat must have the rank of the mat (%d), has %d", x->rank, idx->rank);
  p->rank = x->rank;
  for (int d = 0; d < x->rank; d++) {
    size_t xd = x->dims[d], id = idx->dims[d];
    if (d == axis || id == xd || xd == 1 || (id != 1 && id < xd)) p->dims[d] = id;
    else if (id == 1) p->dims[d] = xd;
    else return gm_fail(GM_EINVAL, "index axis %d has length %zu, the mat's %zu", d + 1, id, xd);
  }
  return plan_alloc(p);
}

gm_status gm_index_plan_along(const gm_mat *x, int axis, const gm_index_arg *idx, gm_index_plan *p) {
  GM_TRY(along_dims(x, axis, idx, p));
  for (size_t i = 0; i < p->n; i++) {
    size_t flat = i, at = 0, istride = 1;
    int64_t off = 0;
    for (int d = p->rank - 1; d >= 0; d--) {
      size_t c = flat % p->dims[d];
      flat /= p->dims[d];
      if (idx->dims[d] != 1) at += c * istride;
      istride *= idx->dims[d];
      if (d != axis && x->dims[d] != 1) off += (int64_t)c * x->strides[d];
    }
    p->off[i] = off + idx->v[at] * x->strides[axis];
  }
  return GM_OK;
}

gm_status gm_index_read(gm_mat *x, const gm_index_plan *p, gm_mat **out) {
  gm_mat_options mo = {.ctype = (int)x->ctype, .cuda_enabled = x->cuda_enabled};
  GM_TRY(gm_mat_new(p->rank, p->dims, &mo, out));
  gm_status st = gm_index_gather(x, p->off, *out);
  if (st != GM_OK) {
    gm_mat_free(*out);
    *out = NULL;
  }
  return st;
}

/* spos[i]: the row-major position in src (dims sdims) of plan element i,
 * src broadcast to the plan's dims (trailing axes aligned). */
static gm_status src_positions(int srank, const size_t *sdims, const gm_index_plan *p, int64_t *spos) {
  int shift = p->rank - srank;
  for (int d = 0; d < srank; d++)
    if (shift < 0 || (sdims[d] != 1 && sdims[d] != p->dims[d + shift]))
      return gm_fail(GM_EINVAL, "the source (rank %d, axis %d of length %zu) does not broadcast to the %d-d selection",
                     srank, d + 1, sdims[d], p->rank);
  for (size_t i = 0; i < p->n; i++) {
    size_t flat = i, at = 0, stride = 1;
    for (int d = srank - 1; d >= 0; d--) {
      size_t c = flat % p->dims[d + shift];
      flat /= p->dims[d + shift];
      if (sdims[d] != 1) at += c * stride;
      stride *= sdims[d];
    }
    spos[i] = (int64_t)at;
  }
  return GM_OK;
}

/* *out := src (or value) as a contiguous mat of y's ctype on y's place. */
static gm_status source_mat(const gm_mat *y, gm_mat *src, gm_value value, gm_mat **out) {
  size_t one = 1;
  gm_mat_options mo = {.ctype = (int)y->ctype, .cuda_enabled = y->cuda_enabled};
  GM_TRY(gm_mat_new(src ? src->rank : 1, src ? src->dims : &one, &mo, out));
  gm_status st = src ? (src->size ? gm_mat_astype(src, *out) : GM_OK) : gm_mat_put_value(*out, 0, value);
  if (st != GM_OK) {
    gm_mat_free(*out);
    *out = NULL;
  }
  return st;
}

gm_status gm_index_write(gm_mat *y, const gm_index_plan *p, gm_mat *src, gm_value value, int mode) {
  size_t one = 1;
  int64_t *spos = malloc(p->n * sizeof *spos + 1);
  if (!spos) return gm_fail(GM_ENOMEM, "index: out of host memory for %zu positions", p->n);
  gm_status st = src_positions(src ? src->rank : 0, src ? src->dims : &one, p, spos);
  gm_mat *s = NULL;
  if (st == GM_OK && p->n) st = source_mat(y, src, value, &s);
  if (st == GM_OK) st = gm_index_scatter(y, p->n, p->off, s, spos, mode);
  gm_mat_free(s);
  free(spos);
  return st;
}

gm_status gm_index_write_flat(gm_mat *y, const gm_index_plan *p, gm_mat *src) {
  if (src->size < p->n)
    return gm_fail(GM_EINVAL, "the source has %zu elements, the mask selects %zu", src->size, p->n);
  if (p->n == 0) return GM_OK;
  int64_t *spos = malloc(p->n * sizeof *spos);
  if (!spos) return gm_fail(GM_ENOMEM, "index: out of host memory for %zu positions", p->n);
  for (size_t i = 0; i < p->n; i++) spos[i] = (int64_t)i;
  gm_mat *s = NULL;
  gm_value none = {false, false, 0, 0, false, 0};
  gm_status st = source_mat(y, src, none, &s);
  if (st == GM_OK) st = gm_index_scatter(y, p->n, p->off, s, spos, GM_INDEX_SET);
  gm_mat_free(s);
  free(spos);
  return st;
}
