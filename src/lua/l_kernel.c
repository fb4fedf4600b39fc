/* Run-time kernels (gm.define_cuda_kernel), C side: the kernel userdata
 * and the conversion of a launch's Lua arguments.  Loading, the launch
 * parameter rules and the launch itself are the core's (kernel.c);
 * source generation, compilation and caching are in
 * lua/gpumat/kernel.lua. */
#include <stdlib.h>
#include <string.h>

#include "../core/model/context.h"
#include "../core/exec/kernel.h"
#include "../core/mem/device.h"
#include "../core/mem/runtime.h"
#include "util.h"

#define KERNEL_SO "gpumat.kernel_so"

/* A loaded kernel for one ctype: a shared object of the CPU model
 * (handle, code.cpu) or an NVRTC kernel on one device (code.dev). */
typedef struct kernel_so {
  void *handle;
  gm_kernel_code code;
} kernel_so;

static int so_gc(lua_State *L) {
  kernel_so *k = gml_checkudata(L, 1, KERNEL_SO, "__gc");
  /* code of a loaded kernel is never unloaded while a launch could run:
   * launches are synchronous, and the userdata is unreachable here */
  gm_kernel_close(k->handle);
  k->handle = NULL;
  k->code.cpu = NULL;
  return 0;
}

/* A new kernel userdata, nothing loaded yet (collected: closed). */
static kernel_so *new_kernel(lua_State *L) {
  kernel_so *k = lua_newuserdatauv(L, sizeof *k, 0);
  memset(k, 0, sizeof *k);
  luaL_setmetatable(L, KERNEL_SO);
  return k;
}

/* core.kernel_load(path) -> handle, or nil and dlerror's message */
static int l_kernel_load(lua_State *L) {
  const char *path = gml_check_string(L, 1, "define_cuda_kernel", NULL);
  kernel_so *k = new_kernel(L);
  if (gm_kernel_open(path, &k->handle, &k->code) == GM_OK) return 1;
  lua_pushnil(L);
  lua_pushstring(L, gm_last_error());
  return 2;
}

/* core.nvrtc_compile(src, name, major, minor, cubin) -> image, log; or
 * nil, log, message, unsupported (the Lua side raises nvrtc_error with
 * the log, or falls back to PTX when CUBIN is unsupported) */
static int l_nvrtc_compile(lua_State *L) {
  const char *fn = "define_cuda_kernel";
  const char *src = gml_check_string(L, 1, fn, NULL);
  const char *name = gml_check_string(L, 2, fn, NULL);
  int major = (int)gml_check_integer(L, 3, fn), minor = (int)gml_check_integer(L, 4, fn);
  bool cubin = lua_toboolean(L, 5);
  char *image = NULL, *log = NULL;
  size_t size = 0;
  gm_status st = gm_nvrtc_compile(src, name, major, minor, cubin, &image, &size, &log);
  /* (a memory error while pushing would leak the two strings: bounded, rare) */
  if (st == GM_OK)
    lua_pushlstring(L, image, size);
  else
    lua_pushnil(L);
  lua_pushstring(L, log ? log : "");
  free(image);
  free(log);
  if (st == GM_OK) return 2;
  lua_pushstring(L, gm_last_error());
  lua_pushboolean(L, st == GM_EUNSUPPORTED);
  return 4;
}

/* core.nvrtc_version() -> major, minor; or nil and why NVRTC cannot be
 * used (a build without the toolkit, the library missing) */
static int l_nvrtc_version(lua_State *L) {
  int major, minor;
  if (!gm_nvrtc_version(&major, &minor)) {
    lua_pushnil(L);
    lua_pushstring(L, gm_last_error());
    return 2;
  }
  lua_pushinteger(L, major);
  lua_pushinteger(L, minor);
  return 2;
}

/* core.kernel_load_ptx(image, name) -> handle of the kernel loaded on the
 * current context's device (a CUDA device); image is CUBIN or PTX */
static int l_kernel_load_ptx(lua_State *L) {
  const char *ptx = gml_check_string(L, 1, "define_cuda_kernel", NULL);
  const char *name = gml_check_string(L, 2, "define_cuda_kernel", NULL);
  kernel_so *k = new_kernel(L);
  GML_TRY(L, gm_kernel_load_image(ptx, name, &k->code), name);
  return 1;
}

/* core.kernel_launch(handle, name, ctype, spec, geom, args...): spec has
 * one character per parameter: 'i'/'o'/'x' a mat (input/output/io), 's'
 * a scalar, 'n' an int; geom is {gx, gy, gz, bx, by, bz}; one trailing
 * value (the launch options) is ignored.  The Lua side
 * checked the user's arguments and names them in its messages; this
 * re-checks what the core relies on. */
static int l_kernel_launch(lua_State *L) {
  const char *fn = "kernel_launch"; /* internal: the kernel object's __call */
  kernel_so *k = gml_checkudata(L, 1, KERNEL_SO, fn);
  const char *name = gml_check_string(L, 2, fn, NULL);
  const char *ct = gml_check_string(L, 3, fn, NULL);
  size_t n;
  const char *spec = gml_check_string(L, 4, fn, &n);
  if (!lua_istable(L, 5)) gml_argerror(L, 5, fn, "table expected, got %s", luaL_typename(L, 5));
  gm_ctype ctype;
  if (gm_ctype_parse(ct, &ctype) != 0) return gml_error(L, "%s: bad ctype %s", name, ct);
  gm_kernel_arg args[GM_KERNEL_MAX_ARGS];
  if (gm_kernel_parse_spec(spec, n, args) != GM_OK) return gml_error(L, "%s: %s", name, gm_last_error());
  /* the Lua side passes its call's arguments through, launch options included */
  int top = lua_gettop(L);
  if (top != 5 + (int)n && top != 6 + (int)n)
    return gml_error(L, "%s: %d arguments expected, got %d", name, (int)n, lua_gettop(L) - 5);
  long long g[6];
  for (int i = 0; i < 6; i++) {
    /* our own plain table of integers: no metamethods run */
    lua_rawgeti(L, 5, i + 1);
    g[i] = (long long)lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
  unsigned geom[6];
  if (gm_kernel_check_geometry(g, geom) != GM_OK) return gml_error(L, "%s: %s", name, gm_last_error());
  if (!k->code.cpu && !k->code.dev_kernel) return gml_error(L, "%s: kernel not loaded", name);
  /* numbers first, mats last (binding rule) */
  for (size_t i = 0; i < n; i++) {
    int idx = 6 + (int)i;
    if (args[i].kind == GM_KARG_SCALAR) {
      if (lua_type(L, idx) != LUA_TNUMBER) gml_argerror(L, (int)i + 1, name, "number expected, got %s", luaL_typename(L, idx));
      args[i].d = lua_tonumber(L, idx);
    } else if (args[i].kind == GM_KARG_INT) {
      if (!lua_isinteger(L, idx)) gml_argerror(L, (int)i + 1, name, "integer expected, got %s", luaL_typename(L, idx));
      args[i].i = (int64_t)lua_tointeger(L, idx);
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (args[i].kind != GM_KARG_MAT) continue;
    gml_mat *box = gml_testbox(L, 6 + (int)i);
    if (!box) gml_argerror(L, (int)i + 1, name, "gpumat.mat expected, got %s", luaL_typename(L, 6 + (int)i));
    if (!box->m) gml_argerror(L, (int)i + 1, name, "attempt to use a freed mat");
    args[i].m = box->m;
  }
  GML_TRY(L, gm_kernel_run(ctype, &k->code, args, (int)n, geom), name);
  return 0;
}

/* core.kernel_place(spec, args...) -> "host" | "emulated" | "cuda" [,
 * device id, compute major, compute minor]: where a launch with these
 * arguments runs (spec as for kernel_launch; only mats are looked at) */
static int l_kernel_place(lua_State *L) {
  size_t n;
  const char *spec = gml_check_string(L, 1, "kernel_place", &n);
  if (n > GM_KERNEL_MAX_ARGS) n = GM_KERNEL_MAX_ARGS;
  gm_kernel_arg args[GM_KERNEL_MAX_ARGS];
  int na = 0;
  for (size_t i = 0; i < n; i++) {
    if (!gm_kernel_spec_is_mat(spec[i])) continue;
    gml_mat *box = gml_testbox(L, 2 + (int)i);
    if (!box || !box->m) continue; /* kernel_launch reports it */
    memset(&args[na], 0, sizeof args[na]);
    args[na].kind = GM_KARG_MAT;
    args[na++].m = box->m;
  }
  gm_device *dev;
  bool nvrtc;
  gm_kernel_place(args, na, &dev, &nvrtc);
  if (!nvrtc) {
    lua_pushstring(L, dev ? "emulated" : "host");
    return 1;
  }
  int major = 0, minor = 0;
  GML_TRY(L, gm_kernel_compute_capability(dev, &major, &minor), "define_cuda_kernel");
  lua_pushstring(L, "cuda");
  lua_pushinteger(L, dev->id);
  lua_pushinteger(L, major);
  lua_pushinteger(L, minor);
  return 4;
}

/* core.kernel_launch_counts() -> host, emulated, cuda */
static int l_kernel_launch_counts(lua_State *L) {
  lua_pushinteger(L, gm_kernel_launch_count(GM_KPLACE_HOST));
  lua_pushinteger(L, gm_kernel_launch_count(GM_KPLACE_EMULATED));
  lua_pushinteger(L, gm_kernel_launch_count(GM_KPLACE_CUDA));
  return 3;
}

void gml_open_kernel(lua_State *L, int module_idx) {
  static const gml_reg meta[] = {{"__gc", so_gc, 1, NULL}, {NULL, NULL, 0, NULL}};
  if (luaL_newmetatable(L, KERNEL_SO)) gml_register(L, -1, meta);
  lua_pop(L, 1);
  static const gml_reg fns[] = {
      {"kernel_load", l_kernel_load, 1, NULL},
      {"kernel_launch", l_kernel_launch, GML_VARARGS, NULL},
      {"kernel_launch_counts", l_kernel_launch_counts, 0, NULL},
      {"kernel_place", l_kernel_place, GML_VARARGS, NULL},
      {"kernel_load_ptx", l_kernel_load_ptx, 2, NULL},
      {"nvrtc_compile", l_nvrtc_compile, 5, NULL},
      {"nvrtc_version", l_nvrtc_version, 0, NULL},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
}
