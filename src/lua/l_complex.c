/* Lua values of complex elements (gm.complex): tables {re = x, im = y}
 * with one shared metatable, registry["gpumat.complex"], whose
 * metamethods (arithmetic, ==, tostring) lua/gpumat/complex.lua adds.  A
 * table, not a userdata, so that user code reads z.re and z.im as plain
 * fields and building one costs what a small table costs.  This file is
 * the binding's side: push one (element reads, whole-mat sums), test and
 * read one (element writes, fills, scalar operands), and the text of one
 * (core._format_complex, the number rules of the mat printer). */
#include <string.h>

#include "../core/io/format.h"
#include "../core/ops/elementwise.h"
#include "util.h"

#define COMPLEX_MT "gpumat.complex"

void gml_pushcomplex(lua_State *L, double re, double im) {
  lua_createtable(L, 0, 2);
  lua_pushnumber(L, re);
  lua_setfield(L, -2, "re");
  lua_pushnumber(L, im);
  lua_setfield(L, -2, "im");
  luaL_setmetatable(L, COMPLEX_MT);
}

bool gml_iscomplex(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) return false;
  luaL_getmetatable(L, COMPLEX_MT);
  bool same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same;
}

bool gml_tocomplex(lua_State *L, int idx, double *re, double *im) {
  if (!gml_iscomplex(L, idx)) return false;
  idx = lua_absindex(L, idx);
  lua_getfield(L, idx, "re");
  lua_getfield(L, idx, "im");
  int ok_re, ok_im;
  *re = lua_tonumberx(L, -2, &ok_re);
  *im = lua_tonumberx(L, -1, &ok_im);
  lua_pop(L, 2);
  return ok_re && ok_im;
}

/* core._format_complex(re, im [, dtype]): "1+2i" with the mat printer's
 * rules for the parts (shortest digits that read back in the type) */
static int l_format_complex(lua_State *L) {
  double re = luaL_checknumber(L, 1), im = luaL_checknumber(L, 2);
  const char *d = luaL_optstring(L, 3, "complex128");
  gm_ctype t;
  if (gm_ctype_parse(d, &t) != 0 || !gm_ctype_is_complex(t))
    return gml_argerror(L, 3, "_format_complex", "complex dtype expected, got '%s'", d);
  char buf[160];
  gm_format_complex(t, re, im, buf, sizeof buf);
  lua_pushstring(L, buf);
  return 1;
}

/* core._complex_part(z, part, r, set): r := part (0 real, 1 imaginary)
 * of z, or (set) that part of z := r (core/ops/elementwise.h); the Lua
 * side (lua/gpumat/complex_math.lua) makes both mats and checks them */
static int l_complex_part(lua_State *L) {
  const char *fn = "_complex_part";
  gm_mat *z = gml_checkmat(L, 1, fn);
  lua_Integer part = luaL_checkinteger(L, 2);
  /* (checked here: a cast to int would make 2^32 a 0) */
  if (part != 0 && part != 1) gml_argerror(L, 2, fn, "part %lld (0 or 1 expected)", (long long)part);
  gm_mat *r = gml_checkmat(L, 3, fn);
  GML_TRY(L, gm_complex_part(z, (int)part, r, lua_toboolean(L, 4)), fn);
  return 0;
}

void gml_open_complex(lua_State *L, int module_idx) {
  luaL_newmetatable(L, COMPLEX_MT);
  lua_pushstring(L, "complex");
  lua_setfield(L, -2, "__name");
  lua_setfield(L, module_idx, "_complex_mt");
  static const gml_reg fns[] = {{"_format_complex", l_format_complex, 3, NULL},
                                   {"_complex_part", l_complex_part, 4, NULL},
                                   {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
