/* Text forms of mats and numbers for people: tostring's one-line form
 * "#<MAT 2x3 double CF {{1, 2, 3}, {4, 5, 6}}>" (gm_mat_to_string in
 * include/gpumat.h) and the digit-grouped memory report of foreign_room.
 *
 * Printing is a debugging view and must not disturb what it shows: it
 * never creates facets, never changes up-to-date bits or watcher counts
 * (so it reads through peek.h, not gm_mat_watch), and the facet letters
 * are taken before the contents are read. */
#ifndef GM_CORE_FORMAT_H
#define GM_CORE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/mat.h"
#include "../model/strbuf.h"

/* The shortest text that reads back to the same value of ctype t: 1 as
 * "1", 0.1f as "0.1" (not 0.10000000149011612); "0/0", "1/0", "-1/0" for
 * NaN and the infinities (Lua expressions of those values). */
void gm_format_number(gm_ctype t, double x, char *buf, size_t n);
/* A complex value of ctype t as "1+2i" / "1-2i": each part with
 * gm_format_number's rules for t's real type. */
void gm_format_complex(gm_ctype t, double re, double im, char *buf, size_t n);
/* An element's exact value: integers in full (uint64 unsigned), bool as
 * true / false, floats as gm_format_number. */
void gm_format_value(gm_ctype t, gm_value v, char *buf, size_t n);

/* 3386295808 -> "3,386,295,808", as MGL's memory reports write counts. */
void gm_format_grouped(long long x, char *buf, size_t n);

/* Appends m's one-line form to out under o (NULL: contents, facets and
 * at most 1000 elements before summarizing, the Lua defaults).  Fails
 * only when the host runs out of memory or a device copy fails; any
 * temporary copy is freed on every path. */
gm_status gm_mat_format(gm_mat *m, const gm_print_options *o, gm_strbuf *out);

/* foreign_room's report of the host arrays in use (the process-wide
 * counters): "Foreign memory usage:\nforeign arrays: N (used bytes: B)\n",
 * or "f: N (B)\n" when not verbose; truncated to n bytes. */
void gm_foreign_room_text(bool verbose, char *buf, size_t n);

#endif
