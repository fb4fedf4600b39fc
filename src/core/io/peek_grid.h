/* The grid of elements format_mat shows: per axis the entries that fit
 * its limit (the last axis max_cols, the one before it max_rows, every
 * other one max_slices), an axis longer than its limit keeping its first
 * ceil(limit/2) and last floor(limit/2) entries around a "..." gap, as
 * NumPy summarizes.  The elements are read through peek.h like tostring
 * reads them: no facet created, no up-to-date bit or watcher changed. */
#ifndef GM_CORE_PEEK_GRID_H
#define GM_CORE_PEEK_GRID_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/mat.h"

/* At most this many elements are gathered for one grid. */
#define GM_PEEK_GRID_MAX_CELLS ((size_t)1 << 22)
/* gm_peek_grid_entry's mark of the gap. */
#define GM_PEEK_GRID_GAP ((size_t)-1)

typedef struct gm_peek_grid {
  int rank;
  gm_ctype ctype;
  size_t dims[GM_MAX_RANK];
  int64_t strides[GM_MAX_RANK]; /* the mat's when planned */
  size_t kept[GM_MAX_RANK];     /* shown entries per axis */
  size_t head[GM_MAX_RANK];     /* of which leading; the rest are the last ones */
  size_t cells;                 /* product of kept */
} gm_peek_grid;

/* Plans m's grid under the limits: GM_EINVAL when one is 0, GM_ERANGE
 * when the grid has more than GM_PEEK_GRID_MAX_CELLS cells. */
gm_status gm_peek_grid_plan(const gm_mat *m, size_t max_slices, size_t max_rows, size_t max_cols,
                            gm_peek_grid *g);
/* Whether m still has the shape, strides and ctype g was planned for. */
bool gm_peek_grid_fits(const gm_mat *m, const gm_peek_grid *g);
/* The axis as shown: its length (kept entries, plus one for a gap) and
 * the j-th entry, a 0-based index or GM_PEEK_GRID_GAP. */
size_t gm_peek_grid_axis_length(const gm_peek_grid *g, int axis);
size_t gm_peek_grid_entry(const gm_peek_grid *g, int axis, size_t j);
/* Reads the shown elements of m (which must fit g) into out, g->cells
 * values row-major over the grid; *initialised is false (out untouched)
 * for a mat without contents.  A device copy goes through a temporary
 * buffer freed on every path. */
gm_status gm_peek_grid_read(gm_mat *m, const gm_peek_grid *g, double *out, bool *initialised);

#endif
