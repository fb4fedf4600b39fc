/* The C half of the constructors (lua/gpumat/constructors.lua has the
 * rest): core._fill_sequence and _fill_int_sequence write arithmetic
 * sequences for gm.range, gm.arange and gm.linspace without a Lua table of
 * the values. */
#include "../core/ops/sequence.h"
#include "util.h"

/* core._fill_sequence(m, first, step, accumulate, last): the sequence of
 * core/ops/sequence.h into m; `last` is a number or nil. */
static int l_fill_sequence(lua_State *L) {
  const char *fn = "_fill_sequence";
  double first = luaL_checknumber(L, 2), step = luaL_checknumber(L, 3);
  bool accumulate = lua_toboolean(L, 4);
  bool has_last = !lua_isnoneornil(L, 5);
  double last = has_last ? luaL_checknumber(L, 5) : 0;
  gm_mat *m = gml_checkelembox(L, 1, fn)->m;
  GML_TRY(L, gm_mat_fill_sequence(m, first, step, accumulate, has_last, last), fn);
  return 0;
}

/* core._fill_int_sequence(m, first, step): first + k * step exactly, for
 * integer sequences (gm.arange, gm.range with integers). */
static int l_fill_int_sequence(lua_State *L) {
  const char *fn = "_fill_int_sequence";
  lua_Integer first = luaL_checkinteger(L, 2), step = luaL_checkinteger(L, 3);
  gm_mat *m = gml_checkelembox(L, 1, fn)->m;
  GML_TRY(L, gm_mat_fill_int_sequence(m, (long long)first, (long long)step), fn);
  return 0;
}

void gml_open_constructors(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"_fill_sequence", l_fill_sequence, 5, NULL},
                                  {"_fill_int_sequence", l_fill_int_sequence, 3, NULL},
                                  {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
