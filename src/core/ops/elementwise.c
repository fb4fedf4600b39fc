/* Validation and dispatch of the destructive elementwise ops. */
#include "elementwise.h"
#include "op_table.h"

#include "blas.h"
#include "half.h"
#include "../exec/exec.h"
#include "../model/view.h"
#include "../../../kernels/strided.h"

static const char *const unary_names[GM_N_UNARY] = {
#define X(name, E, ...) [GM_UN_##E] = #name,
    GM_UNARY_OPS(X)
#undef X
};

static const char *const scalar_names[GM_N_SCALAR] = {
#define X(name, E, lua_name, ...) [GM_SC_##E] = lua_name,
    GM_SCALAR_OPS(X)
#undef X
};

const char *gm_unary_name(gm_unary_op op) {
  return (unsigned)op < GM_N_UNARY ? unary_names[op] : "unknown";
}

const char *gm_scalar_name(gm_scalar_op op) {
  return (unsigned)op < GM_N_SCALAR ? scalar_names[op] : "unknown";
}

/* The place's elementwise table, or GM_EUNSUPPORTED naming the op. */
static gm_status ew_ops(const gm_exec *e, const char *op, const gm_elementwise_ops **out) {
  *out = e->be->elementwise;
  if (!*out) return gm_fail(GM_EUNSUPPORTED, "%s: not implemented on the %s backend", op, e->be->name);
  return GM_OK;
}

static gm_status same_size(const char *op, const char *an, const gm_mat *a, const char *bn,
                           const gm_mat *b) {
  GM_TRY(gm_check_same_ctype(op, a, b));
  if (a->size != b->size)
    return gm_fail(GM_EINVAL, "%s: %s has %zu elements but %s has %zu", op, an, a->size, bn, b->size);
  return GM_OK;
}

static gm_status check_2d(const char *op, const char *name, const gm_mat *m) {
  if (m->rank != 2) return gm_fail(GM_EINVAL, "%s: %s must be 2-dimensional, got rank %d", op, name, m->rank);
  return GM_OK;
}

/* Direction of a written mat: not read when beta == 0 and it is no input. */
static gm_direction write_dir(double beta, const gm_mat *w, const gm_mat *in1, const gm_mat *in2) {
  return beta == 0 && w != in1 && w != in2 ? GM_OUTPUT : GM_IO;
}

/* Acquires `ins` (inputs, first, so a written view sharing their storage
 * cannot mark it up to date before they are copied in) then the written
 * mat; an input identical to the written mat is acquired only once. */
typedef struct ew_call {
  gm_exec e;
  const gm_elementwise_ops *ops;
  gm_operand o[4];
  int n;
  gm_lane lane; /* a small host op's (exec.h) */
} ew_call;

/* Acquires c's operands (size: its largest mat's elements). */
static gm_status ew_acquire(ew_call *c, size_t size) { return gm_acquire_lane(&c->e, c->o, c->n, size, false, &c->lane); }

/* Whether unary op takes integer mats (a GM_UNARY_INT_OPS row). */
static bool int_unary(int op) {
  static const bool ok[GM_N_UNARY] = {
#define X(name, E, ...) [GM_UN_##E] = true,
      GM_UNARY_INT_OPS(X)
#undef X
  };
  return op >= 0 && op < GM_N_UNARY && ok[op];
}

/* The ctype check of the mats of unary op (a negative op: not a unary
 * op, floats only): integer mats pass for the GM_UNARY_INT_OPS rows. */
static gm_status check_ctypes(const char *name, int op, gm_mat *const *all, int n) {
  /* complex mats: the rows with kind C (all of the mats complex) */
  const gm_op_row *r = op >= 0 ? gm_op_row_of(GM_OPF_UNARY, op) : NULL;
  for (int i = 0; i < n; i++) {
    if (!all[i] || !gm_ctype_is_complex(all[i]->ctype)) continue;
    if (r && gm_op_runs_on(r, all[i]->ctype)) return GM_OK;
    return gm_fail(GM_EINVAL, "%s: argument %d is a %s mat; this function is not defined for complex numbers", name,
                   i + 1, gm_ctype_dtype(all[i]->ctype));
  }
  bool ints = int_unary(op);
  for (int i = 0; i < n && ints; i++) {
    int k = all[i] ? gm_ctype_kind(all[i]->ctype) : GM_KIND_INT;
    ints = k == GM_KIND_INT || k == GM_KIND_UINT;
  }
  return ints ? GM_OK : gm_check_float_mats(name, all, n);
}

/* ew_begin_op where the caller chose the backend already (e) */
static gm_status ew_begin_on(ew_call *c, gm_exec e, const char *op, int unary, gm_mat *w, gm_direction wdir,
                             gm_mat *in1, gm_mat *in2) {
  gm_mat *all[3] = {w, in1, in2};
  GM_TRY(check_ctypes(op, unary, all, 3));
  c->e = e;
  GM_TRY(ew_ops(&c->e, op, &c->ops));
  c->n = 0;
  if (in1 && in1 != w) c->o[c->n++] = (gm_operand){in1, GM_INPUT, NULL};
  if (in2 && in2 != w && in2 != in1) c->o[c->n++] = (gm_operand){in2, GM_INPUT, NULL};
  c->o[c->n++] = (gm_operand){w, wdir, NULL};
  size_t size = w->size;
  if (in1 && in1->size > size) size = in1->size;
  if (in2 && in2->size > size) size = in2->size;
  return ew_acquire(c, size);
}

static gm_status ew_begin_op(ew_call *c, const char *op, int unary, gm_mat *w, gm_direction wdir, gm_mat *in1,
                             gm_mat *in2) {
  gm_mat *all[3] = {w, in1, in2};
  return ew_begin_on(c, gm_exec_choose(all, 3), op, unary, w, wdir, in1, in2);
}

static gm_status ew_begin(ew_call *c, const char *op, gm_mat *w, gm_direction wdir, gm_mat *in1,
                          gm_mat *in2) {
  return ew_begin_op(c, op, -1, w, wdir, in1, in2);
}

/* Pointer of mat m among the acquired operands. */
static void *ew_ptr(const ew_call *c, const gm_mat *m) {
  for (int i = 0; i < c->n; i++)
    if (c->o[i].m == m) return c->o[i].ptr;
  return NULL;
}

static gm_status ew_end(ew_call *c, gm_status st) {
  return gm_finish_lane(&c->e, c->o, c->n, false, &c->lane, st);
}

gm_status gm_unary_(gm_unary_op op, gm_mat *x, size_t n) {
  const char *name = gm_unary_name(op);
  if ((unsigned)op >= GM_N_UNARY) return gm_fail(GM_EINVAL, "unary op %d is unknown", (int)op);
  if (n > x->size) return gm_fail(GM_EINVAL, "%s_: n (%zu) exceeds the size of x (%zu)", name, n, x->size);
  if (n == 0) return GM_OK;
  if (gm_ctype_is_half(x->ctype)) { /* on a float32 copy (half.c) */
    gm_mat *f;
    GM_TRY(gm_half_float_copy(x, &f));
    return gm_half_store(gm_unary_(op, f, n), f, x);
  }
  ew_call c;
  GM_TRY(ew_begin_op(&c, name, (int)op, x, GM_IO, NULL, NULL));
  return ew_end(&c, c.ops->unary(c.e.dev, x->ctype, op, n, ew_ptr(&c, x)));
}

/* Checks an out-of-place result y of x. */
static gm_status check_result(const char *fn, const gm_mat *x, const gm_mat *y) {
  GM_TRY(gm_check_same_ctype(fn, x, y));
  bool same_dims = x->rank == y->rank;
  for (int i = 0; same_dims && i < x->rank; i++) same_dims = x->dims[i] == y->dims[i];
  if (!same_dims) return gm_fail(GM_EINVAL, "%s: out must have the dims of x", fn);
  if (y != x && x->size && gm_mats_overlap(x, y)) return gm_fail(GM_EINVAL, "%s: out shares storage with x", fn);
  return GM_OK;
}

/* Checks an out-of-place result y of x and copies x into it (the op then
 * runs in place on y). */
static gm_status copy_to_result(const char *fn, gm_mat *x, gm_mat *y) {
  GM_TRY(check_result(fn, x, y));
  if (y == x || x->size == 0) return GM_OK;
  return gm_copy_(x, y, x->size, 1, 1);
}

gm_ctype gm_unary_result_ctype(gm_unary_op op, gm_ctype t) {
  return gm_ctype_kind(t) == GM_KIND_FLOAT || gm_ctype_is_complex(t) || int_unary((int)op) ? t
                                                                                         : gm_ctype_float_for(t);
}

/* y := op(x) for a bool or integer x of a float-only op: y is of the
 * promoted type (gm_unary_result_ctype), x converted into it where the
 * mats live (gm_mat_astype), then the op in place on y. */
static gm_status unary_promoted(const char *fn, gm_unary_op op, gm_mat *x, gm_mat *y) {
  gm_ctype t = gm_unary_result_ctype(op, x->ctype);
  if (y->ctype != t)
    return gm_fail(GM_EINVAL, "%s: out must be %s (the result for a %s mat), got %s", fn, gm_ctype_name(t),
                   gm_ctype_name(x->ctype), gm_ctype_name(y->ctype));
  bool same_dims = x->rank == y->rank;
  for (int i = 0; same_dims && i < x->rank; i++) same_dims = x->dims[i] == y->dims[i];
  if (!same_dims) return gm_fail(GM_EINVAL, "%s: out must have the dims of x", fn);
  if (x->size == 0) return GM_OK;
  if (gm_mats_overlap(x, y)) return gm_fail(GM_EINVAL, "%s: out shares storage with x", fn);
  GM_TRY(gm_mat_astype(x, y));
  return gm_unary_(op, y, y->size);
}

/* y := op(x) in one pass where the backend has unary_into and x, y are
 * distinct contiguous mats (a view is staged by gm_acquire as before);
 * else x is copied into y and the op runs in place on y. */
gm_status gm_unary(const char *fn, gm_unary_op op, gm_mat *x, gm_mat *y, bool y_checked) {
  if ((unsigned)op >= GM_N_UNARY) return gm_fail(GM_EINVAL, "unary op %d is unknown", (int)op);
  if (gm_unary_result_ctype(op, x->ctype) != x->ctype) return unary_promoted(fn, op, x, y);
  if (gm_ctype_is_half(x->ctype) && y != x) { /* y := op(float32 copy of x), rounded (half.c): no copy into y first */
    GM_TRY(check_result(fn, x, y));
    gm_mat *f;
    GM_TRY(gm_half_float_copy(x, &f));
    return gm_half_store(f->size ? gm_unary_(op, f, f->size) : GM_OK, f, y);
  }
  if (y != x && x->size > 0 && gm_mat_is_contiguous(x) && gm_mat_is_contiguous(y) && !gm_ctype_is_half(x->ctype)) {
    gm_mat *all[2] = {x, y};
    gm_exec e = gm_exec_choose(all, 2);
    if (e.be->elementwise && e.be->elementwise->unary_into) {
      if (!y_checked) GM_TRY(check_result(fn, x, y));
      ew_call c; /* checks the ctypes (check_ctypes) before it acquires */
      GM_TRY(ew_begin_on(&c, e, fn, (int)op, y, GM_OUTPUT, x, NULL));
      gm_status st = c.ops->unary_into(c.e.dev, x->ctype, op, x->size, ew_ptr(&c, x), ew_ptr(&c, y));
      return ew_end(&c, st);
    }
  }
  GM_TRY(copy_to_result(fn, x, y));
  return gm_unary_(op, y, y->size);
}

static const char *const predicate_names[GM_N_PREDICATE] = {
#define X(name, E, ...) [GM_PRED_##E] = #name,
    GM_PREDICATE_OPS(X)
#undef X
};

const char *gm_predicate_name(gm_predicate_op op) {
  return (unsigned)op < GM_N_PREDICATE ? predicate_names[op] : "unknown";
}

/* y (bool, x's dims, its own storage) := op(x), x of any ctype */
gm_status gm_predicate(gm_predicate_op op, gm_mat *x, gm_mat *y) {
  if ((unsigned)op >= GM_N_PREDICATE) return gm_fail(GM_EINVAL, "predicate %d is unknown", (int)op);
  const char *fn = predicate_names[op];
  const gm_op_row *r = gm_op_row_of(GM_OPF_PRED, (int)op);
  if (gm_ctype_is_complex(x->ctype) && r && !gm_op_runs_on(r, x->ctype))
    return gm_fail(GM_EINVAL, "%s: argument 1 is a %s mat; this function is not defined for complex numbers", fn,
                   gm_ctype_dtype(x->ctype));
  if (y->ctype != GM_BOOL) return gm_fail(GM_EINVAL, "%s: out must be a bool mat", fn);
  bool same_dims = x->rank == y->rank;
  for (int i = 0; same_dims && i < x->rank; i++) same_dims = x->dims[i] == y->dims[i];
  if (!same_dims) return gm_fail(GM_EINVAL, "%s: out must have the dims of x", fn);
  if (x->size == 0) return GM_OK;
  if (x->vec == y->vec) return gm_fail(GM_EINVAL, "%s: out shares storage with x", fn);
  gm_mat *all[2] = {y, x};
  ew_call c;
  c.e = gm_exec_choose(all, 2);
  GM_TRY(ew_ops(&c.e, fn, &c.ops));
  if (!c.ops->predicate) return gm_fail(GM_EUNSUPPORTED, "%s: not implemented on the %s backend", fn, c.e.be->name);
  c.o[0] = (gm_operand){x, GM_INPUT, NULL};
  c.o[1] = (gm_operand){y, GM_OUTPUT, NULL};
  c.n = 2;
  GM_TRY(ew_acquire(&c, x->size));
  return ew_end(&c, c.ops->predicate(c.e.dev, x->ctype, op, x->size, c.o[0].ptr, c.o[1].ptr));
}

gm_status gm_clamp_(gm_mat *x, double lo, double hi) {
  if (lo != lo || hi != hi) return gm_fail(GM_EINVAL, "clamp_: the bounds must not be NaN");
  GM_TRY(gm_scalar_(GM_SC_MAX, lo, x));
  return gm_scalar_(GM_SC_MIN, hi, x);
}

gm_status gm_clamp(const char *fn, gm_mat *x, double lo, double hi, gm_mat *y) {
  if (lo != lo || hi != hi) return gm_fail(GM_EINVAL, "%s: the bounds must not be NaN", fn);
  GM_TRY(copy_to_result(fn, x, y));
  return gm_clamp_(y, lo, hi);
}

gm_status gm_scalar_(gm_scalar_op op, double alpha, gm_mat *x) {
  if ((unsigned)op >= GM_N_SCALAR) return gm_fail(GM_EINVAL, "scalar op %d is unknown", (int)op);
  if (x->size == 0) return GM_OK;
  if (gm_ctype_is_half(x->ctype)) { /* on a float32 copy (half.c) */
    gm_mat *f;
    GM_TRY(gm_half_float_copy(x, &f));
    return gm_half_store(gm_scalar_(op, alpha, f), f, x);
  }
  ew_call c;
  GM_TRY(ew_begin(&c, gm_scalar_name(op), x, GM_IO, NULL, NULL));
  return ew_end(&c, c.ops->scalar(c.e.dev, x->ctype, op, x->size, alpha, ew_ptr(&c, x)));
}

gm_status gm_expt_(gm_mat *x, double power) { return gm_scalar_(GM_SC_EXPT, power, x); }
gm_status gm_add_scalar_(double alpha, gm_mat *x) { return gm_scalar_(GM_SC_ADD, alpha, x); }

static gm_status geem_named(const char *op, double alpha, gm_mat *a, gm_mat *b, double beta, gm_mat *c) {
  GM_TRY(same_size(op, "a", a, "b", b));
  GM_TRY(same_size(op, "a", a, "c", c));
  if (c->size == 0) return GM_OK;
  ew_call k;
  GM_TRY(ew_begin(&k, op, c, write_dir(beta, c, a, b), a, b));
  gm_status st = k.ops->geem(k.e.dev, c->ctype, c->size, alpha, ew_ptr(&k, a), ew_ptr(&k, b), beta, ew_ptr(&k, c));
  return ew_end(&k, st);
}

gm_status gm_geem_(double alpha, gm_mat *a, gm_mat *b, double beta, gm_mat *c) {
  return geem_named("geem_", alpha, a, b, beta, c);
}

gm_status gm_mul_(gm_mat *x, gm_mat *y) { return geem_named("mul_", 1, x, y, 0, y); }

gm_status gm_geerv_(double alpha, gm_mat *a, gm_mat *x, double beta, gm_mat *b) {
  const char *op = "geerv_";
  GM_TRY(gm_check_same_ctype(op, a, x));
  GM_TRY(gm_check_same_ctype(op, a, b));
  GM_TRY(check_2d(op, "a", a));
  if (b->rank != 2 || b->dims[0] != a->dims[0] || b->dims[1] != a->dims[1])
    return gm_fail(GM_EINVAL, "%s: b must have the dimensions of a", op);
  if (x->size != a->dims[1])
    return gm_fail(GM_EINVAL, "%s: x has %zu elements but a has %zu columns", op, x->size, a->dims[1]);
  if (b->size == 0) return GM_OK;
  ew_call k;
  GM_TRY(ew_begin(&k, op, b, write_dir(beta, b, a, x), a, x));
  gm_status st = k.ops->geerv(k.e.dev, b->ctype, a->dims[0], a->dims[1], alpha, ew_ptr(&k, a), ew_ptr(&k, x),
                              beta, ew_ptr(&k, b));
  return ew_end(&k, st);
}

gm_status gm_lt_(gm_mat *x, gm_mat *y) {
  GM_TRY(same_size("lt_", "x", x, "y", y));
  if (y->size == 0) return GM_OK;
  ew_call k;
  GM_TRY(ew_begin(&k, "lt_", y, GM_IO, x, NULL));
  return ew_end(&k, k.ops->lt(k.e.dev, y->ctype, y->size, ew_ptr(&k, x), ew_ptr(&k, y)));
}

gm_status gm_min_(double alpha, gm_mat *x) { return gm_scalar_(GM_SC_MIN, alpha, x); }
gm_status gm_max_(double alpha, gm_mat *x) { return gm_scalar_(GM_SC_MAX, alpha, x); }

gm_status gm_add_sign_(double alpha, gm_mat *a, double beta, gm_mat *b) {
  GM_TRY(same_size("add_sign_", "a", a, "b", b));
  if (b->size == 0) return GM_OK;
  ew_call k;
  GM_TRY(ew_begin(&k, "add_sign_", b, write_dir(beta, b, a, NULL), a, NULL));
  gm_status st = k.ops->add_sign(k.e.dev, b->ctype, b->size, alpha, ew_ptr(&k, a), beta, ew_ptr(&k, b));
  return ew_end(&k, st);
}

gm_status gm_fill_(double alpha, gm_mat *x, size_t n) {
  if (n > x->size) return gm_fail(GM_EINVAL, "fill_: n (%zu) exceeds the size of x (%zu)", n, x->size);
  if (n == 0) return GM_OK;
  gm_mat *all[1] = {x};
  gm_exec e = gm_exec_choose(all, 1);
  if (!e.be->fill) return gm_fail(GM_EUNSUPPORTED, "fill_: not implemented on the %s backend", e.be->name);
  /* Filling fewer than all visible elements must keep the rest. */
  gm_operand o = {x, n == x->size ? GM_OUTPUT : GM_IO, NULL};
  GM_TRY(gm_acquire(&e, &o, 1));
  gm_status st = e.be->fill(e.dev, x->ctype, n, alpha, o.ptr, 1);
  return gm_finish(&e, &o, 1, st);
}

gm_status gm_sum_(gm_mat *x, gm_mat *y, int axis, double alpha, double beta) {
  const char *op = "sum_";
  GM_TRY(gm_check_same_ctype(op, x, y));
  GM_TRY(check_2d(op, "x", x));
  if (axis != 0 && axis != 1) return gm_fail(GM_EINVAL, "%s: axis must be 0 or 1 (0-based), got %d", op, axis);
  size_t want = axis == 0 ? x->dims[1] : x->dims[0];
  if (y->size != want)
    return gm_fail(GM_EINVAL, "%s: y has %zu elements but the sums along axis %d number %zu", op, y->size,
                   axis + 1, want);
  if (y->size == 0) return GM_OK;
  if (gm_mats_overlap(x, y)) return gm_fail(GM_EINVAL, "y shares storage with x");
  /* sums of no elements are 0: y := beta * y (the kernels split the
   * summed axis into chunks and cannot split an empty one) */
  if (x->size == 0) return beta == 0 ? gm_fill_(0, y, y->size) : gm_scal_(beta, y, y->size, 1);
  ew_call k;
  GM_TRY(ew_begin(&k, op, y, write_dir(beta, y, x, NULL), x, NULL));
  gm_status st = k.ops->sum(k.e.dev, y->ctype, x->dims[0], x->dims[1], axis, alpha, ew_ptr(&k, x), beta,
                            ew_ptr(&k, y));
  return ew_end(&k, st);
}

static gm_status scale(const char *op, gm_scale_kind kind, gm_mat *scales, gm_mat *a, gm_mat *result) {
  GM_TRY(gm_check_same_ctype(op, scales, a));
  GM_TRY(gm_check_same_ctype(op, a, result));
  GM_TRY(check_2d(op, "a", a));
  size_t want = kind == GM_SCALE_ROWS ? a->dims[0] : a->dims[1];
  if (scales->size != want)
    return gm_fail(GM_EINVAL, "%s: scales has %zu elements but a has %zu %s", op, scales->size, want,
                   kind == GM_SCALE_ROWS ? "rows" : "columns");
  if (result->rank != 2 || result->dims[0] != a->dims[0] || result->dims[1] != a->dims[1])
    return gm_fail(GM_EINVAL, "%s: result must have the dimensions of a", op);
  if (a->size == 0) return GM_OK;
  ew_call k;
  GM_TRY(ew_begin(&k, op, result, write_dir(0, result, a, scales), scales, a));
  gm_status st = k.ops->scale(k.e.dev, a->ctype, kind, a->dims[0], a->dims[1], ew_ptr(&k, scales),
                              ew_ptr(&k, a), ew_ptr(&k, result));
  return ew_end(&k, st);
}

gm_status gm_scale_rows_(gm_mat *scales, gm_mat *a, gm_mat *result) {
  return scale("scale_rows_", GM_SCALE_ROWS, scales, a, result);
}

gm_status gm_scale_columns_(gm_mat *scales, gm_mat *a, gm_mat *result) {
  return scale("scale_columns_", GM_SCALE_COLUMNS, scales, a, result);
}

gm_status gm_complex_part(gm_mat *z, int part, gm_mat *r, bool set) {
  const char *fn = set ? "complex_from_parts" : "complex_part";
  if (!gm_ctype_is_complex(z->ctype))
    return gm_fail(GM_EINVAL, "%s: argument 1 is a %s mat, complex expected", fn, gm_ctype_dtype(z->ctype));
  if (r->ctype != gm_ctype_real_of(z->ctype))
    return gm_fail(GM_EINVAL, "%s: the part is a %s mat, %s expected", fn, gm_ctype_dtype(r->ctype),
                   gm_ctype_dtype(gm_ctype_real_of(z->ctype)));
  if (part != 0 && part != 1) return gm_fail(GM_EINVAL, "%s: part %d (0 or 1 expected)", fn, part);
  if (z->size != r->size) return gm_fail(GM_EINVAL, "%s: sizes differ: %zu and %zu", fn, z->size, r->size);
  if (z->vec == r->vec) return gm_fail(GM_EINVAL, "%s: the part shares storage with the complex mat", fn);
  GM_TRY(gm_check_writable(fn, set ? z : r));
  if (z->size == 0) return GM_OK;
  gm_mat *ms[2] = {z, r};
  gm_exec e = gm_exec_choose(ms, 2);
  if (!e.be->strided_copy) e = gm_exec_host();
  gm_operand ops[2] = {{z, set ? GM_IO : GM_INPUT, NULL}, {r, set ? GM_INPUT : GM_OUTPUT, NULL}};
  GM_TRY(gm_acquire(&e, ops, 2));
  size_t n = z->size, es = gm_ctype_size(r->ctype);
  char *zp = (char *)ops[0].ptr + (size_t)part * es;
  gm_strided_geom g = {.rank = 1, .n = n, .dims = {n}, .src_strides = {set ? 1 : 2}, .dst_strides = {set ? 2 : 1}};
  gm_status st = set ? e.be->strided_copy(e.dev, r->ctype, &g, ops[1].ptr, zp)
                     : e.be->strided_copy(e.dev, r->ctype, &g, zp, ops[1].ptr);
  return gm_finish(&e, ops, 2, st);
}
