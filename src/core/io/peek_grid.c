#include "peek_grid.h"

#include <stdlib.h>
#include <string.h>

#include "peek.h"
#include "../model/view.h"
#include "../mem/hostpool.h"

/* Index along an axis of the k-th shown entry (0-based). */
static size_t shown_index(const gm_peek_grid *g, int axis, size_t k) {
  return k < g->head[axis] ? k : g->dims[axis] - (g->kept[axis] - k);
}

gm_status gm_peek_grid_plan(const gm_mat *m, size_t max_slices, size_t max_rows, size_t max_cols,
                            gm_peek_grid *g) {
  if (!max_slices || !max_rows || !max_cols) return gm_fail(GM_EINVAL, "every limit must be at least 1");
  *g = (gm_peek_grid){.rank = m->rank, .ctype = m->ctype, .cells = 1};
  memcpy(g->dims, m->dims, sizeof g->dims);
  memcpy(g->strides, m->strides, sizeof g->strides);
  for (int a = 0; a < g->rank; a++) {
    size_t l = a == g->rank - 1 ? max_cols : a == g->rank - 2 ? max_rows : max_slices;
    size_t n = g->dims[a];
    g->kept[a] = n <= l ? n : l;
    g->head[a] = n <= l ? n : l / 2 + l % 2;
    if (g->kept[a] && g->cells > GM_PEEK_GRID_MAX_CELLS / g->kept[a])
      return gm_fail(GM_ERANGE, "too many elements to show; lower max_rows, max_cols or max_slices");
    g->cells *= g->kept[a];
  }
  return GM_OK;
}

bool gm_peek_grid_fits(const gm_mat *m, const gm_peek_grid *g) {
  size_t n = (size_t)g->rank;
  return m->rank == g->rank && m->ctype == g->ctype && memcmp(m->dims, g->dims, n * sizeof g->dims[0]) == 0 &&
         memcmp(m->strides, g->strides, n * sizeof g->strides[0]) == 0;
}

size_t gm_peek_grid_axis_length(const gm_peek_grid *g, int axis) {
  return g->kept[axis] + (g->kept[axis] < g->dims[axis]);
}

size_t gm_peek_grid_entry(const gm_peek_grid *g, int axis, size_t j) {
  bool cut = g->kept[axis] < g->dims[axis];
  if (!cut || j < g->head[axis]) return shown_index(g, axis, j);
  return j == g->head[axis] ? GM_PEEK_GRID_GAP : shown_index(g, axis, j - 1);
}

/* Copies the shown elements (row-major over the grid) into out. */
static void gather(const gm_mat *m, const gm_peek_grid *g, gm_peek_source src, const void *data, double *out) {
  size_t idx[GM_MAX_RANK] = {0};
  for (size_t c = 0; c < g->cells; c++) {
    size_t off = gm_peek_first(m); /* backward axes' terms wrap back in range */
    for (int a = 0; a < g->rank; a++) off += shown_index(g, a, idx[a]) * (size_t)g->strides[a];
    out[c] = src == GM_PEEK_INITIAL ? m->vec->initial_element : gm_ctype_get(g->ctype, data, off);
    for (int a = g->rank - 1; a >= 0; a--) { /* odometer */
      if (++idx[a] < g->kept[a]) break;
      idx[a] = 0;
    }
  }
}

gm_status gm_peek_grid_read(gm_mat *m, const gm_peek_grid *g, double *out, bool *initialised) {
  if (!gm_peek_grid_fits(m, g)) return gm_fail(GM_EINVAL, "the mat was reshaped while being formatted");
  gm_peek_source src = gm_mat_peek_source(m);
  *initialised = src != GM_PEEK_NONE;
  if (src == GM_PEEK_NONE || g->cells == 0) return GM_OK;
  if (src != GM_PEEK_DEVICE) {
    gather(m, g, src, src == GM_PEEK_HOST ? gm_mat_peek_host(m) : NULL, out);
    return GM_OK;
  }
  void *scratch; /* mat-sized: from the host pool */
  size_t cap;
  if (gm_host_scratch(gm_mat_extent(m) * gm_ctype_size(m->ctype) + 1, &scratch, &cap) != GM_OK)
    return gm_fail(GM_ENOMEM, "out of host memory copying a mat to format it");
  gm_status st = gm_mat_peek_device(m, scratch);
  if (st == GM_OK) gather(m, g, src, scratch, out);
  gm_host_scratch_free(scratch, cap);
  return st;
}
