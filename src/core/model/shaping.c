#include "shaping.h"

#include "view.h"

gm_status gm_shape_fits(const gm_mat *m, int rank, const size_t *dims, size_t d) {
  size_t size;
  GM_TRY(gm_dims_size(rank, dims, &size));
  size_t max_size = m->vec->max_size;
  if (d > max_size || size > max_size - d)
    return gm_fail(GM_EINVAL, "displacement %zu + size %zu exceeds max_size %zu", d, size, max_size);
  return GM_OK;
}

gm_status gm_check_shapable(const gm_mat *m) {
  if (m->contiguous) return GM_OK;
  char d[160], s[160];
  gm_dims_text(m->rank, m->dims, d, sizeof d);
  gm_strides_text(m, s, sizeof s);
  return gm_fail(GM_EINVAL, "a non-contiguous %s view (strides %s) cannot be reshaped or displaced; use m:contiguous() first",
                 d, s);
}

gm_status gm_shape_apply(gm_mat *m, int rank, const size_t *dims, size_t d, bool in_place, gm_mat **view, int *bad) {
  gm_status st = gm_check_shapable(m);
  if (st != GM_OK) {
    *bad = GM_SHAPE_BAD_MAT;
    return st;
  }
  st = gm_shape_fits(m, rank, dims, d);
  if (st != GM_OK) {
    *bad = GM_SHAPE_BAD_SHAPE;
    return st;
  }
  return in_place ? gm_mat_reshape_and_displace_(m, rank, dims, d) : gm_mat_view(m, rank, dims, d, view);
}

gm_status gm_row_matrix_args(const gm_mat *m, int64_t row, size_t dims[2], size_t *d, int *bad) {
  *bad = 1;
  GM_TRY(gm_check_shapable(m));
  if (m->rank != 2) return gm_fail(GM_EINVAL, "mat must be 2d, got rank %d", m->rank);
  *bad = 2;
  if (row < 1 || (uint64_t)row > m->dims[0])
    return gm_fail(GM_EINVAL, "row %lld is out of range 1..%zu", (long long)row, m->dims[0]);
  *bad = 0;
  dims[0] = 1;
  dims[1] = m->dims[1];
  *d = m->displacement + (size_t)(row - 1) * m->dims[1];
  return GM_OK;
}

static bool any_facet_watched(gm_vec *v) {
  for (int f = 0; f < GM_N_FACETS; f++) {
    gm_facet info;
    if (gm_vec_facet_info(v, (gm_facet_name)f, &info) && info.n_watchers > 0) return true;
  }
  return false;
}

/* A fresh mat like m (ctype, initial element, flags) with the new shape. */
static gm_status new_like(const gm_mat *m, int rank, const size_t *dims, size_t d, gm_mat **out) {
  gm_mat_options o = {0};
  o.ctype = (int)m->ctype;
  o.displacement = d;
  o.has_initial_element = m->vec->has_initial_element;
  o.initial_element = m->vec->initial_element;
  o.cuda_enabled = m->cuda_enabled;
  o.synchronization = m->vec->synchronization;
  return gm_mat_new(rank, dims, &o, out);
}

gm_status gm_mat_adjust_(gm_mat *m, int rank, const size_t *dims, size_t d, bool destroy_old, gm_mat **fresh,
                         int *bad) {
  *fresh = NULL;
  size_t size;
  gm_status st = gm_dims_size(rank, dims, &size);
  if (st != GM_OK) {
    *bad = 2;
    return st;
  }
  if (d <= m->vec->max_size && size <= m->vec->max_size - d) return gm_mat_reshape_and_displace_(m, rank, dims, d);
  if (destroy_old && any_facet_watched(m->vec))
    return gm_fail(GM_ESTATE, "cannot destroy the old mat while one of its facets is being accessed");
  GM_TRY(new_like(m, rank, dims, d, fresh));
  st = destroy_old ? gm_vec_destroy_all(m->vec) : GM_OK;
  if (st != GM_OK) {
    gm_mat_free(*fresh);
    *fresh = NULL;
  }
  return st;
}
