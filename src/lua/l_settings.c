/* Module fields that MGL keeps in special variables (gm.default_ctype ...).
 * They live in C so C code sees them; the Lua module table forwards reads
 * and writes here (init.lua), and every write is validated.
 *
 * Two kinds: the binding's settings (defaults of new mats, printing, file
 * headers, CUDA defaults) are per Lua state, a gml_settings in the
 * registry, so two lua_States of one application do not see each other's
 * choices.  The flags that the core reads from any thread (cuda_enabled,
 * cuda_allow_tf32, let_input_through, let_output_through,
 * maybe_synchronize, foreign_array_strategy) are process-wide atomics of
 * the core: C code without a lua_State, and mats shared between states,
 * consult them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../core/context.h"
#include "gpumat.h"
#include "util.h"

/* Raises "gpumat.<field> must be ..." at the user's assignment: level 2 is
 * the code that wrote the field (level 1 is init.lua's __newindex). */
static int setting_error(lua_State *L, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  luaL_where(L, 2);
  lua_pushstring(L, msg);
  lua_concat(L, 2);
  return lua_error(L);
}


static const gml_settings default_settings = {
    .default_ctype = GM_DOUBLE,
    .print_mat = true,
    .print_mat_facets = true,
    .print_max_elements = 1000,
    .mat_headers = true,
    .default_mat_cuda_enabled = true,
    .default_synchronization = GM_SYNC_MAYBE,
    .cuda_default_device_id = 0,
    .cuda_default_random_seed = 1234,
    .cuda_default_n_random_states = 4096,
    .syncing_cuda_facets_safe = true,
};

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
  *s = default_settings;
  lua_rawsetp(L, LUA_REGISTRYINDEX, &settings_key);
}

static void push_sync(lua_State *L, gm_sync s) {
  if (s == GM_SYNC_MAYBE)
    lua_pushstring(L, "maybe");
  else
    lua_pushboolean(L, s == GM_SYNC_TRUE);
}

gm_sync gml_check_sync(lua_State *L, int idx, const char *fname);
gm_sync gml_check_sync(lua_State *L, int idx, const char *fname) {
  if (lua_isboolean(L, idx)) return lua_toboolean(L, idx) ? GM_SYNC_TRUE : GM_SYNC_FALSE;
  if (lua_type(L, idx) == LUA_TSTRING && strcmp(lua_tostring(L, idx), "maybe") == 0) return GM_SYNC_MAYBE;
  gml_argerror(L, idx, fname, "synchronization must be true, false or \"maybe\"");
  return GM_SYNC_MAYBE;
}

/* Boolean settings backed by an atomic flag of the core. */
static const struct {
  const char *name;
  _Atomic bool *flag;
} atomic_flags[] = {
    {"cuda_enabled", &gm_cuda_enabled},
    {"cuda_allow_tf32", &gm_cuda_allow_tf32},
    {"let_input_through", &gm_let_input_through},
    {"let_output_through", &gm_let_output_through},
    {"maybe_synchronize", &gm_maybe_synchronize},
};

/* Per-state settings: fields of gml_settings, by offset. */
static const struct {
  const char *name;
  size_t offset;
} bool_settings[] = {
    {"print_mat", offsetof(gml_settings, print_mat)},
    {"print_mat_facets", offsetof(gml_settings, print_mat_facets)},
    {"mat_headers", offsetof(gml_settings, mat_headers)},
    {"default_mat_cuda_enabled", offsetof(gml_settings, default_mat_cuda_enabled)},
    {"syncing_cuda_facets_safe", offsetof(gml_settings, syncing_cuda_facets_safe)},
};

static const struct {
  const char *name;
  size_t offset;
  lua_Integer min;
} int_settings[] = {
    {"print_max_elements", offsetof(gml_settings, print_max_elements), 0},
    {"cuda_default_random_seed", offsetof(gml_settings, cuda_default_random_seed), 0},
    {"cuda_default_n_random_states", offsetof(gml_settings, cuda_default_n_random_states), 1},
};

static bool *bool_field(gml_settings *s, size_t offset) { return (bool *)(void *)((char *)s + offset); }
static lua_Integer *int_field(gml_settings *s, size_t offset) {
  return (lua_Integer *)(void *)((char *)s + offset);
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* core.get_setting(name) -> value, true; or nil, false if not a setting */
static int l_get_setting(lua_State *L) {
  if (lua_type(L, 1) != LUA_TSTRING) return 0; /* gm[1], gm[{}]: nil, as for any table */
  const char *k = lua_tostring(L, 1);
  gml_settings *s = gml_settings_of(L);
  for (size_t i = 0; i < N_OF(atomic_flags); i++)
    if (strcmp(k, atomic_flags[i].name) == 0) return lua_pushboolean(L, *atomic_flags[i].flag), 1;
  for (size_t i = 0; i < N_OF(bool_settings); i++)
    if (strcmp(k, bool_settings[i].name) == 0) return lua_pushboolean(L, *bool_field(s, bool_settings[i].offset)), 1;
  for (size_t i = 0; i < N_OF(int_settings); i++)
    if (strcmp(k, int_settings[i].name) == 0) return lua_pushinteger(L, *int_field(s, int_settings[i].offset)), 1;
  if (strcmp(k, "default_ctype") == 0) return lua_pushstring(L, gm_ctype_name(s->default_ctype)), 1;
  if (strcmp(k, "default_synchronization") == 0) return push_sync(L, s->default_synchronization), 1;
  if (strcmp(k, "foreign_array_strategy") == 0)
    return lua_pushstring(L, gm_cuda_host_strategy ? "cuda_host" : "static"), 1;
  if (strcmp(k, "cuda_default_device_id") == 0)
    return lua_pushinteger(L, s->cuda_default_device_id), 1;
  if (strcmp(k, "version") == 0) return lua_pushstring(L, GPUMAT_VERSION), 1;
  if (strcmp(k, "supported_ctypes") == 0) {
    lua_createtable(L, GM_N_CTYPES, 0);
    for (int t = 0; t < GM_N_CTYPES; t++) {
      lua_pushstring(L, gm_ctype_name((gm_ctype)t));
      lua_rawseti(L, -2, t + 1);
    }
    return 1;
  }
  return 0;
}

/* core.set_setting(name, value) -> true if name is a setting (validated) */
static int l_set_setting(lua_State *L) {
  if (lua_type(L, 1) != LUA_TSTRING) return lua_pushboolean(L, 0), 1; /* not a setting: a plain field */
  const char *k = lua_tostring(L, 1);
  const char *fn = "gpumat settings";
  gml_settings *s = gml_settings_of(L);
  for (size_t i = 0; i < N_OF(atomic_flags); i++)
    if (strcmp(k, atomic_flags[i].name) == 0) {
      if (!lua_isboolean(L, 2)) return setting_error(L, "gpumat.%s must be a boolean, got %s", k, luaL_typename(L, 2));
      *atomic_flags[i].flag = lua_toboolean(L, 2);
      return lua_pushboolean(L, 1), 1;
    }
  for (size_t i = 0; i < N_OF(bool_settings); i++)
    if (strcmp(k, bool_settings[i].name) == 0) {
      if (!lua_isboolean(L, 2)) return setting_error(L, "gpumat.%s must be a boolean, got %s", k, luaL_typename(L, 2));
      *bool_field(s, bool_settings[i].offset) = lua_toboolean(L, 2);
      return lua_pushboolean(L, 1), 1;
    }
  for (size_t i = 0; i < N_OF(int_settings); i++)
    if (strcmp(k, int_settings[i].name) == 0) {
      int isnum;
      lua_Integer v = lua_tointegerx(L, 2, &isnum);
      if (!isnum || lua_type(L, 2) != LUA_TNUMBER || v < int_settings[i].min)
        return setting_error(L, "gpumat.%s must be an integer >= %d", k, (int)int_settings[i].min);
      *int_field(s, int_settings[i].offset) = v;
      return lua_pushboolean(L, 1), 1;
    }
  if (strcmp(k, "default_ctype") == 0) {
    gm_ctype t;
    if (lua_type(L, 2) != LUA_TSTRING || gm_ctype_parse(lua_tostring(L, 2), &t) != 0)
      return setting_error(L, "gpumat.default_ctype must be \"float\" or \"double\"");
    s->default_ctype = t;
    return lua_pushboolean(L, 1), 1;
  }
  if (strcmp(k, "default_synchronization") == 0) {
    if (!lua_isboolean(L, 2) && !(lua_type(L, 2) == LUA_TSTRING && strcmp(lua_tostring(L, 2), "maybe") == 0))
      return setting_error(L, "gpumat.default_synchronization must be true, false or \"maybe\"");
    s->default_synchronization = gml_check_sync(L, 2, fn);
    return lua_pushboolean(L, 1), 1;
  }
  if (strcmp(k, "foreign_array_strategy") == 0) {
    const char *v = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
    if (strcmp(v, "static") != 0 && strcmp(v, "cuda_host") != 0)
      return setting_error(L, "gpumat.foreign_array_strategy must be \"static\" or \"cuda_host\"");
    gm_cuda_host_strategy = strcmp(v, "cuda_host") == 0;
    return lua_pushboolean(L, 1), 1;
  }
  if (strcmp(k, "cuda_default_device_id") == 0) {
    int isnum;
    lua_Integer v = lua_tointegerx(L, 2, &isnum);
    if (!isnum || lua_type(L, 2) != LUA_TNUMBER || v < 0 || v > 1023)
      return setting_error(L, "gpumat.cuda_default_device_id must be an integer in 0..1023");
    s->cuda_default_device_id = (int)v;
    return lua_pushboolean(L, 1), 1;
  }
  if (strcmp(k, "supported_ctypes") == 0 || strcmp(k, "version") == 0)
    return setting_error(L, "gpumat.%s is read-only", k);
  lua_pushboolean(L, 0);
  return 1;
}

void gml_open_settings(lua_State *L, int module_idx) {
  open_state_settings(L);
  static const gml_reg fns[] = {{"get_setting", l_get_setting, 1, NULL}, {"set_setting", l_set_setting, 2, NULL}, {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
