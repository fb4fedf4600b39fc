/* Mat I/O in Lua (MGL-MAT §16): write_mat/read_mat on Lua file handles,
 * save_npy/load_npy on paths.  Formats and guarantees: src/core/io/io.h. */
#include <lualib.h>
#include <string.h>

#include "../core/io/io.h"
#include "util.h"

/* The FILE* of a Lua file handle at idx (io.open's userdata). */
static FILE *check_file(lua_State *L, int idx, const char *fname) {
  luaL_Stream *s = luaL_testudata(L, idx, LUA_FILEHANDLE);
  if (!s) gml_argerror(L, idx, fname, "file handle expected, got %s", luaL_typename(L, idx));
  if (!s->closef || !s->f) gml_argerror(L, idx, fname, "attempt to use a closed file");
  return s->f;
}

static const char *check_path(lua_State *L, int idx, const char *fname) {
  if (lua_type(L, idx) != LUA_TSTRING)
    gml_argerror(L, idx, fname, "path string expected, got %s", luaL_typename(L, idx));
  return lua_tostring(L, idx);
}

/* gm.write_mat(m, f), gm.read_mat(m, f), gm.save_npy(m, path) -> m: the
 * same steps around one core call, picked by the registered name (the
 * gml_reg is upvalue 1). */
static int l_mat_to_from_file(lua_State *L) {
  const char *fn = ((const gml_reg *)lua_touserdata(L, lua_upvalueindex(1)))->name;
  gm_mat *m = gml_checkmat(L, 1, fn);
  gm_status st;
  if (strcmp(fn, "save_npy") == 0) {
    st = gm_npy_save(m, check_path(L, 2, fn));
  } else {
    FILE *f = check_file(L, 2, fn);
    bool headers = gml_settings_of(L)->mat_headers;
    st = strcmp(fn, "write_mat") == 0 ? gm_write_mat(m, f, headers) : gm_read_mat(m, f, headers);
  }
  GML_TRY(L, st, fn);
  lua_settop(L, 1);
  return 1;
}

/* gm.load_npy(path, {cuda_enabled}) */
static int l_load_npy(lua_State *L) {
  const char *fn = "load_npy";
  static const char *const opts[] = {"cuda_enabled", NULL};
  const char *path = check_path(L, 1, fn);
  gml_check_options(L, 2, fn, opts);
  gm_mat_options o = {0};
  o.cuda_enabled = gml_opt_boolean(L, 2, "cuda_enabled", gml_settings_of(L)->default_mat_cuda_enabled, fn);
  o.synchronization = gml_settings_of(L)->default_synchronization;
  gm_mat *m;
  GML_TRY(L, gm_npy_load(path, &o, &m), fn);
  gml_pushmat(L, m);
  return 1;
}

void gml_open_io(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"write_mat", l_mat_to_from_file, 2, NULL}, {"read_mat", l_mat_to_from_file, 2, NULL},
                                 {"save_npy", l_mat_to_from_file, 2, NULL}, {"load_npy", l_load_npy, 2, NULL},
                                 {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
