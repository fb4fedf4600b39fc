/* gpumat.dist: collectives on mats across processes (MPI) and GPUs
 * (NCCL).  Built into the core module so it shares the mat userdata and
 * the facet machinery; lua/gpumat/dist.lua opens it with package.loadlib
 * on core.so's entry point luaopen_gpumat_dist.
 *
 * The functions here check their arguments and push results; the
 * collectives on mats (place, facets, NCCL or MPI) are one core function,
 * gm_dist_mats (src/dist/collective.c). */
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#define GM_EXPORT __attribute__((visibility("default")))
GM_EXPORT int luaopen_gpumat_dist(lua_State *L);

#ifndef GPUMAT_HAVE_DIST

int luaopen_gpumat_dist(lua_State *L) {
  return luaL_error(L, "gpumat.dist: this gpumat was built without MPI (install Open MPI, e.g. Debian's "
                       "libopenmpi-dev, and rebuild with -DGPUMAT_DIST=ON)");
}

#else

#include "../core/mem/device.h"
#include "../dist/collective.h"
#include "../dist/nccl.h"
#include "util.h"

static void check_active(lua_State *L, const char *fn) {
  gm_dist_state s = gm_dist_get_state();
  if (s == GM_DIST_UNINIT) luaL_error(L, "%s: gpumat.dist is not initialized (call dist.init() first)", fn);
  if (s == GM_DIST_FINALIZED) luaL_error(L, "%s: gpumat.dist was finalized", fn);
}

static const char *const op_names[] = {"sum", "max", "min", "prod", NULL};

static gm_dist_op check_op(lua_State *L, int idx, const char *fn) {
  gm_dist_op op = GM_DIST_SUM;
  if (gml_opt_push(L, idx, "op")) {
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int i = 0;
    while (s && op_names[i] && strcmp(op_names[i], s) != 0) i++;
    if (!s || !op_names[i])
      gml_argerror(L, idx, fn, "option 'op' must be \"sum\", \"max\", \"min\" or \"prod\", got %s",
                   s ? s : luaL_typename(L, -1));
    op = (gm_dist_op)i;
    lua_pop(L, 1);
  }
  return op;
}

static int check_rank_arg(lua_State *L, int idx, const char *fn, const char *what, bool optional) {
  if (optional && lua_isnoneornil(L, idx)) return 0;
  if (!lua_isinteger(L, idx)) gml_argerror(L, idx, fn, "%s must be an integer, got %s", what, luaL_typename(L, idx));
  lua_Integer r = lua_tointeger(L, idx);
  if (r < 0 || r >= gm_dist_size())
    gml_argerror(L, idx, fn, "%s %lld is out of range [0, %d)", what, (long long)r, gm_dist_size());
  return (int)r;
}

static int check_tag(lua_State *L, int idx, const char *fn) {
  if (lua_isnoneornil(L, idx)) return 0;
  if (!lua_isinteger(L, idx)) gml_argerror(L, idx, fn, "tag must be an integer, got %s", luaL_typename(L, idx));
  lua_Integer t = lua_tointeger(L, idx);
  if (t < 0 || t > gm_dist_tag_ub())
    gml_argerror(L, idx, fn, "tag %lld is out of range [0, %d]", (long long)t, gm_dist_tag_ub());
  return (int)t;
}

/* One GPU per process on a node: the local rank picks among the node's
 * CUDA devices (mpirun -np K on one node would otherwise put every rank
 * on device 0, which NCCL refuses as a duplicate GPU).  A setting of the
 * Lua state that initialises dist. */
static void default_device(lua_State *L) {
  int count = gm_cuda_device_count();
  if (count > 0) gml_settings_of(L)->cuda_default_device_id = gm_dist_local_rank() % count;
}

static int l_init(lua_State *L) {
  static const char *const keys[] = {"check", "set_device", NULL};
  gml_check_options(L, 1, "init", keys);
  const char *env = getenv("GPUMAT_DIST_CHECK");
  bool def = env && *env && strcmp(env, "0") != 0;
  bool chk = gml_opt_boolean(L, 1, "check", def, "init");
  bool set_device = gml_opt_boolean(L, 1, "set_device", true, "init");
  bool was_active = gm_dist_get_state() == GM_DIST_ACTIVE;
  GML_TRY(L, gm_dist_init(), "init");
  gm_dist_set_checking(chk);
  if (set_device && !was_active) default_device(L);
  return 0;
}

static int l_finalize(lua_State *L) {
  if (gm_dist_get_state() == GM_DIST_ACTIVE) gm_nccl_finalize();
  GML_TRY(L, gm_dist_finalize(), "finalize");
  return 0;
}

static int l_rank(lua_State *L) {
  check_active(L, "rank");
  lua_pushinteger(L, gm_dist_rank());
  return 1;
}

static int l_size(lua_State *L) {
  check_active(L, "size");
  lua_pushinteger(L, gm_dist_size());
  return 1;
}

static int l_local_rank(lua_State *L) {
  check_active(L, "local_rank");
  lua_pushinteger(L, gm_dist_local_rank());
  return 1;
}

static int l_local_size(lua_State *L) {
  check_active(L, "local_size");
  lua_pushinteger(L, gm_dist_local_size());
  return 1;
}

static int l_initialized(lua_State *L) {
  lua_pushboolean(L, gm_dist_get_state() == GM_DIST_ACTIVE);
  return 1;
}

static int l_uses_mpi(lua_State *L) {
  check_active(L, "uses_mpi");
  lua_pushboolean(L, gm_dist_uses_mpi());
  return 1;
}

static int l_barrier(lua_State *L) {
  check_active(L, "barrier");
  GML_TRY(L, gm_dist_barrier(), "barrier");
  return 0;
}

/* Runs the call; raises naming fn on failure. */
static void run(lua_State *L, gm_dist_call *c, const char *fn) {
  c->fn = fn;
  GML_TRY(L, gm_dist_mats(c), fn);
}

static int l_allreduce(lua_State *L) {
  static const char *fn = "allreduce_";
  static const char *const keys[] = {"op", "average", NULL};
  check_active(L, fn);
  gml_check_options(L, 2, fn, keys);
  gm_dist_call c = {.kind = GM_DIST_ALLREDUCE, .op = check_op(L, 2, fn)};
  c.average = gml_opt_boolean(L, 2, "average", false, fn);
  if (c.average && c.op != GM_DIST_SUM) gml_argerror(L, 2, fn, "option 'average' needs op \"sum\"");
  c.m = gml_checkmat(L, 1, fn);
  run(L, &c, fn);
  lua_settop(L, 1);
  return 1;
}

static int l_broadcast(lua_State *L) {
  static const char *fn = "broadcast_";
  check_active(L, fn);
  gm_dist_call c = {.kind = GM_DIST_BROADCAST, .peer = check_rank_arg(L, 2, fn, "root", true)};
  c.m = gml_checkmat(L, 1, fn);
  run(L, &c, fn);
  lua_settop(L, 1);
  return 1;
}

/* a new mat of dims {size(), m's dims...}, like m (ctype, cuda_enabled) */
static gm_mat *gathered_mat(lua_State *L, const gm_mat *m, const char *fn) {
  size_t dims[GM_MAX_RANK];
  dims[0] = (size_t)gm_dist_size();
  for (int i = 0; i < m->rank; i++) dims[i + 1] = m->dims[i];
  gm_mat_options o = {0};
  o.ctype = m->ctype;
  o.cuda_enabled = m->cuda_enabled;
  o.synchronization = gml_settings_of(L)->default_synchronization;
  gm_mat *out = NULL;
  GML_TRY(L, gm_mat_new(m->rank + 1, dims, &o, &out), fn);
  return out;
}

static int l_allgather(lua_State *L) {
  static const char *fn = "allgather";
  check_active(L, fn);
  gm_dist_call c = {.kind = GM_DIST_ALLGATHER, .m = gml_checkmat(L, 1, fn)};
  if (c.m->rank + 1 > GM_MAX_RANK) gml_argerror(L, 1, fn, "rank %d leaves no room for the leading axis", c.m->rank);
  c.out = gathered_mat(L, c.m, fn);
  c.fn = fn;
  gm_status st = gm_dist_mats(&c);
  if (st != GM_OK) {
    gm_mat_free(c.out);
    gml_raise(L, st, fn);
  }
  gml_pushmat(L, c.out);
  return 1;
}

static int l_reduce_scatter(lua_State *L) {
  static const char *fn = "reduce_scatter_";
  static const char *const keys[] = {"op", NULL};
  check_active(L, fn);
  gml_check_options(L, 3, fn, keys);
  gm_dist_call c = {.kind = GM_DIST_REDUCE_SCATTER, .op = check_op(L, 3, fn)};
  c.m = gml_checkmat(L, 1, fn);
  c.out = gml_checkmat(L, 2, fn);
  if (c.out->ctype != c.m->ctype) gml_argerror(L, 2, fn, "ctype differs from argument #1's");
  size_t size = (size_t)gm_dist_size();
  if (c.m->size != c.out->size * size)
    gml_argerror(L, 2, fn, "size %zu times the world size %zu differs from argument #1's size %zu", c.out->size,
                 size, c.m->size);
  if (c.out->vec == c.m->vec) gml_argerror(L, 2, fn, "must not share storage with argument #1");
  run(L, &c, fn);
  lua_settop(L, 2);
  return 1;
}

/* the peer of a point-to-point call: a rank other than the caller's */
static int check_peer(lua_State *L, int idx, const char *fn, const char *what, const char *verb) {
  int r = check_rank_arg(L, idx, fn, what, false);
  if (r == gm_dist_rank()) gml_argerror(L, idx, fn, "cannot %s the calling rank %d", verb, r);
  return r;
}

/* Point to point: no cross-rank check (only the two peers take part);
 * MPI itself reports a truncated message as mpi_error, and recv_ checks
 * the received count. */
static int l_send(lua_State *L) {
  static const char *fn = "send";
  check_active(L, fn);
  gm_dist_call c = {.kind = GM_DIST_SEND, .peer = check_peer(L, 2, fn, "dest", "send to")};
  c.tag = check_tag(L, 3, fn);
  c.m = gml_checkmat(L, 1, fn);
  run(L, &c, fn);
  return 0;
}

static int l_recv(lua_State *L) {
  static const char *fn = "recv_";
  check_active(L, fn);
  gm_dist_call c = {.kind = GM_DIST_RECV, .peer = check_peer(L, 2, fn, "src", "receive from")};
  c.tag = check_tag(L, 3, fn);
  c.m = gml_checkmat(L, 1, fn);
  run(L, &c, fn);
  lua_settop(L, 1);
  return 1;
}

/* dist.sendrecv_(m, dest, out, src, tag) -> out */
static int l_sendrecv(lua_State *L) {
  static const char *fn = "sendrecv_";
  check_active(L, fn);
  gm_dist_call c = {.kind = GM_DIST_SENDRECV, .peer = check_peer(L, 2, fn, "dest", "send to")};
  c.peer2 = check_peer(L, 4, fn, "src", "receive from");
  c.tag = check_tag(L, 5, fn);
  c.m = gml_checkmat(L, 1, fn);
  c.out = gml_checkmat(L, 3, fn);
  if (c.out->ctype != c.m->ctype) gml_argerror(L, 3, fn, "ctype differs from argument #1's");
  if (c.out->vec == c.m->vec) gml_argerror(L, 3, fn, "must not share storage with argument #1");
  run(L, &c, fn);
  lua_settop(L, 3);
  return 1;
}

int luaopen_gpumat_dist(lua_State *L) {
  static const gml_reg fns[] = {
      {"init", l_init, 1, NULL},         {"finalize", l_finalize, 0, NULL},   {"rank", l_rank, 0, NULL},
      {"size", l_size, 0, NULL},         {"barrier", l_barrier, 0, NULL},     {"allreduce_", l_allreduce, 2, NULL},
      {"broadcast_", l_broadcast, 2, NULL}, {"allgather", l_allgather, 1, NULL}, {"reduce_scatter_", l_reduce_scatter, 3, NULL},
      {"send", l_send, 3, NULL},         {"recv_", l_recv, 3, NULL},          {"initialized", l_initialized, 0, NULL},
      {"uses_mpi", l_uses_mpi, 0, NULL}, {"local_rank", l_local_rank, 0, NULL}, {"local_size", l_local_size, 0, NULL},
      {"sendrecv_", l_sendrecv, 5, NULL}, {NULL, NULL, 0, NULL}};
  gml_newlib(L, fns);
  return 1;
}

#endif
