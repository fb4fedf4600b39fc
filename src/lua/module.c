/* luaopen_gpumat_core: builds the C module table from the areas.  Each
 * area (l_*.c) registers its functions with gml_register. */
#include "l_buffer.h"
#include "l_dlpack.h"
#include "util.h"

#if defined(__GNUC__)
#define GM_EXPORT __attribute__((visibility("default")))
#else
#define GM_EXPORT
#endif

GM_EXPORT int luaopen_gpumat_core(lua_State *L);

/* The areas, opened in this order: later ones add methods to tables
 * that earlier ones made (the mat metatable of l_mat.c). */
static void (*const areas[])(lua_State *L, int module_idx) = {
    gml_open_util,
    gml_open_complex,
    gml_open_settings,
    gml_open_mat,
    gml_open_elementwise,
    gml_open_nn,
    gml_open_random,
    gml_open_io,
    gml_open_format,
    gml_open_shaping,
    gml_open_view,
    gml_open_facet,
    gml_open_matdebug,
    gml_open_blas,
    gml_open_nondestructive,
    gml_open_context,
    gml_open_buffer,
    gml_open_memspace,
    gml_open_dlpack,
    gml_open_operators,
    gml_open_broadcast,
    gml_open_reduce_axis,
    gml_open_scan,
    gml_open_index,
    gml_open_constructors,
    gml_open_fft,
    gml_open_kernel,
    gml_open_emukern,
    gml_open_repl,
};

int luaopen_gpumat_core(lua_State *L) {
  lua_newtable(L);
  int mod = lua_gettop(L);
  for (size_t i = 0; i < sizeof areas / sizeof areas[0]; i++) areas[i](L, mod);
  lua_pushstring(L, GPUMAT_VERSION);
  lua_setfield(L, mod, "version");
  return 1;
}
