/* Debugging aids for mats (MGL-MAT §17): allocation counters for
 * with_mat_counters and the foreign memory report of foreign_room
 * (its text: core/io/format.c). */
#include "../core/model/counters.h"
#include "../core/io/format.h"
#include "util.h"

/* core.mat_counters() -> n_mats_created, n_mat_bytes_created (process-wide
 * running totals; with_mat_counters takes differences). */
static int l_mat_counters(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)atomic_load(&gm_counter.n_mats_created));
  lua_pushinteger(L, (lua_Integer)atomic_load(&gm_counter.n_mat_bytes_created));
  return 2;
}

/* gm.foreign_room({verbose = true}) -> report text */
static int l_foreign_room(lua_State *L) {
  static const char *const opts[] = {"verbose", NULL};
  gml_check_options(L, 1, "foreign_room", opts);
  char text[160];
  gm_foreign_room_text(gml_opt_boolean(L, 1, "verbose", true, "foreign_room"), text, sizeof text);
  lua_pushstring(L, text);
  return 1;
}

void gml_open_matdebug(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"mat_counters", l_mat_counters, 0, NULL},
      {"foreign_room", l_foreign_room, 1, NULL},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
}
