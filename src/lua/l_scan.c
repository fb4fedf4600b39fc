/* The C half of the scans and the sort (lua/gpumat/ordering.lua reads
 * the options): core._scan_axis(m, axis, op, include_initial) and
 * core._sort_axis(m, axis, descending) over core/ops/scan.h, axis 1-based
 * (negative from the end) as users write it. */
#include "../core/ops/reduce_axis.h"
#include "../core/ops/scan.h"
#include "util.h"

/* The 0-based axis of argument 2 for fn on m. */
static int check_axis(lua_State *L, const gm_mat *m, const char *fn) {
  int axis = 0;
  if (gm_reduce_axis_arg(luaL_checkinteger(L, 2), m->rank, &axis) != GM_OK)
    gml_argerror(L, 2, fn, "%s", gm_last_error());
  return axis;
}

/* core._scan_axis(m, axis, op, include_initial): op 0 sum, 1 prod, 2 logsumexp */
static int l_scan_axis(lua_State *L) {
  int op = (int)luaL_checkinteger(L, 3);
  bool initial = lua_toboolean(L, 4);
  const char *fn = op == GM_SCAN_PROD ? "cumulative_prod" : op == GM_SCAN_LOGSUMEXP ? "cumulative_logsumexp" : "cumulative_sum";
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

/* core._lines_axis(m, axis, op, flag, values) -> y (or nil), yi: the
 * index-carrying engine (core/ops/scan.h gm_lines_axis), op GM_LINES_* */
static int l_lines_axis(lua_State *L) {
  static const char *const names[] = {"argsort", "cummax", "mode", "unique", "unique"};
  int op = (int)luaL_checkinteger(L, 3), flag = lua_toboolean(L, 4);
  const char *fn = names[op >= 0 && op <= 4 ? op : 0];
  if (op == GM_LINES_CUMEXT && !flag) fn = "cummin";
  gm_mat *m = gml_checkmat(L, 1, fn), *y = NULL, *yi = NULL;
  int axis = check_axis(L, m, fn);
  bool values = lua_toboolean(L, 5);
  GML_TRY(L, gm_lines_axis(m, axis, op, flag, values, &y, &yi), fn);
  if (y) gml_pushmat(L, y);
  else lua_pushnil(L);
  gml_pushmat(L, yi);
  return 2;
}

/* core._search(s, sorter or nil, v, mode) -> int64 or bool mat */
static int l_search(lua_State *L) {
  int mode = (int)luaL_checkinteger(L, 4);
  const char *fn = mode <= GM_SEARCH_RIGHT ? "searchsorted" : "isin";
  gm_mat *s = gml_checkmat(L, 1, fn), *v = gml_checkmat(L, 3, fn), *y = NULL;
  gm_mat *sorter = gml_optmat(L, 2, fn);
  GML_TRY(L, gm_search_sorted(s, sorter, v, mode, &y), fn);
  gml_pushmat(L, y);
  return 1;
}

/* core._set_chunk(n): the specs' override of the chunk length of the
 * chunked scans and compactions (core/ops/scan.h), 0 for the defaults */
static int l_set_chunk(lua_State *L) {
  lua_Integer n = luaL_checkinteger(L, 1);
  if (n < 0 || n > ((lua_Integer)1 << 30)) gml_argerror(L, 1, "_set_chunk", "chunk %lld out of range 0..2^30", (long long)n);
  gm_set_chunk_override((size_t)n);
  return 0;
}

/* core._select_axis(m, axis, k, descending) -> values, indices: the
 * first k of each line's stable sort (core/ops/scan.h gm_select_axis) */
static int l_select_axis(lua_State *L) {
  gm_mat *m = gml_checkmat(L, 1, "topk"), *y = NULL, *yi = NULL;
  int axis = check_axis(L, m, "topk");
  lua_Integer k = luaL_checkinteger(L, 3);
  if (k < 1) gml_argerror(L, 3, "topk", "k must be at least 1, got %lld", (long long)k);
  GML_TRY(L, gm_select_axis(m, axis, (size_t)k, lua_toboolean(L, 4), &y, &yi), "topk");
  gml_pushmat(L, y);
  gml_pushmat(L, yi);
  return 2;
}

/* core._sort_radix(min_len, chunk): the radix sort's thresholds (0: the
 * defaults), for the specs (core/ops/scan.h gm_sort_radix_set) */
static int l_sort_radix(lua_State *L) {
  lua_Integer m = luaL_checkinteger(L, 1), c = luaL_checkinteger(L, 2);
  if (m < 0 || c < 0) return luaL_error(L, "_sort_radix: thresholds must be >= 0");
  gm_sort_radix_set((size_t)m, (size_t)c);
  return 0;
}

void gml_open_scan(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"_scan_axis", l_scan_axis, 4, NULL},
      {"_sort_axis", l_sort_axis, 3, NULL},
      {"_lines_axis", l_lines_axis, 5, NULL},
      {"_search", l_search, 4, NULL},
      {"_set_chunk", l_set_chunk, 1, NULL},
      {"_sort_radix", l_sort_radix, 2, NULL},
      {"_select_axis", l_select_axis, 4, NULL},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
}
