/* Debugging aids for mats (MGL-MAT §17): allocation counters for
 * with_mat_counters and the foreign memory report of foreign_room. */
#include <stdio.h>
#include <string.h>

#include "../core/counters.h"
#include "util.h"

/* core.mat_counters() -> n_mats_created, n_mat_bytes_created (process-wide
 * running totals; with_mat_counters takes differences). */
static int l_mat_counters(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)atomic_load(&gm_counter.n_mats_created));
  lua_pushinteger(L, (lua_Integer)atomic_load(&gm_counter.n_mat_bytes_created));
  return 2;
}

/* 3386295808 -> "3,386,295,808" as in MGL's reports. */
static void with_commas(long x, char *out, size_t n) {
  char digits[32];
  snprintf(digits, sizeof digits, "%ld", x < 0 ? -x : x);
  size_t len = strlen(digits), k = 0;
  if (x < 0 && k + 1 < n) out[k++] = '-';
  for (size_t i = 0; i < len && k + 2 < n; i++) {
    if (i > 0 && (len - i) % 3 == 0) out[k++] = ',';
    out[k++] = digits[i];
  }
  out[k] = '\0';
}

/* gm.foreign_room({verbose = true}) -> report text */
static int l_foreign_room(lua_State *L) {
  static const char *const opts[] = {"verbose", NULL};
  gml_check_options(L, 1, "foreign_room", opts);
  bool verbose = gml_opt_boolean(L, 1, "verbose", true, "foreign_room");
  long n = atomic_load(&gm_counter.n_host_arrays);
  char count[40], bytes[40];
  with_commas(n, count, sizeof count);
  with_commas(atomic_load(&gm_counter.host_bytes_in_use), bytes, sizeof bytes);
  if (verbose)
    lua_pushfstring(L, "Foreign memory usage:\nforeign arrays: %s (used bytes: %s)\n", count, bytes);
  else
    lua_pushfstring(L, "f: %s (%s)\n", count, bytes);
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
