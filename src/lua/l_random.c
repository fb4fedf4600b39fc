/* Random numbers in Lua (MGL-MAT §15): fills, mv_gaussian_random,
 * orthogonal_random_, and the "gpumat.random_state" userdata (a copy of
 * a Philox stream: key and next block, see src/core/ops/random.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../core/ops/random.h"
#include "util.h"

#define GML_RANDOM_STATE_MT "gpumat.random_state"

static gm_random_state *push_state(lua_State *L, const gm_random_state *s) {
  gm_random_state *u = lua_newuserdatauv(L, sizeof *u, 0);
  *u = *s;
  luaL_setmetatable(L, GML_RANDOM_STATE_MT);
  return u;
}

static gm_random_state *check_state(lua_State *L, int idx, const char *fname) {
  gm_random_state *s = luaL_testudata(L, idx, GML_RANDOM_STATE_MT);
  if (!s) gml_argerror(L, idx, fname, GML_RANDOM_STATE_MT " expected, got %s", luaL_typename(L, idx));
  return s;
}

/* opts.state, or NULL for the global stream. */
static gm_random_state *opt_state(lua_State *L, int idx, const char *fname) {
  if (!gml_opt_push(L, idx, "state")) return NULL;
  gm_random_state *s = luaL_testudata(L, -1, GML_RANDOM_STATE_MT);
  if (!s)
    gml_argerror(L, idx, fname, "option 'state' must be a " GML_RANDOM_STATE_MT ", got %s",
                 luaL_typename(L, -1));
  lua_pop(L, 1); /* still referenced by the options table */
  return s;
}

/* The destructive fills: m, then options that are numbers (in the
 * order of the core's parameters) and a state. */
static const struct fill_op {
  const char *name;
  gm_random_fill_kind kind;
  const char *const opts[4];
  double defaults[2];
} fills[] = {
    /* gm.uniform_random_(m, {limit = 1, state}) */
    {"uniform_random_", GM_FILL_UNIFORM, {"limit", "state", NULL}, {1, 0}},
    /* gm.gaussian_random_(m, {mean = 0, stddev = 1, state}) */
    {"gaussian_random_", GM_FILL_GAUSSIAN, {"mean", "stddev", "state", NULL}, {0, 1}},
    /* gm.orthogonal_random_(m, {scale = 1, state}) */
    {"orthogonal_random_", GM_FILL_ORTHOGONAL, {"scale", "state", NULL}, {1, 0}},
};

/* The three fills, one C function (upvalue 1 is its gml_reg, which names
 * the fill). */
static int l_fill(lua_State *L) {
  const gml_reg *r = lua_touserdata(L, lua_upvalueindex(1));
  const struct fill_op *op = &fills[0];
  while (strcmp(op->name, r->name) != 0) op++;
  const char *fn = op->name;
  if (!lua_isnoneornil(L, 2)) gml_guard(L, 2);
  gm_mat *m = gml_checkmat(L, 1, fn);
  gml_check_options(L, 2, fn, op->opts);
  double p[2] = {op->defaults[0], op->defaults[1]};
  for (int i = 0; strcmp(op->opts[i], "state") != 0; i++) p[i] = gml_opt_number(L, 2, op->opts[i], p[i], fn);
  gm_random_state *s = opt_state(L, 2, fn);
  bool bad_m;
  if (gm_random_fill_check(op->kind, m, p, &bad_m) != GM_OK) gml_argerror(L, bad_m ? 1 : 2, fn, "%s", gm_last_error());
  GML_TRY(L, gm_random_fill(op->kind, m, p, s), fn);
  lua_settop(L, 1);
  return 1;
}

static gm_mat *opt_required_mat(lua_State *L, int idx, const char *key, const char *fn) {
  if (!gml_opt_push(L, idx, key)) gml_argerror(L, idx, fn, "option '%s' is required", key);
  if (!gml_ismat(L, -1))
    gml_argerror(L, idx, fn, "option '%s' must be a gpumat.mat, got %s", key, luaL_typename(L, -1));
  gml_mat *box = lua_touserdata(L, -1);
  if (!box->m) gml_argerror(L, idx, fn, "option '%s' is a freed mat", key);
  gml_pin(L, -1);
  lua_pop(L, 1);
  return box->m;
}

/* gm.mv_gaussian_random({means = m, covariances = c, state}) */
static int l_mv_gaussian_random(lua_State *L) {
  const char *fn = "mv_gaussian_random";
  static const char *const opts[] = {"means", "covariances", "state", NULL};
  if (!lua_istable(L, 1)) gml_argerror(L, 1, fn, "options table expected, got %s", luaL_typename(L, 1));
  gml_guard(L, 1); /* the option mats are pinned as they are read */
  gml_check_options(L, 1, fn, opts);
  gm_mat *means = opt_required_mat(L, 1, "means", fn);
  gm_mat *cov = opt_required_mat(L, 1, "covariances", fn);
  gm_random_state *s = opt_state(L, 1, fn);
  if (means->ctype != cov->ctype)
    gml_argerror(L, 1, fn, "means and covariances have different ctypes: %s and %s",
                 gm_ctype_name(means->ctype), gm_ctype_name(cov->ctype));
  gm_mat_options o = {0};
  o.has_initial_element = 1;
  o.cuda_enabled = gml_settings_of(L)->default_mat_cuda_enabled;
  o.synchronization = gml_settings_of(L)->default_synchronization;
  gm_mat *out;
  GML_TRY(L, gm_mv_gaussian_random(means, cov, s, &o, &out), fn);
  gml_pushmat(L, out);
  return 1;
}

/* gm.seed(n): the global stream restarts at key n. */
static int l_seed(lua_State *L) {
  int isnum;
  lua_Integer n = lua_tointegerx(L, 1, &isnum);
  if (lua_type(L, 1) == LUA_TNUMBER && !isnum)
    gml_argerror(L, 1, "seed", "integer expected, got %g", lua_tonumber(L, 1));
  if (!isnum || lua_type(L, 1) != LUA_TNUMBER)
    gml_argerror(L, 1, "seed", "integer expected, got %s", luaL_typename(L, 1));
  gm_random_seed((uint64_t)n);
  return 0;
}

static int l_random_state(lua_State *L) {
  gm_random_state s = gm_random_get();
  push_state(L, &s);
  return 1;
}

static int l_set_random_state(lua_State *L) {
  gm_random_set(check_state(L, 1, "set_random_state"));
  return 0;
}

static int l_copy_random_state(lua_State *L) {
  gm_random_state s = *check_state(L, 1, "copy_random_state");
  push_state(L, &s);
  return 1;
}

static int state_tostring(lua_State *L) {
  gm_random_state *s = check_state(L, 1, "__tostring");
  char buf[96];
  snprintf(buf, sizeof buf, "#<random_state philox key=%" PRIu64 " counter=%" PRIu64 ">", s->key,
           s->counter);
  lua_pushstring(L, buf);
  return 1;
}

static int state_eq(lua_State *L) {
  gm_random_state *a = luaL_testudata(L, 1, GML_RANDOM_STATE_MT);
  gm_random_state *b = luaL_testudata(L, 2, GML_RANDOM_STATE_MT);
  /* the VM calls __eq with one state at least; a direct call may not */
  if (!a && !b) gml_argerror(L, 1, "__eq", "%s expected, got %s", GML_RANDOM_STATE_MT, luaL_typename(L, 1));
  lua_pushboolean(L, a && b && a->key == b->key && a->counter == b->counter);
  return 1;
}

void gml_open_random(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"uniform_random_", l_fill, 2, NULL}, {"gaussian_random_", l_fill, 2, NULL},
      {"mv_gaussian_random", l_mv_gaussian_random, 1, NULL}, {"orthogonal_random_", l_fill, 2, NULL},
      {"seed", l_seed, 1, NULL}, {"random_state", l_random_state, 0, NULL},
      {"set_random_state", l_set_random_state, 1, NULL}, {"copy_random_state", l_copy_random_state, 1, NULL},
      {NULL, NULL, 0, NULL}};
  if (luaL_newmetatable(L, GML_RANDOM_STATE_MT)) {
    static const gml_reg meta[] = {{"__tostring", state_tostring, 1, NULL}, {"__eq", state_eq, 2, NULL},
                                   {NULL, NULL, 0, NULL}};
    gml_register(L, -1, meta);
  }
  lua_pop(L, 1);
  gml_register(L, module_idx, fns);
}
