/* format_mat's text: a mat as aligned rows and columns under a
 * "#<MAT 2x3 double>" header, large ones summarized with "..." as NumPy
 * does (the grid of peek_grid.h), rank >= 3 as labelled 2-d slices
 * "[i, j, :, :]".  Numbers follow NumPy's rules: integers as integers;
 * scientific notation when the largest magnitude is >= 1e8, the smallest
 * nonzero one < 1e-4 or their ratio > 1e3; else fixed with the fewest
 * decimals (at most precision, at least 1) that show every value; "nan",
 * "inf", "-inf".  Read like tostring reads: no facet created, no
 * up-to-date bit or watcher changed. */
#ifndef GM_CORE_FORMAT_GRID_H
#define GM_CORE_FORMAT_GRID_H

#include <stddef.h>

#include "../model/mat.h"
#include "../model/strbuf.h"

typedef struct gm_grid_format_options {
  size_t max_slices, max_rows, max_cols; /* peek_grid.h's limits, each >= 1 */
  size_t precision;                      /* at most 17 */
} gm_grid_format_options;

/* Appends m's text to out (no trailing newline).  GM_EINVAL for a limit
 * of 0 or a precision over 17, GM_ERANGE for a grid of too many cells,
 * GM_ENOMEM, or a failed device copy; temporary copies are freed on
 * every path. */
gm_status gm_mat_format_grid(gm_mat *m, const gm_grid_format_options *o, gm_strbuf *out);

#endif
