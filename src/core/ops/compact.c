/* Stream compaction on the op's place (core/compact.h): the backend's
 * compact entry counts (the one value that comes back to the host, to
 * size the result), then writes the selection into the new mat in a
 * second device call.  The chunk is GM_SCAN_CHUNK (core/ops/scan.h), or the
 * specs' override so small mats run many chunks. */
#include "compact.h"


#include "../exec/exec.h"
#include "half.h"
#include "index_ops.h"
#include "scan.h"

static size_t chunk_len(void) {
  size_t o = gm_chunk_override();
  return o > 0 ? o : GM_SCAN_CHUNK;
}

static gm_status no_compact(const char *fn, const gm_exec *e) {
  return gm_fail(GM_EUNSUPPORTED, "%s: not implemented on the %s backend", fn, e->be->name);
}

/* *count := m's nonzero elements, counted on e's place. */
static gm_status count_on(const gm_exec *e, gm_mat *m, size_t *count) {
  gm_operand o = {m, GM_INPUT, NULL};
  GM_TRY(gm_acquire(e, &o, 1));
  gm_status st = e->be->index->compact(e->dev, m->ctype, m->size, chunk_len(), o.ptr, 0, NULL, NULL, NULL, NULL, count);
  return gm_finish(e, &o, 1, st);
}

/* The writing pass: m selects from x into y (values) or into c (coordinates). */
static gm_status write_on(const gm_exec *e, gm_mat *m, gm_mat *x, gm_mat *y, const gm_compact_dims *d, gm_mat *c) {
  gm_operand o[3] = {{m, GM_INPUT, NULL}, {x ? x : c, x ? GM_INPUT : GM_OUTPUT, NULL}, {y, GM_OUTPUT, NULL}};
  int n = x ? 3 : 2;
  GM_TRY(gm_acquire(e, o, n));
  size_t es = x ? gm_ctype_size(x->ctype) : 0;
  gm_status st = x ? e->be->index->compact(e->dev, m->ctype, m->size, chunk_len(), o[0].ptr, es, o[1].ptr, o[2].ptr,
                                           NULL, NULL, NULL)
                   : e->be->index->compact(e->dev, m->ctype, m->size, chunk_len(), o[0].ptr, 0, NULL, NULL, d,
                                           o[1].ptr, NULL);
  return gm_finish(e, o, n, st);
}

gm_status gm_compact_select(gm_mat *x, gm_mat *mask, gm_mat **out) {
  if (mask->ctype != GM_BOOL) return gm_fail(GM_EINVAL, "mask must be a bool mat, got %s", gm_ctype_name(mask->ctype));
  if (!gm_mat_same_dims(mask, x))
    return gm_fail(GM_EINVAL, "the mask must have the mat's dims");
  gm_mat *all[2] = {x, mask};
  gm_exec e = gm_exec_choose(all, 2);
  if (!e.be->index || !e.be->index->compact) return no_compact("masked_select", &e);
  size_t n = 0;
  if (x->size > 0) GM_TRY(count_on(&e, mask, &n));
  gm_mat_options mo = {.ctype = (int)x->ctype, .cuda_enabled = x->cuda_enabled};
  GM_TRY(gm_mat_new(1, &n, &mo, out));
  gm_status st = n > 0 ? write_on(&e, mask, x, *out, NULL, NULL) : GM_OK;
  if (st != GM_OK) {
    gm_mat_free(*out);
    *out = NULL;
  }
  return st;
}

/* src as a contiguous mat of x's ctype that shares no storage with x (the
 * chunks read src while others write x): src itself, or *copy. */
static gm_status scatter_source(const gm_mat *x, gm_mat *src, gm_mat **s, gm_mat **copy) {
  *copy = NULL;
  *s = src;
  if (src->ctype == x->ctype && gm_mat_is_contiguous(src) && src->vec != x->vec) return GM_OK;
  gm_mat_options mo = {.ctype = (int)x->ctype, .cuda_enabled = src->cuda_enabled};
  GM_TRY(gm_mat_new(src->rank, src->dims, &mo, copy));
  gm_status st = gm_mat_astype(src, *copy);
  if (st != GM_OK) {
    gm_mat_free(*copy);
    *copy = NULL;
    return st;
  }
  *s = *copy;
  return GM_OK;
}

/* The compaction's inverse: exact, a src of exactly the selected count
 * (else *done false, x unchanged); else at least that many. */
static gm_status scatter(gm_mat *x, gm_mat *mask, gm_mat *src, bool exact, bool *done) {
  *done = false;
  if (mask->ctype != GM_BOOL) return gm_fail(GM_EINVAL, "mask must be a bool mat, got %s", gm_ctype_name(mask->ctype));
  if (!gm_mat_same_dims(mask, x))
    return gm_fail(GM_EINVAL, "the mask must have the mat's dims");
  gm_mat *all[3] = {x, mask, src};
  gm_exec e = gm_exec_choose(all, 3);
  if (!e.be->index || !e.be->index->expand) return no_compact("masked_scatter_", &e);
  size_t n = 0;
  if (x->size > 0) GM_TRY(count_on(&e, mask, &n));
  if (exact && src->size != n) return GM_OK;
  if (src->size < n) return gm_fail(GM_EINVAL, "the source has %zu elements, the mask selects %zu", src->size, n);
  *done = true;
  if (n == 0) return GM_OK;
  gm_mat *s, *copy;
  GM_TRY(scatter_source(x, src, &s, &copy));
  gm_operand o[3] = {{mask, GM_INPUT, NULL}, {s, GM_INPUT, NULL}, {x, GM_IO, NULL}};
  gm_status st = gm_acquire(&e, o, 3);
  if (st == GM_OK)
    st = gm_finish(&e, o, 3,
                   e.be->index->expand(e.dev, x->size, chunk_len(), o[0].ptr, gm_ctype_size(x->ctype), o[1].ptr,
                                       o[2].ptr));
  gm_mat_free(copy);
  return st;
}

gm_status gm_compact_scatter(gm_mat *x, gm_mat *mask, gm_mat *src) {
  bool done;
  return scatter(x, mask, src, false, &done);
}

gm_status gm_compact_assign(gm_mat *x, gm_mat *mask, gm_mat *src, bool *done) {
  return scatter(x, mask, src, true, done);
}

/* *c := a new int64 mat of dims whose elements are d's coordinates of
 * m's nonzeros (count n). */
static gm_status coords_mat(const gm_exec *e, gm_mat *m, const gm_compact_dims *d, int rank, const size_t *dims,
                            gm_mat **c) {
  gm_mat_options mo = {.ctype = GM_INT64, .cuda_enabled = m->cuda_enabled};
  GM_TRY(gm_mat_new(rank, dims, &mo, c));
  gm_status st = (*c)->size > 0 ? write_on(e, m, NULL, NULL, d, *c) : GM_OK;
  if (st != GM_OK) {
    gm_mat_free(*c);
    *c = NULL;
  }
  return st;
}

gm_status gm_compact_nonzero(gm_mat *m, bool argwhere, gm_mat **outs) {
  if (gm_ctype_is_half(m->ctype)) { /* its float32 copy: the same nonzeros (-0 is zero, as NumPy's) */
    gm_mat *f = NULL;
    GM_TRY(gm_half_float_copy(m, &f));
    gm_status st = gm_compact_nonzero(f, argwhere, outs);
    gm_mat_free(f);
    return st;
  }
  gm_exec e = gm_exec_choose(&m, 1);
  if (!e.be->index || !e.be->index->compact) return no_compact(argwhere ? "argwhere" : "nonzero", &e);
  gm_compact_dims d = {.rank = m->rank, .axis = -1};
  for (int a = 0; a < m->rank; a++) d.dims[a] = m->dims[a];
  size_t n = 0, dims[2];
  if (m->size > 0) GM_TRY(count_on(&e, m, &n));
  dims[0] = n;
  dims[1] = (size_t)m->rank;
  if (argwhere) return coords_mat(&e, m, &d, 2, dims, &outs[0]);
  for (int a = 0; a < m->rank; a++) { /* a pass per axis: no host copy of device coordinates */
    d.axis = a;
    gm_status st = coords_mat(&e, m, &d, 1, dims, &outs[a]);
    if (st != GM_OK) {
      for (int i = 0; i < a; i++) gm_mat_free(outs[i]);
      return st;
    }
  }
  return GM_OK;
}
