/* Mat I/O (MGL-MAT §16) and .npy files.
 *
 * MGL-MAT format: when headers are on, the Latin-1 text
 * "(:MAT :SIZE <n> :CTYPE :FLOAT|:DOUBLE)" (no trailing space or newline),
 * then the visible elements in row-major order as little-endian IEEE
 * binary32/binary64.  Reading parses the header as the Lisp reader would
 * (case-insensitive keywords, any whitespace, :SIZE/:CTYPE in any order)
 * and checks it against the target.  Every read goes to a temporary
 * buffer first: a bad header, a size or ctype mismatch or a short read
 * fails with GM_EIO/GM_EINVAL and leaves the mat unchanged (the stream
 * position has moved).  A successful read writes the foreign facet
 * (direction output; io for partial views) so other facets become stale.
 *
 * Files are plain FILE* streams opened in binary mode. */
#ifndef GM_CORE_IO_H
#define GM_CORE_IO_H

#include <stdbool.h>
#include <stdio.h>

#include "../model/mat.h"

/* Writes the header text for (size, t) into buf (NUL-terminated); returns
 * its length in bytes or -1 if buf is too small. */
int gm_mat_header(char *buf, size_t n, size_t size, gm_ctype t);

gm_status gm_write_mat(gm_mat *m, FILE *f, bool headers);
gm_status gm_read_mat(gm_mat *m, FILE *f, bool headers);

/* Shared with npy.c: the visible elements of m as little-endian bytes to
 * f (through the foreign facet, input); n_elems*size bytes of payload
 * from f into a new malloc'd buffer (*out, freed by the caller), failing
 * on a short read; and storing such a payload into m's visible part. */
gm_status gm_io_write_payload(gm_mat *m, FILE *f);
gm_status gm_io_read_payload(FILE *f, gm_ctype t, size_t n_elems, unsigned char **out);
gm_status gm_io_store_payload(gm_mat *m, const unsigned char *bytes);

/* .npy version 1.0 (numpy.save's bytes: dict header with sorted keys,
 * growth padding, 64-byte alignment), dtype '<f4'/'<f8', C order, shape
 * = dims.  Loading accepts versions 1.0-3.0 with '<f4'/'<f8', C order,
 * rank <= GM_MAX_RANK and rejects anything else with a message; it makes
 * a new mat (options o: cuda_enabled, synchronization; ctype from the
 * file). */
gm_status gm_npy_save(gm_mat *m, const char *path);
gm_status gm_npy_load(const char *path, const gm_mat_options *o, gm_mat **out);
/* The complete .npy header (magic to '\n') for rank/dims/t into buf;
 * returns its length or -1 when buf is too small. */
long gm_npy_header(char *buf, size_t n, int rank, const size_t *dims, gm_ctype t);

#endif
