/* Buffers: the view model (see buffer.h). */
#include "buffer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

static size_t esize(const gm_buffer *b) { return gm_etype_size(b->et); }

/* The element count of dims, false when it does not fit a buffer (room
 * left for element sizes up to 16 bytes). */
static bool dims_count(int rank, const size_t *dims, size_t *out) {
  size_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (dims[i] && n > SIZE_MAX / 16 / dims[i]) return false;
    n *= dims[i];
  }
  *out = n;
  return true;
}

static gm_status oom(void) { return gm_fail(GM_ENOMEM, "out of host memory"); }

void gm_buffer_end(gm_buffer *b) {
  if (!b->blk) return;
  if (b->owner_ops) {
    b->owner_ops->release(b->owner, b->owner_facet);
    b->owner_ops = NULL;
    b->owner = NULL;
  }
  gm_block_drop(b->blk);
  b->blk = NULL;
}

gm_status gm_buffer_check(const gm_buffer *b) {
  if (!b->blk) return gm_fail(GM_ESTATE, "buffer released");
  return gm_block_check(b->blk, NULL);
}

const char *gm_buffer_mem_type_name(const gm_buffer *b) {
  if (b->blk->space == GM_SPACE_PINNED && b->device_view) return "device";
  if (b->blk->space == GM_SPACE_HOST && b->blk->registered_on) return "pinned"; /* a cuda_host facet */
  return gm_space_name(b->blk->space);
}

size_t gm_buffer_phys_index(const gm_buffer *b, size_t k) {
  if (!b->col_major || b->rank < 2) return k;
  size_t subs[GM_MAX_RANK];
  for (int a = b->rank - 1; a >= 0; a--) {
    subs[a] = k % b->dims[a];
    k /= b->dims[a];
  }
  size_t p = 0;
  for (int a = b->rank - 1; a >= 0; a--) p = p * b->dims[a] + subs[a];
  return p;
}

static gm_copy_end end_of(gm_buffer *b, size_t p) { return (gm_copy_end){b->blk, b->offset + p * esize(b), NULL}; }

gm_status gm_buffer_read_at(gm_buffer *b, size_t p, size_t n, void *out) {
  return gm_block_copy((gm_copy_end){NULL, 0, out}, end_of(b, p), n * esize(b));
}

gm_status gm_buffer_write_at(gm_buffer *b, size_t p, size_t n, const void *in) {
  return gm_block_copy(end_of(b, p), (gm_copy_end){NULL, 0, (void *)in}, n * esize(b));
}

gm_status gm_buffer_fill_range(gm_buffer *b, size_t first, size_t n, const void *value) {
  size_t es = esize(b);
  if (n == 0) return GM_OK;
  if (b->col_major && n != b->size) return gm_fail(GM_EUNSUPPORTED, "a range of a col_major buffer is not supported");
  char *tmp = malloc(n * es);
  if (!tmp) return oom();
  for (size_t i = 0; i < n; i++) memcpy(tmp + i * es, value, es);
  gm_status st = gm_buffer_write_at(b, first, n, tmp);
  free(tmp);
  return st;
}

/* A new buffer's initial element: in place when the host can reach it. */
static gm_status fill_new(gm_buffer *b, const void *value) {
  size_t es = esize(b), n = b->size;
  if (n == 0) return GM_OK;
  if (!gm_block_host_accessible(b->blk) || b->blk->pitch) return gm_buffer_fill_range(b, 0, n, value);
  GM_TRY(gm_block_host_sync(b->blk));
  char *p = (char *)b->blk->ptr + b->offset;
  for (size_t i = 0; i < n; i++) memcpy(p + i * es, value, es);
  return GM_OK;
}

/* ---- makers ---- */

static gm_status alloc_block(gm_space space, struct gm_device *dev, const gm_buffer_spec *s, size_t bytes,
                             gm_block **blk) {
  if (!s->pitch_elt_size) return gm_block_alloc(space, dev, bytes, s->flags, blk);
  size_t row = gm_etype_size(s->et);
  for (int i = s->rank - s->pitch_level; i < s->rank; i++) row *= s->dims[i];
  if (row == 0) return gm_block_alloc(space, dev, 0, 0, blk);
  return gm_block_alloc_pitched(dev, row, bytes / row, blk);
}

gm_status gm_buffer_make(gm_space space, struct gm_device *dev, const gm_buffer_spec *s, gm_buffer *out) {
  size_t size;
  if (!dims_count(s->rank, s->dims, &size))
    return gm_fail(GM_EINVAL, "dimensions are too large");
  if (space != GM_SPACE_HOST && !dev) return gm_fail(GM_ESTATE, "needs an active cuda context (with_cuda)");
  gm_block *blk = NULL;
  GM_TRY(alloc_block(space, dev, s, size * gm_etype_size(s->et), &blk));
  gm_buffer b = {0};
  b.blk = blk;
  b.et = s->et;
  b.rank = s->rank;
  memcpy(b.dims, s->dims, sizeof b.dims);
  b.size = size;
  b.owning = true;
  b.col_major = s->col_major;
  if (s->init) {
    gm_status st = fill_new(&b, s->init);
    if (st != GM_OK) {
      gm_block_deref(blk);
      gm_block_drop(blk);
      return st;
    }
  }
  *out = b;
  return GM_OK;
}

/* ---- copies ---- */

gm_status gm_buffer_copy_elements(gm_buffer *dst, size_t di, gm_buffer *src, size_t si, size_t n) {
  if (src->et != dst->et)
    return gm_fail(GM_EINVAL, "element types differ (%s and %s)", gm_etype_name(src->et), gm_etype_name(dst->et));
  if (src->col_major != dst->col_major)
    return gm_fail(GM_EINVAL, "layouts differ (copy the whole buffer with copy_full_buffer)");
  if (si > src->size || n > src->size - si || di > dst->size || n > dst->size - di)
    return gm_fail(GM_ERANGE, "%zu elements do not fit the buffers", n);
  GM_TRY(gm_buffer_check(src));
  GM_TRY(gm_buffer_check(dst));
  return gm_block_copy(end_of(dst, di), end_of(src, si), n * esize(src));
}

/* Reorders a whole buffer into one of the other layout through host
 * memory. */
static gm_status copy_relayout(gm_buffer *dst, gm_buffer *src) {
  size_t n = src->size, es = esize(src);
  char *a = malloc(n * es + 1), *b = malloc(n * es + 1);
  gm_status st = a && b ? GM_OK : oom();
  if (st == GM_OK) st = gm_buffer_read_at(src, 0, n, a);
  if (st == GM_OK) {
    for (size_t k = 0; k < n; k++)
      memcpy(b + gm_buffer_phys_index(dst, k) * es, a + gm_buffer_phys_index(src, k) * es, es);
    st = gm_buffer_write_at(dst, 0, n, b);
  }
  free(a);
  free(b);
  return st;
}

gm_status gm_buffer_copy_whole(gm_buffer *dst, gm_buffer *src) {
  if (src == dst) return GM_OK;
  if (src->et != dst->et)
    return gm_fail(GM_EINVAL, "element types differ (%s and %s)", gm_etype_name(src->et), gm_etype_name(dst->et));
  if (src->size != dst->size) return gm_fail(GM_EINVAL, "sizes differ (%zu and %zu)", src->size, dst->size);
  GM_TRY(gm_buffer_check(src));
  GM_TRY(gm_buffer_check(dst));
  if (src->col_major == dst->col_major) return gm_buffer_copy_elements(dst, 0, src, 0, src->size);
  if (src->rank != dst->rank || memcmp(src->dims, dst->dims, sizeof src->dims) != 0)
    return gm_fail(GM_EINVAL, "buffers of different layouts need equal dimensions");
  if (src->blk == dst->blk) return gm_fail(GM_EINVAL, "source and destination areas overlap");
  return copy_relayout(dst, src);
}

/* Element k of a (type se, physical index sp) into b (type de, dp). */
static gm_status convert_one(gm_etype de, void *b, size_t dp, gm_etype se, const void *a, size_t sp, size_t k) {
  if (gm_etype_is_integer(se) && gm_etype_is_integer(de)) {
    long long v = gm_etype_get_int(se, a, sp);
    if (!gm_etype_fits_int(de, v)) return gm_fail(GM_ERANGE, "element %zu (%lld) does not fit %s", k + 1, v, gm_etype_name(de));
    gm_etype_set_int(de, b, dp, v);
    return GM_OK;
  }
  double x = gm_etype_get_real(se, a, sp);
  if (!gm_etype_is_integer(de)) {
    gm_etype_set_real(de, b, dp, x);
    return GM_OK;
  }
  if (!gm_etype_fits_real(de, x)) return gm_fail(GM_ERANGE, "element %zu (%g) is not a value of %s", k + 1, x, gm_etype_name(de));
  gm_etype_set_int(de, b, dp, (long long)x);
  return GM_OK;
}

gm_status gm_buffer_convert(gm_buffer *dst, gm_buffer *src) {
  size_t n = src->size, se = esize(src), de = esize(dst);
  if (dst->size != n) return gm_fail(GM_EINVAL, "sizes differ (%zu and %zu)", n, dst->size);
  if (src->et == dst->et && src->col_major == dst->col_major)
    return gm_block_copy(end_of(dst, 0), end_of(src, 0), n * se);
  char *a = malloc(n * se + 1), *b = malloc(n * de + 1);
  gm_status st = a && b ? GM_OK : oom();
  if (st == GM_OK) st = gm_buffer_read_at(src, 0, n, a);
  for (size_t k = 0; k < n && st == GM_OK; k++)
    st = convert_one(dst->et, b, gm_buffer_phys_index(dst, k), src->et, a, gm_buffer_phys_index(src, k), k);
  if (st == GM_OK) st = gm_buffer_write_at(dst, 0, n, b);
  free(a);
  free(b);
  return st;
}

/* ---- views ---- */

/* One more view of b's memory: a block hold, and b's facet if it has one. */
static gm_status share(const gm_buffer *b, gm_buffer *nb) {
  *nb = *b;
  if (b->owner_ops) GM_TRY(b->owner_ops->hold(b->owner, b->owner_facet, b->blk->device));
  gm_block_hold(b->blk);
  return GM_OK;
}

/* A pitched view must fit in one row or cover whole rows that its
 * innermost dims split evenly. */
static bool fits_pitch(const gm_block *blk, size_t off, size_t bytes, int rank, const size_t *dims, size_t es) {
  if (!blk->pitch || bytes == 0) return true;
  size_t w = blk->width;
  if (off / w == (off + bytes - 1) / w) return true;
  if (off % w || bytes % w) return false;
  size_t inner = es;
  for (int a = rank - 1; a >= 0; a--) {
    inner *= dims[a];
    if (inner == w) return true;
    if (inner > w) return false;
  }
  return false;
}

/* The view's dims and size from the arguments (a->rank 0: b's). */
static gm_status displaced_dims(const gm_buffer *b, const gm_displace_args *a, size_t off, int *rank, size_t *dims,
                                size_t *size) {
  size_t es = gm_etype_size(a->et), old_es = esize(b);
  *rank = a->rank ? a->rank : 1;
  memcpy(dims, a->dims, sizeof a->dims);
  if (a->rest) {
    dims[0] = (b->blk->bytes - off) / es;
    *size = dims[0];
  } else if (a->rank == 0 && es == old_es) {
    *rank = b->rank;
    memcpy(dims, b->dims, sizeof b->dims);
    *size = b->size;
  } else if (a->rank == 0) {
    if ((b->size * old_es) % es)
      return gm_fail(GM_EINVAL, "%zu bytes are not a whole number of %s elements", b->size * old_es,
                     gm_etype_name(a->et));
    dims[0] = b->size * old_es / es;
    *size = dims[0];
  } else if (!dims_count(*rank, dims, size)) {
    return gm_fail(GM_EINVAL, "dimensions are too large");
  }
  return GM_OK;
}

gm_status gm_buffer_displace_view(const gm_buffer *b, const gm_displace_args *a, gm_buffer *out) {
  GM_TRY(gm_buffer_check(b));
  const gm_block *blk = b->blk;
  size_t es = gm_etype_size(a->et);
  if (b->col_major && (a->rank || a->rest || a->et != b->et))
    return gm_fail(GM_EUNSUPPORTED, "a col_major buffer can only be displaced with its own dims");
  if (a->mapping && !(blk->space == GM_SPACE_PINNED && (blk->flags & GM_PINNED_MAPPED)))
    return gm_fail(GM_EINVAL, "option 'mapping' needs a page-locked buffer with the \"mapped\" flag");
  size_t off = b->offset + a->rel_bytes;
  if (off < b->offset || off > blk->bytes)
    return gm_fail(GM_EINVAL, "offset %zu bytes is past the end of the block (%zu bytes)", off, blk->bytes);
  if (off % es) return gm_fail(GM_EINVAL, "byte offset %zu is not a multiple of the element size %zu", off, es);
  int rank = 1;
  size_t dims[GM_MAX_RANK], size = 0;
  GM_TRY(displaced_dims(b, a, off, &rank, dims, &size));
  if (size * es > blk->bytes - off)
    return gm_fail(GM_EINVAL, "the view (%zu bytes at byte %zu) goes past the end of the block (%zu bytes)",
                   size * es, off, blk->bytes);
  if (blk->pitch && (blk->width % es || !fits_pitch(blk, off, size * es, rank, dims, es)))
    return gm_fail(GM_EINVAL, "a view of a pitched buffer must fit in one row or split evenly at rows of %zu bytes",
                   blk->width);
  gm_buffer nb;
  GM_TRY(share(b, &nb));
  nb.et = a->et;
  nb.rank = rank;
  memcpy(nb.dims, dims, sizeof dims);
  nb.size = size;
  nb.offset = off;
  nb.displaced = true;
  if (a->mapping) nb.device_view = a->mapping == 1;
  *out = nb;
  return GM_OK;
}

bool gm_block_accessible_as(const gm_block *b, gm_mem_type t) {
  switch (t) {
    case GM_MEM_HOST: return b->space != GM_SPACE_DEVICE;
    case GM_MEM_PINNED: return b->space == GM_SPACE_PINNED || b->registered_on;
    case GM_MEM_DEVICE:
      return b->space == GM_SPACE_DEVICE || b->space == GM_SPACE_MANAGED ||
             (b->space == GM_SPACE_PINNED && (b->flags & GM_PINNED_MAPPED));
    case GM_MEM_MANAGED: return b->space == GM_SPACE_MANAGED;
  }
  return false;
}

static const char *const mem_type_names[] = {"host", "pinned", "device", "managed"};

gm_space gm_mem_type_space(gm_mem_type mt) {
  static const gm_space s[] = {GM_SPACE_HOST, GM_SPACE_PINNED, GM_SPACE_DEVICE, GM_SPACE_MANAGED};
  return s[mt];
}

gm_status gm_buffer_ensure_view(const gm_buffer *b, gm_mem_type mt, struct gm_device *dev, gm_etype et, bool col,
                                gm_buffer *out) {
  GM_TRY(gm_buffer_check(b));
  if (gm_block_accessible_as(b->blk, mt) && et == b->et && col == b->col_major) {
    gm_buffer nb;
    GM_TRY(share(b, &nb));
    nb.owning = false;
    nb.displaced = false;
    nb.device_view = mt == GM_MEM_DEVICE && b->blk->space == GM_SPACE_PINNED;
    *out = nb;
    return GM_OK;
  }
  if (mt == GM_MEM_HOST) dev = NULL;
  if (mt != GM_MEM_HOST && b->blk->device) dev = b->blk->device;
  if (mt != GM_MEM_HOST && !dev)
    return gm_fail(GM_ESTATE, "memory type '%s' needs an active cuda context (with_cuda)", mem_type_names[mt]);
  gm_buffer_spec s = {.et = et, .rank = b->rank, .col_major = col};
  memcpy(s.dims, b->dims, sizeof s.dims);
  gm_buffer nb;
  GM_TRY(gm_buffer_make(gm_mem_type_space(mt), dev, &s, &nb));
  gm_status st = gm_buffer_convert(&nb, (gm_buffer *)b);
  if (st != GM_OK) {
    gm_block_deref(nb.blk);
    gm_buffer_end(&nb);
    return st;
  }
  *out = nb;
  return GM_OK;
}
