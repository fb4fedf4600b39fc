/* The construction rules of mats as the makers take them (gm.mat in Lua):
 * which options go together, the sizes a new mat may have (with messages
 * naming the option at fault), mats displaced to another mat's storage,
 * and staging mats.  The binding reads the options; these decide. */
#include <stdint.h>

#include "context.h"
#include "mat.h"

gm_status gm_mat_displaced_conflicts(unsigned given) {
  if (given & GM_MAKE_INITIAL)
    return gm_fail(GM_EINVAL, "initial_element and initial_contents cannot go with displaced_to");
  if (given & GM_MAKE_STORAGE) return gm_fail(GM_EINVAL, "ctype and max_size cannot go with displaced_to");
  /* the storage (and its synchronization) is displaced_to's */
  if (given & GM_MAKE_SYNC)
    return gm_fail(GM_EINVAL, "synchronization cannot go with displaced_to (the storage is shared)");
  return GM_OK;
}

gm_status gm_mat_new_displaced(const gm_mat *base, int rank, const size_t *dims, long long rel, gm_mat **out,
                               int *bad) {
  size_t size;
  *bad = 1;
  GM_TRY(gm_dims_size(rank, dims, &size));
  *bad = 2;
  /* base->displacement <= max_size, far below LLONG_MAX: no overflow */
  long long base_d = (long long)base->displacement, max = (long long)base->vec->max_size;
  if (rel < -base_d)
    return gm_fail(GM_EINVAL, "displacement %lld makes the absolute displacement negative (%lld)", rel, base_d + rel);
  if (rel > max - base_d)
    return gm_fail(GM_EINVAL, "displacement %lld does not fit the storage of %zu elements", rel, base->vec->max_size);
  long long abs_d = base_d + rel;
  if ((size_t)abs_d + size > base->vec->max_size)
    return gm_fail(GM_EINVAL, "displaced mat (displacement %lld + size %zu) does not fit the storage of %zu elements",
                   abs_d, size, base->vec->max_size);
  *bad = 0;
  return gm_mat_view(base, rank, dims, (size_t)abs_d, out);
}

/* The sizes of a new mat, checked before gm_mat_new so that the message
 * names the option at fault (the core's limit on storage is SIZE_MAX/16
 * elements). */
static gm_status check_sizes(int rank, const size_t *dims, const gm_mat_options *o, int *bad) {
  size_t size;
  *bad = 1;
  GM_TRY(gm_dims_size(rank, dims, &size));
  *bad = 2;
  const size_t limit = SIZE_MAX / 16;
  if (o->displacement > limit - size) return gm_fail(GM_EINVAL, "displacement %zu is too large", o->displacement);
  if (o->max_size > limit) return gm_fail(GM_EINVAL, "max_size %zu is too large", o->max_size);
  if (o->max_size && o->max_size < o->displacement + size)
    return gm_fail(GM_EINVAL, "max_size %zu is smaller than displacement %zu + size %zu", o->max_size,
                   o->displacement, size);
  *bad = 0;
  return GM_OK;
}

/* Staging mats: host memory page-locked from birth (and with mapped, the
 * device's memory too) when a device is active; plain host memory
 * otherwise.  The memory is made now so the facets tell. */
static gm_status stage(gm_mat *m, bool mapped) {
  struct gm_device *dev = gm_current_device();
  if (!dev) return GM_OK;
  gm_vec_set_staging(m->vec, dev, mapped);
  void *p;
  GM_TRY(gm_mat_watch(m, GM_FACET_FOREIGN, GM_INPUT, NULL, &p));
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_INPUT);
  return GM_OK;
}

gm_status gm_mat_make(int rank, const size_t *dims, const gm_mat_options *o, bool pinned, bool mapped, gm_mat **out,
                      int *bad) {
  GM_TRY(check_sizes(rank, dims, o, bad));
  gm_mat *m;
  GM_TRY(gm_mat_new(rank, dims, o, &m));
  if (pinned || mapped) {
    gm_status st = stage(m, mapped);
    if (st != GM_OK) {
      gm_mat_free(m);
      return st;
    }
  }
  *out = m;
  return GM_OK;
}

gm_status gm_mat_subscripts_index(const gm_mat *m, int n, const long long *subs, size_t *k, int *bad) {
  *bad = -1;
  if (n != m->rank) return gm_fail(GM_EINVAL, "expected %d subscripts, got %d", m->rank, n);
  size_t idx = 0;
  for (int i = 0; i < n; i++) {
    if (subs[i] < 1 || (size_t)subs[i] > m->dims[i]) {
      *bad = i;
      return gm_fail(GM_EINVAL, "subscript %lld is out of range 1..%zu on axis %d", subs[i], m->dims[i], i + 1);
    }
    idx = idx * m->dims[i] + (size_t)(subs[i] - 1);
  }
  *k = idx;
  return GM_OK;
}

gm_status gm_nested_entry_check(int depth, int rank, const size_t *dims, bool is_list, bool is_leaf, const char *type,
                                long long len) {
  if (depth == rank) {
    if (is_list)
      return gm_fail(GM_EINVAL, "contents are not rectangular (a list at depth %d, expected a number)", depth + 1);
    if (!is_leaf) return gm_fail(GM_EINVAL, "contents must be numbers or mats, got %s at depth %d", type, depth + 1);
    return GM_OK;
  }
  if (!is_list)
    return gm_fail(GM_EINVAL, "contents are not rectangular (a %s at depth %d, expected a list of %zu)", type,
                   depth + 1, dims[depth]);
  if (len < 0 || (size_t)len != dims[depth])
    return gm_fail(GM_EINVAL, "contents are not rectangular (a list at depth %d has %lld entries, expected %zu)",
                   depth + 1, len, dims[depth]);
  return GM_OK;
}
