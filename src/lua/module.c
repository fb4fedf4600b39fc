/* luaopen_gpumat_core: builds the C module table from the areas.  Each
 * area (l_*.c) registers its functions with gml_register. */
#include "l_buffer.h"
#include "util.h"

#if defined(__GNUC__)
#define GM_EXPORT __attribute__((visibility("default")))
#else
#define GM_EXPORT
#endif

GM_EXPORT int luaopen_gpumat_core(lua_State *L);

int luaopen_gpumat_core(lua_State *L) {
  lua_newtable(L);
  int mod = lua_gettop(L);
  gml_open_util(L, mod);
  gml_open_settings(L, mod);
  gml_open_mat(L, mod);
  gml_open_elementwise(L, mod);
  gml_open_nn(L, mod);
  gml_open_random(L, mod);
  gml_open_io(L, mod);
  gml_open_print(L, mod);
  gml_open_shape(L, mod);
  gml_open_view(L, mod);
  gml_open_facet(L, mod);
  gml_open_matdebug(L, mod);
  gml_open_blas(L, mod);
  gml_open_nondestructive(L, mod);
  gml_open_cuda(L, mod);
  gml_open_buffer(L, mod);
  gml_open_memspace(L, mod);
  gml_open_operators(L, mod);
  gml_open_broadcast(L, mod);
  gml_open_reduce_axis(L, mod);
  gml_open_constructors(L, mod);
  gml_open_kernel(L, mod);
  gml_open_emukern(L, mod);
  lua_pushstring(L, GPUMAT_VERSION);
  lua_setfield(L, mod, "version");
  return 1;
}
