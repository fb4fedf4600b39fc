/* luaopen_gpumat_core: builds the C module table from the areas.  Each
 * area (l_*.c) registers its functions with gml_register. */
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
  gml_open_settings(L, mod);
  gml_open_mat(L, mod);
  lua_pushstring(L, GPUMAT_VERSION);
  lua_setfield(L, mod, "version");
  return 1;
}
