/* gpumat.dist: collectives on mats across processes (MPI) and GPUs
 * (NCCL).  Built into the core module so it shares the mat userdata and
 * the facet machinery; lua/gpumat/dist.lua opens it with package.loadlib
 * on core.so's entry point luaopen_gpumat_dist.
 *
 * The functions here read their arguments and push results; the rules
 * the arguments must follow (state, op names, rank, peer and tag ranges,
 * operand rules) are src/dist/rules.c's, and the collectives on mats
 * (place, facets, NCCL or MPI) are one core function, gm_dist_mats
 * (src/dist/collective.c). */
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#define GM_EXPORT __attribute__((visibility("default")))
GM_EXPORT int luaopen_gpumat_dist(lua_State *L);

#ifndef GPUMAT_HAVE_DIST

int luaopen_gpumat_dist(lua_State *L) {
  return luaL_error(L, "gpumat.dist: this gpumat was built without MPI (install Open MPI, e.g. Debian's "
                       "libopenmpi-dev, and rebuild with -DGPUMAT_DIST=ON)");
}

#else

#include "../dist/collective.h"
#include "../dist/mpi_api.h"
#include "../dist/nccl.h"
#include "../dist/rules.h"
#include "util.h"

static void check_active(lua_State *L, const char *fn) {
  if (gm_dist_check_active() != GM_OK) luaL_error(L, "%s: %s", fn, gm_last_error());
}

/* Raises the dist rules' message about argument idx. */
static void check_arg(lua_State *L, gm_status st, int idx, const char *fn) {
  if (st != GM_OK) gml_argerror(L, idx, fn, "%s", gm_last_error());
}

static gm_dist_op check_op(lua_State *L, int idx, const char *fn) {
  gm_dist_op op = GM_DIST_SUM;
  if (gml_opt_push(L, idx, "op")) {
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
    check_arg(L, gm_dist_parse_op(s, &op), idx, fn);
    lua_pop(L, 1);
  }
  return op;
}

static lua_Integer check_int(lua_State *L, int idx, const char *fn, const char *what) {
  if (!lua_isinteger(L, idx)) gml_argerror(L, idx, fn, "%s must be an integer, got %s", what, luaL_typename(L, idx));
  return lua_tointeger(L, idx);
}

static int check_rank_arg(lua_State *L, int idx, const char *fn, const char *what, bool optional) {
  if (optional && lua_isnoneornil(L, idx)) return 0;
  int r;
  check_arg(L, gm_dist_check_rank(check_int(L, idx, fn, what), what, &r), idx, fn);
  return r;
}

static int check_tag(lua_State *L, int idx, const char *fn) {
  if (lua_isnoneornil(L, idx)) return 0;
  int t;
  check_arg(L, gm_dist_check_tag(check_int(L, idx, fn, "tag"), &t), idx, fn);
  return t;
}

static int l_init(lua_State *L) {
  static const char *const keys[] = {"check", "set_device", NULL};
  gml_check_options(L, 1, "init", keys);
  bool chk = gml_opt_boolean(L, 1, "check", gm_dist_checking_default(), "init");
  bool set_device = gml_opt_boolean(L, 1, "set_device", true, "init");
  bool was_active = gm_dist_get_state() == GM_DIST_ACTIVE;
  GML_TRY(L, gm_dist_init(), "init");
  gm_dist_set_checking(chk);
  /* a setting of the Lua state that initialises dist */
  int device = set_device && !was_active ? gm_dist_default_device() : -1;
  if (device >= 0) gml_settings_of(L)->cuda_default_device_id = device;
  return 0;
}

static int l_finalize(lua_State *L) {
  if (gm_dist_get_state() == GM_DIST_ACTIVE) gm_nccl_finalize();
  GML_TRY(L, gm_dist_finalize(), "finalize");
  return 0;
}

/* rank, size, local_rank, local_size: the group's numbers, one C
 * function for the four (upvalue 1 is its gml_reg, which names it) */
static const struct {
  const char *name;
  int (*get)(void);
} numbers[] = {{"rank", gm_dist_rank}, {"size", gm_dist_size}, {"local_rank", gm_dist_local_rank},
               {"local_size", gm_dist_local_size}};

static int l_number(lua_State *L) {
  const gml_reg *r = lua_touserdata(L, lua_upvalueindex(1));
  check_active(L, r->name);
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
    if (strcmp(numbers[i].name, r->name) == 0) lua_pushinteger(L, numbers[i].get());
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
  check_arg(L, gm_dist_check_call(&c), 2, fn);
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
  int rank = gm_dist_gathered_dims(m, dims);
  gm_mat_options o = {0};
  o.ctype = m->ctype;
  o.cuda_enabled = m->cuda_enabled;
  o.synchronization = gml_settings_of(L)->default_synchronization;
  gm_mat *out = NULL;
  GML_TRY(L, gm_mat_new(rank, dims, &o, &out), fn);
  return out;
}

static int l_allgather(lua_State *L) {
  static const char *fn = "allgather";
  check_active(L, fn);
  gm_dist_call c = {.kind = GM_DIST_ALLGATHER, .m = gml_checkmat(L, 1, fn)};
  check_arg(L, gm_dist_check_call(&c), 1, fn);
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
  check_arg(L, gm_dist_check_call(&c), 2, fn);
  run(L, &c, fn);
  lua_settop(L, 2);
  return 1;
}

/* the peer of a point-to-point call: a rank other than the caller's */
static int check_peer(lua_State *L, int idx, const char *fn, const char *what, const char *verb) {
  int r;
  check_arg(L, gm_dist_check_peer(check_int(L, idx, fn, what), what, verb, &r), idx, fn);
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
  check_arg(L, gm_dist_check_call(&c), 3, fn);
  run(L, &c, fn);
  lua_settop(L, 3);
  return 1;
}

int luaopen_gpumat_dist(lua_State *L) {
  /* MPI is gpumat/dist_mpi.so's (src/dist/mpi_api.h): loaded here, not
   * with the core */
  if (gm_dist_load() != GM_OK) return luaL_error(L, "gpumat.dist: %s", gm_last_error());
  static const gml_reg fns[] = {
      {"init", l_init, 1, NULL},         {"finalize", l_finalize, 0, NULL},   {"rank", l_number, 0, NULL},
      {"size", l_number, 0, NULL},         {"barrier", l_barrier, 0, NULL},     {"allreduce_", l_allreduce, 2, NULL},
      {"broadcast_", l_broadcast, 2, NULL}, {"allgather", l_allgather, 1, NULL}, {"reduce_scatter_", l_reduce_scatter, 3, NULL},
      {"send", l_send, 3, NULL},         {"recv_", l_recv, 3, NULL},          {"initialized", l_initialized, 0, NULL},
      {"uses_mpi", l_uses_mpi, 0, NULL}, {"local_rank", l_number, 0, NULL}, {"local_size", l_number, 0, NULL},
      {"sendrecv_", l_sendrecv, 5, NULL}, {NULL, NULL, 0, NULL}};
  gml_newlib(L, fns);
  lua_pushboolean(L, gm_nccl_built());
  lua_setfield(L, -2, "nccl");
  return 1;
}

#endif
