/* The GPU path in Lua (MGL-MAT §18.3, §19.2): cuda contexts, availability,
 * device queries, memory reports and counters, deferred-free collection
 * and with_syncing_cuda_facets.  Scoped forms (with_cuda, ...) are Lua
 * functions in lua/gpumat/cuda.lua holding the C object returned here in a
 * to-be-closed variable, so exit runs also when the body errors and the
 * body's error (with its traceback) passes through unchanged. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../core/model/context.h"
#include "../core/io/room.h"
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

/* Raises the core's message about option table arg as a bad argument. */
static void check_option(lua_State *L, gm_status st, int arg, const char *fname) {
  if (st != GM_OK) gml_argerror(L, arg, fname, "%s", gm_last_error());
}

/* The string at idx, or the name of its type when it is not one (the
 * core's parsers put it in their messages). */
static const char *string_or_type(lua_State *L, int idx) {
  return lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : luaL_typename(L, idx);
}

/* The backend option, or the default (GPUMAT_DEVICE); *named (may be
 * NULL) tells whether either named it. */
static const char *check_backend(lua_State *L, int arg, const char *fname, bool *named, bool *option) {
  const char *b;
  if (option) *option = false;
  if (!gml_opt_push(L, arg, "backend")) {
    check_option(L, gm_context_default_backend(&b, named), arg, fname);
    return b;
  }
  if (named) *named = true;
  if (option) *option = true;
  check_option(L, gm_context_parse_backend(string_or_type(L, -1), &b), arg, fname);
  lua_pop(L, 1);
  return b;
}

static int check_device_id(lua_State *L, int arg, const char *fname) {
  size_t id = gml_opt_size(L, arg, "device_id", (size_t)gml_settings_of(L)->cuda_default_device_id, fname);
  check_option(L, gm_context_check_device_id(id), arg, fname);
  return (int)id;
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
  gm_context_options_default(&o, gml_settings_of(L));
  o.enabled = gml_opt_boolean(L, arg, "enabled", o.enabled, fname);
  o.device_id = check_device_id(L, arg, fname);
  o.device_option = gml_opt_push(L, arg, "device_id");
  if (o.device_option) lua_pop(L, 1);
  o.backend = check_backend(L, arg, fname, &o.backend_named, &o.backend_option);
  o.random_seed = (unsigned long long)gml_opt_size(L, arg, "random_seed", (size_t)o.random_seed, fname);
  lua_Integer asked =
      gml_opt_integer(L, arg, "n_random_states", gml_settings_of(L)->cuda_default_n_random_states, fname);
  check_option(L, gm_context_random_states(asked, &o.n_random_states), arg, fname);
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
  char reason[256];
  if (gm_context_cuda_usable(id, reason, sizeof reason)) return lua_pushboolean(L, 1), 1;
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

/* core._cuda_libraries(load) -> {{name, file, symbols, error}, ...}: the
 * CUDA libraries opened on first use (src/device/cuda/libs.h; none
 * without the toolkit); with load true (or a library's name), each (that
 * one) is opened now with all its symbols, the check of the tables
 * against the installed toolkit, and error is why it could not be. */
static int l_cuda_libraries(lua_State *L) {
  const char *only = lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : NULL;
  bool all = !only && lua_toboolean(L, 1);
  gm_cuda_library_info info;
  lua_newtable(L);
  for (int i = 0; gm_cuda_library(i, &info); i++) {
    bool load = all || (only && strcmp(only, info.name) == 0);
    lua_createtable(L, 0, 4);
    lua_pushstring(L, info.name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, info.file);
    lua_setfield(L, -2, "file");
    lua_pushinteger(L, info.n_symbols);
    lua_setfield(L, -2, "symbols");
    if (load && gm_cuda_library_load(i) != GM_OK) {
      lua_pushstring(L, gm_last_error());
      lua_setfield(L, -2, "error");
    }
    lua_rawseti(L, -2, i + 1);
  }
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
    backend = check_backend(L, 2, fname, NULL, NULL);
  }
  if (id > GM_CONTEXT_MAX_DEVICE_ID)
    gml_argerror(L, 1, fname, "device id must be at most %d, got %lld", GM_CONTEXT_MAX_DEVICE_ID, (long long)id);
  gm_device_info info;
  bool unusable;
  gm_status st = gm_context_device_info(backend, (int)id, &info, &unusable);
  if (unusable) gml_argerror(L, 1, fname, "%s", gm_last_error());
  GML_TRY(L, st, fname);
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
  if (lua_type(L, -1) == LUA_TBOOLEAN)
    in->mode = lua_toboolean(L, -1) ? GM_EMU_ASYNC : GM_EMU_INLINE;
  else
    check_option(L, gm_emulated_parse_lazy(string_or_type(L, -1), &in->mode), 1, fname);
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
    check_option(L, gm_emulated_parse_last_error(string_or_type(L, -1), &in.last_error), 1, fname);
    in.set_last_error = true;
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
  lua_pushstring(L, gm_emulated_last_error_name(out.last_error));
  lua_setfield(L, -2, "last_error");
  return 1;
}

/* gm.cuda_stream() -> light userdata (cudaStream_t) or nil: the compute
 * stream of the current context's CUDA device, for C code that launches on
 * gpumat's mats in order with gpumat's own work. */
static int l_cuda_stream(lua_State *L) {
  void *s = gm_context_native_stream();
  if (s)
    lua_pushlightuserdata(L, s);
  else
    lua_pushnil(L);
  return 1;
}

/* gm.synchronize(): waits for the current context's device. */
static int l_synchronize(lua_State *L) {
  lua_settop(L, 0);
  GML_TRY(L, gm_context_synchronize(), "synchronize");
  return 0;
}

/* gm.collect(): drains every device's deferred-free queue, gives cached
 * blocks back (device, page-locked and host pools). */
static int l_collect(lua_State *L) {
  lua_settop(L, 0);
  gm_deferred_drain(); /* mats whose free waited for a pin to drop */
  gm_device_collect_all();
  return 0;
}

/* gm.counters() -> table: the core's gm_counters by name */
static int l_counters(lua_State *L) {
  static const struct {
    const char *name;
    size_t offset;
  } fields[] = {
#define F(f) {#f, offsetof(gm_counter_values, f)}
      F(n_memcpy_host_to_device), F(n_memcpy_device_to_host), F(device_bytes_in_use), F(device_bytes_pooled),
      F(n_device_arrays), F(host_bytes_in_use), F(n_host_arrays), F(n_ooms), F(n_host_registrations),
      F(pinned_host_bytes), F(host_pool_bytes_in_use), F(host_pool_bytes_cached), F(host_pool_hits),
      F(host_pool_misses), F(host_pool_trims), F(host_pool_limit), F(pinned_host_bytes_cached), F(pinned_host_pool_hits),
#undef F
  };
  gm_counter_values v = gm_counters();
  lua_createtable(L, 0, (int)(sizeof fields / sizeof fields[0]));
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    long long x;
    memcpy(&x, (const char *)&v + fields[i].offset, sizeof x);
    lua_pushinteger(L, (lua_Integer)x);
    lua_setfield(L, -2, fields[i].name);
  }
  return 1;
}

/* gm.cuda_room({verbose = true}) -> MGL's report text, "" when cuda is not
 * in use (use_cuda_p() is false). */
static int l_cuda_room(lua_State *L) {
  const char *fname = "cuda_room";
  static const char *const allowed[] = {"verbose", NULL};
  gml_check_options(L, 1, fname, allowed);
  bool verbose = gml_opt_boolean(L, 1, "verbose", true, fname);
  gm_device *d = gm_current_device();
  char text[512] = "";
  if (d) gm_room_report(d, verbose, text, sizeof text);
  lua_pushstring(L, text);
  return 1;
}

void gml_open_context(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"cuda_context", l_cuda_context, 4, NULL}, {"cuda_available", l_cuda_available, 1, NULL},
      {"use_cuda_p", l_use_cuda_p, GML_VARARGS, NULL},     {"device_count", l_device_count, 0, NULL},
      {"_cuda_libraries", l_cuda_libraries, 1, NULL},
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
  gml_open_syncing(L, module_idx);
}
