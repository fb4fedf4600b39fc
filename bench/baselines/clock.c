/* Wall clock for the Lua benchmark harness.  Lua's os.clock() is process CPU
 * time, which over-counts multi-threaded calls (OpenBLAS gemm) and counts
 * nothing while waiting, so the harness compiles this into bench/out/ and
 * uses CLOCK_MONOTONIC instead. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include <lua.h>
#include <lauxlib.h>

static int l_now(lua_State *L)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec * 1e-9);
  return 1;
}

int luaopen_benchclock(lua_State *L);
int luaopen_benchclock(lua_State *L)
{
  lua_newtable(L);
  lua_pushcfunction(L, l_now);
  lua_setfield(L, -2, "now");
  return 1;
}
