/* Module fields that MGL keeps in special variables (gm.default_ctype ...).
 * They live in C so C code sees them; the Lua module table forwards reads
 * and writes here (init.lua).  The settings model (names, kinds,
 * defaults, ranges, messages, which ones are process-wide) is the core's
 * (src/core/model/settings.c); the binding keeps one gm_settings per Lua state,
 * a userdata in the registry, so two lua_States of one application do not
 * see each other's choices, and converts Lua values. */
#include <string.h>

#include "../core/model/settings.h"
#include "gpumat.h"
#include "util.h"

/* Raises the core's "gpumat.<field> must be ..." at the user's
 * assignment: level 2 is the code that wrote the field (level 1 is
 * init.lua's __newindex). */
static int setting_error(lua_State *L) {
  luaL_where(L, 2);
  lua_pushstring(L, gm_last_error());
  lua_concat(L, 2);
  return lua_error(L);
}

/* The registry key of the state's settings (its address is unique). */
static const char settings_key = 0;

gml_settings *gml_settings_of(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &settings_key);
  gml_settings *s = (gml_settings *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (!s) gml_error(L, "gpumat settings: luaopen_gpumat_core was not called in this Lua state");
  return s;
}

/* Makes L's settings with the defaults, once per state: opening the
 * module again keeps what the state has set. */
static void open_state_settings(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &settings_key) == LUA_TUSERDATA) {
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  gml_settings *s = (gml_settings *)lua_newuserdatauv(L, sizeof *s, 0);
  *s = gm_settings_defaults;
  lua_rawsetp(L, LUA_REGISTRYINDEX, &settings_key);
}

gm_sync gml_check_sync(lua_State *L, int idx, const char *fname);
gm_sync gml_check_sync(lua_State *L, int idx, const char *fname) {
  if (lua_isboolean(L, idx)) return lua_toboolean(L, idx) ? GM_SYNC_TRUE : GM_SYNC_FALSE;
  if (lua_type(L, idx) == LUA_TSTRING && strcmp(lua_tostring(L, idx), "maybe") == 0) return GM_SYNC_MAYBE;
  gml_argerror(L, idx, fname, "synchronization must be true, false or \"maybe\"");
  return GM_SYNC_MAYBE;
}

/* The Lua value at idx as the core's rules see it (no conversions: the
 * string "3" is a string, not an integer). */
static gm_setting_value read_value(lua_State *L, int idx) {
  gm_setting_value v = {.type = GM_VALUE_OTHER, .type_name = luaL_typename(L, idx)};
  int isnum;
  switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN:
      v.type = GM_VALUE_BOOL;
      v.b = lua_toboolean(L, idx);
      break;
    case LUA_TNUMBER:
      v.i = lua_tointegerx(L, idx, &isnum);
      v.type = isnum ? GM_VALUE_INT : GM_VALUE_NUMBER;
      break;
    case LUA_TSTRING:
      v.type = GM_VALUE_STRING;
      v.s = lua_tostring(L, idx);
      break;
  }
  return v;
}

static void push_ctype_names(lua_State *L) {
  lua_createtable(L, GM_N_CTYPES, 0);
  for (int t = 0; t < GM_N_CTYPES; t++) {
    lua_pushstring(L, gm_ctype_name((gm_ctype)t));
    lua_rawseti(L, -2, t + 1);
  }
}

/* core.get_setting(name) -> value, true; or nil, false if not a setting */
static int l_get_setting(lua_State *L) {
  if (lua_type(L, 1) != LUA_TSTRING) return 0; /* gm[1], gm[{}]: nil, as for any table */
  const gm_setting *d = gm_setting_find(lua_tostring(L, 1));
  if (!d) return 0;
  if (d->kind == GM_SETTING_CTYPES) return push_ctype_names(L), 1;
  gm_setting_value v = gm_setting_get(gml_settings_of(L), d);
  if (v.type == GM_VALUE_BOOL)
    lua_pushboolean(L, v.b);
  else if (v.type == GM_VALUE_INT)
    lua_pushinteger(L, (lua_Integer)v.i);
  else
    lua_pushstring(L, v.s);
  return 1;
}

/* core.set_setting(name, value) -> true if name is a setting (validated) */
static int l_set_setting(lua_State *L) {
  if (lua_type(L, 1) != LUA_TSTRING) return lua_pushboolean(L, 0), 1; /* not a setting: a plain field */
  const gm_setting *d = gm_setting_find(lua_tostring(L, 1));
  if (!d) return lua_pushboolean(L, 0), 1;
  gm_setting_value v = read_value(L, 2);
  if (gm_setting_set(gml_settings_of(L), d, &v) != GM_OK) return setting_error(L);
  lua_pushboolean(L, 1);
  return 1;
}

void gml_open_settings(lua_State *L, int module_idx) {
  open_state_settings(L);
  static const gml_reg fns[] = {{"get_setting", l_get_setting, 1, NULL}, {"set_setting", l_set_setting, 2, NULL}, {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
