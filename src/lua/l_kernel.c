/* Run-time kernels (gm.define_cuda_kernel), C side: loading a compiled
 * kernel (a shared object exporting gpumat_kernel_launch) and launching
 * it through the core (gm_kernel_run).  Source generation, compilation
 * and caching are in lua/gpumat/kernel.lua. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/kernel.h"
#include "../core/mem/device.h"
#include "../core/mem/runtime.h"
#include "util.h"

#define KERNEL_SO "gpumat.kernel_so"
#define KERNEL_PTX "gpumat.kernel_ptx"

/* a kernel's NVRTC build: PTX and entry name (copies), loaded lazily by
 * the cuda backend into slot */
typedef struct kernel_ptx {
  gm_device_kernel dk;
  char *ptx;
  char name[64];
} kernel_ptx;

static int ptx_gc(lua_State *L) {
  kernel_ptx *k = luaL_checkudata(L, 1, KERNEL_PTX);
  /* unreachable: no new launch can use it; gm_rt_kernel_free waits for
   * the device's queued work before unloading the code */
  gm_rt_kernel_free(k->dk.slot);
  k->dk.slot = NULL;
  free(k->ptx);
  k->ptx = NULL;
  k->dk.ptx = NULL;
  return 0;
}

/* core.kernel_ptx_load(ptx, name) -> handle of the NVRTC build */
static int l_kernel_ptx_load(lua_State *L) {
  size_t n;
  const char *ptx = luaL_checklstring(L, 1, &n);
  size_t nn;
  const char *name = luaL_checklstring(L, 2, &nn);
  if (nn == 0 || nn >= 64) return luaL_error(L, "kernel_ptx_load: bad kernel name");
  kernel_ptx *k = lua_newuserdatauv(L, sizeof *k, 0);
  memset(k, 0, sizeof *k);
  luaL_setmetatable(L, KERNEL_PTX);
  k->ptx = malloc(n + 1);
  if (!k->ptx) return luaL_error(L, "not enough memory");
  memcpy(k->ptx, ptx, n + 1);
  memcpy(k->name, name, nn + 1);
  k->dk.ptx = k->ptx;
  k->dk.name = k->name;
  return 1;
}

/* core.kernel_cuda_arch() -> major, minor of the current context's device
 * when it is a CUDA device (run-time kernels go through NVRTC), else nil */
static int l_kernel_cuda_arch(lua_State *L) {
  gm_device *d = gm_current_device();
  if (!d || strcmp(d->ops->name, "cuda") != 0 || !d->ops->get_info) return 0;
  gm_device_info in;
  GML_TRY(L, d->ops->get_info(d, &in), "define_cuda_kernel");
  lua_pushinteger(L, in.compute_major);
  lua_pushinteger(L, in.compute_minor);
  return 2;
}

typedef struct kernel_so {
  void *handle;
  gm_cpu_kernel_fn fn;
} kernel_so;

static int so_gc(lua_State *L) {
  kernel_so *k = luaL_checkudata(L, 1, KERNEL_SO);
  /* code of a loaded kernel is never unloaded while a launch could run:
   * launches are synchronous, and the userdata is unreachable here */
  if (k->handle) dlclose(k->handle);
  k->handle = NULL;
  k->fn = NULL;
  return 0;
}

/* core.kernel_load(path) -> handle, or nil and dlerror's message */
static int l_kernel_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  kernel_so *k = lua_newuserdatauv(L, sizeof *k, 0);
  k->handle = NULL;
  k->fn = NULL;
  luaL_setmetatable(L, KERNEL_SO);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    lua_pushnil(L);
    lua_pushstring(L, dlerror());
    return 2;
  }
  k->handle = h;
  void *sym = dlsym(h, "gpumat_kernel_launch");
  if (!sym) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: no gpumat_kernel_launch", path);
    return 2;
  }
  memcpy(&k->fn, &sym, sizeof sym);
  return 1;
}

/* core.kernel_launch(handle, name, ctype, spec, geom, ptx, args...): ptx is
 * the NVRTC build (kernel_ptx_load) or false; spec has
 * one character per parameter: 'i'/'o'/'x' a mat (input/output/io), 's'
 * a scalar, 'n' an int; geom is {gx, gy, gz, bx, by, bz}; one trailing
 * value (the launch options) is ignored.  The Lua side
 * checked the user's arguments and names them in its messages; this
 * re-checks what the core relies on. */
static int l_kernel_launch(lua_State *L) {
  kernel_so *k = luaL_checkudata(L, 1, KERNEL_SO);
  const char *name = luaL_checkstring(L, 2);
  const char *ct = luaL_checkstring(L, 3);
  size_t n;
  const char *spec = luaL_checklstring(L, 4, &n);
  luaL_checktype(L, 5, LUA_TTABLE);
  gm_ctype ctype;
  if (gm_ctype_parse(ct, &ctype) != 0) return luaL_error(L, "%s: bad ctype %s", name, ct);
  if (n > GM_KERNEL_MAX_ARGS) return luaL_error(L, "%s: at most %d parameters", name, GM_KERNEL_MAX_ARGS);
  /* the Lua side passes its call's arguments through, launch options included */
  int top = lua_gettop(L);
  if (top != 6 + (int)n && top != 7 + (int)n)
    return luaL_error(L, "%s: %d arguments expected, got %d", name, (int)n, lua_gettop(L) - 6);
  kernel_ptx *kp = NULL;
  if (lua_toboolean(L, 6)) kp = luaL_checkudata(L, 6, KERNEL_PTX);
  if (kp && !kp->dk.ptx) return luaL_error(L, "%s: kernel's NVRTC build was freed", name);
  unsigned geom[6];
  for (int i = 0; i < 6; i++) {
    /* our own plain table of integers: no metamethods run */
    lua_rawgeti(L, 5, i + 1);
    lua_Integer v = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (v < 1 || v > 0x7fffffff) return luaL_error(L, "%s: bad launch geometry", name);
    geom[i] = (unsigned)v;
  }
  if (!k->fn) return luaL_error(L, "%s: kernel not loaded", name);
  gm_kernel_arg args[GM_KERNEL_MAX_ARGS];
  /* numbers first, mats last (binding rule) */
  for (size_t i = 0; i < n; i++) {
    int idx = 7 + (int)i;
    memset(&args[i], 0, sizeof args[i]);
    if (spec[i] == 's') {
      if (lua_type(L, idx) != LUA_TNUMBER) gml_argerror(L, (int)i + 1, name, "number expected, got %s", luaL_typename(L, idx));
      args[i].kind = GM_KARG_SCALAR;
      args[i].d = lua_tonumber(L, idx);
    } else if (spec[i] == 'n') {
      if (!lua_isinteger(L, idx)) gml_argerror(L, (int)i + 1, name, "integer expected, got %s", luaL_typename(L, idx));
      args[i].kind = GM_KARG_INT;
      args[i].i = (int64_t)lua_tointeger(L, idx);
    } else if (spec[i] == 'i' || spec[i] == 'o' || spec[i] == 'x') {
      args[i].kind = GM_KARG_MAT;
      args[i].dir = spec[i] == 'i' ? GM_INPUT : spec[i] == 'o' ? GM_OUTPUT : GM_IO;
    } else {
      return luaL_error(L, "%s: bad parameter spec", name);
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (args[i].kind != GM_KARG_MAT) continue;
    gml_mat *box = luaL_testudata(L, 7 + (int)i, GML_MAT_MT);
    if (!box) gml_argerror(L, (int)i + 1, name, "gpumat.mat expected, got %s", luaL_typename(L, 7 + (int)i));
    if (!box->m) gml_argerror(L, (int)i + 1, name, "attempt to use a freed mat");
    args[i].m = box->m;
  }
  GML_TRY(L, gm_kernel_run(ctype, k->fn, kp ? &kp->dk : NULL, args, (int)n, geom), name);
  return 0;
}

/* core.kernel_launch_counts() -> host, emulated, cuda */
static int l_kernel_launch_counts(lua_State *L) {
  lua_pushinteger(L, gm_kernel_launch_count(false));
  lua_pushinteger(L, gm_kernel_launch_count(true));
  lua_pushinteger(L, gm_kernel_cuda_launch_count());
  return 3;
}

/* core.nvrtc_compile(src, name, major, minor) -> ptx; a compile error
 * raises the nvrtc_error object with the compiler's `log` */
static int l_nvrtc_compile(lua_State *L) {
  const char *src = luaL_checkstring(L, 1);
  const char *name = luaL_checkstring(L, 2);
  lua_Integer major = luaL_checkinteger(L, 3), minor = luaL_checkinteger(L, 4);
  if (major < 1 || major > 99 || minor < 0 || minor > 9)
    return gml_argerror(L, 3, "nvrtc_compile_ptx", "bad compute capability %d.%d", (int)major, (int)minor);
  char *ptx = NULL, *log = NULL;
  gm_status st = gm_nvrtc_compile(src, name, (int)major, (int)minor, &ptx, &log);
  if (st != GM_OK) {
    /* the log goes onto the Lua stack and is freed before raising */
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    if (log) luaL_addstring(&b, log);
    free(log);
    luaL_pushresult(&b);
    return gml_raise_with_log(L, st, "nvrtc_compile_ptx", lua_tostring(L, -1));
  }
  free(log);
  /* only a Lua memory error can raise here (then ptx leaks once) */
  lua_pushstring(L, ptx);
  free(ptx);
  return 1;
}

/* core.nvrtc_version() -> major, minor, or raises when NVRTC is absent */
static int l_nvrtc_version(lua_State *L) {
  int major, minor;
  GML_TRY(L, gm_nvrtc_version(&major, &minor), "nvrtc_version");
  lua_pushinteger(L, major);
  lua_pushinteger(L, minor);
  return 2;
}

void gml_open_kernel(lua_State *L, int module_idx) {
  if (luaL_newmetatable(L, KERNEL_SO)) {
    lua_pushcfunction(L, so_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, KERNEL_PTX)) {
    lua_pushcfunction(L, ptx_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
  static const luaL_Reg fns[] = {
      {"kernel_load", l_kernel_load},
      {"kernel_launch", l_kernel_launch},
      {"kernel_launch_counts", l_kernel_launch_counts},
      {"nvrtc_compile", l_nvrtc_compile},
      {"kernel_ptx_load", l_kernel_ptx_load},
      {"kernel_cuda_arch", l_kernel_cuda_arch},
      {"nvrtc_version", l_nvrtc_version},
      {NULL, NULL},
  };
  gml_register(L, module_idx, fns);
}
