/* The rules of the buffer functions' arguments (see buffer_args.h). */
#include "buffer_args.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/context.h"
#include "../model/mat.h"
#include "../mem/hostpool.h"

gm_status gm_etype_encode(gm_etype et, bool is_int, long long i, double d, const char *what, void *out) {
  if (!gm_etype_is_integer(et)) {
    gm_etype_set_real(et, out, 0, is_int ? (double)i : d);
    return GM_OK;
  }
  if (is_int) {
    if (!gm_etype_fits_int(et, i))
      return gm_fail(GM_EINVAL, "%s %lld does not fit element type %s", what, i, gm_etype_name(et));
    gm_etype_set_int(et, out, 0, i);
    return GM_OK;
  }
  if (!gm_etype_fits_real(et, d))
    return gm_fail(GM_EINVAL, "%s %g is not a value of element type %s", what, d, gm_etype_name(et));
  gm_etype_set_int(et, out, 0, (long long)d);
  return GM_OK;
}

/* A maker's element count must leave room for the widest element type
 * (16 bytes) without overflowing a size_t. */
gm_status gm_buffer_dims_size(int rank, const size_t *dims, size_t *size) {
  if (gm_dims_size(rank, dims, size) != GM_OK || *size > SIZE_MAX / 16)
    return gm_fail(GM_EINVAL, "dimensions are too large");
  return GM_OK;
}

gm_status gm_buffer_spec_pitch(gm_buffer_spec *s, size_t pitch_elt_size, bool has_level, size_t level) {
  if (pitch_elt_size && pitch_elt_size != 4 && pitch_elt_size != 8 && pitch_elt_size != 16)
    return gm_fail(GM_EINVAL, "option 'pitch_elt_size' must be 4, 8 or 16, got %zu", pitch_elt_size);
  if (has_level && !pitch_elt_size) return gm_fail(GM_EINVAL, "option 'pitch_level' needs 'pitch_elt_size'");
  if (pitch_elt_size && (level < 1 || level > (size_t)s->rank))
    return gm_fail(GM_EINVAL, "option 'pitch_level' must be between 1 and the rank %d, got %zu", s->rank, level);
  s->pitch_elt_size = pitch_elt_size;
  s->pitch_level = (int)level;
  return GM_OK;
}

gm_status gm_pinned_flag_parse(int i, const char *name, unsigned *flags) {
  if (strcmp(name, "portable") == 0)
    *flags |= GM_PINNED_PORTABLE;
  else if (strcmp(name, "mapped") == 0)
    *flags |= GM_PINNED_MAPPED;
  else if (strcmp(name, "write_combine") == 0 || strcmp(name, "write_combined") == 0)
    *flags |= GM_PINNED_WRITE_COMBINE;
  else
    return gm_fail(GM_EINVAL, "flag %d must be \"portable\", \"mapped\" or \"write_combine\", got %s", i, name);
  return GM_OK;
}

/* Page-locked memory belongs to the active context: naming another
 * device would promise an association the allocation cannot give. */
gm_status gm_check_associated_device(long long id) {
  gm_device *d = gm_context_device();
  if (d && id != d->id)
    return gm_fail(GM_EINVAL, "associated_device %lld is not the active context's device %d", id, d->id);
  return GM_OK;
}

gm_status gm_buffer_subscripts_index(const gm_buffer *b, int n, const long long *subs, size_t *k, int *bad) {
  *bad = -1;
  if (n != b->rank) return gm_fail(GM_EINVAL, "%d subscripts for a buffer of rank %d", n, b->rank);
  size_t idx = 0;
  for (int a = 0; a < n; a++) {
    if (subs[a] < 1 || (size_t)subs[a] > b->dims[a]) {
      *bad = a;
      return gm_fail(GM_EINVAL, "index %lld is out of range 1..%zu", subs[a], b->dims[a]);
    }
    idx = idx * b->dims[a] + (size_t)(subs[a] - 1);
  }
  *k = idx;
  return GM_OK;
}

gm_status gm_buffer_linear_index(const gm_buffer *b, long long k, size_t *out) {
  if (k < 1 || (size_t)k > b->size) return gm_fail(GM_EINVAL, "index %lld is out of range 1..%zu", k, b->size);
  *out = (size_t)(k - 1);
  return GM_OK;
}

gm_status gm_buffer_get_element(gm_buffer *b, size_t k, void *out) {
  GM_TRY(gm_buffer_check(b));
  return gm_buffer_read_at(b, gm_buffer_phys_index(b, k), 1, out);
}

gm_status gm_buffer_set_element(gm_buffer *b, size_t k, const void *in) {
  GM_TRY(gm_buffer_check(b));
  return gm_buffer_write_at(b, gm_buffer_phys_index(b, k), 1, in);
}

gm_status gm_buffer_fill_span(const gm_buffer *b, size_t start, size_t stop, size_t *first, size_t *n) {
  if (start < 1 || start > b->size + 1)
    return gm_fail(GM_EINVAL, "start %zu is out of range 1..%zu", start, b->size + 1);
  if (stop > b->size || stop + 1 < start)
    return gm_fail(GM_EINVAL, "stop %zu is out of range %zu..%zu", stop, start - 1, b->size);
  *first = start - 1;
  *n = stop + 1 - start;
  return GM_OK;
}

/* One end of a copy: index i (1-based) may be one past the last element
 * (an empty copy there). */
static gm_status copy_end(const gm_buffer *b, long long i, size_t *room) {
  if (i < 1 || (size_t)i > b->size + 1)
    return gm_fail(GM_EINVAL, "index %lld is out of range 1..%zu", i, b->size + 1);
  *room = b->size + 1 - (size_t)i;
  return GM_OK;
}

gm_status gm_buffer_copy_span(const gm_buffer *src, long long si, const gm_buffer *dst, long long di, bool all,
                              long long count, size_t *n, int *bad) {
  size_t room = 0, droom = 0;
  *bad = 0;
  if (copy_end(src, si, &room) != GM_OK) return GM_EINVAL;
  *bad = 1;
  if (copy_end(dst, di, &droom) != GM_OK) return GM_EINVAL;
  *bad = 2;
  size_t most = room < droom ? room : droom;
  if (!all && (count < 0 || (size_t)count > most))
    return gm_fail(GM_EINVAL, "count %lld does not fit (at most %zu)", count, most);
  *n = all ? most : (size_t)count;
  return GM_OK;
}

gm_status gm_buffer_read_bytes(gm_buffer *b, void *out) {
  GM_TRY(gm_buffer_check(b));
  return gm_buffer_read_at(b, 0, b->size, out);
}

gm_status gm_buffer_write_bytes(gm_buffer *b, const void *in, size_t len) {
  size_t n = b->size * gm_etype_size(b->et);
  if (len != n) return gm_fail(GM_EINVAL, "file too short (%zu of %zu bytes)", len, n);
  GM_TRY(gm_buffer_check(b));
  return gm_buffer_write_at(b, 0, b->size, in);
}

gm_status gm_buffer_read_row_major(gm_buffer *b, void *out) {
  GM_TRY(gm_buffer_check(b));
  if (!b->col_major || b->rank < 2) return gm_buffer_read_at(b, 0, b->size, out);
  size_t es = gm_etype_size(b->et);
  char *phys; /* buffer-sized: from the host pool */
  size_t cap;
  GM_TRY(gm_host_scratch(b->size * es + 1, (void **)&phys, &cap));
  gm_status st = gm_buffer_read_at(b, 0, b->size, phys);
  for (size_t k = 0; st == GM_OK && k < b->size; k++)
    memcpy((char *)out + k * es, phys + gm_buffer_phys_index(b, k) * es, es);
  gm_host_scratch_free(phys, cap);
  return st;
}

gm_status gm_displace_options_check(bool has_offset, bool has_byte_offset, bool has_size, bool has_dims) {
  if (has_offset && has_byte_offset) return gm_fail(GM_EINVAL, "options 'offset' and 'byte_offset' are mutually exclusive");
  if (has_size && has_dims) return gm_fail(GM_EINVAL, "options 'size' and 'dimensions' are mutually exclusive");
  return GM_OK;
}

gm_status gm_displace_offset(const gm_buffer *b, bool in_elements, size_t n, size_t *rel_bytes) {
  if (!in_elements) {
    *rel_bytes = n;
    return GM_OK;
  }
  if (n > SIZE_MAX / 16) return gm_fail(GM_EINVAL, "offset %zu is too large", n);
  *rel_bytes = n * gm_etype_size(b->et);
  return GM_OK;
}

gm_status gm_mapping_parse(const char *name, int *mapping) {
  if (strcmp(name, "device") == 0 || strcmp(name, "gpu") == 0)
    *mapping = 1;
  else if (strcmp(name, "host") == 0)
    *mapping = 2;
  else
    return gm_fail(GM_EINVAL, "option 'mapping' must be \"device\", \"gpu\" or \"host\", got %s", name);
  return GM_OK;
}

gm_status gm_mem_type_parse(const char *name, gm_mem_type *out) {
  static const char *const names[] = {"host", "pinned", "device", "managed"};
  for (int i = 0; i < 4; i++)
    if (strcmp(name, names[i]) == 0) {
      *out = (gm_mem_type)i;
      return GM_OK;
    }
  return gm_fail(GM_EINVAL, "memory type must be \"host\", \"pinned\", \"device\" or \"managed\", got %s", name);
}

gm_status gm_etype_option_parse(const char *key, const char *name, gm_etype *out) {
  if (gm_etype_parse(name, out) != 0)
    return gm_fail(GM_EINVAL, "option '%s' must be one of bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float double, got %s",
                   key, name);
  return GM_OK;
}

void gm_buffer_describe(const gm_buffer *b, char *out, size_t n) {
  size_t len = (size_t)snprintf(out, n, "#<BUFFER %s {", gm_etype_name(b->et));
  for (int i = 0; i < b->rank && len < n; i++)
    len += (size_t)snprintf(out + len, n - len, i ? ", %zu" : "%zu", b->dims[i]);
  bool live = b->blk && gm_block_live(b->blk);
  if (len < n) snprintf(out + len, n - len, "} %s>", live ? gm_buffer_mem_type_name(b) : "released");
}

long gm_buffer_drop_ref(gm_buffer *b) {
  if (!b->blk || !gm_block_live(b->blk)) return -1;
  if (!b->owning) {
    gm_buffer_end(b);
    return -1;
  }
  return gm_block_deref(b->blk);
}

bool gm_buffer_displacement_in(const gm_buffer *b, const gm_buffer *base, size_t *whole, double *elements) {
  size_t delta = b->offset - base->offset, es = gm_etype_size(base->et);
  *whole = delta / es;
  *elements = (double)delta / (double)es;
  return delta % es == 0;
}
