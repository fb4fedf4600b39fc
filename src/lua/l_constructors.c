/* The C half of the constructors (lua/gpumat/constructors.lua has the
 * rest): core._fill_sequence and _fill_int_sequence write arithmetic
 * sequences for gm.range, gm.arange and gm.linspace without a Lua table of
 * the values; core._full and _full_like are zeros, ones, full, empty and
 * their _like forms without options. */
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

/* The number at stack index 2: full's value. */
static double check_value(lua_State *L, const char *fn) {
  if (lua_type(L, 2) != LUA_TNUMBER)
    gml_argerror(L, 2, fn, "value must be a number or a boolean, got %s", luaL_typename(L, 2));
  return lua_tonumber(L, 2);
}

/* core._full(dims, value, fname): gm.full(dims, value) and gm.zeros,
 * ones and empty without options: a mat of gm.default_ctype, every
 * element value, errors naming fname.  Through gm.mat (a copy of the
 * options, a pcall renaming its errors) a 1K gm.zeros cost 14K
 * instructions, three times gm.mat's own work. */
static int l_full(lua_State *L) {
  const char *fn = luaL_checkstring(L, 3);
  size_t dims[GM_MAX_RANK];
  int rank = gml_check_dims(L, 1, fn, dims);
  const gml_settings *S = gml_settings_of(L);
  gm_mat_options o = {0};
  o.ctype = (int)S->default_ctype;
  o.cuda_enabled = S->default_mat_cuda_enabled;
  o.synchronization = S->default_synchronization;
  o.has_initial_element = 1;
  o.initial_element = check_value(L, fn);
  gm_mat *m;
  int bad;
  gm_status st = gm_mat_make(rank, dims, &o, false, false, &m, &bad);
  if (st != GM_OK && bad) gml_argerror(L, bad, fn, "%s", gm_last_error());
  GML_TRY(L, st, fn);
  gml_pushmat(L, m);
  return 1;
}

/* core._full_like(x, value, fname): zeros_like, ones_like, full_like and
 * empty_like without options: a new mat of x's dims, ctype and
 * cuda_enabled, every element value.  The Lua path (options, x:dims() as
 * a table, gm.mat's option table) cost 20K instructions for a 1K
 * ones_like, four times a copy's. */
static int l_full_like(lua_State *L) {
  const char *fn = luaL_checkstring(L, 3);
  gm_mat *x = gml_checkmat(L, 1, fn);
  gm_mat_options o = {0};
  o.ctype = (int)x->ctype;
  o.cuda_enabled = x->cuda_enabled;
  o.synchronization = gml_settings_of(L)->default_synchronization;
  o.has_initial_element = 1;
  o.initial_element = check_value(L, fn);
  gm_mat *m;
  GML_TRY(L, gm_mat_new(x->rank, x->dims, &o, &m), fn);
  gml_pushmat(L, m);
  return 1;
}

void gml_open_constructors(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"_fill_sequence", l_fill_sequence, 5, NULL},
                                  {"_fill_int_sequence", l_fill_int_sequence, 3, NULL},
                                  {"_full", l_full, 3, NULL},
                                  {"_full_like", l_full_like, 3, NULL},
                                  {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
