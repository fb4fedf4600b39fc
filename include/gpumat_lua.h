/* gpumat for applications that host Lua 5.4 (link libgpumat).
 *
 *   luaL_openlibs(L);
 *   luaL_requiref(L, "gpumat", luaopen_gpumat, 1);  // the complete module
 *   lua_pop(L, 1);
 *
 * The module's Lua parts are compiled into the library, so no
 * package.path / package.cpath set-up is needed: luaopen_gpumat puts
 * "gpumat", "gpumat.core" and every "gpumat.<part>" into package.preload
 * (the package library must be open), so a script's require "gpumat"
 * returns the same module.  Unlike the rest of the C API these are Lua C
 * functions: they report errors by raising Lua errors (call them inside
 * lua_pcall where that matters). */
#ifndef GPUMAT_LUA_H
#define GPUMAT_LUA_H

#include <lua.h>

#include "gpumat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the module; returns 1 (the module table on the stack). */
GM_API int luaopen_gpumat(lua_State *L);
/* Pushes a Lua mat that is a new view of m's storage (same shape,
 * displacement, ctype, cuda_enabled): the Lua value holds its own
 * reference, so the caller may gm_mat_free(m) at any time.  Needs
 * luaopen_gpumat first. */
GM_API void gpumat_pushmat(lua_State *L, const gm_mat *m);
/* The mat at idx, borrowed: valid while that Lua value is alive and not
 * freed (m:free()); reshaping in Lua changes it in place.  gpumat_checkmat
 * raises a Lua argument error when idx is not a live mat; gpumat_testmat
 * returns NULL then.  Take a reference of your own with gm_mat_view. */
GM_API gm_mat *gpumat_checkmat(lua_State *L, int idx);
GM_API gm_mat *gpumat_testmat(lua_State *L, int idx);
/* Pushes a DLPack capsule owning t (a tensor from PyTorch, CuPy, JAX or
 * gm_mat_to_dlpack): gm.from_dlpack(capsule) makes it a mat without a
 * copy; a capsule nobody consumes calls t->deleter(t) when it is
 * collected.  t NULL raises. */
GM_API void gpumat_pushdlpack(lua_State *L, struct DLManagedTensorVersioned *t);

#ifdef __cplusplus
}
#endif

#endif
