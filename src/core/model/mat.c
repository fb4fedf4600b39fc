#include "mat.h"

#include <stdint.h>
#include <stdlib.h>

#include "../ops/convert.h"
#include "../exec/exec.h"
#include "view.h"
#include "../mem/spare.h"

/* The product of the non-zero dimensions is bounded too: a zero-element
 * mat with a huge other dimension ({2^59, 0}) would otherwise make every
 * loop over its rows (printing, to_table, copies, .npy) run without end.
 * Such a mat may span at most GM_MAX_EMPTY_EXTENT along its other axes. */
gm_status gm_dims_size(int rank, const size_t *dims, size_t *size) {
  size_t nz = 1;
  bool zero = false;
  for (int i = 0; i < rank; i++) {
    if (dims[i] == 0) {
      zero = true;
      continue;
    }
    /* nz * dims[i] <= SIZE_MAX / 16, without the 64-bit division per
     * axis (two per new mat, a few percent of a 1K-element copy) */
    size_t p;
    if (__builtin_mul_overflow(nz, dims[i], &p) || p > SIZE_MAX / 16)
      return gm_fail(GM_ERANGE, "dimensions are too large (dimension %d is %zu)", i + 1, dims[i]);
    nz = p;
  }
  if (zero && nz > GM_MAX_EMPTY_EXTENT)
    return gm_fail(GM_ERANGE, "dimensions are too large (a mat with no elements may span at most %zu along its other dimensions, got %zu)",
                   (size_t)GM_MAX_EMPTY_EXTENT, nz);
  *size = zero ? 0 : nz;
  return GM_OK;
}

/* Whether size elements from displacement fit in max_size. */
static gm_status check_span(size_t size, size_t displacement, size_t max_size) {
  if (displacement > max_size || size > max_size - displacement)
    return gm_fail(GM_ERANGE, "displacement %zu + size %zu exceeds max_size %zu", displacement, size,
                   max_size);
  return GM_OK;
}

/* gm_check_shape, and the size it computed (*size untouched on failure):
 * the callers that set a mat's dims need it too, and computing it again
 * cost a second pass of the dims' overflow checks. */
static gm_status checked_size(int rank, const size_t *dims, size_t displacement, size_t max_size, size_t *size) {
  if (rank < 0 || rank > GM_MAX_RANK)
    return gm_fail(GM_EINVAL, "rank %d is out of range 0..%d", rank, GM_MAX_RANK);
  size_t n = 0;
  GM_TRY(gm_dims_size(rank, dims, &n));
  GM_TRY(check_span(n, displacement, max_size));
  *size = n;
  return GM_OK;
}

gm_status gm_check_shape(int rank, const size_t *dims, size_t displacement, size_t max_size) {
  size_t size = 0; /* (set by checked_size; GCC -Werror cannot see it) */
  return checked_size(rank, dims, displacement, max_size, &size);
}

void gm_mat_set_row_major_strides(gm_mat *m) {
  int64_t s = 1;
  for (int i = m->rank - 1; i >= 0; i--) {
    m->strides[i] = s;
    s *= (int64_t)m->dims[i];
  }
  m->contiguous = true;
}

gm_status gm_mat_new(int rank, const size_t *dims, const gm_mat_options *o, gm_mat **out) {
  gm_mat_options def = {.ctype = GM_DOUBLE, .has_initial_element = 1, .cuda_enabled = 1,
                        .synchronization = GM_SYNC_MAYBE};
  if (!o) o = &def;
  if (o->ctype < 0 || o->ctype >= GM_N_CTYPES) return gm_fail(GM_EINVAL, "bad ctype %d", o->ctype);
  if (rank < 0 || rank > GM_MAX_RANK)
    return gm_fail(GM_EINVAL, "rank %d is out of range 0..%d", rank, GM_MAX_RANK);
  size_t size = 0;
  GM_TRY(gm_dims_size(rank, dims, &size));
  if (o->displacement > SIZE_MAX / 16 - size) return gm_fail(GM_ERANGE, "displacement is too large");
  size_t max_size = o->max_size ? o->max_size : o->displacement + size;
  GM_TRY(check_span(size, o->displacement, max_size));
  gm_mat *m = gm_spare_calloc(GM_SPARE_MAT, sizeof *m);
  if (!m) return gm_fail(GM_ENOMEM, "out of host memory allocating a mat");
  gm_status st = gm_vec_new((gm_ctype)o->ctype, max_size, o->has_initial_element != 0,
                            gm_ctype_coerce((gm_ctype)o->ctype, o->initial_element), o->synchronization,
                            &m->vec);
  if (st != GM_OK) {
    gm_spare_free(GM_SPARE_MAT, m);
    return st;
  }
  m->ctype = (gm_ctype)o->ctype;
  m->rank = rank;
  for (int i = 0; i < rank; i++) m->dims[i] = dims[i];
  m->displacement = o->displacement;
  m->size = size;
  gm_mat_set_row_major_strides(m);
  m->cuda_enabled = o->cuda_enabled != 0;
  *out = m;
  return GM_OK;
}

gm_status gm_mat_view(const gm_mat *m, int rank, const size_t *dims, size_t displacement, gm_mat **out) {
  size_t size = 0; /* (set by checked_size; GCC -Werror cannot see it) */
  GM_TRY(checked_size(rank, dims, displacement, m->vec->max_size, &size));
  gm_mat *v = gm_spare_calloc(GM_SPARE_MAT, sizeof *v);
  if (!v) return gm_fail(GM_ENOMEM, "out of host memory allocating a mat");
  *v = *m;
  v->rank = rank;
  for (int i = 0; i < rank; i++) v->dims[i] = dims[i];
  v->size = size;
  v->displacement = displacement;
  gm_mat_set_row_major_strides(v);
  gm_vec_ref(v->vec);
  *out = v;
  return GM_OK;
}

void gm_mat_free(gm_mat *m) {
  if (!m) return;
  gm_vec_unref(m->vec);
  gm_spare_free(GM_SPARE_MAT, m);
}

int gm_mat_rank(const gm_mat *m) { return m->rank; }
size_t gm_mat_dim(const gm_mat *m, int axis) { return axis >= 0 && axis < m->rank ? m->dims[axis] : 0; }
size_t gm_mat_size(const gm_mat *m) { return m->size; }
size_t gm_mat_displacement(const gm_mat *m) { return m->displacement; }
size_t gm_mat_max_size(const gm_mat *m) { return m->vec->max_size; }
int gm_mat_initial_element(const gm_mat *m, double *out) {
  if (m->vec->has_initial_element) *out = m->vec->initial_element;
  return m->vec->has_initial_element;
}
int gm_mat_ctype(const gm_mat *m) { return (int)m->ctype; }

static bool any_watched(gm_vec *v) {
  for (int f = 0; f < GM_N_FACETS; f++) {
    gm_facet info;
    if (gm_vec_facet_info(v, (gm_facet_name)f, &info) && info.n_watchers > 0) return true;
  }
  return false;
}

gm_status gm_mat_reshape_and_displace_(gm_mat *m, int rank, const size_t *dims, size_t displacement) {
  size_t size = 0; /* (set by checked_size; GCC -Werror cannot see it) */
  GM_TRY(checked_size(rank, dims, displacement, m->vec->max_size, &size));
  if (any_watched(m->vec))
    return gm_fail(GM_ESTATE, "cannot reshape a mat while one of its facets is being accessed");
  m->rank = rank;
  for (int i = 0; i < rank; i++) m->dims[i] = dims[i];
  m->size = size;
  m->displacement = displacement;
  gm_mat_set_row_major_strides(m);
  return GM_OK;
}

/* A non-contiguous view sees all storage when its elements are a
 * permutation of it (m:t() of a whole mat). */
bool gm_mat_covers_all(const gm_mat *m) {
  if (m->displacement != 0 || m->size != m->vec->max_size) return false;
  return m->contiguous || (gm_mat_extent(m) == m->size && !gm_mat_self_overlaps(m));
}

gm_status gm_mat_watch(gm_mat *m, gm_facet_name f, gm_direction dir, struct gm_device *dev, void **ptr) {
  if (!m->contiguous) {
    char d[160], s[160];
    gm_dims_text(m->rank, m->dims, d, sizeof d);
    gm_strides_text(m, s, sizeof s);
    return gm_fail(GM_EINVAL, "the elements of a non-contiguous %s view (strides %s) are not one block of memory; use m:contiguous()",
                   d, s);
  }
  return gm_mat_watch_strided(m, f, dir, dev, ptr);
}

gm_status gm_mat_watch_strided(gm_mat *m, gm_facet_name f, gm_direction dir, struct gm_device *dev, void **ptr) {
  void *base;
  GM_TRY(gm_vec_watch(m->vec, f, dir, gm_mat_covers_all(m), dev, &base));
  *ptr = (char *)base + m->displacement * gm_ctype_size(m->ctype);
  return GM_OK;
}

void gm_mat_unwatch(gm_mat *m, gm_facet_name f, gm_direction dir) { gm_vec_unwatch(m->vec, f, dir); }

gm_status gm_mat_row_major_index(const gm_mat *m, int n, const size_t *subs, size_t *out) {
  if (n != m->rank)
    return gm_fail(GM_EINVAL, "expected %d subscripts, got %d", m->rank, n);
  size_t k = 0;
  for (int i = 0; i < n; i++) {
    if (subs[i] >= m->dims[i])
      return gm_fail(GM_ERANGE, "subscript %zu on axis %d is out of range 1..%zu", subs[i] + 1, i + 1,
                     m->dims[i]);
    k = k * m->dims[i] + subs[i];
  }
  *out = k;
  return GM_OK;
}

/* The error for a 0-based element index k >= m->size: the range is
 * inclusive, 0..size-1, and an empty mat has none. */
static gm_status index_error(const gm_mat *m, size_t k) {
  if (m->size == 0) return gm_fail(GM_ERANGE, "index %zu is out of range (the mat is empty)", k);
  return gm_fail(GM_ERANGE, "index %zu is out of range 0..%zu", k, m->size - 1);
}

/* k is the row-major index among the visible elements (of a view: in
 * the view's order), mapped through the strides to the storage. */
gm_status gm_mat_get(gm_mat *m, size_t k, double *out) {
  if (k >= m->size) return index_error(m, k);
  size_t off = gm_mat_storage_index(m, k);
  if (gm_vec_element_quick(m->vec, off, false, out)) return GM_OK;
  void *p; /* the storage's base: off may lie below the displacement (a backward view) */
  GM_TRY(gm_vec_watch(m->vec, GM_FACET_FOREIGN, GM_INPUT, gm_mat_covers_all(m), NULL, &p));
  *out = gm_ctype_get(m->ctype, p, off);
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_INPUT);
  return GM_OK;
}

gm_status gm_mat_put(gm_mat *m, size_t k, double value) {
  if (k >= m->size) return index_error(m, k);
  GM_TRY(gm_check_writable(NULL, m));
  size_t off = gm_mat_storage_index(m, k);
  if (gm_vec_element_quick(m->vec, off, true, &value)) return GM_OK;
  void *p; /* the storage's base, as in gm_mat_get */
  GM_TRY(gm_vec_watch(m->vec, GM_FACET_FOREIGN, GM_IO, gm_mat_covers_all(m), NULL, &p));
  gm_ctype_set(m->ctype, p, off, value);
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_IO);
  return GM_OK;
}

/* Element k exactly (integers and bool as integers): the watched path,
 * no double on the way. */
gm_status gm_mat_get_value(gm_mat *m, size_t k, gm_value *out) {
  if (k >= m->size) return index_error(m, k);
  size_t off = gm_mat_storage_index(m, k);
  void *p;
  GM_TRY(gm_mat_watch_strided(m, GM_FACET_FOREIGN, GM_INPUT, NULL, &p));
  *out = gm_ctype_read(m->ctype, p, off - m->displacement);
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_INPUT);
  return GM_OK;
}

gm_status gm_mat_put_value(gm_mat *m, size_t k, gm_value v) {
  if (k >= m->size) return index_error(m, k);
  GM_TRY(gm_check_writable(NULL, m));
  size_t off = gm_mat_storage_index(m, k);
  void *p;
  GM_TRY(gm_mat_watch_strided(m, GM_FACET_FOREIGN, GM_IO, NULL, &p));
  gm_ctype_write(m->ctype, p, off - m->displacement, v);
  gm_mat_unwatch(m, GM_FACET_FOREIGN, GM_IO);
  return GM_OK;
}

/* Through the host's operand acquisition, which stages a view. */
gm_status gm_mat_read_doubles(gm_mat *m, double *out) {
  gm_exec e = gm_exec_host();
  gm_operand op = {m, GM_INPUT, NULL};
  GM_TRY(gm_acquire(&e, &op, 1));
  for (size_t i = 0; i < m->size; i++) out[i] = gm_ctype_get(m->ctype, op.ptr, i);
  return gm_release(&e, &op, 1);
}

gm_status gm_mat_read_values(gm_mat *m, gm_value *out) {
  gm_exec e = gm_exec_host();
  gm_operand op = {m, GM_INPUT, NULL};
  GM_TRY(gm_acquire(&e, &op, 1));
  for (size_t i = 0; i < m->size; i++) out[i] = gm_ctype_read(m->ctype, op.ptr, i);
  return gm_release(&e, &op, 1);
}

gm_status gm_mat_write_values(gm_mat *m, const gm_value *in) {
  gm_exec e = gm_exec_host();
  gm_operand op = {m, GM_OUTPUT, NULL};
  GM_TRY(gm_acquire(&e, &op, 1));
  for (size_t i = 0; i < m->size; i++) gm_ctype_write(m->ctype, op.ptr, i, in[i]);
  return gm_release(&e, &op, 1);
}

/* Where the mats live (the device's convert kernel, kernels/strided.cu,
 * for mats on a device: a promotion or astype there copies nothing
 * through the host). */
gm_status gm_mat_astype(gm_mat *src, gm_mat *dst) {
  if (src->size != dst->size)
    return gm_fail(GM_EINVAL, "sizes differ: %zu and %zu", src->size, dst->size);
  GM_TRY(gm_check_writable(NULL, dst));
  gm_mat *all[2] = {src, dst};
  gm_exec e = gm_exec_choose(all, 2);
  if (!e.be->convert) e = gm_exec_host();
  gm_operand ops[2] = {{src, GM_INPUT, NULL}, {dst, GM_OUTPUT, NULL}};
  if (src->vec == dst->vec) return gm_fail(GM_EINVAL, "the result shares storage with the source");
  if (src->size == 0) return GM_OK;
  GM_TRY(gm_acquire(&e, ops, 2));
  gm_status st = e.be->convert(e.dev, dst->ctype, ops[1].ptr, src->ctype, ops[0].ptr, src->size);
  return gm_finish(&e, ops, 2, st);
}

gm_status gm_mat_write_doubles(gm_mat *m, const double *in) {
  gm_exec e = gm_exec_host();
  gm_operand op = {m, GM_OUTPUT, NULL};
  GM_TRY(gm_acquire(&e, &op, 1));
  for (size_t i = 0; i < m->size; i++) gm_ctype_set(m->ctype, op.ptr, i, in[i]);
  return gm_release(&e, &op, 1);
}
