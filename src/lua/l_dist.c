/* gpumat.dist: collectives on mats across processes (MPI) and GPUs
 * (NCCL).  Built into the core module so it shares the mat userdata and
 * the facet machinery; lua/gpumat/dist.lua opens it with package.loadlib
 * on core.so's entry point luaopen_gpumat_dist.
 *
 * Place: inside with_cuda on a CUDA device with NCCL, on the cuda facet
 * through NCCL; otherwise on the host facet through MPI (the emulated
 * device goes through its host copies, counted like any facet copy).
 * Directions: allreduce_ io; broadcast_ input on the root, output
 * elsewhere; allgather/reduce_scatter_ input + output; send input; recv_
 * output (output on a partial view becomes io, as for every op). */
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

#include "../core/exec.h"
#include "../core/vec.h"
#include "../dist/comm.h"
#include "../dist/nccl.h"
#include "util.h"

/* Cross-rank agreement checks (dist.init{check = true} or
 * GPUMAT_DIST_CHECK=1): one small allreduce per call. */
static bool checking;

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

/* The place of a collective on these mats. */
typedef struct place {
  gm_exec e;
  bool nccl;
} place;

static place choose(gm_mat *const *mats, int n) {
  place p = {gm_exec_choose(mats, n), false};
  if (p.e.dev && gm_nccl_usable(p.e.dev))
    p.nccl = true;
  else
    p.e = gm_exec_host();
  return p;
}

static gm_status check_same(const char *fn, long long a, long long b, long long c) {
  if (!checking) return GM_OK;
  long long sig[3] = {a, b, c};
  return gm_dist_check_same(fn, sig, 3);
}

/* x /= size on the host facet (average) */
static void divide(void *p, size_t n, gm_ctype t, int size) {
#define X(T, E, ...)                                     \
  case GM_##E: {                                         \
    T *x = p;                                            \
    for (size_t i = 0; i < n; i++) x[i] /= (T)size;      \
    break;                                               \
  }
  GM_CTYPE_SWITCH(t, X, break)
#undef X
}

static int l_init(lua_State *L) {
  static const char *const keys[] = {"check", NULL};
  gml_check_options(L, 1, "init", keys);
  const char *env = getenv("GPUMAT_DIST_CHECK");
  bool def = env && *env && strcmp(env, "0") != 0;
  bool chk = gml_opt_boolean(L, 1, "check", def, "init");
  GML_TRY(L, gm_dist_init(), "init");
  checking = chk;
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

static int l_allreduce(lua_State *L) {
  static const char *fn = "allreduce_";
  static const char *const keys[] = {"op", "average", NULL};
  check_active(L, fn);
  gml_check_options(L, 2, fn, keys);
  gm_dist_op op = check_op(L, 2, fn);
  bool average = gml_opt_boolean(L, 2, "average", false, fn);
  if (average && op != GM_DIST_SUM) gml_argerror(L, 2, fn, "option 'average' needs op \"sum\"");
  gm_mat *m = gml_checkmat(L, 1, fn);
  gm_status st = check_same(fn, (long long)m->size, m->ctype, op * 2 + average);
  if (st == GM_OK) {
    place p = choose(&m, 1);
    gm_operand o = {m, GM_IO, NULL};
    st = gm_acquire(&p.e, &o, 1);
    if (st == GM_OK) {
      if (p.nccl) {
        st = gm_nccl_allreduce(p.e.dev, o.ptr, m->size, m->ctype, op, average);
      } else {
        st = gm_dist_allreduce(o.ptr, m->size, m->ctype, op);
        if (st == GM_OK && average && gm_dist_size() > 1) divide(o.ptr, m->size, m->ctype, gm_dist_size());
      }
      gm_release(&p.e, &o, 1);
    }
  }
  if (st != GM_OK) gml_raise(L, st, fn);
  lua_settop(L, 1);
  return 1;
}

static int l_broadcast(lua_State *L) {
  static const char *fn = "broadcast_";
  check_active(L, fn);
  int root = check_rank_arg(L, 2, fn, "root", true);
  gm_mat *m = gml_checkmat(L, 1, fn);
  gm_status st = check_same(fn, (long long)m->size, m->ctype, root);
  if (st == GM_OK) {
    place p = choose(&m, 1);
    gm_operand o = {m, root == gm_dist_rank() ? GM_INPUT : GM_OUTPUT, NULL};
    st = gm_acquire(&p.e, &o, 1);
    if (st == GM_OK) {
      st = p.nccl ? gm_nccl_bcast(p.e.dev, o.ptr, m->size, m->ctype, root)
                  : gm_dist_bcast(o.ptr, m->size, m->ctype, root);
      gm_release(&p.e, &o, 1);
    }
  }
  if (st != GM_OK) gml_raise(L, st, fn);
  lua_settop(L, 1);
  return 1;
}

static int l_allgather(lua_State *L) {
  static const char *fn = "allgather";
  check_active(L, fn);
  gm_mat *m = gml_checkmat(L, 1, fn);
  if (m->rank + 1 > GM_MAX_RANK) gml_argerror(L, 1, fn, "rank %d leaves no room for the leading axis", m->rank);
  gm_status st = check_same(fn, (long long)m->size, m->ctype, m->rank);
  gm_mat *out = NULL;
  if (st == GM_OK) {
    size_t dims[GM_MAX_RANK];
    dims[0] = (size_t)gm_dist_size();
    for (int i = 0; i < m->rank; i++) dims[i + 1] = m->dims[i];
    gm_mat_options o = {0};
    o.ctype = m->ctype;
    o.cuda_enabled = m->cuda_enabled;
    o.synchronization = gml_settings_of(L)->default_synchronization;
    st = gm_mat_new(m->rank + 1, dims, &o, &out);
  }
  if (st == GM_OK) {
    gm_mat *mats[2] = {m, out};
    place p = choose(mats, 2);
    gm_operand ops[2] = {{m, GM_INPUT, NULL}, {out, GM_OUTPUT, NULL}};
    st = gm_acquire(&p.e, ops, 2);
    if (st == GM_OK) {
      st = p.nccl ? gm_nccl_allgather(p.e.dev, ops[0].ptr, ops[1].ptr, m->size, m->ctype)
                  : gm_dist_allgather(ops[0].ptr, ops[1].ptr, m->size, m->ctype);
      gm_release(&p.e, ops, 2);
    }
  }
  if (st != GM_OK) {
    gm_mat_free(out);
    gml_raise(L, st, fn);
  }
  gml_pushmat(L, out);
  return 1;
}

static int l_reduce_scatter(lua_State *L) {
  static const char *fn = "reduce_scatter_";
  static const char *const keys[] = {"op", NULL};
  check_active(L, fn);
  gml_check_options(L, 3, fn, keys);
  gm_dist_op op = check_op(L, 3, fn);
  gm_mat *m = gml_checkmat(L, 1, fn);
  gm_mat *out = gml_checkmat(L, 2, fn);
  if (out->ctype != m->ctype) gml_argerror(L, 2, fn, "ctype differs from argument #1's");
  size_t size = (size_t)gm_dist_size();
  if (m->size != out->size * size)
    gml_argerror(L, 2, fn, "size %zu times the world size %zu differs from argument #1's size %zu", out->size, size,
                 m->size);
  if (out->vec == m->vec) gml_argerror(L, 2, fn, "must not share storage with argument #1");
  gm_status st = check_same(fn, (long long)out->size, m->ctype, op);
  if (st == GM_OK) {
    gm_mat *mats[2] = {m, out};
    place p = choose(mats, 2);
    gm_operand ops[2] = {{m, GM_INPUT, NULL}, {out, GM_OUTPUT, NULL}};
    st = gm_acquire(&p.e, ops, 2);
    if (st == GM_OK) {
      st = p.nccl ? gm_nccl_reduce_scatter(p.e.dev, ops[0].ptr, ops[1].ptr, out->size, m->ctype, op)
                  : gm_dist_reduce_scatter(ops[0].ptr, ops[1].ptr, out->size, m->ctype, op);
      gm_release(&p.e, ops, 2);
    }
  }
  if (st != GM_OK) gml_raise(L, st, fn);
  lua_settop(L, 2);
  return 1;
}

/* Point to point: no cross-rank check (only the two peers take part);
 * MPI itself reports a truncated message as mpi_error, and recv_ checks
 * the received count. */
static int l_send(lua_State *L) {
  static const char *fn = "send";
  check_active(L, fn);
  int dest = check_rank_arg(L, 2, fn, "dest", false);
  if (dest == gm_dist_rank()) gml_argerror(L, 2, fn, "cannot send to the calling rank %d", dest);
  int tag = check_tag(L, 3, fn);
  gm_mat *m = gml_checkmat(L, 1, fn);
  place p = choose(&m, 1);
  gm_operand o = {m, GM_INPUT, NULL};
  gm_status st = gm_acquire(&p.e, &o, 1);
  if (st == GM_OK) {
    /* NCCL has no tags */
    if (p.nccl && tag == 0)
      st = gm_nccl_send(p.e.dev, o.ptr, m->size, m->ctype, dest);
    else if (p.nccl)
      st = gm_fail(GM_EUNSUPPORTED, "tagged send of a cuda facet is not implemented (use tag 0)");
    else
      st = gm_dist_send(o.ptr, m->size, m->ctype, dest, tag);
    gm_release(&p.e, &o, 1);
  }
  if (st != GM_OK) gml_raise(L, st, fn);
  return 0;
}

static int l_recv(lua_State *L) {
  static const char *fn = "recv_";
  check_active(L, fn);
  int src = check_rank_arg(L, 2, fn, "src", false);
  if (src == gm_dist_rank()) gml_argerror(L, 2, fn, "cannot receive from the calling rank %d", src);
  int tag = check_tag(L, 3, fn);
  gm_mat *m = gml_checkmat(L, 1, fn);
  place p = choose(&m, 1);
  gm_operand o = {m, GM_OUTPUT, NULL};
  gm_status st = gm_acquire(&p.e, &o, 1);
  if (st == GM_OK) {
    if (p.nccl && tag == 0)
      st = gm_nccl_recv(p.e.dev, o.ptr, m->size, m->ctype, src);
    else if (p.nccl)
      st = gm_fail(GM_EUNSUPPORTED, "tagged recv_ into a cuda facet is not implemented (use tag 0)");
    else
      st = gm_dist_recv(o.ptr, m->size, m->ctype, src, tag);
    gm_release(&p.e, &o, 1);
  }
  if (st != GM_OK) gml_raise(L, st, fn);
  lua_settop(L, 1);
  return 1;
}

int luaopen_gpumat_dist(lua_State *L) {
  static const gml_reg fns[] = {
      {"init", l_init, 1, NULL},         {"finalize", l_finalize, 0, NULL},   {"rank", l_rank, 0, NULL},
      {"size", l_size, 0, NULL},         {"barrier", l_barrier, 0, NULL},     {"allreduce_", l_allreduce, 2, NULL},
      {"broadcast_", l_broadcast, 2, NULL}, {"allgather", l_allgather, 1, NULL}, {"reduce_scatter_", l_reduce_scatter, 3, NULL},
      {"send", l_send, 3, NULL},         {"recv_", l_recv, 3, NULL},          {"initialized", l_initialized, 0, NULL},
      {"uses_mpi", l_uses_mpi, 0, NULL}, {NULL, NULL, 0, NULL}};
  gml_newlib(L, fns);
  return 1;
}

#endif
