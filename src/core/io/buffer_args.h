/* The rules of the buffer functions' arguments (buffer_args.c): what
 * the makers, element access, fills, copies and displacements accept,
 * for every caller alike (the Lua binding, a C application); positions
 * count from 1 as in the Lua API.  Each returns GM_EINVAL with the
 * message to show and sets its outputs only on success. */
#ifndef GM_CORE_BUFFER_ARGS_H
#define GM_CORE_BUFFER_ARGS_H

#include "../mem/buffer.h"

/* What a maker makes when not told: float elements; a pitched buffer's
 * rows hold the innermost dimension. */
#define GM_DEFAULT_ETYPE GM_E_F32
#define GM_DEFAULT_PITCH_LEVEL 1

/* An element value of type et given as an integer (is_int: i) or a real
 * (d): an integer type takes only values that fit (reals must be
 * integral); what names the value in the message ("value", "option
 * 'initial_element'"). */
gm_status gm_etype_encode(gm_etype et, bool is_int, long long i, double d, const char *what, void *out);
/* A maker's element count ("dimensions are too large" past SIZE_MAX/16). */
gm_status gm_buffer_dims_size(int rank, const size_t *dims, size_t *size);
/* Sets s's pitch: pitch_elt_size 0 (none) or 4, 8, 16; pitch_level
 * (has_level: given; default 1) needs a pitch and lies in 1..s->rank. */
gm_status gm_buffer_spec_pitch(gm_buffer_spec *s, size_t pitch_elt_size, bool has_level, size_t level);
/* Adds page-locked flag i (1-based, for the message) named name:
 * "portable", "mapped", "write_combine" (or "write_combined"). */
gm_status gm_pinned_flag_parse(int i, const char *name, unsigned *flags);
/* A pinned maker's associated_device: the active context's device (any
 * id without one). */
gm_status gm_check_associated_device(long long id);
/* n 1-based subscripts -> 0-based row-major index k.  On failure *bad is
 * the subscript at fault (0-based), or -1 for a wrong count. */
gm_status gm_buffer_subscripts_index(const gm_buffer *b, int n, const long long *subs, size_t *k, int *bad);
/* 1-based row-major index k -> 0-based *out. */
gm_status gm_buffer_linear_index(const gm_buffer *b, long long k, size_t *out);
/* A fill's start..stop (1-based, inclusive; stop = start - 1 is empty)
 * -> first (0-based) and count. */
gm_status gm_buffer_fill_span(const gm_buffer *b, size_t start, size_t stop, size_t *first, size_t *n);
/* Reads / writes row-major element k (0-based, in range) of a live
 * buffer, any space and layout. */
gm_status gm_buffer_get_element(gm_buffer *b, size_t k, void *out);
gm_status gm_buffer_set_element(gm_buffer *b, size_t k, const void *in);
/* A copy from src at si to dst at di (1-based; one past the end is an
 * empty copy) of count elements, or with all as many as both have room
 * for; *n the count.  On failure *bad: 0 si, 1 di, 2 count. */
gm_status gm_buffer_copy_span(const gm_buffer *src, long long si, const gm_buffer *dst, long long di, bool all,
                              long long count, size_t *n, int *bad);
/* The visible elements' native bytes in storage order (a col_major
 * buffer's columns first), as a file holds them: read into out, or
 * written from the len bytes at in, which must be exactly that many
 * ("file too short"). */
gm_status gm_buffer_read_bytes(gm_buffer *b, void *out);
gm_status gm_buffer_write_bytes(gm_buffer *b, const void *in, size_t len);
/* All visible elements in row-major order (col_major buffers reordered). */
gm_status gm_buffer_read_row_major(gm_buffer *b, void *out);
/* A displacement takes offset (elements) or byte_offset, size or
 * dimensions: never both of a pair. */
gm_status gm_displace_options_check(bool has_offset, bool has_byte_offset, bool has_size, bool has_dims);
/* The displacement's offset in bytes: n elements of b (in_elements) or
 * n bytes. */
gm_status gm_displace_offset(const gm_buffer *b, bool in_elements, size_t n, size_t *rel_bytes);
/* gm_displace_args.mapping by name: "device" or "gpu" 1, "host" 2. */
gm_status gm_mapping_parse(const char *name, int *mapping);
/* "host", "pinned", "device", "managed" -> gm_mem_type. */
gm_status gm_mem_type_parse(const char *name, gm_mem_type *out);

/* An element type option (key: its name in the message) by name:
 * bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float double, or a C name. */
gm_status gm_etype_option_parse(const char *key, const char *name, gm_etype *out);

/* b as text: "#<BUFFER int32 {2, 3} device>" ("released" for the memory
 * type once its memory is gone), truncated to n bytes. */
#define GM_BUFFER_DESCRIBE_MAX 256
void gm_buffer_describe(const gm_buffer *b, char *out, size_t n);
/* Drops the user-visible reference of an owning view (the new count; at
 * 0 the memory is released); a view made by ensure has no count of its
 * own, so dropping ends the view.  -1: nothing to report (that view
 * ended, or the memory was already released). */
long gm_buffer_drop_ref(gm_buffer *b);
/* How far view b (displaced from base) starts into base, in base's
 * elements: true when it is the whole number *whole, false when the
 * offset falls inside an element (*elements: the fraction). */
bool gm_buffer_displacement_in(const gm_buffer *b, const gm_buffer *base, size_t *whole, double *elements);

#endif
