/* NN ops in Lua: gm.convolve_(x, w, y, {start, stride, anchor, batched}),
 * gm.derive_convolve_(x, xd, w, wd, yd, opts), gm.max_pool_(x, y, {...,
 * pool_dimensions}), gm.derive_max_pool_(x, xd, y, yd, opts).
 *
 * start and anchor are 1-based lists ({1, 1} is MGL's (0 0)), stride a
 * list of positive steps; each has one entry per spatial dimension (2)
 * and defaults to all ones.  The core validates the geometry and names
 * the faulty operand, which becomes the argument number here. */
#include <string.h>

#include "l_ew.h"

#include "../core/ops/nn.h"

static const char *const conv_options[] = {"start", "stride", "anchor", "batched", NULL};
static const char *const pool_options[] = {"start", "stride", "anchor", "batched", "pool_dimensions", NULL};

/* Reads option `key` (a list of 2 integers >= 1) into out, minus `shift`
 * (1 for the 1-based lists, 0 for sizes).  Absent: all `def`. */
static void opt_pair(lua_State *L, int idx, const char *fname, const char *key, int64_t shift, int64_t def,
                     int64_t out[2]) {
  out[0] = out[1] = def - shift;
  if (!gml_opt_push(L, idx, key)) return;
  if (!lua_istable(L, -1) || luaL_len(L, -1) != 2)
    gml_argerror(L, idx, fname, "option '%s' must be a list of 2 integers (one per spatial dimension)", key);
  for (int i = 0; i < 2; i++) {
    lua_geti(L, -1, i + 1);
    int isnum;
    lua_Integer v = lua_tointegerx(L, -1, &isnum);
    if (!isnum || lua_type(L, -1) != LUA_TNUMBER)
      gml_argerror(L, idx, fname, "option '%s' element %d must be an integer, got %s", key, i + 1,
                   luaL_typename(L, -1));
    if (v < 1) gml_argerror(L, idx, fname, "option '%s' element %d must be at least 1, got %lld", key, i + 1, (long long)v);
    out[i] = (int64_t)v - shift;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

static void read_params(lua_State *L, int idx, const char *fname, gm_nn_params *p) {
  opt_pair(L, idx, fname, "start", 1, 1, p->start);
  opt_pair(L, idx, fname, "stride", 0, 1, p->stride);
  opt_pair(L, idx, fname, "anchor", 1, 1, p->anchor);
  p->batched = gml_opt_boolean(L, idx, "batched", false, fname);
}

static void read_pool(lua_State *L, int idx, const char *fname, int64_t pool[2]) {
  if (!gml_opt_push(L, idx, "pool_dimensions"))
    gml_argerror(L, idx, fname, "option 'pool_dimensions' is required (a list of 2 sizes)");
  lua_pop(L, 1);
  opt_pair(L, idx, fname, "pool_dimensions", 0, 1, pool);
}

/* Raises for a failed core call: validation errors become "bad argument"
 * errors on the operand the core named (args[bad]). */
static void nn_try(lua_State *L, gm_status st, gm_nn_arg bad, const int *args, const char *fname) {
  if (st == GM_OK) return;
  if (st == GM_EINVAL && bad != GM_NN_NONE) {
    const char *msg = gm_last_error();
    size_t n = strlen(fname);
    if (strncmp(msg, fname, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ') msg += n + 2;
    gml_argerror(L, args[bad], fname, "%s", msg);
  }
  gml_raise(L, st, fname);
}

/* Each op: its mat arguments in order (the operand each one is), whether
 * it pools, and the arguments it returns (0: none). */
static const struct nn_op {
  const char *name;
  gm_nn_kind kind;
  int n_mats;
  gm_nn_arg operand[5];
  bool pool;
  int results[2];
} nn_ops[] = {
    /* gm.convolve_(x, w, y, opts) -> y */
    {"convolve_", GM_NN_CONVOLVE, 3, {GM_NN_X, GM_NN_W, GM_NN_Y}, false, {3, 0}},
    /* gm.derive_convolve_(x, xd, w, wd, yd, opts) -> xd, wd */
    {"derive_convolve_", GM_NN_DERIVE_CONVOLVE, 5, {GM_NN_X, GM_NN_XD, GM_NN_W, GM_NN_WD, GM_NN_YD}, false, {2, 4}},
    /* gm.max_pool_(x, y, opts) -> y */
    {"max_pool_", GM_NN_MAX_POOL, 2, {GM_NN_X, GM_NN_Y}, true, {2, 0}},
    /* gm.derive_max_pool_(x, xd, y, yd, opts) -> xd */
    {"derive_max_pool_", GM_NN_DERIVE_MAX_POOL, 4, {GM_NN_X, GM_NN_XD, GM_NN_Y, GM_NN_YD}, true, {2, 0}},
};

/* The four ops, one C function (upvalue 1 is its gml_reg, which names the
 * op): mats first, then the options after them. */
static int l_nn_op(lua_State *L) {
  const gml_reg *r = lua_touserdata(L, lua_upvalueindex(1));
  const struct nn_op *op = &nn_ops[0];
  while (strcmp(op->name, r->name) != 0) op++;
  const char *fn = op->name;
  int io = op->n_mats + 1;
  gml_guard(L, io); /* options' metamethods run while the mats are held */
  gm_mat *mats[GM_NN_OPTS] = {NULL};
  int args[GM_NN_OPTS + 1] = {0}; /* the argument of each operand */
  for (int i = 0; i < op->n_mats; i++) {
    mats[op->operand[i]] = gml_checkmat(L, i + 1, fn);
    args[op->operand[i]] = i + 1;
  }
  args[GM_NN_OPTS] = io;
  gml_check_options(L, io, fn, op->pool ? pool_options : conv_options);
  gm_nn_params p;
  int64_t pool[2] = {0, 0};
  read_params(L, io, fn, &p);
  if (op->pool) read_pool(L, io, fn, pool);
  gm_nn_arg bad = GM_NN_NONE;
  gm_status st = gm_nn_run(op->kind, mats, pool, &p, &bad);
  nn_try(L, st, bad, args, fn);
  lua_pushvalue(L, op->results[0]);
  if (op->results[1]) lua_pushvalue(L, op->results[1]);
  return op->results[1] ? 2 : 1;
}

void gml_open_nn(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"convolve_", l_nn_op, 4, NULL},
      {"derive_convolve_", l_nn_op, 6, NULL},
      {"max_pool_", l_nn_op, 3, NULL},
      {"derive_max_pool_", l_nn_op, 5, NULL},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
  /* Methods on the written mat: y:convolve_(x, w, opts), y:max_pool_(x,
   * opts), xd:derive_max_pool_(x, y, yd, opts).  derive_convolve_ writes
   * two mats and has no method. */
  gml_ew_method(L, &fns[0], 3);
  gml_ew_method(L, &fns[2], 2);
  gml_ew_method(L, &fns[3], 2);
}
