#include "exec.h"

#include "../mem/block.h"
#include "../mem/runtime.h"
#include "../model/context.h"
#include "stage.h"
#include "../model/view.h"

gm_exec gm_exec_host(void) { return (gm_exec){GM_FACET_FOREIGN, NULL, &gm_host_backend}; }

gm_status gm_check_float_mats(const char *op, gm_mat *const *mats, int n) {
  for (int i = 0; i < n; i++)
    if (mats[i]) GM_TRY(gm_check_float_ctype(op, i + 1, mats[i]->ctype));
  return GM_OK;
}

gm_exec gm_exec_choose(gm_mat *const *mats, int n) {
  struct gm_device *dev = gm_current_device();
  if (!dev) return gm_exec_host();
  for (int i = 0; i < n; i++)
    if (mats[i] && !mats[i]->cuda_enabled) return gm_exec_host();
  return (gm_exec){GM_FACET_CUDA, dev, dev->ops->kernels};
}

/* scatter: write staged outputs back to their views (release) or not
 * (a failed acquire) */
static gm_status unwatch_all(const gm_exec *e, gm_operand *ops, int n, bool scatter, bool in_place) {
  gm_status st = GM_OK;
  for (int i = n - 1; i >= 0; i--) {
    if (gm_mat_is_contiguous(ops[i].m) || in_place) {
      gm_mat_unwatch(ops[i].m, e->facet, ops[i].dir);
      continue;
    }
    gm_status s = gm_stage_out(e, &ops[i], scatter);
    if (st == GM_OK) st = s;
  }
  return st;
}

/* Before any watch: a written view whose elements overlap is refused
 * while nothing has changed yet. */
static gm_status check_operands(gm_operand *ops, int n) {
  for (int i = 0; i < n; i++) {
    if (ops[i].dir != GM_INPUT) GM_TRY(gm_check_writable(NULL, ops[i].m));
  }
  return GM_OK;
}

/* The device call starts before the watches: creating a facet may run a
 * fill kernel on the new memory (the backend counts nested enters). */
/* Managed storage that device work is about to use moves to the device
 * first (advisory: the device's prefetch, when it has one). */
static void prefetch_managed(const gm_exec *e, const gm_operand *op) {
  const gm_mat *m = op->m;
  const gm_block *b = m->vec->host_blk;
  if (!e->dev || !e->dev->ops->prefetch || !b || b->space != GM_SPACE_MANAGED || !m->contiguous || !op->ptr) return;
  e->dev->ops->prefetch(e->dev, op->ptr, m->size * gm_ctype_size(m->ctype));
}

static gm_status acquire(const gm_exec *e, gm_operand *ops, int n, bool in_place) {
  GM_TRY(check_operands(ops, n));
  gm_device_enter(e->dev);
  for (int i = 0; i < n; i++) {
    gm_status st = gm_mat_is_contiguous(ops[i].m) || in_place
                       ? gm_mat_watch_strided(ops[i].m, e->facet, ops[i].dir, e->dev, &ops[i].ptr)
                       : gm_stage_in(e, &ops[i]);
    if (st != GM_OK) {
      unwatch_all(e, ops, i, false, in_place);
      gm_device_leave(e->dev);
      return st;
    }
    prefetch_managed(e, &ops[i]);
  }
  /* the emulated device's model of the launch's cudaGetLastError: a
   * stale error left by a recovered allocation failure fails
   * here as it would fail the launch on a GPU */
  if (e->dev && e->dev->ops->check_error) {
    gm_status st = e->dev->ops->check_error(e->dev);
    if (st != GM_OK) {
      unwatch_all(e, ops, n, false, in_place);
      gm_device_leave(e->dev);
      return st;
    }
  }
  return GM_OK;
}

gm_status gm_acquire(const gm_exec *e, gm_operand *ops, int n) { return acquire(e, ops, n, false); }

gm_status gm_acquire_in_place(const gm_exec *e, gm_operand *ops, int n) { return acquire(e, ops, n, true); }

gm_status gm_release(const gm_exec *e, gm_operand *ops, int n) {
  gm_status st = unwatch_all(e, ops, n, true, false);
  gm_device_leave(e->dev);
  return st;
}

gm_status gm_finish(const gm_exec *e, gm_operand *ops, int n, gm_status st) {
  gm_status rs = gm_release(e, ops, n);
  return st != GM_OK ? st : rs;
}

gm_status gm_finish_in_place(const gm_exec *e, gm_operand *ops, int n, gm_status st) {
  unwatch_all(e, ops, n, false, true); /* nothing staged: cannot fail */
  gm_device_leave(e->dev);
  return st;
}

void gm_lane_leave(gm_lane *lane) {
  for (int i = lane->n - 1; i >= 0; i--) gm_vec_lane_leave(lane->v[i], lane->taken[i]);
  lane->n = 0;
}

bool gm_lane_enter(const gm_exec *e, gm_operand *ops, int n, bool in_place, gm_lane *lane) {
  lane->n = 0;
  if (e->dev || e->facet != GM_FACET_FOREIGN || n > GM_LANE_MAX) return false;
  for (int i = 0; i < n; i++) {
    const gm_mat *m = ops[i].m;
    gm_vec *v = m->vec;
    if (!m->contiguous && (!in_place || (ops[i].dir != GM_INPUT && gm_mat_self_overlaps(m)))) break;
    /* OUTPUT (a new result's storage may be made) only for the whole vec */
    gm_direction dir = ops[i].dir == GM_OUTPUT && (m->displacement != 0 || m->size != v->max_size) ? GM_IO : ops[i].dir;
    /* a vec seen before: both read (entered once), or the watch path (rare) */
    int k = 0;
    while (k < i && ops[k].m->vec != v) k++;
    if (k < i) {
      if (dir != GM_INPUT || ops[k].dir != GM_INPUT) break;
    } else if (gm_vec_lane_enter(v, dir, lane->n == 0, &lane->taken[lane->n])) {
      lane->v[lane->n++] = v;
    } else {
      break;
    }
    ops[i].ptr = (char *)v->host + m->displacement * gm_ctype_size(m->ctype);
    if (i == n - 1) return true;
  }
  gm_lane_leave(lane);
  return false;
}

gm_status gm_acquire_lane(const gm_exec *e, gm_operand *ops, int n, size_t size, bool in_place, gm_lane *lane) {
  lane->n = 0;
  if (size <= GM_LANE_MAX_ELEMS && gm_lane_enter(e, ops, n, in_place, lane)) return GM_OK;
  return acquire(e, ops, n, in_place);
}

gm_status gm_finish_lane(const gm_exec *e, gm_operand *ops, int n, bool in_place, gm_lane *lane, gm_status st) {
  if (lane->n > 0) {
    gm_lane_leave(lane);
    return st;
  }
  return in_place ? gm_finish_in_place(e, ops, n, st) : gm_finish(e, ops, n, st);
}

bool gm_mats_overlap(const gm_mat *a, const gm_mat *b) {
  if (!a || !b || a->vec != b->vec || a->size == 0 || b->size == 0) return false;
  if (!a->contiguous || !b->contiguous) return false;
  return a->displacement < b->displacement + b->size && b->displacement < a->displacement + a->size;
}

gm_status gm_check_same_ctype(const char *op, const gm_mat *a, const gm_mat *b) {
  if (a->ctype != b->ctype)
    return gm_fail(GM_EINVAL, "%s: mixed ctypes %s and %s", op, gm_ctype_name(a->ctype),
                   gm_ctype_name(b->ctype));
  return GM_OK;
}
