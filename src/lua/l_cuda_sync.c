/* with_syncing_cuda_facets (MGL-MAT §18.3.1): start copies on the device's
 * copy stream from page-locked host memory, run the body, then wait for
 * the copies and drop the device facets of the to_cuda_host mats.  In
 * safe mode every listed mat is locked: any facet access to it inside the
 * body is an error (the copy may still be in flight on a real GPU). */
#include <stdlib.h>

#include "../core/context.h"
#include "../core/vec.h"
#include "../core/mem/runtime.h"
#include "util.h"

#define GML_SYNC_MT "gpumat.syncing_cuda_facets"
static const char *const FNAME = "with_syncing_cuda_facets";

typedef struct gml_sync {
  gm_device *dev; /* NULL: not active (no device, or already finished) */
  bool safe;
  size_t n_ensure, n_destroy;
  gm_vec **vecs; /* ensures first, then destroys; each referenced */
} gml_sync;

/* Counts the mats of the list at arg (nil = empty) and checks them. */
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

/* Entry i again: a list's metamethods may answer differently the second
 * time, so it is re-checked and pinned. */
static gm_vec *vec_at(lua_State *L, int arg, size_t i) {
  lua_geti(L, arg, (lua_Integer)i);
  gml_mat *box = gml_testbox(L, -1);
  if (!box || !box->m) gml_argerror(L, arg, FNAME, "element %d changed while being read", (int)i);
  gml_pin(L, -1);
  gm_vec *v = box->m->vec;
  lua_pop(L, 1);
  return v;
}

/* A mat may appear any number of times in one list, never in both. */
static void check_disjoint(lua_State *L, size_t n1, size_t n2) {
  for (size_t j = 1; j <= n2; j++) {
    gm_vec *v = vec_at(L, 2, j);
    for (size_t i = 1; i <= n1; i++)
      if (vec_at(L, 1, i) == v) gml_argerror(L, 2, FNAME, "element %d is also in to_cuda", (int)j);
  }
}

static bool seen(gml_sync *s, size_t from, size_t to, gm_vec *v) {
  for (size_t i = from; i < to; i++)
    if (s->vecs[i] == v) return true;
  return false;
}

static void collect_vecs(lua_State *L, gml_sync *s, size_t n1, size_t n2) {
  for (size_t i = 1; i <= n1; i++) {
    gm_vec *v = vec_at(L, 1, i);
    if (!seen(s, 0, s->n_ensure, v)) s->vecs[s->n_ensure++] = v;
  }
  for (size_t i = 1; i <= n2; i++) {
    gm_vec *v = vec_at(L, 2, i);
    if (!seen(s, s->n_ensure, s->n_ensure + s->n_destroy, v)) s->vecs[s->n_ensure + s->n_destroy++] = v;
  }
  for (size_t i = 0; i < s->n_ensure + s->n_destroy; i++) gm_vec_ref(s->vecs[i]);
}

static gm_status touch(gm_vec *v, gm_facet_name f, gm_device *d) {
  void *p;
  GM_TRY(gm_vec_watch(v, f, GM_INPUT, true, d, &p));
  gm_vec_unwatch(v, f, GM_INPUT);
  return GM_OK;
}

/* to_cuda: register the host memory when it holds the data (so the copy
 * can be asynchronous), then bring the cuda facet up to date. */
static gm_status start_one(gml_sync *s, size_t i) {
  gm_vec *v = s->vecs[i];
  if (i < s->n_ensure) {
    if (gm_vec_facet_up_to_date(v, GM_FACET_FOREIGN)) GM_TRY(touch(v, GM_FACET_CUDA_HOST, s->dev));
    GM_TRY(touch(v, GM_FACET_CUDA, s->dev));
  } else {
    GM_TRY(touch(v, GM_FACET_CUDA_HOST, s->dev));
  }
  if (s->safe) gm_vec_sync_lock(v, true);
  return GM_OK;
}

static gm_status start(gml_sync *s, size_t *n_locked) {
  GM_TRY(s->dev->ops->stream_sync(s->dev, NULL)); /* copy the latest results */
  bool strategy = gm_cuda_host_strategy;
  gm_cuda_host_strategy = true; /* new host memory is page-locked */
  gm_device_begin_async_copies();
  gm_status st = GM_OK;
  size_t n = s->n_ensure + s->n_destroy;
  for (*n_locked = 0; *n_locked < n && st == GM_OK;) {
    st = start_one(s, *n_locked);
    if (st == GM_OK) ++*n_locked;
  }
  gm_device_end_async_copies();
  gm_cuda_host_strategy = strategy;
  /* kernels in fn run after the copies, which run behind the host; host reads wait in
   * the vec (gm_vec_watch) */
  if (st == GM_OK && s->dev->ops->stream_wait)
    st = s->dev->ops->stream_wait(s->dev, NULL, s->dev->copy_stream);
  return st;
}

/* Waits for the copies, unlocks the first n_locked vecs, drops device
 * facets of the destroys (when finish is true) and releases the vecs. */
static gm_status finish(gml_sync *s, size_t n_locked, bool drop) {
  gm_status st = s->dev->ops->stream_sync(s->dev, s->dev->copy_stream);
  size_t n = s->n_ensure + s->n_destroy;
  for (size_t i = 0; i < n; i++) {
    if (s->safe && i < n_locked) gm_vec_sync_lock(s->vecs[i], false);
    if (drop && i >= s->n_ensure) {
      bool destroyed;
      gm_status st2 = gm_vec_destroy_facet(s->vecs[i], GM_FACET_CUDA, false, &destroyed);
      if (st == GM_OK) st = st2;
    }
  }
  for (size_t i = 0; i < n; i++) gm_vec_unref(s->vecs[i]);
  free(s->vecs);
  s->vecs = NULL;
  s->dev = NULL;
  return st;
}

/* core.syncing_cuda_facets(to_cuda, to_cuda_host, opts) -> token */
static int l_syncing_begin(lua_State *L) {
  gml_guard(L, 3); /* the lists' metamethods run while their mats are held */
  size_t n1 = check_list(L, 1), n2 = check_list(L, 2);
  static const char *const allowed[] = {"safe", NULL};
  gml_check_options(L, 3, FNAME, allowed);
  bool safe = gml_opt_boolean(L, 3, "safe", gml_settings_of(L)->syncing_cuda_facets_safe, FNAME);
  check_disjoint(L, n1, n2);
  gml_sync *s = lua_newuserdatauv(L, sizeof *s, 0);
  *s = (gml_sync){NULL, safe, 0, 0, NULL};
  luaL_setmetatable(L, GML_SYNC_MT);
  gm_device *d = gm_current_device();
  if (!d || n1 + n2 == 0) return 1; /* MGL: the body simply runs */
  s->vecs = malloc((n1 + n2) * sizeof *s->vecs);
  if (!s->vecs) return gml_error(L, "%s: out of host memory", FNAME);
  collect_vecs(L, s, n1, n2);
  s->dev = d;
  size_t n_locked = 0;
  gm_status st = start(s, &n_locked);
  if (st != GM_OK) {
    finish(s, n_locked, false);
    gml_raise(L, st, FNAME);
  }
  return 1;
}

static int l_syncing_close(lua_State *L) {
  gml_sync *s = gml_checkudata(L, 1, GML_SYNC_MT, "__close");
  if (!s->dev) return 0;
  gm_status st = finish(s, s->n_ensure + s->n_destroy, true);
  if (st != GM_OK && lua_isnoneornil(L, 2)) return gml_raise(L, st, FNAME);
  return 0;
}

/* __gc without close (abandoned coroutine): wait for the copies (a plain
 * stream sync, no Lua: releasing first could free or reuse
 * buffers a DMA still uses), then unlock and release. */
static int l_syncing_gc(lua_State *L) {
  gml_sync *s = gml_checkudata(L, 1, GML_SYNC_MT, "__gc");
  if (!s->dev) { /* never started (e.g. a list entry raised): no references yet */
    free(s->vecs);
    s->vecs = NULL;
    return 0;
  }
  (void)s->dev->ops->stream_sync(s->dev, s->dev->copy_stream);
  size_t n = s->n_ensure + s->n_destroy;
  for (size_t i = 0; i < n; i++) {
    if (s->safe) gm_vec_sync_lock(s->vecs[i], false);
    gm_vec_unref(s->vecs[i]);
  }
  free(s->vecs);
  s->vecs = NULL;
  s->dev = NULL;
  return 0;
}

void gml_open_cuda_sync(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"syncing_cuda_facets", l_syncing_begin, 3, NULL}, {NULL, NULL, 0, NULL}};
  static const gml_reg meta[] = {{"__close", l_syncing_close, 2, NULL}, {"__gc", l_syncing_gc, 1, NULL},
                                 {NULL, NULL, 0, NULL}};
  if (luaL_newmetatable(L, GML_SYNC_MT)) gml_register(L, -1, meta);
  lua_pop(L, 1);
  gml_register(L, module_idx, fns);
}
