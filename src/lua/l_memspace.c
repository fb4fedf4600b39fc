/* Memory spaces in Lua: ensure (core/mem/buffer.h for buffers,
 * core/mem/memspace.h for mats), mat_from_buffer, and the scoped allocation
 * caches (core/mem/cache.c; the scope stack is driven from
 * lua/gpumat/buffer.lua's gm.cached).  This file reads arguments and
 * pushes results. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/io/buffer_args.h"
#include "../core/model/context.h"
#include "../core/mem/runtime.h"
#include "../core/mem/memspace.h"
#include "l_buffer.h"

#define GML_CACHE_MT "gpumat.alloc_cache"

typedef struct ensure_args {
  gm_mem_type mt;
  gm_ensure_options o;
} ensure_args;

static gm_mem_type check_mem_type(lua_State *L, int idx, const char *fn) {
  /* a type name is never a memory type: the message says what was given */
  const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : luaL_typename(L, idx);
  gm_mem_type mt = GM_MEM_HOST;
  if (gm_mem_type_parse(s, &mt) != GM_OK) gml_argerror(L, idx, fn, "%s", gm_last_error());
  return mt;
}

static void read_ensure_args(lua_State *L, ensure_args *a) {
  const char *fn = "ensure";
  static const char *const opts[] = {"ctype", "element_type", "layout", "direction", NULL};
  a->mt = check_mem_type(L, 2, fn);
  gml_check_options(L, 3, fn, opts);
  const char *given[GM_N_ENSURE_OPTIONS]; /* the values stay on the stack while parsed */
  for (int i = 0; i < GM_N_ENSURE_OPTIONS; i++)
    given[i] = !gml_opt_push(L, 3, opts[i]) ? NULL
               : lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
  if (gm_ensure_options_parse(given, &a->o) != GM_OK) gml_argerror(L, 3, fn, "%s", gm_last_error());
}

static int ensure_buffer(lua_State *L, const ensure_args *a) {
  gml_buffer *nb = gml_newbuffer(L);
  gml_buffer *b = gml_checkbuffer(L, 1, "ensure");
  gm_etype et = a->o.has_et ? a->o.et : b->et;
  GML_TRY(L, gm_buffer_ensure_view(b, a->mt, gm_current_device(), et, a->o.col_major, nb), "ensure");
  return 1;
}

/* A view of a mat's facet (a stale facet costs one counted copy), held
 * while the view lives, or an owning converted copy. */
static int ensure_mat(lua_State *L, const ensure_args *a) {
  gml_buffer *nb = gml_newbuffer(L);
  gm_mat *m = gml_checkmat(L, 1, "ensure");
  gm_etype et = a->o.has_et ? a->o.et : gm_etype_of_ctype(m->ctype);
  GML_TRY(L, gm_mat_ensure_view(m, a->mt, gm_current_device(), et, a->o.col_major, a->o.dir, nb), "ensure");
  return 1;
}

/* core.ensure(x, mem_type, opts): x a mat or a gpumat buffer (Lua tables
 * are made into buffers by buffer.lua first). */
static int l_ensure(lua_State *L) {
  ensure_args a;
  read_ensure_args(L, &a);
  lua_settop(L, 3);
  if (gml_testbuffer(L, 1)) return ensure_buffer(L, &a);
  if (gml_ismat(L, 1)) return ensure_mat(L, &a);
  return gml_argerror(L, 1, "ensure", "mat, buffer or Lua table expected, got %s", luaL_typename(L, 1));
}

/* gm.mat_from_buffer(b, {dims, ctype, displacement}) */
static int l_mat_from_buffer(lua_State *L) {
  const char *fn = "mat_from_buffer";
  static const char *const opts[] = {"dims", "ctype", "displacement", "cuda_enabled", NULL};
  gml_buffer *b = gml_checkbuffer(L, 1, fn);
  gml_check_options(L, 2, fn, opts);
  bool has_ctype = gml_opt_push(L, 2, "ctype");
  /* a type name is never a ctype: a value that is no string is refused */
  const char *want = !has_ctype ? NULL : lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
  gm_ctype ct;
  int bad;
  if (gm_mat_buffer_ctype(b, want, &ct, &bad) != GM_OK) gml_argerror(L, bad, fn, "%s", gm_last_error());
  if (has_ctype) lua_pop(L, 1);
  size_t es = gm_etype_size(b->et);
  int rank = b->rank;
  size_t dims[GM_MAX_RANK];
  memcpy(dims, b->dims, sizeof dims);
  if (gml_opt_push(L, 2, "dims")) {
    rank = gml_check_dims(L, lua_gettop(L), fn, dims);
    lua_pop(L, 1);
  }
  size_t disp = gml_opt_size(L, 2, "displacement", b->offset / es, fn);
  bool cuda_enabled = gml_opt_boolean(L, 2, "cuda_enabled", gml_settings_of(L)->default_mat_cuda_enabled, fn);
  gm_mat_options o = {0};
  o.cuda_enabled = cuda_enabled;
  o.synchronization = gml_settings_of(L)->default_synchronization;
  gm_mat *m;
  gm_status st = gm_mat_over_buffer(b, rank, dims, disp, &o, &m, &bad);
  if (st == GM_EINVAL && bad) return gml_argerror(L, bad, fn, "%s", gm_last_error());
  GML_TRY(L, st, fn);
  gml_pushmat(L, m);
  return 1;
}

/* ---- scoped allocation caches ---- */

typedef struct gml_cache {
  gm_alloc_cache *c; /* NULL once closed */
} gml_cache;

static gml_cache *check_cache(lua_State *L, int idx, const char *fn) {
  gml_cache *c = luaL_testudata(L, idx, GML_CACHE_MT);
  if (!c) gml_argerror(L, idx, fn, "alloc cache expected, got %s", luaL_typename(L, idx));
  if (!c->c) gml_argerror(L, idx, fn, "the alloc cache is closed");
  return c;
}

static int release_cache(lua_State *L, const char *fn) {
  gml_cache *c = gml_checkudata(L, 1, GML_CACHE_MT, fn);
  gm_alloc_cache_unref(c->c); /* scopes still active keep it until they end */
  c->c = NULL;
  return 0;
}
static int cache_gc(lua_State *L) { return release_cache(L, "__gc"); }
static int cache_close(lua_State *L) { return release_cache(L, "__close"); }

static int l_alloc_cache(lua_State *L) {
  gml_cache *c = lua_newuserdatauv(L, sizeof *c, 0);
  c->c = NULL;
  luaL_setmetatable(L, GML_CACHE_MT);
  GML_TRY(L, gm_alloc_cache_new(&c->c), "alloc_cache");
  return 1;
}

static int l_cache_stats(lua_State *L) {
  gml_cache *c = check_cache(L, 1, "stats");
  gm_cache_stats s = gm_alloc_cache_stats(c->c);
  static const char *const names[] = {"n_blocks", "n_bytes", "n_hits", "n_misses"};
  const size_t values[] = {s.n_blocks, s.n_bytes, s.n_hits, s.n_misses};
  lua_createtable(L, 0, 4);
  for (int i = 0; i < 4; i++) {
    lua_pushinteger(L, (lua_Integer)values[i]);
    lua_setfield(L, -2, names[i]);
  }
  return 1;
}

static int l_cache_free(lua_State *L) {
  gml_cache *c = check_cache(L, 1, "free");
  GML_TRY(L, gm_alloc_cache_free(c->c), "free");
  return 0;
}

/* core.cache_push(cache | nil) -> scope (light userdata) */
static int l_cache_push(lua_State *L) {
  gm_alloc_cache *c = lua_isnil(L, 1) ? NULL : check_cache(L, 1, "cached")->c;
  gm_cache_scope *s;
  GML_TRY(L, gm_cache_scope_push(c, &s), "cached");
  lua_pushlightuserdata(L, s);
  return 1;
}

/* core.cache_finish(scope, ok, ...): the end of gm.cached/gm.uncached,
 * given pcall's results: keeps the direct results' blocks (mats and buffers),
 * pops the scope, then returns the results or raises the error value as
 * is (error(e, 0)).  One C call instead of table.pack/unpack and a Lua
 * loop per scope.  No Lua code runs here (no allocation either). */
static int l_cache_finish(lua_State *L) {
  if (lua_type(L, 1) != LUA_TLIGHTUSERDATA) gml_argerror(L, 1, "cached", "scope expected, got %s", luaL_typename(L, 1));
  int ok = lua_toboolean(L, 2), top = lua_gettop(L);
  if (ok)
    for (int i = 3; i <= top; i++) {
      gml_buffer *b = gml_testbuffer(L, i);
      if (b && b->blk) gm_block_keep(b->blk);
      gml_mat *box = gml_testbox(L, i);
      if (box && box->m) gm_vec_keep(box->m->vec);
    }
  GML_TRY(L, gm_cache_scope_pop(lua_touserdata(L, 1)), "cached");
  if (!ok) {
    lua_settop(L, 3);
    return lua_error(L);
  }
  return top - 2;
}

static int l_cache_check(lua_State *L) {
  check_cache(L, 1, "cached");
  return 0;
}

static int l_current_device_p(lua_State *L) {
  lua_pushboolean(L, gm_current_device() != NULL);
  return 1;
}

void gml_open_memspace(lua_State *L, int module_idx) {
  static const gml_reg meta[] = {{"__gc", cache_gc, 1, NULL}, {"__close", cache_close, 2, NULL}, {NULL, NULL, 0, NULL}};
  static const gml_reg methods[] = {{"stats", l_cache_stats, 1, NULL}, {"free", l_cache_free, 1, NULL}, {NULL, NULL, 0, NULL}};
  luaL_newmetatable(L, GML_CACHE_MT);
  gml_register(L, -1, meta);
  gml_newlib(L, methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  static const gml_reg fns[] = {{"ensure_core", l_ensure, 3, "ensure"},
                                 {"mat_from_buffer", l_mat_from_buffer, 2, NULL},
                                 {"alloc_cache", l_alloc_cache, 0, NULL},
                                 {"cache_push", l_cache_push, 1, "cached"},
                                 {"cache_finish", l_cache_finish, GML_VARARGS, "cached"},
                                 {"cache_check", l_cache_check, 1, "cached"},
                                 {"current_device_p", l_current_device_p, 0, NULL},
                                 {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
