/* Memory spaces (seed 001) and where mats and buffers meet: ensure (a
 * view of a mat's facet or of a buffer when nothing needs copying, an
 * owning copy otherwise), mat_from_buffer (a mat over a buffer's block),
 * and the scoped allocation caches of seed 004 (the scope stack is driven
 * from lua/gpumat/buffer.lua's gm.cached). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/mem/runtime.h"
#include "l_buffer.h"

#define GML_CACHE_MT "gpumat.alloc_cache"

typedef enum mem_type { MT_HOST = 0, MT_PINNED, MT_DEVICE, MT_MANAGED } mem_type;
static const char *const mem_type_names[] = {"host", "pinned", "device", "managed", NULL};
static const gm_space mem_type_space[] = {GM_SPACE_HOST, GM_SPACE_PINNED, GM_SPACE_DEVICE, GM_SPACE_MANAGED};

/* Whether a view of block b as memory type t needs no copy. */
static bool accessible(const gm_block *b, mem_type t) {
  switch (t) {
    case MT_HOST:
      return b->space != GM_SPACE_DEVICE;
    case MT_PINNED:
      return b->space == GM_SPACE_PINNED || b->registered_on;
    case MT_DEVICE:
      return b->space == GM_SPACE_DEVICE || b->space == GM_SPACE_MANAGED ||
             (b->space == GM_SPACE_PINNED && (b->flags & GM_PINNED_MAPPED));
    case MT_MANAGED:
      return b->space == GM_SPACE_MANAGED;
  }
  return false;
}

/* Element k (row-major) of src, converted into dst at k; both whole
 * buffers of one size.  Integers go through int64, reals through double;
 * a real that does not fit an integer type is an error. */
static gm_status convert_copy(gml_buffer *dst, gml_buffer *src) {
  size_t n = src->size, se = gm_etype_size(src->et), de = gm_etype_size(dst->et);
  if (src->et == dst->et && src->col_major == dst->col_major)
    return gm_block_copy((gm_copy_end){dst->blk, dst->offset, NULL}, (gm_copy_end){src->blk, src->offset, NULL},
                         n * se);
  char *a = malloc(n * se + 1), *b = malloc(n * de + 1);
  gm_status st = a && b ? GM_OK : gm_fail(GM_ENOMEM, "out of host memory");
  if (st == GM_OK) st = gml_buffer_read(src, 0, n, a);
  bool dint = gm_etype_is_integer(dst->et), sint = gm_etype_is_integer(src->et);
  for (size_t k = 0; k < n && st == GM_OK; k++) {
    size_t sp = gml_buffer_phys_index(src, k), dp = gml_buffer_phys_index(dst, k);
    if (sint && dint) {
      long long v = gm_etype_get_int(src->et, a, sp);
      if (!gm_etype_fits_int(dst->et, v)) st = gm_fail(GM_ERANGE, "element %zu (%lld) does not fit %s", k + 1, v, gm_etype_name(dst->et));
      gm_etype_set_int(dst->et, b, dp, v);
    } else {
      double x = gm_etype_get_real(src->et, a, sp);
      if (dint && !gm_etype_fits_real(dst->et, x))
        st = gm_fail(GM_ERANGE, "element %zu (%g) is not a value of %s", k + 1, x, gm_etype_name(dst->et));
      else if (dint)
        gm_etype_set_int(dst->et, b, dp, (long long)x);
      else
        gm_etype_set_real(dst->et, b, dp, x);
    }
  }
  if (st == GM_OK) st = gml_buffer_write(dst, 0, n, b);
  free(a);
  free(b);
  return st;
}

typedef struct ensure_args {
  mem_type mt;
  bool has_et;
  gm_etype et;
  bool col_major;
  gm_direction dir;
} ensure_args;

static void read_ensure_args(lua_State *L, ensure_args *a) {
  const char *fn = "ensure";
  static const char *const opts[] = {"ctype", "element_type", "layout", "direction", NULL};
  a->mt = (mem_type)luaL_checkoption(L, 2, NULL, mem_type_names);
  gml_check_options(L, 3, fn, opts);
  a->has_et = false;
  const char *keys[] = {"ctype", "element_type"};
  for (int i = 0; i < 2; i++) {
    if (!gml_opt_push(L, 3, keys[i])) continue;
    if (a->has_et) gml_argerror(L, 3, fn, "options 'ctype' and 'element_type' are mutually exclusive");
    if (lua_type(L, -1) != LUA_TSTRING || gm_etype_parse(lua_tostring(L, -1), &a->et) != 0)
      gml_argerror(L, 3, fn, "option '%s' must be an element type, got %s", keys[i],
                   lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1));
    a->has_et = true;
    lua_pop(L, 1);
  }
  a->col_major = false;
  if (gml_opt_push(L, 3, "layout")) {
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    if (strcmp(s, "col_major") == 0)
      a->col_major = true;
    else if (strcmp(s, "row_major") != 0)
      gml_argerror(L, 3, fn, "option 'layout' must be \"row_major\" or \"col_major\"");
    lua_pop(L, 1);
  }
  a->dir = GM_INPUT;
  if (gml_opt_push(L, 3, "direction")) {
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    if (strcmp(s, "io") == 0)
      a->dir = GM_IO;
    else if (strcmp(s, "input") != 0)
      gml_argerror(L, 3, fn, "option 'direction' must be \"input\" or \"io\"");
    lua_pop(L, 1);
  }
}

/* The device a non-host memory type needs. */
static gm_device *device_for(lua_State *L, mem_type mt, gm_device *pref) {
  if (mt == MT_HOST) return NULL;
  gm_device *d = pref ? pref : gm_current_device();
  if (!d) luaL_error(L, "ensure: memory type '%s' needs an active cuda context (with_cuda)", mem_type_names[mt]);
  return d;
}

/* Fills nb as an owning buffer of src's dims in memory type mt. */
static void new_owning(lua_State *L, gml_buffer *nb, mem_type mt, gm_device *dev, gm_etype et, bool col, int rank,
                       const size_t *dims, size_t size) {
  gm_block *blk;
  GML_TRY(L, gm_block_alloc(mem_type_space[mt], dev, size * gm_etype_size(et), 0, &blk), "ensure");
  nb->blk = blk;
  nb->et = et;
  nb->rank = rank;
  memcpy(nb->dims, dims, sizeof nb->dims);
  nb->size = size;
  nb->owning = true;
  nb->col_major = col;
}

static int ensure_buffer(lua_State *L, const ensure_args *a) {
  gml_buffer *nb = gml_newbuffer(L);
  gml_buffer *b = gml_checkbuffer(L, 1, "ensure");
  if (!b->blk) return luaL_error(L, "ensure: buffer released");
  GML_TRY(L, gm_block_check(b->blk, NULL), "ensure");
  gm_etype et = a->has_et ? a->et : b->et;
  if (accessible(b->blk, a->mt) && et == b->et && a->col_major == b->col_major) {
    *nb = *b;
    nb->owning = false;
    nb->displaced = false;
    nb->device_view = a->mt == MT_DEVICE && b->blk->space == GM_SPACE_PINNED;
    nb->vec = NULL;
    if (b->vec) {
      GML_TRY(L, gm_vec_add_facet_reference(b->vec, b->facet, b->blk->device), "ensure");
      gm_vec_ref(b->vec);
      nb->vec = b->vec;
    }
    gm_block_hold(b->blk);
    return 1;
  }
  gm_device *dev = device_for(L, a->mt, b->blk->device);
  new_owning(L, nb, a->mt, dev, et, a->col_major, b->rank, b->dims, b->size);
  GML_TRY(L, convert_copy(nb, b), "ensure");
  return 1;
}

static gm_facet_name facet_of(mem_type mt) {
  return mt == MT_HOST ? GM_FACET_FOREIGN : mt == MT_PINNED ? GM_FACET_CUDA_HOST : mt == MT_DEVICE ? GM_FACET_CUDA
                                                                                                  : GM_FACET_MANAGED;
}

/* A view of a mat's facet: brought up to date as with_facet would (a
 * stale facet costs one counted copy), with a facet reference held while
 * the view lives. */
static int ensure_mat(lua_State *L, const ensure_args *a) {
  const char *fn = "ensure";
  gml_buffer *nb = gml_newbuffer(L);
  gm_mat *m = gml_checkmat(L, 1, fn);
  gm_etype met = gm_etype_of_ctype(m->ctype), et = a->has_et ? a->et : met;
  gm_facet_name f = facet_of(a->mt);
  gm_device *dev = a->mt == MT_HOST ? NULL : gm_current_device();
  bool facet_ok = a->mt == MT_HOST || dev;
  GML_TRY(L, gm_vec_check_memory(m->vec), fn);
  /* a strided view's elements are not one block: it gets the owning copy */
  if (facet_ok && et == met && !a->col_major && m->contiguous) {
    GML_TRY(L, gm_vec_add_facet_reference(m->vec, f, dev), fn);
    void *ptr;
    gm_status st = gm_mat_watch(m, f, a->dir, dev, &ptr);
    if (st == GM_OK) gm_mat_unwatch(m, f, a->dir);
    gm_block *blk = gm_vec_facet_block(m->vec, f);
    if (st == GM_OK && !blk) st = gm_fail(GM_ESTATE, "facet '%s' has no memory", gm_facet_name_str(f));
    if (st != GM_OK) {
      gm_vec_remove_facet_reference(m->vec, f);
      return gml_raise(L, st, fn);
    }
    gm_block_hold(blk);
    gm_vec_ref(m->vec);
    nb->blk = blk;
    nb->vec = m->vec;
    nb->facet = f;
    nb->et = met;
    nb->rank = m->rank;
    memcpy(nb->dims, m->dims, sizeof nb->dims);
    nb->size = m->size;
    nb->offset = m->displacement * gm_ctype_size(m->ctype);
    nb->device_view = a->mt == MT_DEVICE && blk->space == GM_SPACE_PINNED;
    return 1;
  }
  /* an owning copy: the elements through the host facet */
  if (a->mt != MT_HOST && !dev) dev = device_for(L, a->mt, NULL);
  int rank = m->rank;
  size_t dims[GM_MAX_RANK], size = m->size;
  memcpy(dims, m->dims, sizeof dims);
  double *tmp = malloc(size * sizeof *tmp + 1);
  if (!tmp) return luaL_error(L, "ensure: out of host memory");
  gm_status st = gm_mat_read_doubles(m, tmp);
  gm_block *blk = NULL;
  if (st == GM_OK) st = gm_block_alloc(mem_type_space[a->mt], dev, size * gm_etype_size(et), 0, &blk);
  if (st != GM_OK) {
    free(tmp);
    return gml_raise(L, st, fn);
  }
  nb->blk = blk;
  nb->et = et;
  nb->rank = rank;
  memcpy(nb->dims, dims, sizeof nb->dims);
  nb->size = size;
  nb->owning = true;
  nb->col_major = a->col_major;
  /* convert from the doubles into a host staging buffer in nb's layout */
  size_t es = gm_etype_size(et);
  char *out = malloc(size * es + 1);
  for (size_t k = 0; out && k < size && st == GM_OK; k++) {
    size_t dp = gml_buffer_phys_index(nb, k);
    if (gm_etype_is_integer(et)) {
      if (!gm_etype_fits_real(et, tmp[k]))
        st = gm_fail(GM_ERANGE, "element %zu (%g) is not a value of %s", k + 1, tmp[k], gm_etype_name(et));
      else
        gm_etype_set_int(et, out, dp, (long long)tmp[k]);
    } else {
      gm_etype_set_real(et, out, dp, tmp[k]);
    }
  }
  if (!out) st = gm_fail(GM_ENOMEM, "out of host memory");
  if (st == GM_OK) st = gml_buffer_write(nb, 0, size, out);
  free(out);
  free(tmp);
  GML_TRY(L, st, fn);
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
  gm_etype et = b->et;
  if (et != GM_E_F32 && et != GM_E_F64)
    gml_argerror(L, 1, fn, "element type must be float or double, got %s", gm_etype_name(et));
  gm_ctype ct = et == GM_E_F64 ? GM_DOUBLE : GM_FLOAT;
  if (gml_opt_push(L, 2, "ctype")) {
    gm_ctype want;
    if (lua_type(L, -1) != LUA_TSTRING || gm_ctype_parse(lua_tostring(L, -1), &want) != 0 || want != ct)
      gml_argerror(L, 2, fn, "option 'ctype' must be the buffer's element type %s", gm_etype_name(et));
    lua_pop(L, 1);
  }
  size_t es = gm_etype_size(et);
  int rank = b->rank;
  size_t dims[GM_MAX_RANK];
  memcpy(dims, b->dims, sizeof dims);
  if (gml_opt_push(L, 2, "dims")) {
    rank = gml_check_dims(L, lua_gettop(L), fn, dims);
    lua_pop(L, 1);
  }
  size_t disp = gml_opt_size(L, 2, "displacement", b->offset / es, fn);
  bool cuda_enabled = gml_opt_boolean(L, 2, "cuda_enabled", gml_setting.default_mat_cuda_enabled, fn);
  size_t size;
  if (gm_dims_size(rank, dims, &size) != GM_OK || size > SIZE_MAX / 16)
    gml_argerror(L, 2, fn, "dimensions are too large");
  if (!b->blk) return luaL_error(L, "%s: buffer released", fn);
  GML_TRY(L, gm_block_check(b->blk, NULL), fn);
  gm_block *blk = b->blk;
  if (b->col_major) return gml_argerror(L, 1, fn, "a col_major buffer cannot be a mat's memory");
  if (b->offset % es) return gml_argerror(L, 1, fn, "the buffer's offset is not a whole number of elements");
  size_t max = blk->bytes / es;
  if (disp > max || size > max - disp)
    return gml_argerror(L, 2, fn, "displacement %zu + size %zu does not fit the buffer's block of %zu elements", disp,
                        size, max);
  gm_mat_options o = {0};
  o.ctype = (int)ct;
  o.displacement = disp;
  o.max_size = max;
  o.cuda_enabled = cuda_enabled;
  o.synchronization = gml_setting.default_synchronization;
  gm_mat *m;
  GML_TRY(L, gm_mat_new(rank, dims, &o, &m), fn);
  gm_status st = gm_vec_adopt_block(m->vec, blk);
  if (st != GM_OK) {
    gm_mat_free(m);
    return gml_raise(L, st, fn);
  }
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

static int cache_gc(lua_State *L) {
  gml_cache *c = luaL_checkudata(L, 1, GML_CACHE_MT);
  gm_alloc_cache_unref(c->c); /* scopes still active keep it until they end */
  c->c = NULL;
  return 0;
}

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
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, (lua_Integer)s.n_blocks);
  lua_setfield(L, -2, "n_blocks");
  lua_pushinteger(L, (lua_Integer)s.n_bytes);
  lua_setfield(L, -2, "n_bytes");
  lua_pushinteger(L, (lua_Integer)s.n_hits);
  lua_setfield(L, -2, "n_hits");
  lua_pushinteger(L, (lua_Integer)s.n_misses);
  lua_setfield(L, -2, "n_misses");
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
  luaL_checktype(L, 1, LUA_TLIGHTUSERDATA);
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
  static const luaL_Reg meta[] = {{"__gc", cache_gc}, {"__close", cache_gc}, {NULL, NULL}};
  static const luaL_Reg methods[] = {{"stats", l_cache_stats}, {"free", l_cache_free}, {NULL, NULL}};
  luaL_newmetatable(L, GML_CACHE_MT);
  luaL_setfuncs(L, meta, 0);
  luaL_newlib(L, methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  static const luaL_Reg fns[] = {{"ensure_core", l_ensure},
                                 {"mat_from_buffer", l_mat_from_buffer},
                                 {"alloc_cache", l_alloc_cache},
                                 {"cache_push", l_cache_push},
                                 {"cache_finish", l_cache_finish},
                                 {"cache_check", l_cache_check},
                                 {"current_device_p", l_current_device_p},
                                 {NULL, NULL}};
  gml_register(L, module_idx, fns);
}
