/* Validation and dispatch of the broadcasting elementwise ops. */
#include "broadcast.h"

#include <math.h>
#include <string.h>

#include "../exec/exec.h"
#include "half.h"
#include "op_table.h"
#include "../exec/stage.h"
#include "../model/view.h"

static const char *const bcast_names[GM_N_BCAST] = {
#define GM_BCAST_NAME(f, E, name, ...) [GM_BC_##E] = name,
    GM_BCAST_OPS(GM_BCAST_NAME)
#undef GM_BCAST_NAME
};

const char *gm_bcast_name(gm_bcast_op op) { return (unsigned)op < GM_N_BCAST ? bcast_names[op] : "unknown"; }

gm_status gm_bc_result_dims(const gm_bc_arg *args, int n, int *rank, size_t dims[GM_MAX_RANK]) {
  *rank = 0;
  const gm_mat *first = NULL; /* the usual case: every mat of the same dims (or a number) */
  bool same = true;
  for (int i = 0; i < n && same; i++)
    if (args[i].m) {
      if (!first) first = args[i].m;
      else same = gm_mat_same_dims(first, args[i].m);
    }
  if (same) {
    if (first) {
      *rank = first->rank;
      memcpy(dims, first->dims, (size_t)first->rank * sizeof dims[0]);
    }
    return GM_OK;
  }
  for (int i = 0; i < n; i++) {
    if (!args[i].m) continue;
    size_t cur[GM_MAX_RANK];
    memcpy(cur, dims, sizeof cur);
    GM_TRY(gm_broadcast_dims(*rank, cur, args[i].m->rank, args[i].m->dims, rank, dims));
  }
  return GM_OK;
}

/* out's ctype (want) and dims against the inputs'. */
static gm_status check_operands(const gm_bc_arg *args, int n, gm_ctype want, gm_mat *out) {
  int rank;
  size_t dims[GM_MAX_RANK];
  GM_TRY(gm_bc_result_dims(args, n, &rank, dims));
  if (out->ctype != want)
    return gm_fail(GM_EINVAL, "out's ctype is %s but the result's is %s", gm_ctype_name(out->ctype), gm_ctype_name(want));
  if (rank != out->rank || memcmp(dims, out->dims, (size_t)rank * sizeof dims[0]) != 0) {
    char so[160], sr[160];
    gm_format_dims(out->rank, out->dims, so, sizeof so);
    gm_format_dims(rank, dims, sr, sizeof sr);
    return gm_fail(GM_EINVAL, "out is %s but the result is %s", so, sr);
  }
  return GM_OK;
}

/* Storage elements m may touch: [lo, hi] (backward axes reach below the
 * displacement). */
static void span(const gm_mat *m, size_t *lo, size_t *hi) {
  *lo = gm_mat_lowest(m);
  *hi = *lo + gm_mat_extent(m) - 1;
}

static bool same_view(const gm_mat *a, const gm_mat *b) {
  if (a->vec != b->vec || a->displacement != b->displacement || a->rank != b->rank) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d] || a->strides[d] != b->strides[d]) return false;
  return true;
}

/* Whether input m must be copied before out is written: it shares
 * storage with out without being out's very elements (an element could
 * be read after another thread wrote it). */
static bool needs_copy(const gm_mat *m, const gm_mat *out) {
  if (!m || m == out || m->vec != out->vec || m->size == 0 || same_view(m, out)) return false;
  size_t alo, ahi, blo, bhi;
  span(m, &alo, &ahi);
  span(out, &blo, &bhi);
  return alo <= bhi && blo <= ahi;
}

/* m converted to ctype t in a new contiguous mat (astype: where m lives) */
static gm_status converted(gm_mat *m, gm_ctype t, gm_mat **out) {
  gm_mat_options o = {0};
  o.ctype = (int)t;
  o.cuda_enabled = m->cuda_enabled;
  o.synchronization = m->vec->synchronization;
  GM_TRY(gm_mat_new(m->rank, m->dims, &o, out));
  gm_status st = gm_mat_astype(m, *out);
  if (st != GM_OK) gm_mat_free(*out);
  return st;
}

/* Replaces inputs of another ctype than want[i] by converted copies
 * (promotion: one conversion pass, then the same-ctype loop or kernel),
 * and inputs that overlap out by contiguous copies (*tmp[i]). */
static gm_status stage_inputs(gm_bc_arg *args, int n, const gm_ctype *want, const gm_mat *out, gm_mat **tmp) {
  for (int i = 0; i < n; i++) {
    tmp[i] = NULL;
    bool convert = args[i].m && args[i].m->ctype != want[i];
    if (!convert && !needs_copy(args[i].m, out)) continue;
    gm_status st = convert ? converted(args[i].m, want[i], &tmp[i]) : gm_mat_contiguous_copy(args[i].m, &tmp[i]);
    if (st != GM_OK) {
      for (int j = 0; j < i; j++) gm_mat_free(tmp[j]);
      return st;
    }
    args[i].m = tmp[i];
  }
  return GM_OK;
}

/* One op's backend call: binary (op >= 0) or where (op < 0). */
typedef struct bc_job {
  int op;
  gm_ctype t;
} bc_job;

static void *ptr_of(const gm_operand *o, int n, const gm_mat *m) {
  for (int i = 0; m && i < n; i++)
    if (o[i].m == m) return o[i].ptr;
  return NULL;
}

static gm_status run(const gm_exec *e, const bc_job *j, const gm_strided *s, void *const p[GM_STRIDED_MAX_OPS]) {
  if (j->op >= 0) return e->be->strided_ew->binary(e->dev, j->t, (gm_bcast_op)j->op, s, p[0], p[1], p[2]);
  return e->be->strided_ew->where(e->dev, j->t, s, p[0], p[1], p[2], p[3]);
}

/* Lists the operands to acquire: the input mats once each (out
 * excluded), then out, read too when it is an input.  Returns the count. */
static int list_operands(const gm_bc_arg *args, int n, gm_mat *out, gm_operand o[GM_STRIDED_MAX_OPS]) {
  int no = 0;
  bool out_read = false;
  for (int i = 0; i < n; i++) {
    gm_mat *m = args[i].m;
    bool seen = m == out;
    for (int j = 0; j < no && !seen; j++) seen = o[j].m == m;
    out_read = out_read || m == out;
    if (m && !seen) o[no++] = (gm_operand){m, GM_INPUT, NULL};
  }
  o[no++] = (gm_operand){out, out_read ? GM_IO : GM_OUTPUT, NULL};
  return no;
}

/* NumPy's logical arithmetic on bool: + and maximum are or, * and minimum
 * and (the table's bool rows & | ^ run them); op itself otherwise. */
static int bool_op(int op) {
  switch (op) {
    case GM_BC_ADD:
    case GM_BC_CMAX: return GM_BC_BOR;
    case GM_BC_CMUL:
    case GM_BC_CMIN: return GM_BC_BAND;
    default: return op;
  }
}

/* Whether the engine has op for inputs of ctype t: the kinds column of
 * its row in the op table (kernels/op_table.h; where takes every ctype).
 * The refusal names the op and ctype and says what the op takes. */
static gm_status check_kind(const bc_job *j) {
  if (j->op >= (int)GM_N_BCAST || (unsigned)j->t >= GM_N_CTYPES) return gm_fail(GM_EINVAL, "unknown op or ctype");
  const gm_op_row *r = j->op < 0 ? NULL : gm_op_row_of(GM_OPF_BINARY, j->op);
  if (!r) r = j->op < 0 ? NULL : gm_op_row_of(GM_OPF_COMPARE, j->op);
  if (j->t == GM_BOOL && j->op == GM_BC_SUB)
    return gm_fail(GM_EINVAL, "bool mats do not subtract (NumPy's rule): use ~ (bitwise_xor) or logical_xor");
  if (j->t == GM_BOOL && j->op >= 0 && bool_op(j->op) != j->op) return GM_OK;
  if (!r || gm_op_runs_on(r, j->t)) return GM_OK;
  if (gm_ctype_is_complex(j->t))
    return gm_fail(GM_EINVAL, "%s is not defined for complex numbers (got %s operands)", r->lua, gm_ctype_dtype(j->t));
  unsigned ints = 1u << GM_KIND_INT, floats = 1u << GM_KIND_FLOAT;
  if ((r->kinds & ints) && (r->kinds & floats))
    return gm_fail(GM_EINVAL, "integer or float mats only, got a %s mat", gm_ctype_name(j->t));
  if (r->kinds & ints)
    return gm_fail(GM_EINVAL, "integer mats only, got a %s mat (%s is integer-only so far)", gm_ctype_name(j->t),
                   r->lua);
  return gm_check_float_ctype(r->lua, 1, j->t);
}

/* Whether every mat operand is contiguous with out's dims (numbers
 * aside): the iteration space is then one axis of out->size elements,
 * which is what coalescing would give, without its per-axis passes. */
static bool one_run(const gm_bc_arg *args, int n, const gm_mat *out) {
  if (!gm_mat_is_contiguous(out)) return false;
  for (int i = 0; i < n; i++) {
    const gm_mat *m = args[i].m;
    if (m && (!gm_mat_is_contiguous(m) || !gm_mat_same_dims(m, out)))
      return false;
  }
  return true;
}

static gm_status dispatch_in_place(const gm_bc_arg *args, int n, gm_mat *out, const bc_job *j) {
  gm_mat *all[GM_STRIDED_MAX_OPS] = {out};
  for (int i = 0; i < n; i++) all[i + 1] = args[i].m;
  gm_exec e = gm_exec_choose(all, n + 1);
  if (!e.be->strided_ew) return gm_fail(GM_EUNSUPPORTED, "not implemented on the %s backend", e.be->name);
  GM_TRY(gm_check_writable(NULL, out));
  gm_strided s;
  if (one_run(args, n, out)) {
    size_t size = out->size;
    gm_strided_init(&s, 1, &size);
    s.nops = n + 1;
    s.strides[0][0] = 1;
    for (int i = 0; i < n; i++) {
      s.strides[i + 1][0] = args[i].m ? 1 : 0;
      if (!args[i].m) s.scalar[i + 1] = args[i].v;
    }
  } else {
    gm_strided_init(&s, out->rank, out->dims);
    gm_strided_operand(&s, 0, out, 0);
    for (int i = 0; i < n; i++) gm_strided_operand(&s, i + 1, args[i].m, args[i].v);
    gm_strided_coalesce(&s);
  }
  gm_operand o[GM_STRIDED_MAX_OPS];
  int no = list_operands(args, n, out, o);
  gm_lane lane;
  GM_TRY(gm_acquire_lane(&e, o, no, out->size, true, &lane));
  void *ptrs[GM_STRIDED_MAX_OPS] = {ptr_of(o, no, out)};
  for (int i = 0; i < n; i++) ptrs[i + 1] = ptr_of(o, no, args[i].m);
  return gm_finish_lane(&e, o, no, true, &lane, run(&e, j, &s, ptrs));
}

/* want[i]: the ctype the backend reads input i in */
static gm_status dispatch(const gm_bc_arg *given, int n, const gm_ctype *want, gm_mat *out, const bc_job *j) {
  bool stage = false; /* the usual call stages nothing: no copies of the operands to make and free */
  for (int i = 0; i < n && !stage; i++)
    stage = given[i].m && (given[i].m->ctype != want[i] || needs_copy(given[i].m, out));
  if (!stage) return dispatch_in_place(given, n, out, j);
  gm_bc_arg args[GM_STRIDED_MAX_OPS - 1];
  gm_mat *tmp[GM_STRIDED_MAX_OPS - 1];
  memcpy(args, given, (size_t)n * sizeof args[0]);
  GM_TRY(stage_inputs(args, n, want, out, tmp));
  gm_status st = dispatch_in_place(args, n, out, j);
  for (int i = 0; i < n; i++) gm_mat_free(tmp[i]);
  return st;
}

/* out (float32, or bool for a comparison) := op(a, b) computed in float32 */
static gm_status f32_op(int op, gm_bc_arg a, gm_bc_arg b, gm_mat *out) {
  gm_bc_arg args[2] = {a, b};
  gm_ctype want[2] = {GM_FLOAT, GM_FLOAT};
  bc_job j = {op, GM_FLOAT};
  return dispatch(args, 2, want, out, &j);
}

static gm_bc_arg mat_arg(gm_mat *m) { return (gm_bc_arg){m, 0}; }
static gm_bc_arg num_arg(double v) { return (gm_bc_arg){NULL, v}; }

/* nextafter of 16-bit floats: one step on the half type's own lattice
 * (NumPy's float16 nextafter), where float32's nextafter of the float32
 * copies steps one float32 ulp, which rounds back to the input.  In
 * float32 on the copies: the step |a|·(5/8)·2^-p (p: the type's fraction
 * bits), at least 5/8 of its least subnormal, lies between half and three
 * halves of the spacing to a's neighbour either way (below a power of two
 * the spacing halves: the step is then 5/4 of it), so a ± step rounds, on
 * the store into out, to exactly that neighbour (past the largest finite
 * value: to infinity).  An infinite a goes to the largest finite value
 * (clamped, no step), equal operands give b (the standard's rule, C's
 * and NumPy 2's: -0 toward 0 gives 0; NumPy 1's float16 gave a, and the
 * first H200 run's NumPy 2.5 caught the difference), a NaN operand NaN. */
static gm_status half_nextafter(gm_ctype half, gm_bc_arg a, gm_bc_arg b, gm_mat *out) {
  const bool f16 = half == GM_FLOAT16;
  const double big = f16 ? 65504.0 : 3.3895313892515355e38;
  const double rel = 0.625 * ldexp(1.0, f16 ? -10 : -7), tiny = 0.625 * ldexp(1.0, f16 ? -24 : -133);
  gm_mat *x = NULL, *s = NULL, *t = NULL, *c = NULL;
  gm_status st = gm_half_float_like(out, &x);
  if (st == GM_OK) st = gm_half_float_like(out, &s);
  if (st == GM_OK) st = gm_half_float_like(out, &t);
  if (st == GM_OK) {
    gm_mat_options o = {.ctype = (int)GM_BOOL, .cuda_enabled = out->cuda_enabled,
                        .synchronization = out->vec->synchronization};
    st = gm_mat_new(out->rank, out->dims, &o, &c);
  }
  gm_bc_arg X = mat_arg(x), S = mat_arg(s), T = mat_arg(t), Cc = mat_arg(c);
  /* x: a clamped to the finite range; s: the step, none where a was infinite */
  if (st == GM_OK) st = f32_op(GM_BC_CMIN, a, num_arg(big), x);
  if (st == GM_OK) st = f32_op(GM_BC_CMAX, X, num_arg(-big), x);
  if (st == GM_OK) st = f32_op(GM_BC_CMUL, X, num_arg(rel), s);
  if (st == GM_OK) st = f32_op(GM_BC_CMUL, X, num_arg(-rel), t);
  if (st == GM_OK) st = f32_op(GM_BC_CMAX, S, T, s);
  if (st == GM_OK) st = f32_op(GM_BC_CMAX, S, num_arg(tiny), s);
  if (st == GM_OK) st = f32_op(GM_BC_NE, a, X, c);
  if (st == GM_OK) st = gm_broadcast_where(GM_FLOAT, Cc, num_arg(0), S, s);
  /* toward b: x + s where b > x, x - s elsewhere */
  if (st == GM_OK) st = f32_op(GM_BC_CMUL, S, num_arg(-1), t);
  if (st == GM_OK) st = f32_op(GM_BC_GT, b, X, c);
  if (st == GM_OK) st = gm_broadcast_where(GM_FLOAT, Cc, S, T, s);
  if (st == GM_OK) st = f32_op(GM_BC_ADD, X, S, x);
  /* b where a == b, and (NaN) where b is NaN */
  if (st == GM_OK) st = f32_op(GM_BC_CMUL, b, num_arg(1), t);
  if (st == GM_OK) st = f32_op(GM_BC_EQ, a, b, c);
  if (st == GM_OK) st = gm_broadcast_where(GM_FLOAT, Cc, T, X, x);
  if (st == GM_OK) st = f32_op(GM_BC_NE, b, b, c);
  if (st == GM_OK) st = gm_broadcast_where(GM_FLOAT, Cc, T, X, x);
  gm_mat_free(s);
  gm_mat_free(t);
  gm_mat_free(c);
  return gm_half_store(st, x, out);
}

/* A binary op or comparison of 16-bit floats: in float32 (inputs
 * converted by dispatch; a number operand is first rounded to the half
 * type, the weak scalar taking the mat's type as NumPy's does), a binary
 * result rounded into out (half.c); nextafter on the half type's lattice. */
static gm_status half_binary(bc_job *j, gm_bc_arg *args, gm_mat *out) {
  for (int i = 0; i < 2; i++)
    if (!args[i].m) args[i].v = gm_ctype_coerce(j->t, args[i].v);
  if (j->op == GM_BC_NEXTAFTER) return half_nextafter(j->t, args[0], args[1], out);
  j->t = GM_FLOAT;
  gm_ctype want[2] = {GM_FLOAT, GM_FLOAT};
  if (GM_BC_IS_CMP(j->op)) return dispatch(args, 2, want, out, j);
  gm_mat *f;
  GM_TRY(gm_half_float_like(out, &f));
  return gm_half_store(dispatch(args, 2, want, f, j), f, out);
}

static gm_status binary(gm_bcast_op op, gm_ctype t, gm_bc_arg a, gm_bc_arg b, gm_mat *out, bool kind_checked,
                        bool out_fits) {
  if ((unsigned)op >= GM_N_BCAST) return gm_fail(GM_EINVAL, "binary op %d is unknown", (int)op);
  if ((unsigned)t >= GM_N_CTYPES) return gm_fail(GM_EINVAL, "ctype %d is unknown", (int)t);
  gm_bc_arg args[2] = {a, b};
  bc_job j = {(int)op, t};
  if (!out_fits) GM_TRY(check_operands(args, 2, GM_BC_IS_CMP(op) ? GM_BOOL : t, out));
  if (!kind_checked) GM_TRY(check_kind(&j));
  if (out->size == 0) return GM_OK;
  /* m ^ 2 as m * m (numpy's square): one multiply, exactly rounded, where
   * pow ran the C library's pow per element (a quarter of a k-means step) */
  if (op == GM_BC_POW && a.m && !b.m && b.v == 2) {
    j.op = GM_BC_CMUL;
    args[1] = a;
  }
  if (t == GM_BOOL && !GM_BC_IS_CMP(j.op)) j.op = bool_op(j.op);
  if (gm_ctype_is_half(t)) return half_binary(&j, args, out);
  gm_ctype want[2] = {t, t};
  return dispatch(args, 2, want, out, &j);
}

gm_status gm_broadcast_binary(gm_bcast_op op, gm_ctype t, gm_bc_arg a, gm_bc_arg b, gm_mat *out) {
  return binary(op, t, a, b, out, false, false);
}

gm_status gm_broadcast_binary_checked(gm_bcast_op op, gm_ctype t, gm_bc_arg a, gm_bc_arg b, gm_mat *out,
                                      bool out_fits) {
  return binary(op, t, a, b, out, true, out_fits);
}

gm_status gm_broadcast_where(gm_ctype t, gm_bc_arg cond, gm_bc_arg a, gm_bc_arg b, gm_mat *out) {
  if ((unsigned)t >= GM_N_CTYPES) return gm_fail(GM_EINVAL, "ctype %d is unknown", (int)t);
  gm_bc_arg args[3] = {cond, a, b};
  GM_TRY(check_operands(args, 3, t, out));
  if (out->size == 0) return GM_OK;
  bc_job j = {-1, t};
  gm_ctype want[3] = {GM_BOOL, t, t};
  return dispatch(args, 3, want, out, &j);
}

gm_status gm_bc_check_kind(int op, gm_ctype t) {
  bc_job j = {op, t};
  return check_kind(&j);
}

gm_status gm_bc_common(const gm_bc_arg *args, int n, bool *cuda, int *bad) {
  bool any = false;
  *cuda = true;
  for (int i = 0; i < n; i++) {
    if (!args[i].m) continue;
    *cuda = *cuda && args[i].m->cuda_enabled;
    any = true;
  }
  if (!any) {
    *bad = n - 1;
    return gm_fail(GM_EINVAL, "mat expected, got number (one operand must be a mat)");
  }
  return GM_OK;
}
