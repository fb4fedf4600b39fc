/* The C half of the scans and the sort (lua/gpumat/ordering.lua reads
 * the options): core._scan_axis(m, axis, op, include_initial) and
 * core._sort_axis(m, axis, descending) over core/scan.h, axis 1-based
 * (negative from the end) as users write it. */
#include "../core/reduce_axis.h"
#include "../core/scan.h"
#include "util.h"

/* The 0-based axis of argument 2 for fn on m. */
static int check_axis(lua_State *L, const gm_mat *m, const char *fn) {
  int axis = 0;
  if (gm_reduce_axis_arg(luaL_checkinteger(L, 2), m->rank, &axis) != GM_OK)
    gml_argerror(L, 2, fn, "%s", gm_last_error());
  return axis;
}

/* core._scan_axis(m, axis, op, include_initial): op 0 sum, 1 prod */
static int l_scan_axis(lua_State *L) {
  int op = (int)luaL_checkinteger(L, 3);
  bool initial = lua_toboolean(L, 4);
  const char *fn = op == GM_SCAN_PROD ? "cumulative_prod" : "cumulative_sum";
  gm_mat *m = gml_checkmat(L, 1, fn), *y = NULL;
  int axis = check_axis(L, m, fn);
  GML_TRY(L, gm_scan_axis(m, axis, op, initial, &y), fn);
  gml_pushmat(L, y);
  return 1;
}

/* core._sort_axis(m, axis, descending) */
static int l_sort_axis(lua_State *L) {
  bool desc = lua_toboolean(L, 3);
  gm_mat *m = gml_checkmat(L, 1, "sort"), *y = NULL;
  int axis = check_axis(L, m, "sort");
  GML_TRY(L, gm_sort_axis(m, axis, desc, &y), "sort");
  gml_pushmat(L, y);
  return 1;
}

void gml_open_scan(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"_scan_axis", l_scan_axis, 4, NULL},
      {"_sort_axis", l_sort_axis, 3, NULL},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
}
