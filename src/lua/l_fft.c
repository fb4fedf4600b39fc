/* core._fft for lua/gpumat/fft.lua: reads the arguments of the core's one
 * FFT primitive (src/core/ops/fft.h) and reports its failures naming the
 * gm.fft function the Lua side passes. */
#include "../core/ops/fft.h"
#include "util.h"

/* core._fft(fname, x, y, axis, kind, n, inverse): y := the unnormalized
 * transform of x along axis (1-based), kind "c2c", "r2c" or "c2r" */
static int l_fft(lua_State *L) {
  static const char *const kinds[] = {"c2c", "r2c", "c2r", NULL};
  const char *fn = luaL_checkstring(L, 1);
  gm_mat *x = gml_checkelembox(L, 2, fn)->m, *y = gml_checkelembox(L, 3, fn)->m;
  lua_Integer axis = luaL_checkinteger(L, 4), n = luaL_checkinteger(L, 6);
  gm_fft_type type = (gm_fft_type)luaL_checkoption(L, 5, NULL, kinds);
  if (axis < 1 || axis > x->rank) gml_argerror(L, 4, fn, "axis %lld is out of range 1..%d", (long long)axis, x->rank);
  if (n < 1) gml_argerror(L, 6, fn, "n must be at least 1, got %lld", (long long)n);
  int bad = 0;
  GML_TRY(L, gm_fft_axis(x, y, (int)axis - 1, type, (size_t)n, lua_toboolean(L, 7), &bad), fn);
  return 0;
}

void gml_open_fft(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"_fft", l_fft, 7, NULL}, {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
