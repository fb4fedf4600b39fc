/* Shaping (MGL-MAT §8): functional shaping makes a new mat on the same
 * storage, destructive shaping changes the view.  Displacements are
 * absolute offsets into the storage (not indices); the row of
 * reshape_to_row_matrix_ is a 1-based index. */
#include "../core/model/shaping.h"
#include "../core/ops/view_args.h"
#include "util.h"

static size_t check_displacement(lua_State *L, int arg, const char *fn) {
  return gml_check_size(L, arg, fn, "displacement");
}

/* Raises a failed gm_shape_apply: a strided mat names argument 1, a shape
 * that does not fit names fit_arg (the dims or the displacement). */
static void check_shaped(lua_State *L, gm_status st, int bad, int fit_arg, const char *fn) {
  if (st != GM_OK && bad) gml_argerror(L, bad == GM_SHAPE_BAD_MAT ? 1 : fit_arg, fn, "%s", gm_last_error());
  GML_TRY(L, st, fn);
}

/* m shaped (core/model/shaping.h) and pushed: a new view, or m itself in place. */
static int shape(lua_State *L, gm_mat *m, int rank, const size_t *dims, size_t d, bool in_place, int fit_arg,
                 const char *fn) {
  gm_mat *v = NULL;
  int bad = 0;
  gm_status st = gm_shape_apply(m, rank, dims, d, in_place, &v, &bad);
  check_shaped(L, st, bad, fit_arg, fn);
  if (in_place) lua_settop(L, 1);
  else gml_pushmat(L, v);
  return 1;
}

/* A strided view cannot be shaped (core/model/shaping.h). */
static void check_contiguous(lua_State *L, const gm_mat *m, const char *fn) {
  if (gm_check_shapable(m) != GM_OK) gml_argerror(L, 1, fn, "%s", gm_last_error());
}

/* The mat argument; destructive shaping is refused while a running call
 * holds the mat (util.h, "Binding rule"). */
static gm_mat *take(lua_State *L, const char *fn, bool destructive) {
  return destructive ? gml_checkmat_shapable(L, 1, fn) : gml_checkmat(L, 1, fn);
}

/* gm.reshape_and_displace(m, dims, d) and the destructive variant */
static int reshape_and_displace(lua_State *L, const char *fn, bool destructive) {
  size_t dims[GM_MAX_RANK]; /* read first: a dims list's metamethods run Lua */
  int rank = gml_check_dims(L, 2, fn, dims);
  size_t d = check_displacement(L, 3, fn);
  return shape(L, take(L, fn, destructive), rank, dims, d, destructive, 3, fn);
}

static int l_reshape_and_displace(lua_State *L) {
  return reshape_and_displace(L, "reshape_and_displace", false);
}
static int l_reshape_and_displace_(lua_State *L) {
  return reshape_and_displace(L, "reshape_and_displace_", true);
}

/* gm.reshape(m, dims): keeps the displacement.  dims: a list or
 * integers, one of them -1 (inferred from m's size).  A non-contiguous
 * mat gets a view of its elements as view() would make. */
static int reshape(lua_State *L, const char *fn, bool destructive) {
  size_t dims[GM_MAX_RANK];
  int infer, rank = gml_check_reshape_dims(L, 2, fn, dims, &infer);
  gm_mat *m = take(L, fn, destructive);
  if (!destructive && (!m->contiguous || infer >= 0)) return gml_reshape_view(L, m, rank, dims, infer, fn);
  check_contiguous(L, m, fn); /* before the -1: a strided mat's error first */
  /* reshape_ with -1: the dims of m's elements */
  if (gm_dims_infer(rank, dims, infer, m->size) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
  return shape(L, m, rank, dims, m->displacement, destructive, 2, fn);
}

static int l_reshape(lua_State *L) { return reshape(L, "reshape", false); }
static int l_reshape_(lua_State *L) { return reshape(L, "reshape_", true); }

/* gm.displace(m, d): keeps the dimensions */
static int displace(lua_State *L, const char *fn, bool destructive) {
  size_t d = check_displacement(L, 2, fn);
  gm_mat *m = take(L, fn, destructive);
  return shape(L, m, m->rank, m->dims, d, destructive, 2, fn);
}

static int l_displace(lua_State *L) { return displace(L, "displace", false); }
static int l_displace_(lua_State *L) { return displace(L, "displace_", true); }

/* gm.reshape_to_row_matrix_(m, row): only row `row` (1-based) of the 2d m
 * stays visible, as a 1xN matrix. */
static int l_reshape_to_row_matrix_(lua_State *L) {
  const char *fn = "reshape_to_row_matrix_";
  gm_mat *m = gml_checkmat_shapable(L, 1, fn);
  size_t dims[2], d;
  int isnum, bad;
  lua_Integer row = lua_tointegerx(L, 2, &isnum);
  bool is_int = isnum && lua_type(L, 2) == LUA_TNUMBER;
  /* the mat's errors come before the row's (its range needs the mat) */
  gm_status st = gm_row_matrix_args(m, is_int ? row : 1, dims, &d, &bad);
  if (st != GM_OK && bad == 1) gml_argerror(L, 1, fn, "%s", gm_last_error());
  if (!is_int) gml_argerror(L, 2, fn, "row must be an integer, got %s", luaL_typename(L, 2));
  if (st != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
  return shape(L, m, 2, dims, d, true, 2, fn);
}

/* core.with_shape_apply(m, dims, d, fn) -> old dims, old displacement:
 * the checks and reshaping step of gm.with_shape_and_displacement (nil
 * dims or d keeps the current value). */
static int l_with_shape_apply(lua_State *L) {
  const char *fn = "with_shape_and_displacement";
  size_t dims[GM_MAX_RANK]; /* arguments first: a dims list may run Lua */
  int rank = 0;
  if (!lua_isnil(L, 2)) rank = gml_check_dims(L, 2, fn, dims);
  size_t d = lua_isnil(L, 3) ? 0 : check_displacement(L, 3, fn);
  if (lua_type(L, 4) != LUA_TFUNCTION) gml_argerror(L, 4, fn, "function expected, got %s", luaL_typename(L, 4));
  gm_mat *m = gml_checkmat_shapable(L, 1, fn);
  if (lua_isnil(L, 2)) {
    rank = m->rank;
    for (int i = 0; i < rank; i++) dims[i] = m->dims[i];
  }
  if (lua_isnil(L, 3)) d = m->displacement;
  gm_mat old = *m; /* the old shape, pushed after m's last use */
  int bad = 0;
  gm_status st = gm_shape_apply(m, rank, dims, d, true, NULL, &bad);
  check_shaped(L, st, bad, lua_isnil(L, 3) ? 2 : 3, fn);
  gml_push_dims(L, &old);
  lua_pushinteger(L, (lua_Integer)old.displacement);
  return 2;
}

/* gm.adjust_(m, dims, d, {destroy_old = true}): reshapes m in place when
 * its storage is large enough, else returns a new mat (contents not
 * copied) and destroys m's facets (destroy-cube) when destroy_old. */
static int l_adjust_(lua_State *L) {
  const char *fn = "adjust_";
  static const char *const opts[] = {"destroy_old", NULL};
  size_t dims[GM_MAX_RANK]; /* arguments first: dims and options may run Lua */
  int rank = gml_check_dims(L, 2, fn, dims);
  size_t d = check_displacement(L, 3, fn);
  gml_check_options(L, 4, fn, opts);
  bool destroy_old = gml_opt_boolean(L, 4, "destroy_old", true, fn);
  gm_mat *m = gml_checkmat_shapable(L, 1, fn), *fresh;
  check_contiguous(L, m, fn);
  int bad = 0;
  /* m's facets go before the push, whose allocation may free m */
  gm_status st = gm_mat_adjust_(m, rank, dims, d, destroy_old, &fresh, &bad);
  if (st != GM_OK && bad) gml_argerror(L, bad, fn, "%s", gm_last_error());
  GML_TRY(L, st, fn);
  if (!fresh) lua_settop(L, 1);
  else gml_pushmat(L, fresh);
  return 1;
}

void gml_open_shaping(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"reshape_and_displace", l_reshape_and_displace, 3, NULL},
      {"reshape_and_displace_", l_reshape_and_displace_, 3, NULL},
      {"reshape", l_reshape, GML_VARARGS, NULL}, /* m:reshape(d1, d2, ...) */
      {"reshape_", l_reshape_, 2, NULL},
      {"displace", l_displace, 2, NULL},
      {"displace_", l_displace_, 2, NULL},
      {"reshape_to_row_matrix_", l_reshape_to_row_matrix_, 2, NULL},
      {"adjust_", l_adjust_, 4, NULL},
      {"with_shape_apply", l_with_shape_apply, 4, "with_shape_and_displacement"},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
}
