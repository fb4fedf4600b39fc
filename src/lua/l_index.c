/* Integer-array and boolean-mask indexing in Lua (core/ops/index.h): the
 * functions take, index_select, take_along_axis, gather,
 * put_along_axis, scatter_, scatter_add_, scatter_reduce(_), index_add_,
 * index_fill_, index_copy_, masked_select, masked_fill_, masked_scatter_,
 * nonzero, argwhere (gm.X and m:X), and the index mat of m[{...}]
 * (gml_adv_subs, called by l_view.c).  Axes are 1-based (negative from
 * the end).  Every Lua argument is checked before the index values are
 * read (they are the one allocation a Lua error would leak). */
#include <string.h>

#include "../core/ops/broadcast.h"
#include "../core/ops/compact.h"
#include "../core/ops/index.h"
#include "../core/ops/reduce_axis.h"
#include "../core/exec/stage.h"
#include "../core/model/view.h"
#include "util.h"

/* The 0-based axis of the integer at idx for m. */
static int check_axis_at(lua_State *L, int idx, const gm_mat *m, const char *fn) {
  int axis = 0;
  if (gm_reduce_axis_arg(gml_check_integer(L, idx, fn), m->rank, &axis) != GM_OK)
    gml_argerror(L, idx, fn, "%s", gm_last_error());
  return axis;
}

/* The dims of the nested list at idx (its first entries down to a
 * number); the list stays on the stack. */
static int list_dims(lua_State *L, int idx, const char *fn, int arg, size_t *dims) {
  int rank = 0;
  lua_pushvalue(L, idx);
  while (lua_istable(L, -1) && !gml_ismat(L, -1)) {
    if (rank == GM_MAX_RANK) gml_argerror(L, arg, fn, "index list nested deeper than %d", GM_MAX_RANK);
    lua_Integer n = luaL_len(L, -1);
    if (n < 0 || (lua_Unsigned)n > ((size_t)1 << 40)) gml_argerror(L, arg, fn, "bad index list length");
    dims[rank++] = (size_t)n;
    lua_geti(L, -1, 1);
    lua_remove(L, -2);
    if (n == 0) break;
  }
  lua_pop(L, 1);
  return rank;
}

/* Flattens the list at idx (depth d of dims) into v from *k, checking its
 * shape and that every entry is an integer. */
static void list_values(lua_State *L, int idx, int d, int rank, const size_t *dims, int64_t *v, size_t *k,
                        const char *fn, int arg) {
  if (!lua_istable(L, idx) || gml_ismat(L, idx) || luaL_len(L, idx) != (lua_Integer)dims[d])
    gml_argerror(L, arg, fn, "index lists must be rectangular (an entry at depth %d is not a list of %zu)", d + 1, dims[d]);
  for (size_t i = 1; i <= dims[d]; i++) {
    lua_geti(L, idx, (lua_Integer)i);
    int isint;
    if (d + 1 < rank) {
      list_values(L, lua_gettop(L), d + 1, rank, dims, v, k, fn, arg);
    } else {
      v[(*k)++] = lua_tointegerx(L, -1, &isint);
      if (!isint || lua_type(L, -1) != LUA_TNUMBER)
        gml_argerror(L, arg, fn, "index %zu must be an integer, got %s", *k, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
  }
}

/* An index argument at idx (errors at argument arg): an integer mat or a
 * (nested) Lua list of integers, as 0-based positions along an axis of
 * len elements; read last. */
static void check_index_at(lua_State *L, int idx, int arg, const char *fn, size_t len, gm_index_arg *a) {
  if (gml_ismat(L, idx)) {
    if (gm_index_arg_from_mat(gml_checkmat(L, idx, fn), len, a) != GM_OK)
      gml_argerror(L, arg, fn, "%s", gm_last_error());
    return;
  }
  if (!lua_istable(L, idx)) gml_argerror(L, arg, fn, "index mat or list expected, got %s", luaL_typename(L, idx));
  size_t dims[GM_MAX_RANK], n = 1, k = 0;
  int rank = list_dims(L, idx, fn, arg, dims);
  for (int d = 0; d < rank; d++) n = dims[d] && n > ((size_t)1 << 40) / dims[d] ? SIZE_MAX : n * dims[d];
  if (n == SIZE_MAX) gml_argerror(L, arg, fn, "index list too large");
  int64_t *v = lua_newuserdatauv(L, n * sizeof *v + 1, 0); /* collected on error */
  list_values(L, idx, 0, rank, dims, v, &k, fn, arg);
  if (gm_index_arg_from_values(n, v, a) != GM_OK) gml_argerror(L, arg, fn, "%s", gm_last_error());
  a->rank = rank;
  memcpy(a->dims, dims, sizeof dims);
  lua_pop(L, 1);
  if (gm_index_normalize(a, len) != GM_OK) {
    gm_index_arg_free(a);
    gml_argerror(L, arg, fn, "%s", gm_last_error());
  }
}

static void check_index(lua_State *L, int idx, const char *fn, size_t len, gm_index_arg *a) {
  check_index_at(L, idx, idx, fn, len, a);
}

/* A source argument: a mat, or a number or boolean (*value). */
static gm_mat *check_source(lua_State *L, int idx, const char *fn, gm_value *value) {
  int t = lua_type(L, idx);
  *value = (gm_value){false, false, 0, 0, false, 0};
  if (t == LUA_TBOOLEAN) {
    value->is_int = true;
    value->i = lua_toboolean(L, idx);
  } else if (t == LUA_TNUMBER && lua_isinteger(L, idx)) {
    value->is_int = true;
    value->i = (long long)lua_tointeger(L, idx);
  } else if (t == LUA_TNUMBER) {
    value->d = lua_tonumber(L, idx);
  } else if (gml_iscomplex(L, idx)) { /* converted to the mat's type as astype does */
    if (!gml_tocomplex(L, idx, &value->d, &value->im)) gml_argerror(L, idx, fn, "gm.complex value with non-number parts");
    value->is_complex = true;
    return NULL;
  } else {
    if (!gml_ismat(L, idx)) gml_argerror(L, idx, fn, "mat or number expected, got %s", luaL_typename(L, idx));
    return gml_checkmat(L, idx, fn);
  }
  value->d = value->is_int ? (double)value->i : value->d;
  return NULL;
}

/* What one call does with its plan. */
typedef struct ix_call {
  const char *fn;
  gm_mat *x, *src;
  gm_value value;
  int axis, k;     /* take: axes [axis, axis + k) */
  bool along;      /* take_along_axis's plan, else take's */
  bool write;      /* scatter src/value (mode), else gather */
  int mode;
  int index_arg;   /* the index's argument position (for errors) */
  size_t len;      /* the length the index values count in */
  bool flat;       /* write src's leading elements in order (masked_scatter_) */
  bool narrow;     /* a src axis longer than the plan's gives its leading part */
  int ret;         /* a write returns this argument (0: argument 1) */
} ix_call;

/* The write of c through p: src narrowed first where c says. */
static gm_status write_plan(const ix_call *c, const gm_index_plan *p) {
  if (c->flat) return gm_index_write_flat(c->x, p, c->src);
  gm_mat *src = c->src, *v = NULL;
  gm_status st = GM_OK;
  for (int d = 0; c->narrow && src && src->rank == p->rank && d < p->rank && st == GM_OK; d++) {
    if (src->dims[d] <= p->dims[d]) continue;
    gm_mat *w = NULL;
    st = gm_view_narrow(src, d, 0, p->dims[d], &w);
    gm_mat_free(v);
    src = v = w;
  }
  if (st == GM_OK) st = gm_index_write(c->x, p, src, c->value, c->mode);
  gm_mat_free(v);
  return st;
}

/* Plans with a (0-based positions: check_index), reads or writes; frees a; raises on failure
 * (leaves the result, or x for a write, on the stack). */
static int run_call(lua_State *L, const ix_call *c, gm_index_arg *a) {
  gm_index_plan p = {0};
  gm_mat *out = NULL;
  int bad = c->index_arg;
  gm_status st = c->along ? gm_index_plan_along(c->x, c->axis, a, &p) : gm_index_plan_take(c->x, c->axis, c->k, a, &p);
  if (st == GM_OK) {
    bad = 0;
    st = c->write ? write_plan(c, &p) : gm_index_read(c->x, &p, &out);
  }
  gm_index_plan_free(&p);
  gm_index_arg_free(a);
  if (st != GM_OK && bad) gml_argerror(L, bad, c->fn, "%s", gm_last_error());
  if (st != GM_OK) gml_raise(L, st, c->fn);
  if (c->write) lua_settop(L, c->ret ? c->ret : 1);
  else gml_pushmat(L, out);
  return 1;
}

/* gm.take(x, idx, {axis}) or take(x, idx, axis): without an axis, x flattened */
static int l_take(lua_State *L) {
  const char *fn = "take";
  gm_mat *x = gml_checkmat(L, 1, fn);
  ix_call c = {.fn = fn, .x = x, .k = x->rank, .len = x->size, .index_arg = 2};
  if (lua_istable(L, 3) && !gml_ismat(L, 3)) {
    gml_check_options(L, 3, fn, (const char *const[]){"axis", NULL});
    lua_getfield(L, 3, "axis");
    lua_replace(L, 3);
  }
  if (!lua_isnoneornil(L, 3)) {
    c.axis = check_axis_at(L, 3, x, fn);
    c.k = 1;
    c.len = x->dims[c.axis];
  }
  gm_index_arg a;
  check_index(L, 2, fn, c.len, &a);
  return run_call(L, &c, &a);
}

/* m:index_select(axis, idx): take along axis */
static int l_index_select(lua_State *L) {
  const char *fn = "index_select";
  gm_mat *x = gml_checkmat(L, 1, fn);
  ix_call c = {.fn = fn, .x = x, .k = 1, .index_arg = 3};
  c.axis = check_axis_at(L, 2, x, fn);
  c.len = x->dims[c.axis];
  gm_index_arg a;
  check_index(L, 3, fn, c.len, &a);
  return run_call(L, &c, &a);
}

/* The axis of take_along_axis's forms: an integer or {axis = k} at idx. */
static int along_axis_arg(lua_State *L, int idx, const gm_mat *x, const char *fn) {
  if (lua_istable(L, idx) && !gml_ismat(L, idx)) {
    gml_check_options(L, idx, fn, (const char *const[]){"axis", NULL});
    lua_getfield(L, idx, "axis");
    lua_replace(L, idx);
  }
  return check_axis_at(L, idx, x, fn);
}

/* gm.take_along_axis(x, idx, axis) */
static int l_take_along_axis(lua_State *L) {
  const char *fn = "take_along_axis";
  gm_mat *x = gml_checkmat(L, 1, fn);
  ix_call c = {.fn = fn, .x = x, .along = true, .index_arg = 2};
  c.axis = along_axis_arg(L, 3, x, fn);
  c.len = x->dims[c.axis];
  gm_index_arg a;
  check_index(L, 2, fn, c.len, &a);
  return run_call(L, &c, &a);
}

/* m:gather(axis, idx) */
static int l_gather(lua_State *L) {
  const char *fn = "gather";
  gm_mat *x = gml_checkmat(L, 1, fn);
  ix_call c = {.fn = fn, .x = x, .along = true, .index_arg = 3};
  c.axis = check_axis_at(L, 2, x, fn);
  c.len = x->dims[c.axis];
  gm_index_arg a;
  check_index(L, 3, fn, c.len, &a);
  return run_call(L, &c, &a);
}

/* gm.put_along_axis(x, idx, values, axis): in place, returns x */
static int l_put_along_axis(lua_State *L) {
  const char *fn = "put_along_axis";
  gm_mat *x = gml_checkmat(L, 1, fn);
  ix_call c = {.fn = fn, .x = x, .along = true, .write = true, .mode = GM_INDEX_SET, .index_arg = 2};
  c.axis = along_axis_arg(L, 4, x, fn);
  c.len = x->dims[c.axis];
  c.src = check_source(L, 3, fn, &c.value);
  gm_index_arg a;
  check_index(L, 2, fn, c.len, &a);
  return run_call(L, &c, &a);
}

/* m:scatter_(axis, idx, src) and the other in-place forms along an axis:
 * (x, axis, idx, src) with mode; along: take_along_axis's plan (scatter),
 * else take's (index_*) */
static int along_write(lua_State *L, const char *fn, int mode, bool along) {
  gm_mat *x = gml_checkmat(L, 1, fn);
  ix_call c = {.fn = fn, .x = x, .k = 1, .along = along, .write = true, .mode = mode, .index_arg = 3, .narrow = along};
  c.axis = check_axis_at(L, 2, x, fn);
  c.len = x->dims[c.axis];
  c.src = check_source(L, 4, fn, &c.value);
  gm_index_arg a;
  check_index(L, 3, fn, c.len, &a);
  return run_call(L, &c, &a);
}

static int l_scatter_(lua_State *L) { return along_write(L, "scatter_", GM_INDEX_SET, true); }
static int l_scatter_add_(lua_State *L) { return along_write(L, "scatter_add_", GM_INDEX_ADD, true); }
static int l_index_add_(lua_State *L) { return along_write(L, "index_add_", GM_INDEX_ADD, false); }
static int l_index_copy_(lua_State *L) { return along_write(L, "index_copy_", GM_INDEX_SET, false); }

static int l_index_fill_(lua_State *L) {
  if (gml_ismat(L, 4)) gml_argerror(L, 4, "index_fill_", "number expected, got a mat (index_copy_ takes a mat)");
  return along_write(L, "index_fill_", GM_INDEX_SET, false);
}

/* The GM_INDEX_* mode of scatter_reduce's reduce argument at idx. */
static int reduce_mode(lua_State *L, int idx, const char *fn) {
  static const char *const names[] = {"sum", "prod", "amax", "amin", "mean", NULL};
  static const int modes[] = {GM_INDEX_ADD, GM_INDEX_PROD, GM_INDEX_AMAX, GM_INDEX_AMIN, GM_INDEX_MEAN};
  const char *r = gml_check_string(L, idx, fn, NULL);
  for (int i = 0; names[i]; i++)
    if (strcmp(r, names[i]) == 0) return modes[i];
  return gml_argerror(L, idx, fn, "reduce must be \"sum\", \"prod\", \"mean\", \"amax\" or \"amin\", got \"%s\"", r);
}

/* m:scatter_reduce_(axis, idx, src, reduce, {include_self = true}) in
 * place; m:scatter_reduce(...) on a copy.  PyTorch's semantics: each
 * indexed element reduces its sources in index order, starting from its
 * own value (include_self) or from its first source; elements no index
 * names keep their value; "mean" divides by the count of the values
 * reduced (integers: floored; a bool mat has no mean). */
static int scatter_reduce(lua_State *L, bool copy) {
  const char *fn = copy ? "scatter_reduce" : "scatter_reduce_";
  int mode = reduce_mode(L, 5, fn);
  if (!lua_isnoneornil(L, 6)) {
    gml_check_options(L, 6, fn, (const char *const[]){"include_self", NULL});
    if (!gml_opt_boolean(L, 6, "include_self", true, fn)) mode |= GM_INDEX_NO_SELF;
  }
  if ((mode & GM_INDEX_OP) == GM_INDEX_MEAN && gml_checkmat(L, 1, fn)->ctype == GM_BOOL)
    gml_argerror(L, 1, fn, "reduce \"mean\" of a bool mat (convert it first: m:astype(\"float64\"))");
  int op = mode & GM_INDEX_OP;
  if ((op == GM_INDEX_AMAX || op == GM_INDEX_AMIN) && gm_ctype_is_complex(gml_checkmat(L, 1, fn)->ctype))
    gml_argerror(L, 5, fn, "reduce \"%s\" orders elements; complex numbers have no order",
                 op == GM_INDEX_AMAX ? "amax" : "amin");
  lua_settop(L, 4);
  if (copy) {
    gm_mat *c = NULL;
    GML_TRY(L, gm_mat_contiguous_copy(gml_checkmat(L, 1, fn), &c), fn);
    gml_pushmat(L, c);
    lua_replace(L, 1);
  }
  return along_write(L, fn, mode, true);
}

static int l_scatter_reduce(lua_State *L) { return scatter_reduce(L, true); }
static int l_scatter_reduce_(lua_State *L) { return scatter_reduce(L, false); }

/* The number a fill of value writes into ctype t, as a double that names
 * it exactly: the element gm_ctype_write stores (the index writes'
 * conversion, astype's), read back.  False where no double does (int64
 * and uint64 beyond 2^53) and for complex and 16-bit float mats: those
 * fills keep the positions path. */
static bool fill_number(gm_ctype t, gm_value value, double *out) {
  if (gm_ctype_is_complex(t) || gm_ctype_is_half(t)) return false;
  _Alignas(16) unsigned char slot[16]; /* one element of any real ctype, written through its C type */
  gm_ctype_write(t, slot, 0, value);
  gm_value r = gm_ctype_read(t, slot, 0);
  if (!r.is_int) {
    *out = r.d;
    return true;
  }
  const long long lim = (long long)1 << 53;
  if (r.i > lim || r.i < -lim || (r.is_unsigned && r.i < 0)) return false;
  *out = (double)r.i;
  return true;
}

/* A fill through a mask with x's dims (x[mask] = v, masked_fill_) as one
 * elementwise pass, gm.where(mask, v, x, {out = x}) on the mats' device,
 * instead of a position per selected element and the scatter planner
 * (150x numpy's time on 16M floats).  *done is false when value needs the
 * positions path (fill_number). */
static gm_status fill_masked(gm_mat *x, gm_mat *mask, gm_value value, bool *done) {
  double d;
  *done = fill_number(x->ctype, value, &d);
  if (!*done) return GM_OK;
  gm_bc_arg cond = {mask, 0}, v = {NULL, d}, keep = {x, 0};
  return gm_broadcast_where(x->ctype, cond, v, keep, x);
}

/* The masked forms: mask (argument 2, a bool mat broadcast to x's dims)
 * selects x's elements in row-major order. */
static int masked(lua_State *L, ix_call *c) {
  gm_mat *x = c->x = gml_checkmat(L, 1, c->fn), *mask = gml_checkmat(L, 2, c->fn), *mv = NULL;
  if (mask->ctype != GM_BOOL) gml_argerror(L, 2, c->fn, "mask must be a bool mat, got %s", gm_ctype_name(mask->ctype));
  if (c->write) c->src = check_source(L, 3, c->fn, &c->value);
  if (c->flat && !c->src) gml_argerror(L, 3, c->fn, "mat expected, got %s", luaL_typename(L, 3));
  if (gm_view_expand(mask, x->rank, x->dims, &mv) != GM_OK)
    gml_argerror(L, 2, c->fn, "the mask does not broadcast to the mat: %s", gm_last_error());
  if (!c->write) { /* masked_select: compacted where the mats live */
    gm_mat *y = NULL;
    gm_status st = gm_compact_select(x, mv, &y);
    gm_mat_free(mv);
    GML_TRY(L, st, c->fn);
    gml_pushmat(L, y);
    return 1;
  }
  if (c->flat) { /* masked_scatter_: the compaction's inverse where the mats live */
    gm_status st = gm_compact_scatter(x, mv, c->src);
    gm_mat_free(mv);
    if (st == GM_EINVAL) gml_argerror(L, 3, c->fn, "%s", gm_last_error());
    GML_TRY(L, st, c->fn);
    lua_settop(L, 1);
    return 1;
  }
  if (!c->src) { /* masked_fill_ */
    bool done;
    gm_status st = fill_masked(x, mv, c->value, &done);
    if (done || st != GM_OK) {
      gm_mat_free(mv);
      GML_TRY(L, st, c->fn);
      lua_settop(L, 1);
      return 1;
    }
  }
  gm_index_arg a = {0};
  gm_status st = gm_index_mask_positions(mv, &a);
  gm_mat_free(mv);
  if (st != GM_OK) gml_raise(L, st, c->fn);
  c->k = x->rank;
  return run_call(L, c, &a);
}

static int l_masked_select(lua_State *L) {
  ix_call c = {.fn = "masked_select", .index_arg = 2};
  return masked(L, &c);
}

static int l_masked_fill_(lua_State *L) {
  if (gml_ismat(L, 3)) gml_argerror(L, 3, "masked_fill_", "number expected, got a mat (masked_scatter_ takes a mat)");
  ix_call c = {.fn = "masked_fill_", .index_arg = 2, .write = true, .mode = GM_INDEX_SET};
  return masked(L, &c);
}

static int l_masked_scatter_(lua_State *L) {
  ix_call c = {.fn = "masked_scatter_", .index_arg = 2, .write = true, .flat = true};
  return masked(L, &c);
}

/* gm.nonzero(m): a list of int64 mats, one per axis; gm.argwhere(m): n x rank */
static int nonzero(lua_State *L, bool argwhere) {
  const char *fn = argwhere ? "argwhere" : "nonzero";
  gm_mat *m = gml_checkmat(L, 1, fn), *outs[GM_MAX_RANK] = {NULL};
  int rank = m->rank;
  lua_createtable(L, rank, 0);
  GML_TRY(L, gm_compact_nonzero(m, argwhere, outs), fn);
  if (argwhere) {
    gml_pushmat(L, outs[0]);
    return 1;
  }
  for (int d = 0; d < rank; d++) {
    gml_pushmat(L, outs[d]);
    lua_rawseti(L, -2, d + 1);
  }
  return 1;
}

static int l_nonzero(lua_State *L) { return nonzero(L, false); }
static int l_argwhere(lua_State *L) { return nonzero(L, true); }

/* A mask must have the dims of the axes of v from `at` it consumes. */
static void check_mask_axes(lua_State *L, const gm_mat *mask, const gm_mat *v, int at, const char *fn) {
  for (int d = 0; d < mask->rank; d++)
    if (mask->dims[d] != v->dims[at + d])
      gml_argerror(L, 2, fn, "the mask's axis %d has length %zu, the indexed axis %zu", d + 1, mask->dims[d],
                   v->dims[at + d]);
}

/* The index mats and masks of m[{...}] (NumPy's combined advanced
 * indices): each checked against its axes of v from axis (a mask's dims
 * must match the axes it consumes), then read, a mask as its nonzero()
 * coordinates, one index per axis, and all broadcast together into
 * positions over those axes.  The Lua checks come before any read (an
 * error after one would leak it). */
static void read_broadcast(lua_State *L, const gml_adv *adv, const gm_mat *v, int axis, const char *fn,
                           gm_index_arg *a) {
  gm_mat *ims[GM_MAX_RANK];
  for (int q = 0, at = axis; q < adv->n; q++) {
    ims[q] = gml_checkmat(L, adv->idx[q], fn);
    int kind = gm_ctype_kind(ims[q]->ctype);
    if (kind == GM_KIND_BOOL) check_mask_axes(L, ims[q], v, at, fn);
    if (kind != GM_KIND_INT && kind != GM_KIND_UINT && kind != GM_KIND_BOOL)
      gml_argerror(L, 2, fn, "index mat must have an integer ctype, got %s", gm_ctype_name(ims[q]->ctype));
    at += kind == GM_KIND_BOOL ? ims[q]->rank : 1;
  }
  gm_index_arg args[GM_MAX_RANK];
  int read = 0;
  gm_status st = GM_OK;
  for (int q = 0; st == GM_OK && q < adv->n; q++) {
    if (ims[q]->ctype == GM_BOOL) {
      st = gm_index_mask_coords(ims[q], args + read);
      read += st == GM_OK ? ims[q]->rank : 0;
      continue;
    }
    args[read] = (gm_index_arg){0};
    st = gm_index_arg_from_mat(ims[q], v->dims[axis + read], &args[read]);
    if (st == GM_OK) read++;
  }
  if (st == GM_OK) st = gm_index_broadcast_flat(read, args, v->dims + axis, a);
  for (int q = 0; q < read; q++) gm_index_arg_free(&args[q]);
  if (st != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
}

/* m[{..., idx, ...}] and m[mask] (l_view.c): through the view at vidx,
 * whose axes [axis, axis + k) the index mats and masks select. */
int gml_adv_apply(lua_State *L, int vidx, const gml_adv *adv, int value_idx, const char *fn) {
  gm_mat *v = gml_checkmat(L, vidx, fn), *im = gml_checkmat(L, adv->idx[0], fn);
  ix_call c = {.fn = fn, .x = v, .axis = adv->axis, .k = adv->k, .index_arg = 2, .ret = vidx};
  if (value_idx) {
    c.write = true;
    c.src = check_source(L, value_idx, fn, &c.value);
  }
  gm_index_arg a = {0};
  if (!adv->mask && adv->n == 1) {
    c.len = v->dims[c.axis];
    check_index_at(L, adv->idx[0], 2, fn, c.len, &a);
    return run_call(L, &c, &a);
  }
  if (adv->mask && adv->n == 1) { /* a mask alone: its positions directly (no coordinates) */
    check_mask_axes(L, im, v, c.axis, fn);
    if (!value_idx && c.axis == 0 && adv->k == v->rank && im->ctype == GM_BOOL) { /* m[mask]: a compaction */
      gm_mat *y = NULL;
      GML_TRY(L, gm_compact_select(v, im, &y), fn);
      gml_pushmat(L, y);
      return 1;
    }
    if (value_idx && !c.src && c.axis == 0 && adv->k == v->rank) { /* m[mask] = number */
      bool done;
      GML_TRY(L, fill_masked(v, im, c.value, &done), fn);
      if (done) {
        lua_settop(L, vidx);
        return 1;
      }
    }
    /* m[mask] = src, src 1-d with one element per selected one: the
     * compaction's inverse (the positions path took ~140x numpy's time);
     * other shapes broadcast through positions below */
    if (value_idx && c.src && c.src->rank == 1 && c.axis == 0 && adv->k == v->rank && im->ctype == GM_BOOL) {
      bool done;
      GML_TRY(L, gm_compact_assign(v, im, c.src, &done), fn);
      if (done) {
        lua_settop(L, vidx);
        return 1;
      }
    }
    if (gm_index_mask_positions(im, &a) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
    return run_call(L, &c, &a);
  }
  read_broadcast(L, adv, v, c.axis, fn, &a);
  return run_call(L, &c, &a);
}

void gml_open_index(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"take", l_take, 3, NULL},
      {"index_select", l_index_select, 3, NULL},
      {"take_along_axis", l_take_along_axis, 3, NULL},
      {"gather", l_gather, 3, NULL},
      {"put_along_axis", l_put_along_axis, 4, NULL},
      {"scatter_", l_scatter_, 4, NULL},
      {"scatter_add_", l_scatter_add_, 4, NULL},
      {"scatter_reduce", l_scatter_reduce, 6, NULL},
      {"scatter_reduce_", l_scatter_reduce_, 6, NULL},
      {"index_add_", l_index_add_, 4, NULL},
      {"index_copy_", l_index_copy_, 4, NULL},
      {"index_fill_", l_index_fill_, 4, NULL},
      {"masked_select", l_masked_select, 2, NULL},
      {"masked_fill_", l_masked_fill_, 3, NULL},
      {"masked_scatter_", l_masked_scatter_, 3, NULL},
      {"nonzero", l_nonzero, 1, NULL},
      {"argwhere", l_argwhere, 1, NULL},
  };
  gml_register_ops(L, module_idx, fns, (int)(sizeof fns / sizeof fns[0]), false);
}
