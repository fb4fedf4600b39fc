/* Where mats and buffers meet (see memspace.h). */
#include "memspace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../model/vec.h"
#include "hostpool.h"

/* A buffer viewing a facet holds a facet reference and the vec. */
static gm_status vec_hold(void *owner, int facet, struct gm_device *dev) {
  gm_vec *v = owner;
  GM_TRY(gm_vec_add_facet_reference(v, (gm_facet_name)facet, dev));
  gm_vec_ref(v);
  return GM_OK;
}

static void vec_release(void *owner, int facet) {
  gm_vec *v = owner;
  gm_vec_remove_facet_reference(v, (gm_facet_name)facet); /* fails only if already gone */
  gm_vec_unref(v);
}

static const gm_buffer_owner vec_owner = {vec_hold, vec_release};

static gm_facet_name facet_of(gm_mem_type mt) {
  static const gm_facet_name f[] = {GM_FACET_FOREIGN, GM_FACET_CUDA_HOST, GM_FACET_CUDA, GM_FACET_MANAGED};
  return f[mt];
}

/* The facet itself, up to date, held by the view. */
static gm_status facet_view(gm_mat *m, gm_mem_type mt, struct gm_device *dev, gm_direction dir, gm_buffer *out) {
  gm_facet_name f = facet_of(mt);
  GM_TRY(gm_vec_add_facet_reference(m->vec, f, dev));
  void *ptr;
  gm_status st = gm_mat_watch(m, f, dir, dev, &ptr);
  if (st == GM_OK) gm_mat_unwatch(m, f, dir);
  gm_block *blk = gm_vec_facet_block(m->vec, f);
  if (st == GM_OK && !blk) st = gm_fail(GM_ESTATE, "facet '%s' has no memory", gm_facet_name_str(f));
  if (st != GM_OK) {
    gm_vec_remove_facet_reference(m->vec, f);
    return st;
  }
  gm_block_hold(blk);
  gm_vec_ref(m->vec);
  gm_buffer b = {0};
  b.blk = blk;
  b.owner_ops = &vec_owner;
  b.owner = m->vec;
  b.owner_facet = (int)f;
  b.et = gm_etype_of_ctype(m->ctype);
  b.rank = m->rank;
  memcpy(b.dims, m->dims, sizeof b.dims);
  b.size = m->size;
  b.offset = m->displacement * gm_ctype_size(m->ctype);
  b.device_view = mt == GM_MEM_DEVICE && blk->space == GM_SPACE_PINNED;
  *out = b;
  return GM_OK;
}

/* The mat's elements (read through its host facet) converted into nb. */
static gm_status write_converted(gm_buffer *nb, const double *x) {
  size_t size = nb->size, es = gm_etype_size(nb->et);
  gm_etype et = nb->et;
  char *out; /* buffer-sized: from the host pool */
  size_t cap;
  GM_TRY(gm_host_scratch(size * es + 1, (void **)&out, &cap));
  gm_status st = GM_OK;
  for (size_t k = 0; k < size && st == GM_OK; k++) {
    size_t dp = gm_buffer_phys_index(nb, k);
    if (!gm_etype_is_integer(et))
      gm_etype_set_real(et, out, dp, x[k]);
    else if (gm_etype_fits_real(et, x[k]))
      gm_etype_set_int(et, out, dp, (long long)x[k]);
    else
      st = gm_fail(GM_ERANGE, "element %zu (%g) is not a value of %s", k + 1, x[k], gm_etype_name(et));
  }
  if (st == GM_OK) st = gm_buffer_write_at(nb, 0, size, out);
  gm_host_scratch_free(out, cap);
  return st;
}

static gm_status owning_copy(gm_mat *m, gm_mem_type mt, struct gm_device *dev, gm_etype et, bool col,
                             gm_buffer *out) {
  double *tmp; /* mat-sized: from the host pool */
  size_t cap;
  GM_TRY(gm_host_scratch(m->size * sizeof *tmp + 1, (void **)&tmp, &cap));
  gm_status st = gm_mat_read_doubles(m, tmp);
  gm_buffer_spec s = {.et = et, .rank = m->rank, .col_major = col};
  memcpy(s.dims, m->dims, sizeof s.dims);
  gm_buffer nb;
  if (st == GM_OK) st = gm_buffer_make(gm_mem_type_space(mt), mt == GM_MEM_HOST ? NULL : dev, &s, &nb);
  if (st == GM_OK) {
    st = write_converted(&nb, tmp);
    if (st == GM_OK)
      *out = nb;
    else
      gm_buffer_end(&nb);
  }
  gm_host_scratch_free(tmp, cap);
  return st;
}

gm_status gm_mat_ensure_view(gm_mat *m, gm_mem_type mt, struct gm_device *dev, gm_etype et, bool col,
                             gm_direction dir, gm_buffer *out) {
  GM_TRY(gm_vec_check_memory(m->vec));
  if (mt == GM_MEM_HOST) dev = NULL;
  if (mt != GM_MEM_HOST && !dev) {
    static const char *const names[] = {"host", "pinned", "device", "managed"};
    return gm_fail(GM_ESTATE, "memory type '%s' needs an active cuda context (with_cuda)", names[mt]);
  }
  /* a strided view's elements are not one block: it gets the owning copy */
  if (et == gm_etype_of_ctype(m->ctype) && !col && m->contiguous) return facet_view(m, mt, dev, dir, out);
  return owning_copy(m, mt, dev, et, col, out);
}

gm_status gm_mat_over_buffer(const gm_buffer *b, int rank, const size_t *dims, size_t disp, const gm_mat_options *o,
                             gm_mat **out, int *bad) {
  *bad = 0;
  size_t es = gm_etype_size(b->et), size;
  if (gm_dims_size(rank, dims, &size) != GM_OK || size > SIZE_MAX / 16) {
    *bad = 2;
    return gm_fail(GM_EINVAL, "dimensions are too large");
  }
  GM_TRY(gm_buffer_check(b));
  *bad = 1;
  if (b->col_major) return gm_fail(GM_EINVAL, "a col_major buffer cannot be a mat's memory");
  if (b->offset % es) return gm_fail(GM_EINVAL, "the buffer's offset is not a whole number of elements");
  size_t max = b->blk->bytes / es;
  *bad = 2;
  if (disp > max || size > max - disp)
    return gm_fail(GM_EINVAL, "displacement %zu + size %zu does not fit the buffer's block of %zu elements", disp,
                   size, max);
  *bad = 0;
  gm_mat_options mo = *o;
  gm_ctype ct = GM_DOUBLE;
  (void)gm_ctype_of_etype(b->et, &ct); /* every etype is a ctype (one list) */
  mo.ctype = (int)ct;
  mo.displacement = disp;
  mo.max_size = max;
  gm_mat *m;
  GM_TRY(gm_mat_new(rank, dims, &mo, &m));
  gm_status st = gm_vec_adopt_block(m->vec, b->blk);
  if (st != GM_OK) {
    gm_mat_free(m);
    return st;
  }
  *out = m;
  return GM_OK;
}

static gm_status parse_ensure_etype(const char *const given[GM_N_ENSURE_OPTIONS], gm_ensure_options *o) {
  static const char *const keys[] = {"ctype", "element_type"};
  for (int i = GM_ENSURE_CTYPE; i <= GM_ENSURE_ELEMENT_TYPE; i++) {
    if (!given[i]) continue;
    if (o->has_et) return gm_fail(GM_EINVAL, "options 'ctype' and 'element_type' are mutually exclusive");
    if (gm_etype_parse(given[i], &o->et) != 0)
      return gm_fail(GM_EINVAL, "option '%s' must be an element type, got %s", keys[i], given[i]);
    o->has_et = true;
  }
  return GM_OK;
}

gm_status gm_ensure_options_parse(const char *const given[GM_N_ENSURE_OPTIONS], gm_ensure_options *out) {
  gm_ensure_options o = {.has_et = false, .col_major = false, .dir = GM_INPUT};
  GM_TRY(parse_ensure_etype(given, &o));
  const char *layout = given[GM_ENSURE_LAYOUT], *dir = given[GM_ENSURE_DIRECTION];
  if (layout && strcmp(layout, "col_major") == 0)
    o.col_major = true;
  else if (layout && strcmp(layout, "row_major") != 0)
    return gm_fail(GM_EINVAL, "option 'layout' must be \"row_major\" or \"col_major\"");
  if (dir && strcmp(dir, "io") == 0)
    o.dir = GM_IO;
  else if (dir && strcmp(dir, "input") != 0)
    return gm_fail(GM_EINVAL, "option 'direction' must be \"input\" or \"io\"");
  *out = o;
  return GM_OK;
}

gm_status gm_mat_buffer_ctype(const gm_buffer *b, const char *want, gm_ctype *out, int *bad) {
  gm_ctype ct, w;
  *bad = 1;
  if (gm_ctype_of_etype(b->et, &ct) != 0)
    return gm_fail(GM_EINVAL, "element type %s is not a mat element type", gm_etype_name(b->et));
  *bad = 2;
  if (want && (gm_ctype_parse(want, &w) != 0 || w != ct))
    return gm_fail(GM_EINVAL, "option 'ctype' must be the buffer's element type %s", gm_etype_name(b->et));
  *bad = 0;
  *out = ct;
  return GM_OK;
}
