#include "exec.h"

#include "mem/runtime.h"
#include "context.h"

gm_exec gm_exec_host(void) { return (gm_exec){GM_FACET_FOREIGN, NULL, &gm_host_backend}; }

gm_exec gm_exec_choose(gm_mat *const *mats, int n) {
  struct gm_device *dev = gm_current_device();
  if (!dev) return gm_exec_host();
  for (int i = 0; i < n; i++)
    if (mats[i] && !mats[i]->cuda_enabled) return gm_exec_host();
  return (gm_exec){GM_FACET_CUDA, dev, dev->ops->kernels};
}

static void unwatch_all(const gm_exec *e, gm_operand *ops, int n) {
  for (int i = n - 1; i >= 0; i--) gm_mat_unwatch(ops[i].m, e->facet, ops[i].dir);
}

/* The device call starts before the watches: creating a facet may run a
 * fill kernel on the new memory (the backend counts nested enters). */
gm_status gm_acquire(const gm_exec *e, gm_operand *ops, int n) {
  gm_device_enter(e->dev);
  for (int i = 0; i < n; i++) {
    gm_status st = gm_mat_watch(ops[i].m, e->facet, ops[i].dir, e->dev, &ops[i].ptr);
    if (st != GM_OK) {
      unwatch_all(e, ops, i);
      gm_device_leave(e->dev);
      return st;
    }
  }
  /* the emulated device's model of the launch's cudaGetLastError: a
   * stale error left by a recovered allocation failure (review #1) fails
   * here as it would fail the launch on a GPU */
  if (e->dev && e->dev->ops->check_error) {
    gm_status st = e->dev->ops->check_error(e->dev);
    if (st != GM_OK) {
      unwatch_all(e, ops, n);
      gm_device_leave(e->dev);
      return st;
    }
  }
  return GM_OK;
}

void gm_release(const gm_exec *e, gm_operand *ops, int n) {
  unwatch_all(e, ops, n);
  gm_device_leave(e->dev);
}

bool gm_mats_overlap(const gm_mat *a, const gm_mat *b) {
  if (!a || !b || a->vec != b->vec || a->size == 0 || b->size == 0) return false;
  return a->displacement < b->displacement + b->size && b->displacement < a->displacement + a->size;
}

gm_status gm_check_same_ctype(const char *op, const gm_mat *a, const gm_mat *b) {
  if (a->ctype != b->ctype)
    return gm_fail(GM_EINVAL, "%s: mixed ctypes %s and %s", op, gm_ctype_name(a->ctype),
                   gm_ctype_name(b->ctype));
  return GM_OK;
}
