/* The GPU path in Lua (MGL-MAT §18.3, §19.2): cuda contexts, availability,
 * device queries, memory reports and counters, deferred-free collection
 * and with_syncing_cuda_facets.  Scoped forms (with_cuda, ...) are Lua
 * functions in lua/gpumat/cuda.lua holding the C object returned here in a
 * to-be-closed variable, so exit runs also when the body errors and the
 * body's error (with its traceback) passes through unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/counters.h"
#include "../core/mem/runtime.h"
#include "../device/emulated/emulated.h"
#include "util.h"

#define GML_CONTEXT_MT "gpumat.cuda_context"
#define GML_SYNC_MT "gpumat.syncing_cuda_facets"

/* ---- the GC hook of the reclaim cascade and the GC nudge ---- */

static void gc_hook(void *arg, bool full, size_t bytes) {
  lua_State *L = arg;
  /* Lua itself refuses (returns -1) inside a finalizer; runtime.c guards
   * against re-entering from a finalizer that allocates. */
  /* finalizers run here cannot free or reshape any mat: an op in
   * progress holds its operands (util.h, "Binding rule") */
  gm_deferred_hook_enter();
  if (full)
    lua_gc(L, LUA_GCCOLLECT);
  else
    lua_gc(L, LUA_GCSTEP, (int)(bytes >> 10 > 1 << 20 ? 1 << 20 : bytes >> 10));
  gm_deferred_hook_leave();
}

/* The main thread: always alive, unlike the coroutine that opened a
 * context. */
static lua_State *main_thread(lua_State *L) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  lua_State *M = lua_tothread(L, -1);
  lua_pop(L, 1);
  return M;
}

/* ---- contexts ---- */

typedef struct gml_context {
  gm_context *c; /* malloc'd: a context left open by an abandoned coroutine
                    stays valid on the thread's stack */
  bool open;
} gml_context;

/* *named (may be NULL) tells whether the backend was asked for by name
 * (the option or GPUMAT_DEVICE): an explicit "cuda" raises when CUDA is
 * not usable, the default falls back to the host quietly. */
static const char *default_backend(lua_State *L, int arg, const char *fname, bool *named) {
  const char *env = getenv("GPUMAT_DEVICE");
  if (named) *named = env && *env;
  if (!env || !*env) return "cuda";
  if (strcmp(env, "cuda") == 0) return "cuda";
  if (strcmp(env, "emulated") == 0) return "emulated";
  gml_argerror(L, arg, fname, "environment variable GPUMAT_DEVICE must be \"cuda\" or \"emulated\", got '%s'",
               env);
  return NULL;
}

static const char *check_backend(lua_State *L, int arg, const char *fname, bool *named) {
  if (!gml_opt_push(L, arg, "backend")) return default_backend(L, arg, fname, named);
  if (named) *named = true;
  const char *b = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  if (!b || (strcmp(b, "cuda") != 0 && strcmp(b, "emulated") != 0))
    gml_argerror(L, arg, fname, "option 'backend' must be \"cuda\" or \"emulated\", got %s",
                 b ? b : luaL_typename(L, -1));
  lua_pop(L, 1);
  return strcmp(b, "cuda") == 0 ? "cuda" : "emulated";
}

static int check_device_id(lua_State *L, int arg, const char *fname) {
  size_t id = gml_opt_size(L, arg, "device_id", (size_t)gml_settings_of(L)->cuda_default_device_id, fname);
  if (id > 63) gml_argerror(L, arg, fname, "option 'device_id' must be at most 63, got %zu", id);
  return (int)id;
}

/* Rounds n_random_states up to a multiple of 32 (a warp of generators);
 * returns the requested value via *asked. */
static int check_n_states(lua_State *L, int arg, const char *fname, lua_Integer *asked) {
  lua_Integer n = gml_opt_integer(L, arg, "n_random_states", gml_settings_of(L)->cuda_default_n_random_states, fname);
  if (n < 1 || n > (1 << 24))
    gml_argerror(L, arg, fname, "option 'n_random_states' must be in 1..16777216, got %d", (int)n);
  *asked = n;
  return (int)((n + 31) / 32 * 32);
}

/* core.cuda_context(a1, a2, fname, optarg) -> context, requested
 * n_random_states when it was rounded (or nil).  The options are a1 or a2
 * (optarg), so messages carry the module function's argument number. */
static int l_cuda_context(lua_State *L) {
  /* internal: called by gm.with_cuda and friends with these two right */
  const char *fname = gml_check_string(L, 3, "with_cuda", NULL);
  int arg = (int)gml_check_integer(L, 4, "with_cuda");
  if (arg != 1 && arg != 2) gml_argerror(L, 4, "with_cuda", "1 or 2 expected");
  static const char *const allowed[] = {"enabled", "device_id", "random_seed", "n_random_states",
                                        "n_pool_bytes", "backend", NULL};
  gml_check_options(L, arg, fname, allowed);
  gm_context_options o;
  o.enabled = gml_opt_boolean(L, arg, "enabled", gm_cuda_enabled, fname);
  o.device_id = check_device_id(L, arg, fname);
  o.backend = check_backend(L, arg, fname, &o.backend_named);
  o.random_seed = (unsigned long long)gml_opt_size(L, arg, "random_seed",
                                                   (size_t)gml_settings_of(L)->cuda_default_random_seed, fname);
  lua_Integer asked;
  o.n_random_states = check_n_states(L, arg, fname, &asked);
  o.n_pool_bytes = gml_opt_size(L, arg, "n_pool_bytes", 0, fname);
  o.gc_hook = gc_hook;
  o.gc_hook_arg = main_thread(L);
  gml_context *box = lua_newuserdatauv(L, sizeof *box, 0);
  box->c = NULL;
  box->open = false;
  luaL_setmetatable(L, GML_CONTEXT_MT);
  box->c = malloc(sizeof *box->c);
  if (!box->c) return gml_error(L, "%s: out of host memory", fname);
  gm_status st = gm_context_enter(box->c, &o);
  if (st != GM_OK) {
    free(box->c);
    box->c = NULL;
    gml_raise(L, st, fname);
  }
  box->open = true;
  if (asked != o.n_random_states)
    lua_pushinteger(L, asked);
  else
    lua_pushnil(L);
  return 2;
}

/* core.cuda_call(fn, scope) -> fn()'s results, scope being the
 * to-be-closed object of a with_cuda context or a with_syncing_cuda_facets
 * token.  The body runs through lua_call/lua_pcall WITHOUT a
 * continuation, so a coroutine.yield inside it fails at once ("attempt to
 * yield across a C-call boundary") instead of leaving the context pushed
 * on this OS thread's stack while other code runs.  On the main thread
 * errors pass through untouched (the caller's to-be-closed variable exits
 * the scope, and a message handler sees the body's stack).  In a
 * coroutine Lua does not close to-be-closed variables when an error
 * leaves the coroutine (coroutine.resume), so the error is caught here,
 * the scope closed, and the same error value raised again. */
static int l_cuda_call(lua_State *L) {
  if (lua_type(L, 1) != LUA_TFUNCTION)
    gml_argerror(L, 1, "with_cuda", "function expected, got %s", luaL_typename(L, 1));
  if (lua_isnone(L, 2)) gml_argerror(L, 2, "with_cuda", "context expected, got no value");
  lua_settop(L, 2);
  bool main = lua_pushthread(L);
  lua_pop(L, 1);
  lua_pushvalue(L, 1);
  if (main) {
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 2;
  }
  if (lua_pcall(L, 0, LUA_MULTRET, 0) == LUA_OK) return lua_gettop(L) - 2;
  if (luaL_getmetafield(L, 2, "__close") != LUA_TNIL) {
    lua_pushvalue(L, 2);
    lua_pushvalue(L, -3); /* the error */
    lua_call(L, 2, 0);
  }
  return lua_error(L);
}

/* __close(ctx, err): exit; an exit failure is raised only when the body
 * did not fail already (the body's error wins). */
static int l_context_close(lua_State *L) {
  gml_context *box = gml_checkudata(L, 1, GML_CONTEXT_MT, "__close");
  if (!box->open) return 0;
  if (gm_context_current() != box->c) {
    /* e.g. a coroutine yielded out of with_cuda: leave the stack alone */
    if (lua_isnoneornil(L, 2)) return gml_error(L, "with_cuda: contexts must be exited innermost first");
    return 0;
  }
  gm_status st = gm_context_exit(box->c);
  box->open = false;
  free(box->c);
  box->c = NULL;
  if (st != GM_OK && lua_isnoneornil(L, 2)) return gml_raise(L, st, "with_cuda");
  return 0;
}

/* __gc: a context still open here belongs to an abandoned coroutine; its
 * storage stays allocated (it is linked from the thread's stack). */
static int l_context_gc(lua_State *L) {
  gml_context *box = gml_checkudata(L, 1, GML_CONTEXT_MT, "__gc");
  if (!box->open) free(box->c);
  box->c = NULL;
  return 0;
}

/* ---- queries ---- */

/* gm.cuda_available({device_id}) -> true | false, reason */
static int l_cuda_available(lua_State *L) {
  const char *fname = "cuda_available";
  static const char *const allowed[] = {"device_id", NULL};
  gml_check_options(L, 1, fname, allowed);
  int id = check_device_id(L, 1, fname);
  gm_device *d = gm_context_device();
  if (d && strcmp(d->ops->name, "cuda") == 0) return lua_pushboolean(L, 1), 1;
  char reason[256];
  if (gm_cuda_runtime_available(id, reason, sizeof reason)) return lua_pushboolean(L, 1), 1;
  lua_pushboolean(L, 0);
  lua_pushstring(L, reason);
  return 2;
}

/* gm.use_cuda_p(m1, ...) */
static int l_use_cuda_p(lua_State *L) {
  int n = lua_gettop(L);
  bool ok = gm_current_device() != NULL;
  for (int i = 1; i <= n; i++) {
    gm_mat *m = gml_checkmat(L, i, "use_cuda_p");
    ok = ok && m->cuda_enabled;
  }
  lua_pushboolean(L, ok);
  return 1;
}

static int l_device_count(lua_State *L) {
  lua_pushinteger(L, gm_cuda_device_count());
  return 1;
}

static void push_info(lua_State *L, const gm_device_info *in, const char *backend, int id) {
  lua_createtable(L, 0, 9);
  lua_pushinteger(L, id);
  lua_setfield(L, -2, "id");
  lua_pushstring(L, backend);
  lua_setfield(L, -2, "backend");
  lua_pushstring(L, in->name);
  lua_setfield(L, -2, "name");
  lua_pushinteger(L, (lua_Integer)in->total_memory);
  lua_setfield(L, -2, "total_memory");
  lua_createtable(L, 2, 0);
  lua_pushinteger(L, in->compute_major);
  lua_rawseti(L, -2, 1);
  lua_pushinteger(L, in->compute_minor);
  lua_rawseti(L, -2, 2);
  lua_setfield(L, -2, "compute_capability");
  lua_pushinteger(L, in->multiprocessor_count);
  lua_setfield(L, -2, "multiprocessor_count");
  lua_pushinteger(L, in->warp_size);
  lua_setfield(L, -2, "warp_size");
  lua_pushinteger(L, in->max_threads_per_block);
  lua_setfield(L, -2, "max_threads_per_block");
}

/* gm.device_info(id, {backend}) -> table */
static int l_device_info(lua_State *L) {
  const char *fname = "device_info";
  size_t id = lua_isnoneornil(L, 1) ? (size_t)gml_settings_of(L)->cuda_default_device_id
                                    : gml_check_size(L, 1, fname, "device id");
  static const char *const allowed[] = {"backend", NULL};
  gml_check_options(L, 2, fname, allowed);
  const char *backend = "cuda";
  if (gml_opt_push(L, 2, "backend")) {
    lua_pop(L, 1);
    backend = check_backend(L, 2, fname, NULL);
  }
  if (id > 63) gml_argerror(L, 1, fname, "device id must be at most 63, got %lld", (long long)id);
  gm_device_info info;
  if (strcmp(backend, "cuda") == 0) {
    char reason[256];
    if (!gm_cuda_runtime_available((int)id, reason, sizeof reason))
      return gml_argerror(L, 1, fname, "no usable cuda device %d: %s", (int)id, reason);
    GML_TRY(L, gm_cuda_device_info((int)id, &info), fname);
  } else {
    gm_device *d;
    GML_TRY(L, gm_device_get(backend, (int)id, &d), fname);
    GML_TRY(L, d->ops->get_info(d, &info), fname);
  }
  push_info(L, &info, backend, (int)id);
  return 1;
}

/* gm.emulated_device({device_id, memory, sticky_error, last_error, async}) ->
 * {memory, allocated, copies_in_flight, queued, prefetches, sticky_error, last_error, async}: test controls of the
 * emulated device, for the CUDA error paths.  memory: simulated device memory in bytes
 * (0: the host's), beyond which raw allocations fail like cudaMalloc and
 * leave "out_of_memory" in this thread's last-error slot; sticky_error:
 * put the device into (true) or out of (false) a sticky error state;
 * last_error: "none" or "out_of_memory" (sets this thread's slot);
 * async: true (streams run on worker threads), false (inline) or "lazy"
 * (queued work runs only when something waits for it). */
static bool check_async_mode(lua_State *L, const char *fname, gm_emulated_control_in *in) {
  if (!gml_opt_push(L, 1, "async")) return false;
  if (lua_type(L, -1) == LUA_TBOOLEAN) {
    in->mode = lua_toboolean(L, -1) ? GM_EMU_ASYNC : GM_EMU_INLINE;
  } else if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "lazy") == 0) {
    in->mode = GM_EMU_LAZY;
  } else {
    const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
    gml_argerror(L, 1, fname, "option 'async' must be true, false or \"lazy\", got %s", v);
  }
  lua_pop(L, 1);
  return true;
}

static void push_async_mode(lua_State *L, int mode) {
  if (mode == GM_EMU_LAZY)
    lua_pushliteral(L, "lazy");
  else
    lua_pushboolean(L, mode == GM_EMU_ASYNC);
  lua_setfield(L, -2, "async");
}

static int l_emulated_device(lua_State *L) {
  const char *fname = "emulated_device";
  static const char *const allowed[] = {"device_id", "memory", "sticky_error", "last_error", "async", NULL};
  gml_check_options(L, 1, fname, allowed);
  int id = check_device_id(L, 1, fname);
  gm_emulated_control_in in = {0};
  if (gml_opt_push(L, 1, "memory")) {
    lua_pop(L, 1);
    in.set_capacity = true;
    in.capacity = gml_opt_size(L, 1, "memory", 0, fname);
  }
  if (gml_opt_push(L, 1, "sticky_error")) {
    lua_pop(L, 1);
    in.set_sticky = true;
    in.sticky = gml_opt_boolean(L, 1, "sticky_error", false, fname);
  }
  if (gml_opt_push(L, 1, "last_error")) {
    const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (!v || (strcmp(v, "none") != 0 && strcmp(v, "out_of_memory") != 0))
      gml_argerror(L, 1, fname, "option 'last_error' must be \"none\" or \"out_of_memory\", got %s",
                   v ? v : luaL_typename(L, -1));
    in.set_last_error = true;
    in.last_error = strcmp(v, "none") == 0 ? GM_EMU_ERR_NONE : GM_EMU_ERR_OOM;
    lua_pop(L, 1);
  }
  in.set_mode = check_async_mode(L, fname, &in);
  gm_device *d;
  GML_TRY(L, gm_device_get("emulated", id, &d), fname);
  gm_emulated_state out;
  GML_TRY(L, gm_emulated_control(d, &in, &out), fname);
  lua_createtable(L, 0, 7);
  lua_pushinteger(L, (lua_Integer)out.capacity);
  lua_setfield(L, -2, "memory");
  lua_pushinteger(L, (lua_Integer)out.allocated);
  lua_setfield(L, -2, "allocated");
  lua_pushinteger(L, (lua_Integer)out.copies_in_flight);
  lua_setfield(L, -2, "copies_in_flight");
  lua_pushinteger(L, (lua_Integer)out.queued);
  lua_setfield(L, -2, "queued");
  lua_pushinteger(L, (lua_Integer)out.prefetches);
  lua_setfield(L, -2, "prefetches");
  push_async_mode(L, out.mode);
  lua_pushboolean(L, out.sticky);
  lua_setfield(L, -2, "sticky_error");
  lua_pushstring(L, out.last_error == GM_EMU_ERR_OOM ? "out_of_memory" : "none");
  lua_setfield(L, -2, "last_error");
  return 1;
}

/* gm.cuda_stream() -> light userdata (cudaStream_t) or nil: the compute
 * stream of the current context's CUDA device, for C code that launches on
 * gpumat's mats in order with gpumat's own work. */
static int l_cuda_stream(lua_State *L) {
  gm_device *d = gm_context_device();
  void *s = d && d->ops->native_stream ? d->ops->native_stream(d) : NULL;
  if (s)
    lua_pushlightuserdata(L, s);
  else
    lua_pushnil(L);
  return 1;
}

/* gm.synchronize(): waits for the current context's device. */
static int l_synchronize(lua_State *L) {
  lua_settop(L, 0);
  gm_device *d = gm_context_device();
  if (d) GML_TRY(L, d->ops->synchronize(d), "synchronize");
  return 0;
}

/* gm.collect(): drains every device's deferred-free queue. */
static int l_collect(lua_State *L) {
  lua_settop(L, 0);
  gm_deferred_drain(); /* mats whose free waited for a pin to drop */
  gm_device_collect_all();
  return 0;
}

typedef struct totals {
  size_t in_use, cached, n_in_use, pinned_bytes, n_pinned;
} totals;

static void add_device(gm_device *d, void *arg) {
  totals *t = arg;
  gm_pool_stats s = gm_pool_get_stats(&d->pool);
  t->in_use += s.in_use;
  t->cached += s.cached;
  t->n_in_use += s.n_in_use;
  t->pinned_bytes += (size_t)atomic_load(&d->pinned_bytes);
  t->n_pinned += (size_t)atomic_load(&d->n_pinned_arrays);
}

static void set_int(lua_State *L, const char *k, long long v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

/* gm.counters() -> table */
static int l_counters(lua_State *L) {
  totals t = {0};
  gm_device_foreach(add_device, &t);
  lua_createtable(L, 0, 9);
  set_int(L, "n_memcpy_host_to_device", atomic_load(&gm_counter.n_memcpy_host_to_device));
  set_int(L, "n_memcpy_device_to_host", atomic_load(&gm_counter.n_memcpy_device_to_host));
  set_int(L, "device_bytes_in_use", (long long)t.in_use);
  set_int(L, "device_bytes_pooled", (long long)t.cached);
  set_int(L, "n_device_arrays", (long long)t.n_in_use);
  set_int(L, "host_bytes_in_use", atomic_load(&gm_counter.host_bytes_in_use));
  set_int(L, "n_host_arrays", atomic_load(&gm_counter.n_host_arrays));
  set_int(L, "n_ooms", atomic_load(&gm_counter.n_ooms));
  set_int(L, "n_host_registrations", atomic_load(&gm_counter.n_host_registrations));
  set_int(L, "pinned_host_bytes", (long long)t.pinned_bytes);
  return 1;
}

/* "1,234,567" (Lisp's ~:D) */
static void push_grouped(luaL_Buffer *b, unsigned long long v) {
  char digits[32], out[48];
  int n = snprintf(digits, sizeof digits, "%llu", v), k = 0;
  for (int i = 0; i < n; i++) {
    if (i > 0 && (n - i) % 3 == 0) out[k++] = ',';
    out[k++] = digits[i];
  }
  out[k] = '\0';
  luaL_addstring(b, out);
}

/* gm.cuda_room({verbose = true}) -> MGL's report text, "" when cuda is not
 * in use (use_cuda_p() is false). */
static int l_cuda_room(lua_State *L) {
  const char *fname = "cuda_room";
  static const char *const allowed[] = {"verbose", NULL};
  gml_check_options(L, 1, fname, allowed);
  bool verbose = gml_opt_boolean(L, 1, "verbose", true, fname);
  gm_device *d = gm_current_device();
  if (!d) return lua_pushliteral(L, ""), 1;
  totals t = {0};
  add_device(d, &t);
  unsigned long long v[7] = {t.n_in_use, t.in_use, t.cached, t.n_pinned, t.pinned_bytes,
                             (unsigned long long)atomic_load(&gm_counter.n_memcpy_host_to_device),
                             (unsigned long long)atomic_load(&gm_counter.n_memcpy_device_to_host)};
  static const char *const verbose_parts[] = {
      "CUDA memory usage:\ndevice arrays: ", " (used bytes: ", ", pooled bytes: ", ")\nhost arrays: ",
      " (used bytes: ", ")\nhost->device copies: ", ", device->host copies: ", "\n"};
  static const char *const concise_parts[] = {"d: ", " (", " + ", "), h: ", " (", ")\nh->d: ", ", d->h: ", "\n"};
  const char *const *parts = verbose ? verbose_parts : concise_parts;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 0; i < 7; i++) {
    luaL_addstring(&b, parts[i]);
    if (i == 0 || i == 3)
      lua_pushfstring(L, "%d", (int)v[i]), luaL_addvalue(&b);
    else
      push_grouped(&b, v[i]);
  }
  luaL_addstring(&b, parts[7]);
  luaL_pushresult(&b);
  return 1;
}

void gml_open_cuda(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"cuda_context", l_cuda_context, 4, NULL}, {"cuda_available", l_cuda_available, 1, NULL},
      {"use_cuda_p", l_use_cuda_p, GML_VARARGS, NULL},     {"device_count", l_device_count, 0, NULL},
      {"device_info", l_device_info, 2, NULL},   {"synchronize", l_synchronize, 0, NULL},
      {"collect", l_collect, 0, NULL},           {"counters", l_counters, 0, NULL},
      {"cuda_room", l_cuda_room, 1, NULL},       {"cuda_call", l_cuda_call, 2, NULL},
      {"emulated_device", l_emulated_device, 1, NULL}, {"cuda_stream", l_cuda_stream, 0, NULL},
      {NULL, NULL, 0, NULL}};
  static const gml_reg meta[] = {{"__close", l_context_close, 2, NULL}, {"__gc", l_context_gc, 1, NULL},
                                 {NULL, NULL, 0, NULL}};
  if (luaL_newmetatable(L, GML_CONTEXT_MT)) gml_register(L, -1, meta);
  lua_pop(L, 1);
  gml_register(L, module_idx, fns);
  gml_open_cuda_sync(L, module_idx);
}
