/* The binding of core/peek_grid.c for gm.format_mat (lua/gpumat/format.lua):
 *   core._peek_grid(m, max_slices, max_rows, max_cols)  the elements that
 *       format_mat shows, read like tostring reads them: no facet
 *       created, no up-to-date bit or watcher changed. */
#include "../core/peek_grid.h"
#include "util.h"

/* Pushes the values (nil when uninitialised), then per axis the shown
 * 1-based indices with 0 at the gap, then the dims, then the ctype. */
static void push_grid(lua_State *L, const gm_peek_grid *g, bool initialised, const double *out) {
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
    size_t n = gm_peek_grid_axis_length(g, a);
    lua_createtable(L, (int)n, 0);
    for (size_t j = 0; j < n; j++) {
      size_t i = gm_peek_grid_entry(g, a, j);
      lua_pushinteger(L, i == GM_PEEK_GRID_GAP ? 0 : (lua_Integer)i + 1);
      lua_rawseti(L, -2, (lua_Integer)j + 1);
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

/* core._peek_grid(m, max_slices, max_rows, max_cols) -> values, kept,
 * dims, ctype.  values: the shown elements in row-major order over the
 * grid (nil when the mat is uninitialised); kept[axis]: the shown 1-based
 * indices, with 0 where the "..." gap goes. */
static int l_peek_grid(lua_State *L) {
  const char *fn = "_peek_grid";
  size_t lim[3] = {gml_check_size(L, 2, fn, "max_slices"), gml_check_size(L, 3, fn, "max_rows"),
                   gml_check_size(L, 4, fn, "max_cols")};
  gm_mat *m = gml_checkmat(L, 1, "format_mat");
  gm_peek_grid g;
  if (gm_peek_grid_plan(m, lim[0], lim[1], lim[2], &g) != GM_OK) gml_argerror(L, 2, "format_mat", "%s", gm_last_error());
  /* the allocation may run finalizers: the mat is looked up again after it */
  double *out = lua_newuserdatauv(L, g.cells * sizeof(double) + 1, 0);
  m = gml_checkmat(L, 1, "format_mat");
  if (!gm_peek_grid_fits(m, &g)) gml_argerror(L, 1, "format_mat", "the mat was reshaped while being formatted");
  bool initialised;
  GML_TRY(L, gm_peek_grid_read(m, &g, out, &initialised), "format_mat");
  /* m is not used from here on */
  push_grid(L, &g, initialised, out);
  return 4;
}

void gml_open_peek(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"_peek_grid", l_peek_grid, 4, NULL}, {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
