/* gm.emulated_kernel_launches(): the launch counters of kernels/NAME.cu as
 * compiled for the emulated device (kernels/cpu/emu_kernel_stats.h), so a
 * spec can prove that an op ran the .cu kernel and not a host loop. */
#include <string.h>

#include "../../kernels/cpu/emu_kernel_stats.h"
#include "util.h"

/* -> {[kernel name] = {launches = n, parallel = launches whose blocks ran
 *     on more than one OS thread, file = path of the .cu, sync = bool}}
 * (process-wide running totals; a kernel appears after its first launch;
 * two launch sites of one kernel add up). */
static int l_emulated_kernel_launches(lua_State *L) {
  /* copied first into a buffer of the registry's size (sites register at
   * their first launch, so it may grow between the count and the copy: then
   * again, larger): no Lua allocation while reading the registry, and no
   * fixed cap (the suite's op-table test alone launches hundreds) */
  size_t n = gm_emu_kernel_stats(NULL, 0), cap;
  gm_emu_kernel_counter *sites;
  do {
    cap = n + 16;
    lua_settop(L, 0);
    sites = lua_newuserdatauv(L, cap * sizeof *sites, 0);
    n = gm_emu_kernel_stats(sites, cap);
  } while (n > cap);
  lua_createtable(L, 0, (int)n);
  for (size_t i = 0; i < n; i++) {
    if (lua_getfield(L, -1, sites[i].name) == LUA_TTABLE) {
      lua_getfield(L, -1, "launches");
      lua_Integer prev = lua_tointeger(L, -1);
      lua_pop(L, 1);
      lua_pushinteger(L, prev + (lua_Integer)sites[i].launches);
      lua_setfield(L, -2, "launches");
      lua_getfield(L, -1, "parallel");
      prev = lua_tointeger(L, -1);
      lua_pop(L, 1);
      lua_pushinteger(L, prev + (lua_Integer)sites[i].parallel_launches);
      lua_setfield(L, -2, "parallel");
      lua_pop(L, 1);
      continue;
    }
    lua_pop(L, 1);
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)sites[i].launches);
    lua_setfield(L, -2, "launches");
    lua_pushinteger(L, (lua_Integer)sites[i].parallel_launches);
    lua_setfield(L, -2, "parallel");
    lua_pushstring(L, sites[i].file);
    lua_setfield(L, -2, "file");
    lua_pushboolean(L, sites[i].sync);
    lua_setfield(L, -2, "sync");
    lua_setfield(L, -2, sites[i].name);
  }
  return 1; /* the table (the buffer below it is garbage) */
}

void gml_open_emukern(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"emulated_kernel_launches", l_emulated_kernel_launches, 1, NULL},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
}
