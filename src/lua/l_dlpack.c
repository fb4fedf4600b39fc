/* DLPack in Lua: m:__dlpack(opts) hands out a capsule (a userdata owning a
 * DLManagedTensorVersioned), gm.from_dlpack(x) takes one in (or calls
 * x:__dlpack() first, the standard's protocol).  The core does the work
 * (core/api/api_dlpack.c); this file adds the capsule: consumed once,
 * its deleter called by __gc when nobody consumed it. */
#include "l_dlpack.h"

#include <string.h>

#include "util.h"

typedef struct gml_capsule {
  DLManagedTensorVersioned *t; /* NULL once consumed or deleted */
} gml_capsule;

void gml_push_capsule(lua_State *L, DLManagedTensorVersioned *t) {
  gml_capsule *c = lua_newuserdatauv(L, sizeof *c, 0);
  c->t = t;
  luaL_setmetatable(L, GML_DLPACK_MT);
}

static int capsule_gc(lua_State *L) {
  gml_capsule *c = gml_checkudata(L, 1, GML_DLPACK_MT, "__gc");
  DLManagedTensorVersioned *t = c->t;
  c->t = NULL;
  if (t && t->deleter) t->deleter(t);
  return 0;
}

static int capsule_tostring(lua_State *L) {
  gml_capsule *c = gml_checkudata(L, 1, GML_DLPACK_MT, "__tostring");
  lua_pushfstring(L, "#<DLPACK CAPSULE%s>", c->t ? "" : " (consumed)");
  return 1;
}

/* capsule:device() -> DLPack's device type and id of the tensor (the
 * standard's __dlpack_device__: 1 kDLCPU, 2 kDLCUDA, 3 kDLCUDAHost, 13
 * kDLCUDAManaged), read before it is consumed. */
static int capsule_device(lua_State *L) {
  gml_capsule *c = gml_checkudata(L, 1, GML_DLPACK_MT, "device");
  if (!c->t) return gml_argerror(L, 1, "device", "the DLPack capsule was already consumed");
  lua_pushinteger(L, (lua_Integer)c->t->dl_tensor.device.device_type);
  lua_pushinteger(L, (lua_Integer)c->t->dl_tensor.device.device_id);
  return 2;
}

/* core.__dlpack(m, {device = "host" | "cuda", copy = bool}) */
static int l_dlpack(lua_State *L) {
  const char *fn = "__dlpack";
  static const char *const opts[] = {"device", "copy", NULL};
  gm_mat *m = gml_checkmat(L, 1, fn);
  gml_check_options(L, 2, fn, opts);
  gm_dlpack_options o = {.device = GM_DLPACK_WHERE};
  if (gml_opt_push(L, 2, "device")) {
    const char *d = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    if (strcmp(d, "host") == 0) o.device = GM_DLPACK_HOST;
    else if (strcmp(d, "cuda") == 0) o.device = GM_DLPACK_CUDA;
    else return gml_argerror(L, 2, fn, "option 'device' must be \"host\" or \"cuda\"");
    lua_pop(L, 1);
  }
  o.copy = gml_opt_boolean(L, 2, "copy", false, fn);
  lua_settop(L, 2);
  gml_capsule *c = lua_newuserdatauv(L, sizeof *c, 0); /* made first: no leak if it cannot be */
  c->t = NULL;
  luaL_setmetatable(L, GML_DLPACK_MT);
  GML_TRY(L, gm_mat_to_dlpack(m, &o, &c->t), fn);
  return 1;
}

/* x.__dlpack of a table or userdata, or nil: looked up protected (an
 * object's __index may raise for unknown keys). */
static int get_dlpack_method(lua_State *L) {
  lua_getfield(L, 1, "__dlpack");
  return 1;
}

/* core.from_dlpack(x): x a capsule, or an object with a __dlpack method. */
static int l_from_dlpack(lua_State *L) {
  const char *fn = "from_dlpack";
  luaL_checkany(L, 1);
  lua_settop(L, 1);
  if (!luaL_testudata(L, 1, GML_DLPACK_MT)) {
    int t = lua_type(L, 1);
    bool found = false;
    if (t == LUA_TTABLE || t == LUA_TUSERDATA) {
      lua_pushcfunction(L, get_dlpack_method);
      lua_pushvalue(L, 1);
      found = lua_pcall(L, 1, 1, 0) == LUA_OK && lua_isfunction(L, -1);
    }
    if (!found)
      return gml_argerror(L, 1, fn, "DLPack capsule or object with a __dlpack method expected, got %s",
                          luaL_typename(L, 1));
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    if (!luaL_testudata(L, -1, GML_DLPACK_MT))
      return gml_argerror(L, 1, fn, "its __dlpack method returned %s, not a DLPack capsule", luaL_typename(L, -1));
    lua_replace(L, 1);
  }
  gml_capsule *c = lua_touserdata(L, 1);
  if (!c->t) return gml_argerror(L, 1, fn, "the DLPack capsule was already consumed");
  gm_mat *m = NULL;
  GML_TRY(L, gm_mat_from_dlpack(c->t, &m), fn);
  c->t = NULL; /* the mat's storage calls the deleter now */
  gml_pushmat(L, m);
  return 1;
}

void gml_open_dlpack(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"__dlpack", l_dlpack, 2, NULL}, {"from_dlpack", l_from_dlpack, 1, NULL},
                                {NULL, NULL, 0, NULL}};
  static const gml_reg meta[] = {{"__gc", capsule_gc, 1, NULL}, {"__tostring", capsule_tostring, 1, NULL},
                                 {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
  luaL_newmetatable(L, GML_DLPACK_MT);
  gml_register(L, -1, meta);
  static const gml_reg methods[] = {{"device", capsule_device, 1, NULL}, {NULL, NULL, 0, NULL}};
  gml_newlib(L, methods);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "gpumat.dlpack");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
}
