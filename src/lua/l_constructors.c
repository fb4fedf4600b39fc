/* The C half of the constructors (lua/gpumat/constructors.lua has the
 * rest): core._fill_sequence writes arithmetic sequences for gm.range and
 * gm.linspace without a Lua table of the values. */
#include <stdlib.h>

#include "util.h"

/* core._fill_sequence(m, first, step, accumulate, last): element k of m
 * := first + k * step, or with `accumulate` the running sum first + step
 * + step ... (the values a Lua numeric for with float operands visits);
 * `last` (a number or nil) replaces the final element, so an inclusive
 * end is exact.  Values are computed in double and stored in m's ctype. */
static int l_fill_sequence(lua_State *L) {
  const char *fn = "_fill_sequence";
  double first = luaL_checknumber(L, 2), step = luaL_checknumber(L, 3);
  bool accumulate = lua_toboolean(L, 4);
  bool has_last = !lua_isnoneornil(L, 5);
  double last = has_last ? luaL_checknumber(L, 5) : 0;
  size_t n = gml_checkmat(L, 1, fn)->size;
  /* the buffer (an allocation may run finalizers) before the mat is used */
  double *v = lua_newuserdatauv(L, n * sizeof *v + 1, 0);
  gm_mat *m = gml_checkmat(L, 1, fn);
  if (m->size != n) gml_argerror(L, 1, fn, "the mat was reshaped while being filled");
  double acc = first;
  for (size_t k = 0; k < n; k++) {
    v[k] = accumulate ? acc : first + (double)k * step;
    acc += step;
  }
  if (has_last && n > 0) v[n - 1] = last;
  GML_TRY(L, gm_mat_write_doubles(m, v), fn);
  return 0;
}

void gml_open_constructors(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"_fill_sequence", l_fill_sequence, 5, NULL}, {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
