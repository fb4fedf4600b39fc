/* DLPack in Lua: m:__dlpack(opts) hands out a capsule (a userdata owning a
 * DLManagedTensorVersioned), gm.from_dlpack(x, opts) takes one in (or
 * calls x:__dlpack(opts) first, the standard's protocol); the options are
 * the array API's (2025.12) __dlpack__ and from_dlpack keywords.  The core does the work
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

/* opts.copy: nil the array API's None (a copy only if needed), true
 * always, false never */
static int opt_copy(lua_State *L, int idx, const char *fn) {
  if (!gml_opt_push(L, idx, "copy")) return GM_DLPACK_COPY_IF_NEEDED;
  if (!lua_isboolean(L, -1))
    return gml_argerror(L, idx, fn, "option 'copy' must be a boolean or nil, got %s", luaL_typename(L, -1));
  int c = lua_toboolean(L, -1) ? GM_DLPACK_COPY_ALWAYS : GM_DLPACK_COPY_NEVER;
  lua_pop(L, 1);
  return c;
}

/* the integer t[i] of a {type, id} or {major, minor} pair, at least lo */
static lua_Integer pair_item(lua_State *L, int idx, const char *fn, const char *key, int i, lua_Integer lo) {
  lua_geti(L, -1, i);
  int isnum = 0;
  lua_Integer v = lua_tointegerx(L, -1, &isnum);
  lua_pop(L, 1);
  if (!isnum || v < lo || v > INT32_MAX)
    return gml_argerror(L, idx, fn, "option '%s' must be a pair of integers {%s}", key,
                        key[0] == 'm' ? "major, minor" : "device type, device id");
  return v;
}

/* opts[key] as a DLPack device {type, id} (capsule:device()'s pair): into
 * o->dl_device_type/id; "host" stands for {1, 0} */
static void opt_dl_device(lua_State *L, int idx, const char *fn, const char *key, gm_dlpack_options *o) {
  if (!gml_opt_push(L, idx, key)) return;
  if (lua_type(L, -1) == LUA_TTABLE && luaL_len(L, -1) == 2) {
    o->dl_device_type = (int32_t)pair_item(L, idx, fn, key, 1, 1);
    o->dl_device_id = (int32_t)pair_item(L, idx, fn, key, 2, 0);
  } else {
    return (void)gml_argerror(L, idx, fn, "option '%s' must be a pair of integers {device type, device id}, got %s",
                              key, luaL_typename(L, -1));
  }
  lua_pop(L, 1);
}

/* core.__dlpack(m, {stream, max_version, dl_device, copy, device}): the
 * array API's __dlpack__(stream, max_version, dl_device, copy), plus
 * gpumat's device = "host" | "cuda" */
static int l_dlpack(lua_State *L) {
  const char *fn = "__dlpack";
  static const char *const opts[] = {"device", "copy", "stream", "max_version", "dl_device", NULL};
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
  opt_dl_device(L, 2, fn, "dl_device", &o);
  if (o.dl_device_type && o.device != GM_DLPACK_WHERE)
    return gml_argerror(L, 2, fn, "options 'device' and 'dl_device' given together (give one)");
  o.copy = opt_copy(L, 2, fn);
  if (gml_opt_push(L, 2, "stream")) {
    int isnum = 0;
    lua_Integer st = lua_tointegerx(L, -1, &isnum);
    if (!isnum) return gml_argerror(L, 2, fn, "option 'stream' must be an integer or nil, got %s", luaL_typename(L, -1));
    if (st == 0)
      return gml_argerror(L, 2, fn, "stream 0 is ambiguous (the array API disallows it: nil or 1 the legacy default "
                                    "stream, 2 the per-thread one, -1 no synchronization)");
    if (st < -1) return gml_argerror(L, 2, fn, "stream %lld is not a stream (at least -1)", (long long)st);
    o.stream = (int64_t)st;
    lua_pop(L, 1);
  }
  if (gml_opt_push(L, 2, "max_version")) {
    if (lua_type(L, -1) != LUA_TTABLE || luaL_len(L, -1) != 2)
      return gml_argerror(L, 2, fn, "option 'max_version' must be a pair of integers {major, minor}, got %s",
                          luaL_typename(L, -1));
    lua_Integer major = pair_item(L, 2, fn, "max_version", 1, 0), minor = pair_item(L, 2, fn, "max_version", 2, 0);
    if (major < 1)
      return gml_argerror(L, 2, fn, "max_version {%lld, %lld}: gpumat exports DLPack 1.x (DLManagedTensorVersioned) "
                                    "only, not the legacy unversioned struct", (long long)major, (long long)minor);
    lua_pop(L, 1); /* a later major: the consumer reads the capsule's version (1.x) itself */
  }
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

/* Pushes {x, y} as a table of two integers. */
static void push_pair(lua_State *L, lua_Integer x, lua_Integer y) {
  lua_createtable(L, 2, 0);
  lua_pushinteger(L, x);
  lua_rawseti(L, -2, 1);
  lua_pushinteger(L, y);
  lua_rawseti(L, -2, 2);
}

/* The options table from_dlpack hands a producer's __dlpack: max_version
 * {1, 1}, dl_device when asked for, copy unless "if needed". */
static void push_request(lua_State *L, const gm_dlpack_options *o) {
  lua_createtable(L, 0, 3);
  push_pair(L, 1, 1);
  lua_setfield(L, -2, "max_version");
  if (o->dl_device_type) {
    push_pair(L, o->dl_device_type, o->dl_device_id);
    lua_setfield(L, -2, "dl_device");
  }
  if (o->copy != GM_DLPACK_COPY_IF_NEEDED) {
    lua_pushboolean(L, o->copy == GM_DLPACK_COPY_ALWAYS);
    lua_setfield(L, -2, "copy");
  }
}

/* core.from_dlpack(x, {device, copy}): x a capsule, or an object with a
 * __dlpack method, called as x:__dlpack({max_version = {1, 1}, dl_device
 * = device, copy = copy}) (the array API's protocol). */
static int l_from_dlpack(lua_State *L) {
  const char *fn = "from_dlpack";
  static const char *const opts[] = {"device", "copy", NULL};
  luaL_checkany(L, 1);
  lua_settop(L, 2);
  gml_check_options(L, 2, fn, opts);
  gm_dlpack_options o = {.copy = opt_copy(L, 2, fn)};
  bool host = false;
  if (gml_opt_push(L, 2, "device")) {
    host = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "host") == 0;
    lua_pop(L, 1);
    if (host) o.dl_device_type = kDLCPU;
    else opt_dl_device(L, 2, fn, "device", &o);
  }
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
    push_request(L, &o);
    lua_call(L, 2, 1);
    if (!luaL_testudata(L, -1, GML_DLPACK_MT))
      return gml_argerror(L, 1, fn, "its __dlpack method returned %s, not a DLPack capsule", luaL_typename(L, -1));
    lua_replace(L, 1);
  }
  gml_capsule *c = lua_touserdata(L, 1);
  if (!c->t) return gml_argerror(L, 1, fn, "the DLPack capsule was already consumed");
  /* a producer that copied (IS_COPIED) has done what copy = true asks */
  if (o.copy == GM_DLPACK_COPY_ALWAYS && (c->t->flags & DLPACK_FLAG_BITMASK_IS_COPIED))
    o.copy = GM_DLPACK_COPY_IF_NEEDED;
  gm_mat *m = NULL;
  GML_TRY(L, gm_mat_from_dlpack_opts(c->t, &o, &m), fn);
  c->t = NULL; /* the mat's storage calls the deleter now (or did: a copy) */
  gml_pushmat(L, m);
  return 1;
}

void gml_open_dlpack(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"__dlpack", l_dlpack, 2, NULL}, {"from_dlpack", l_from_dlpack, 2, NULL},
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
