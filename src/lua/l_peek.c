/* The binding of core/peek.c for gm.format_mat (lua/gpumat/format.lua):
 *   core._peek_grid(m, max_lead, max_rows, max_cols)  the elements that
 *       format_mat shows, read through core/peek.h like tostring: no
 *       facet created, no up-to-date bit or watcher changed. */
#include <string.h>

#include "../core/peek.h"
#include "../core/view.h"
#include "util.h"

/* ---- the grid of shown elements ---- */

/* At most this many elements are gathered for one format. */
#define MAX_CELLS ((size_t)1 << 22)

typedef struct grid {
  int rank;
  size_t dims[GM_MAX_RANK];
  gm_ctype ctype;
  size_t kept[GM_MAX_RANK]; /* shown entries per axis */
  size_t head[GM_MAX_RANK]; /* of which leading; the rest are the last ones */
  size_t cells;
} grid;

/* Index along an axis of the k-th shown entry (0-based). */
static size_t shown_index(const grid *g, int axis, size_t k) {
  return k < g->head[axis] ? k : g->dims[axis] - (g->kept[axis] - k);
}

static lua_Integer check_limit(lua_State *L, int idx) {
  int ok;
  lua_Integer v = lua_tointegerx(L, idx, &ok);
  if (!ok || v < 1) gml_argerror(L, idx, "_peek_grid", "positive integer expected");
  return v;
}

static bool same_shape(const gm_mat *m, const grid *g) {
  return m->rank == g->rank && m->ctype == g->ctype && memcmp(m->dims, g->dims, sizeof g->dims[0] * (size_t)g->rank) == 0;
}

/* Copies the shown elements (row-major over the grid) into out. */
static void gather(gm_mat *m, const grid *g, gm_peek_source src, const void *data, double *out) {
  size_t strides[GM_MAX_RANK], idx[GM_MAX_RANK] = {0};
  for (int a = 0; a < g->rank; a++) strides[a] = (size_t)m->strides[a];
  for (size_t c = 0; c < g->cells; c++) {
    size_t off = 0;
    for (int a = 0; a < g->rank; a++) off += shown_index(g, a, idx[a]) * strides[a];
    out[c] = src == GM_PEEK_INITIAL ? m->vec->initial_element : gm_ctype_get(g->ctype, data, off);
    for (int a = g->rank - 1; a >= 0; a--) { /* odometer */
      if (++idx[a] < g->kept[a]) break;
      idx[a] = 0;
    }
  }
}

/* The grid of m's shown entries under the limits (leading axes, rows,
 * columns); raises when it has too many cells. */
static grid plan_grid(lua_State *L, const gm_mat *m, const lua_Integer lim[3]) {
  grid g = {.rank = m->rank, .ctype = m->ctype, .cells = 1};
  memcpy(g.dims, m->dims, sizeof g.dims);
  for (int a = 0; a < g.rank; a++) {
    lua_Integer l = a == g.rank - 1 ? lim[2] : a == g.rank - 2 ? lim[1] : lim[0];
    size_t n = g.dims[a];
    g.kept[a] = n <= (size_t)l ? n : (size_t)l;
    g.head[a] = n <= (size_t)l ? n : (size_t)(l + 1) / 2;
    if (g.kept[a] && g.cells > MAX_CELLS / g.kept[a])
      gml_argerror(L, 2, "format_mat", "too many elements to show; lower max_rows, max_cols or max_slices");
    g.cells *= g.kept[a];
  }
  return g;
}

/* Pushes the values (nil when uninitialised), then per axis the shown
 * 1-based indices with 0 at the gap, then the dims, then the ctype. */
static void push_grid(lua_State *L, const grid *g, bool initialised, const double *out) {
  if (!initialised) {
    lua_pushnil(L);
  } else {
    lua_createtable(L, (int)g->cells, 0);
    for (size_t c = 0; c < g->cells; c++) {
      lua_pushnumber(L, out[c]);
      lua_rawseti(L, -2, (lua_Integer)c + 1);
    }
  }
  lua_createtable(L, g->rank, 0);
  for (int a = 0; a < g->rank; a++) {
    bool cut = g->kept[a] < g->dims[a];
    lua_createtable(L, (int)g->kept[a] + cut, 0);
    lua_Integer j = 1;
    for (size_t k = 0; k < g->kept[a]; k++) {
      if (cut && k == g->head[a]) {
        lua_pushinteger(L, 0);
        lua_rawseti(L, -2, j++);
      }
      lua_pushinteger(L, (lua_Integer)shown_index(g, a, k) + 1);
      lua_rawseti(L, -2, j++);
    }
    if (cut && g->head[a] == g->kept[a]) { /* no trailing entries: gap last */
      lua_pushinteger(L, 0);
      lua_rawseti(L, -2, j++);
    }
    lua_rawseti(L, -2, a + 1);
  }
  lua_createtable(L, g->rank, 0);
  for (int a = 0; a < g->rank; a++) {
    lua_pushinteger(L, (lua_Integer)g->dims[a]);
    lua_rawseti(L, -2, a + 1);
  }
  lua_pushstring(L, gm_ctype_name(g->ctype));
}

/* core._peek_grid(m, max_lead, max_rows, max_cols) -> values, kept, dims,
 * ctype.  values: the shown elements in row-major order over the grid (nil
 * when the mat is uninitialised); kept[axis]: the shown 1-based indices,
 * with 0 where the "..." gap goes.  An axis longer than its limit shows
 * ceil(limit/2) leading and floor(limit/2) trailing entries. */
static int l_peek_grid(lua_State *L) {
  lua_Integer lim[3] = {check_limit(L, 2), check_limit(L, 3), check_limit(L, 4)};
  gm_mat *m = gml_checkmat(L, 1, "format_mat");
  grid g = plan_grid(L, m, lim);
  gm_peek_source src = gm_mat_peek_source(m);
  bool device = src == GM_PEEK_DEVICE;
  size_t scratch_bytes = device ? gm_mat_extent(m) * gm_ctype_size(m->ctype) : 0;
  int64_t strides0[GM_MAX_RANK];
  memcpy(strides0, m->strides, sizeof strides0);
  /* allocations (may run finalizers) before the mat is looked at again */
  double *out = lua_newuserdatauv(L, g.cells * sizeof(double) + 1, 0);
  void *scratch = lua_newuserdatauv(L, scratch_bytes + 1, 0);
  m = gml_checkmat(L, 1, "format_mat");
  if (!same_shape(m, &g) || memcmp(strides0, m->strides, sizeof strides0) != 0) gml_argerror(L, 1, "format_mat", "the mat was reshaped while being formatted");
  src = gm_mat_peek_source(m);
  if (src == GM_PEEK_DEVICE && !device)
    gml_argerror(L, 1, "format_mat", "the mat moved to the device while being formatted");
  const void *data = NULL;
  if (src == GM_PEEK_HOST) data = gm_mat_peek_host(m);
  if (src == GM_PEEK_DEVICE) {
    GML_TRY(L, gm_mat_peek_device(m, scratch), "format_mat");
    data = scratch;
  }
  if (src != GM_PEEK_NONE && g.cells) gather(m, &g, src, data, out);
  /* m is not used from here on */
  push_grid(L, &g, src != GM_PEEK_NONE, out);
  return 4;
}

void gml_open_peek(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"_peek_grid", l_peek_grid, 4, NULL}, {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
