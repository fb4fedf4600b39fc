/* The buffer half of the public C API (include/gpumat.h): heap handles
 * over the buffer model (mem/buffer.h, memspace.h) and the scoped
 * allocation caches (mem/cache.c). */
#include <stdlib.h>
#include <string.h>

#include "../io/buffer_args.h"
#include "../model/context.h"
#include "../mem/memspace.h"

static gm_status parse_etype(const char *name, gm_etype dflt, gm_etype *out) {
  if (!name) {
    *out = dflt;
    return GM_OK;
  }
  if (gm_etype_parse(name, out) != 0)
    return gm_fail(GM_EINVAL, "element type must be one of bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float double, "
                              "got '%s'", name);
  return GM_OK;
}

/* A heap handle for the view *v (taken over; ended on failure). */
static gm_status handle(gm_buffer *v, gm_buffer **out) {
  gm_buffer *h = malloc(sizeof *h);
  if (!h) {
    gm_buffer_end(v);
    return gm_fail(GM_ENOMEM, "out of host memory");
  }
  *h = *v;
  *out = h;
  return GM_OK;
}

static gm_status check_mem_type(gm_mem_type mt) {
  if ((int)mt < GM_MEM_HOST || mt > GM_MEM_MANAGED) return gm_fail(GM_EINVAL, "unknown memory type %d", (int)mt);
  return GM_OK;
}

gm_status gm_buffer_new(gm_mem_type space, const char *element_type, int rank, const size_t *dims, gm_buffer **out) {
  GM_TRY(check_mem_type(space));
  if (rank < 0 || rank > GM_MAX_RANK || (rank && !dims))
    return gm_fail(GM_EINVAL, "rank must be 0..%d with dims, got %d", GM_MAX_RANK, rank);
  gm_buffer_spec s = {.rank = rank};
  GM_TRY(parse_etype(element_type, GM_DEFAULT_ETYPE, &s.et));
  if (rank) memcpy(s.dims, dims, (size_t)rank * sizeof *dims);
  gm_buffer v;
  GM_TRY(gm_buffer_make(gm_mem_type_space(space), space == GM_MEM_HOST ? NULL : gm_context_device(), &s, &v));
  return handle(&v, out);
}

void gm_buffer_free(gm_buffer *b) {
  if (!b) return;
  gm_buffer_end(b);
  free(b);
}

gm_status gm_buffer_ref(gm_buffer *b) {
  GM_TRY(gm_buffer_check(b));
  if (!b->owning) return gm_fail(GM_EINVAL, "a view made by ensure has no reference count of its own");
  return gm_block_ref(b->blk);
}

long gm_buffer_deref(gm_buffer *b) {
  if (!b->blk || !gm_block_live(b->blk) || !b->owning) return 0;
  return gm_block_deref(b->blk);
}

gm_status gm_buffer_displace(const gm_buffer *b, size_t byte_offset, const char *element_type, int rank,
                             const size_t *dims, gm_buffer **out) {
  if (rank < 0 || rank > GM_MAX_RANK || (rank && !dims))
    return gm_fail(GM_EINVAL, "rank must be 0..%d with dims, got %d", GM_MAX_RANK, rank);
  gm_displace_args a = {.rel_bytes = byte_offset, .rank = rank};
  GM_TRY(parse_etype(element_type, b->et, &a.et));
  if (rank) memcpy(a.dims, dims, (size_t)rank * sizeof *dims);
  gm_buffer v;
  GM_TRY(gm_buffer_displace_view(b, &a, &v));
  return handle(&v, out);
}

gm_status gm_buffer_copy(gm_buffer *dst, size_t dst_index, gm_buffer *src, size_t src_index, size_t n) {
  return gm_buffer_copy_elements(dst, dst_index, src, src_index, n);
}

gm_status gm_buffer_ensure(const gm_buffer *b, gm_mem_type mt, const char *element_type, gm_buffer **out) {
  GM_TRY(check_mem_type(mt));
  gm_etype et;
  GM_TRY(parse_etype(element_type, b->et, &et));
  gm_buffer v;
  GM_TRY(gm_buffer_ensure_view(b, mt, gm_current_device(), et, b->col_major, &v));
  return handle(&v, out);
}

gm_status gm_mat_ensure(gm_mat *m, gm_mem_type mt, const char *element_type, gm_buffer **out) {
  GM_TRY(check_mem_type(mt));
  gm_etype et;
  GM_TRY(parse_etype(element_type, gm_etype_of_ctype(m->ctype), &et));
  gm_buffer v;
  GM_TRY(gm_mat_ensure_view(m, mt, gm_current_device(), et, false, GM_INPUT, &v));
  return handle(&v, out);
}

static gm_status check_range(const gm_buffer *b, size_t first, size_t n) {
  GM_TRY(gm_buffer_check(b));
  if (first > b->size || n > b->size - first)
    /* half-open ranges: n may be 0, and a C caller thinks in [first, first + n) */
    return gm_fail(GM_ERANGE, "elements [%zu, %zu) are out of range [0, %zu)", first, first + n, b->size);
  if (b->col_major && n != b->size) return gm_fail(GM_EUNSUPPORTED, "a range of a col_major buffer is not supported");
  return GM_OK;
}

gm_status gm_buffer_read(gm_buffer *b, size_t first, size_t n, void *out) {
  GM_TRY(check_range(b, first, n));
  return gm_buffer_read_at(b, first, n, out);
}

gm_status gm_buffer_write(gm_buffer *b, size_t first, size_t n, const void *in) {
  GM_TRY(check_range(b, first, n));
  return gm_buffer_write_at(b, first, n, in);
}

int gm_buffer_rank(const gm_buffer *b) { return b->rank; }
size_t gm_buffer_dim(const gm_buffer *b, int axis) { return axis >= 0 && axis < b->rank ? b->dims[axis] : 0; }
size_t gm_buffer_size(const gm_buffer *b) { return b->size; }
const char *gm_buffer_element_type(const gm_buffer *b) { return gm_etype_name(b->et); }
const char *gm_buffer_mem_type(const gm_buffer *b) { return b->blk ? gm_buffer_mem_type_name(b) : "released"; }
const char *gm_buffer_foreign_type(const gm_buffer *b) { return gm_etype_cname(b->et); }
const char *gm_buffer_layout(const gm_buffer *b) { return b->col_major ? "col_major" : "row_major"; }
int gm_buffer_is_owning(const gm_buffer *b) { return b->owning; }

gm_status gm_buffer_pitch(const gm_buffer *b, size_t *pitch) {
  GM_TRY(gm_buffer_check(b));
  *pitch = b->blk->pitch;
  return GM_OK;
}

long gm_buffer_refcnt(const gm_buffer *b) {
  if (!b->blk || !gm_block_live(b->blk)) return -1;
  return (long)atomic_load(&b->blk->refcnt);
}

gm_status gm_alloc_cache_begin(gm_alloc_cache *c, gm_cache_scope **scope) {
  if (!c) return gm_fail(GM_EINVAL, "gm_alloc_cache_begin: no cache");
  return gm_cache_scope_push(c, scope);
}

gm_status gm_alloc_cache_end(gm_cache_scope *scope) { return gm_cache_scope_pop(scope); }

void gm_buffer_keep(gm_buffer *b) {
  if (b && b->blk) gm_block_keep(b->blk);
}
