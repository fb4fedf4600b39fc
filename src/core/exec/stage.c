#include "stage.h"

#include <stdlib.h>

#include "../../../kernels/strided.h"
#include "../ops/blas.h"
#include "../model/view.h"

/* g := the walk over dims, the source stepping by s and the destination
 * by t: size-1 axes dropped, neighbouring axes merged when both sides
 * step through them as one (as NumPy's iterator coalesces). */
static void merge_geom(int rank, const size_t *dims, const int64_t *s, const int64_t *t, size_t n,
                       gm_strided_geom *g) {
  int r = 0;
  for (int a = 0; a < rank; a++) {
    if (dims[a] == 1) continue;
    int64_t d = (int64_t)dims[a];
    if (r > 0 && g->src_strides[r - 1] == s[a] * d && g->dst_strides[r - 1] == t[a] * d) {
      g->dims[r - 1] *= dims[a];
      g->src_strides[r - 1] = s[a];
      g->dst_strides[r - 1] = t[a];
      continue;
    }
    g->dims[r] = dims[a], g->src_strides[r] = s[a], g->dst_strides[r] = t[a];
    r++;
  }
  if (r == 0) g->dims[0] = 1, g->src_strides[0] = g->dst_strides[0] = 1, r = 1;
  g->rank = r;
  g->n = n;
}

/* The copy between m's view (strides) and a contiguous walk of its dims. */
static void make_geom(const gm_mat *m, bool gather, gm_strided_geom *g) {
  int64_t dense[GM_MAX_RANK], s = 1;
  for (int a = m->rank - 1; a >= 0; a--) {
    dense[a] = s;
    s *= (int64_t)m->dims[a];
  }
  merge_geom(m->rank, m->dims, gather ? m->strides : dense, gather ? dense : m->strides, m->size, g);
}

gm_status gm_copy_views(const gm_exec *e, gm_mat *src, gm_mat *dst) {
  if (!gm_mat_same_dims(src, dst))
    return gm_fail(GM_EINVAL, "gm_copy_views: the views' dims differ");
  if (!e->be->strided_copy)
    return gm_fail(GM_EUNSUPPORTED, "strided views are not supported on the %s backend", e->be->name);
  if (src->size == 0) return GM_OK;
  gm_strided_geom g;
  merge_geom(src->rank, src->dims, src->strides, dst->strides, src->size, &g); /* each through its own strides */
  gm_operand ops[2] = {{src, GM_INPUT, NULL}, {dst, GM_OUTPUT, NULL}}; /* (IO where dst sees part of its storage) */
  GM_TRY(gm_acquire_in_place(e, ops, 2));
  return gm_finish_in_place(e, ops, 2, e->be->strided_copy(e->dev, src->ctype, &g, ops[0].ptr, ops[1].ptr));
}

static gm_status copy(const gm_exec *e, const gm_mat *m, bool gather, const void *src, void *dst) {
  if (m->size == 0) return GM_OK;
  gm_strided_geom g;
  make_geom(m, gather, &g);
  return e->be->strided_copy(e->dev, m->ctype, &g, src, dst);
}

static gm_status new_temporary(const gm_mat *m, gm_mat **out) {
  gm_mat_options o = {0};
  o.ctype = (int)m->ctype;
  o.cuda_enabled = 1;
  o.synchronization = GM_SYNC_MAYBE;
  return gm_mat_new(m->rank, m->dims, &o, out);
}

/* The temporaries of this thread's staged operands, found again at
 * release by the operand's address (operands live in the caller's array
 * from gm_acquire to gm_release, on one thread); a list, since device
 * calls nest only a few deep. */
typedef struct staged {
  const gm_operand *o;
  gm_mat *tmp;
  void *view_ptr;
  struct staged *next;
} staged;
static _Thread_local staged *stage_list;

static staged *take_record(const gm_operand *o) {
  for (staged **p = &stage_list; *p; p = &(*p)->next)
    if ((*p)->o == o) {
      staged *r = *p;
      *p = r->next;
      return r;
    }
  return NULL;
}

gm_status gm_stage_in(const gm_exec *e, gm_operand *o) {
  if (!e->be->strided_copy)
    return gm_fail(GM_EUNSUPPORTED, "strided views are not supported on the %s backend", e->be->name);
  staged *r = malloc(sizeof *r);
  if (!r) return gm_fail(GM_ENOMEM, "out of host memory staging a view");
  void *view;
  gm_status st = gm_mat_watch_strided(o->m, e->facet, o->dir, e->dev, &view);
  if (st != GM_OK) {
    free(r);
    return st;
  }
  gm_mat *tmp = NULL;
  void *tp = NULL;
  st = new_temporary(o->m, &tmp);
  if (st == GM_OK) st = gm_mat_watch(tmp, e->facet, GM_OUTPUT, e->dev, &tp);
  if (st == GM_OK && o->dir != GM_OUTPUT) {
    st = copy(e, o->m, true, view, tp);
    if (st != GM_OK) gm_mat_unwatch(tmp, e->facet, GM_OUTPUT);
  }
  if (st != GM_OK) {
    gm_mat_free(tmp);
    gm_mat_unwatch(o->m, e->facet, o->dir);
    free(r);
    return st;
  }
  *r = (staged){o, tmp, view, stage_list};
  stage_list = r;
  o->ptr = tp;
  return GM_OK;
}

gm_status gm_stage_out(const gm_exec *e, gm_operand *o, bool scatter) {
  staged *r = take_record(o);
  if (!r) return gm_fail(GM_ESTATE, "internal: a staged operand was released twice or moved");
  gm_status st = GM_OK;
  if (scatter && o->dir != GM_INPUT) st = copy(e, o->m, false, o->ptr, r->view_ptr);
  gm_mat_unwatch(r->tmp, e->facet, GM_OUTPUT);
  gm_mat_unwatch(o->m, e->facet, o->dir);
  gm_mat_free(r->tmp);
  free(r);
  o->ptr = NULL;
  return st;
}

gm_status gm_mat_contiguous_copy(gm_mat *m, gm_mat **out) {
  gm_mat_options o = {0};
  o.ctype = (int)m->ctype;
  o.has_initial_element = m->vec->has_initial_element;
  o.initial_element = m->vec->initial_element;
  o.cuda_enabled = m->cuda_enabled;
  o.synchronization = m->vec->synchronization;
  gm_mat *c;
  GM_TRY(gm_mat_new(m->rank, m->dims, &o, &c));
  gm_status st = gm_copy_(m, c, m->size, 1, 1);
  if (st != GM_OK) {
    gm_mat_free(c);
    return st;
  }
  *out = c;
  return GM_OK;
}
