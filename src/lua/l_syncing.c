/* with_syncing_cuda_facets (MGL-MAT §18.3.1): reads the two lists of mats
 * and the options; the copies, locks and the end are core/model/syncing.c's. */
#include "../core/model/syncing.h"
#include "util.h"

#define GML_SYNC_MT "gpumat.syncing_cuda_facets"
static const char *const FNAME = "with_syncing_cuda_facets";

/* Counts the mats of the list at arg (nil = empty) and checks them; the
 * vecs are taken in a second pass, once their number is known to be the
 * number of mats the list holds. */
static size_t check_list(lua_State *L, int arg) {
  if (lua_isnoneornil(L, arg)) return 0;
  if (!lua_istable(L, arg)) gml_argerror(L, arg, FNAME, "list of mats expected, got %s", luaL_typename(L, arg));
  lua_Integer n = luaL_len(L, arg);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, arg, i);
    gml_mat *box = gml_testbox(L, -1);
    if (!box) gml_argerror(L, arg, FNAME, "element %d is not a mat (%s)", (int)i, luaL_typename(L, -1));
    if (!box->m) gml_argerror(L, arg, FNAME, "element %d is a freed mat", (int)i);
    lua_pop(L, 1);
  }
  return (size_t)n;
}

/* Stores the vecs of the n mats of the list at arg: a list's metamethods
 * may answer differently the second time, so each is re-checked and
 * pinned. */
static void read_list(lua_State *L, int arg, size_t n, gm_vec **vecs) {
  for (size_t i = 1; i <= n; i++) {
    lua_geti(L, arg, (lua_Integer)i);
    gml_mat *box = gml_testbox(L, -1);
    if (!box || !box->m) gml_argerror(L, arg, FNAME, "element %d changed while being read", (int)i);
    gml_pin(L, -1);
    vecs[i - 1] = box->m->vec;
    lua_pop(L, 1);
  }
}

/* core.syncing_cuda_facets(to_cuda, to_cuda_host, opts) -> token */
static int l_syncing_begin(lua_State *L) {
  gml_guard(L, 3); /* the lists' metamethods run while their mats are held */
  size_t n1 = check_list(L, 1), n2 = check_list(L, 2);
  static const char *const allowed[] = {"safe", NULL};
  gml_check_options(L, 3, FNAME, allowed);
  bool safe = gml_opt_boolean(L, 3, "safe", gml_settings_of(L)->syncing_cuda_facets_safe, FNAME);
  gm_vec **to_cuda = lua_newuserdatauv(L, (n1 + n2) * sizeof *to_cuda, 0), **to_host = to_cuda + n1;
  read_list(L, 1, n1, to_cuda);
  read_list(L, 2, n2, to_host);
  size_t j = gm_syncing_find_shared(to_cuda, n1, to_host, n2);
  if (j) gml_argerror(L, 2, FNAME, "element %d is also in to_cuda", (int)j);
  gm_syncing *s = lua_newuserdatauv(L, sizeof *s, 0);
  *s = (gm_syncing){NULL, safe, 0, 0, NULL};
  luaL_setmetatable(L, GML_SYNC_MT);
  GML_TRY(L, gm_syncing_begin(s, safe, to_cuda, n1, to_host, n2), FNAME);
  return 1;
}

static int l_syncing_close(lua_State *L) {
  gm_status st = gm_syncing_end(gml_checkudata(L, 1, GML_SYNC_MT, "__close"));
  if (st != GM_OK && lua_isnoneornil(L, 2)) return gml_raise(L, st, FNAME);
  return 0;
}

/* __gc without close (abandoned coroutine): no Lua and no device error
 * reported from a finalizer. */
static int l_syncing_gc(lua_State *L) {
  gm_syncing_abandon(gml_checkudata(L, 1, GML_SYNC_MT, "__gc"));
  return 0;
}

void gml_open_syncing(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"syncing_cuda_facets", l_syncing_begin, 3, NULL}, {NULL, NULL, 0, NULL}};
  static const gml_reg meta[] = {{"__close", l_syncing_close, 2, NULL}, {"__gc", l_syncing_gc, 1, NULL},
                                 {NULL, NULL, 0, NULL}};
  if (luaL_newmetatable(L, GML_SYNC_MT)) gml_register(L, -1, meta);
  lua_pop(L, 1);
  gml_register(L, module_idx, fns);
}
