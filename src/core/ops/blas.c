/* BLAS on mats: validation, the row-major -> column-major mapping (once,
 * for every backend), place choice and operand acquisition.
 *
 * Mapping: a row-major r x c block with leading dimension ld is, read
 * column-major, the c x r transpose with the same ld.  Hence
 *   C = op(A) op(B)  (row-major)  <=>  C^T = op(B)^T op(A)^T  (column-major)
 * which is gemm(opB, opA, n, m, k, B, ldb, A, lda, C, ldc), and
 *   C = a op(A) + b op(B)  <=>  geam(opA, opB, cols, rows, ...). */
#include "blas.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "blas_views.h"
#include "half.h"
#include "../exec/exec.h"
#include "../exec/stage.h"
#include "../../../kernels/strided.h"

static gm_status unsupported(const gm_exec *e, const char *op) {
  return gm_fail(GM_EUNSUPPORTED, "%s is not implemented on the %s backend", op, e->be->name);
}

#define GM_BLAS_ENTRY(e, entry) ((e).be->blas ? (e).be->blas->entry : NULL)

static gm_status check_int(size_t v, const char *what) {
  if (v > INT_MAX) return gm_fail(GM_ERANGE, "%s %zu is too large for BLAS (max %d)", what, v, INT_MAX);
  return GM_OK;
}

/* Elements spanned by rows x cols with leading dimension ld (0 if empty);
 * SIZE_MAX on overflow. */
static size_t block_extent(size_t rows, size_t cols, size_t ld) {
  if (rows == 0 || cols == 0) return 0;
  if (ld && rows - 1 > (SIZE_MAX - cols) / ld) return SIZE_MAX;
  return (rows - 1) * ld + cols;
}

gm_status gm_blas_check_vector(const gm_mat *x, size_t n, size_t inc, const char *name,
                               const char *incname) {
  if (inc < 1) return gm_fail(GM_EINVAL, "%s must be positive, got %zu", incname, inc);
  GM_TRY(check_int(inc, incname));
  size_t need = block_extent(n, 1, inc);
  if (need > x->size)
    return gm_fail(GM_ERANGE, "n %zu with %s %zu needs %zu elements, %s has %zu", n, incname, inc, need,
                   name, x->size);
  return GM_OK;
}

/* Walks the elements of the sparser vector (larger stride) that lie in
 * both spans and tests membership in the other: O(shared span / stride),
 * and only for vectors of one storage whose spans intersect. */
gm_status gm_blas_check_alias(const gm_mat *x, size_t incx, const gm_mat *y, size_t incy, size_t n) {
  if (n == 0 || x->vec != y->vec) return GM_OK;
  if (!x->contiguous || !y->contiguous) return GM_OK; /* staged through a temporary */
  size_t sx = x->displacement, sy = y->displacement;
  if (sx == sy && (incx == incy || n == 1)) return GM_OK;
  if (incx < incy) {
    size_t t = sx;
    sx = sy, sy = t;
    t = incx, incx = incy, incy = t;
  }
  size_t ex = sx + (n - 1) * incx, ey = sy + (n - 1) * incy;
  size_t lo = sx > sy ? sx : sy, hi = ex < ey ? ex : ey;
  if (lo > hi) return GM_OK;
  for (size_t p = sx + (lo - sx + incx - 1) / incx * incx; p <= hi; p += incx)
    if ((p - sy) % incy == 0) return gm_fail(GM_EINVAL, "x and y overlap in the same storage");
  return GM_OK;
}

gm_status gm_blas_check_level1(const gm_mat *x, const gm_mat *y, size_t n, size_t incx, size_t incy, bool alias,
                               int *bad) {
  *bad = 2;
  if (y && x->ctype != y->ctype)
    return gm_fail(GM_EINVAL, "mixed ctypes %s and %s", gm_ctype_name(x->ctype), gm_ctype_name(y->ctype));
  *bad = 1;
  GM_TRY(gm_blas_check_vector(x, n, incx, "x", "incx"));
  if (!y) return GM_OK;
  *bad = 2;
  GM_TRY(gm_blas_check_vector(y, n, incy, "y", "incy"));
  if (alias) GM_TRY(gm_blas_check_alias(x, incx, y, incy, n));
  return GM_OK;
}

/* ---- level 1 ---- */

size_t gm_blas_chunk = INT_MAX;

/* Elements in the chunk of a level-1 call that starts at element `done`. */
static int chunk_at(size_t n, size_t done) {
  size_t c = n - done, max = gm_blas_chunk && gm_blas_chunk <= INT_MAX ? gm_blas_chunk : INT_MAX;
  return (int)(c < max ? c : max);
}

/* Element `done` of a vector with stride inc starting at p. */
static void *elem_at(void *p, gm_ctype t, size_t done, size_t inc) {
  return (char *)p + done * inc * gm_ctype_size(t);
}

static const void *elem_in(const void *p, gm_ctype t, size_t done, size_t inc) {
  return (const char *)p + done * inc * gm_ctype_size(t);
}

gm_status gm_blas_dot_n(const gm_blas_ops *b, void *ctx, gm_ctype t, size_t n, const void *x, size_t incx,
                        const void *y, size_t incy, double *out) {
  *out = 0;
  gm_status st = GM_OK;
  for (size_t done = 0; done < n && st == GM_OK;) {
    int c = chunk_at(n, done);
    double part = 0;
    st = b->dot(ctx, t, c, elem_in(x, t, done, incx), (int)incx, elem_in(y, t, done, incy),
                (int)incy, &part);
    *out += part;
    done += (size_t)c;
  }
  return st;
}

gm_status gm_blas_copy_n(const gm_blas_ops *b, void *ctx, gm_ctype t, size_t n, const void *x, size_t incx,
                         void *y, size_t incy) {
  /* complex vectors as their real parts and their imaginary parts, each a
   * real vector of twice the stride (one of twice the length when both are
   * tight): every backend's BLAS copy takes the real types, cuBLAS's as the
   * backends share them (the first H200 run's complex QR failed here) */
  if (gm_ctype_is_complex(t)) {
    gm_ctype rt = gm_ctype_real_of(t);
    size_t re = gm_ctype_size(rt);
    if (incx == 1 && incy == 1) return gm_blas_copy_n(b, ctx, rt, 2 * n, x, 1, y, 1);
    GM_TRY(gm_blas_copy_n(b, ctx, rt, n, x, 2 * incx, y, 2 * incy));
    return gm_blas_copy_n(b, ctx, rt, n, (const char *)x + re, 2 * incx, (char *)y + re, 2 * incy);
  }
  gm_status st = GM_OK;
  for (size_t done = 0; done < n && st == GM_OK;) {
    int c = chunk_at(n, done);
    st = b->copy(ctx, t, c, elem_in(x, t, done, incx), (int)incx, elem_at(y, t, done, incy), (int)incy);
    done += (size_t)c;
  }
  return st;
}

typedef enum { R_ASUM, R_NRM2 } reduce_kind;

/* Level 1 on float16/bfloat16 vectors: on float32 copies of the mats
 * (exact; contiguous, so element k * inc is the same element), the
 * results rounded to the mat's type once (a number as gm_reduce gives
 * it, a written vector on store: half.c). */
static gm_status half_copies(gm_mat *x, gm_mat *y, gm_mat **fx, gm_mat **fy) {
  *fx = *fy = NULL;
  gm_status st = gm_half_float_copy(x, fx);
  if (st == GM_OK && y) st = gm_half_float_copy(y, fy);
  if (st != GM_OK) gm_mat_free(*fx);
  return st;
}

static gm_status reduce1(reduce_kind kind, gm_mat *x, size_t n, size_t incx, double *out);

static gm_status reduce1_half(reduce_kind kind, gm_mat *x, size_t n, size_t incx, double *out) {
  gm_mat *f = NULL, *none = NULL;
  GM_TRY(half_copies(x, NULL, &f, &none));
  gm_status st = reduce1(kind, f, n, incx, out);
  gm_mat_free(f);
  if (st == GM_OK) *out = gm_ctype_coerce(x->ctype, *out);
  return st;
}

static gm_status reduce1(reduce_kind kind, gm_mat *x, size_t n, size_t incx, double *out) {
  const char *name = kind == R_ASUM ? "asum" : "nrm2";
  GM_TRY(gm_blas_check_vector(x, n, incx, "x", "incx"));
  *out = 0;
  if (n == 0) return GM_OK;
  if (gm_ctype_is_half(x->ctype)) return reduce1_half(kind, x, n, incx, out);
  GM_TRY(gm_check_float_mats(name, &x, 1));
  gm_exec e = gm_exec_choose(&x, 1);
  gm_status (*f)(void *, gm_ctype, int, const void *, int, double *) =
      kind == R_ASUM ? GM_BLAS_ENTRY(e, asum) : GM_BLAS_ENTRY(e, nrm2);
  if (!f) return unsupported(&e, name);
  gm_operand op = {x, GM_INPUT, NULL};
  GM_TRY(gm_acquire(&e, &op, 1));
  gm_status st = GM_OK;
  for (size_t done = 0; done < n && st == GM_OK;) {
    int c = chunk_at(n, done);
    double part = 0;
    st = f(e.dev, x->ctype, c, elem_at(op.ptr, x->ctype, done, incx), (int)incx, &part);
    /* asum parts add up; norms combine as sqrt(a^2 + b^2) without overflow */
    *out = kind == R_ASUM ? *out + part : hypot(*out, part);
    done += (size_t)c;
  }
  return gm_finish(&e, &op, 1, st);
}

gm_status gm_asum(gm_mat *x, size_t n, size_t incx, double *out) { return reduce1(R_ASUM, x, n, incx, out); }
gm_status gm_nrm2(gm_mat *x, size_t n, size_t incx, double *out) { return reduce1(R_NRM2, x, n, incx, out); }

static gm_status check_pair(const char *op, gm_mat *x, gm_mat *y, size_t n, size_t incx, size_t incy) {
  GM_TRY(gm_check_same_ctype(op, x, y));
  GM_TRY(gm_blas_check_vector(x, n, incx, "x", "incx"));
  return gm_blas_check_vector(y, n, incy, "y", "incy");
}

/* check_pair plus the alias rule, for the ops that write y */
static gm_status check_write_pair(const char *op, gm_mat *x, gm_mat *y, size_t n, size_t incx, size_t incy) {
  GM_TRY(check_pair(op, x, y, n, incx, incy));
  return gm_blas_check_alias(x, incx, y, incy, n);
}

gm_status gm_dot(gm_mat *x, gm_mat *y, size_t n, size_t incx, size_t incy, double *out) {
  GM_TRY(check_pair("dot", x, y, n, incx, incy));
  *out = 0;
  if (n == 0) return GM_OK;
  if (gm_ctype_is_half(x->ctype)) {
    gm_mat *fx, *fy;
    GM_TRY(half_copies(x, y, &fx, &fy));
    gm_status st = gm_dot(fx, fy, n, incx, incy, out);
    gm_mat_free(fx);
    gm_mat_free(fy);
    if (st == GM_OK) *out = gm_ctype_coerce(x->ctype, *out);
    return st;
  }
  gm_mat *ms[2] = {x, y};
  GM_TRY(gm_check_float_mats("dot", ms, 2));
  gm_exec e = gm_exec_choose(ms, 2);
  if (!GM_BLAS_ENTRY(e, dot)) return unsupported(&e, "dot");
  gm_operand ops[2] = {{x, GM_INPUT, NULL}, {y, GM_INPUT, NULL}};
  GM_TRY(gm_acquire(&e, ops, 2));
  gm_status st = gm_blas_dot_n(e.be->blas, e.dev, x->ctype, n, ops[0].ptr, incx, ops[1].ptr, incy, out);
  return gm_finish(&e, ops, 2, st);
}

gm_status gm_axpy_(double alpha, gm_mat *x, gm_mat *y, size_t n, size_t incx, size_t incy) {
  if (x->ctype != y->ctype || n != x->size || n > y->size || incx != 1 || incy != 1 || x->vec == y->vec)
    GM_TRY(check_write_pair("axpy_", x, y, n, incx, incy));
  /* reference BLAS returns early for alpha == 0 and so does OpenBLAS; the
   * host's small-vector loop (and possibly other backends) would compute
   * y + 0 * x, turning Inf/NaN in x into NaN: one rule everywhere */
  if (n == 0 || alpha == 0) return GM_OK;
  if (gm_ctype_is_half(x->ctype)) {
    gm_mat *fx, *fy;
    GM_TRY(half_copies(x, y, &fx, &fy));
    gm_status st = gm_axpy_(alpha, fx, fy, n, incx, incy);
    gm_mat_free(fx);
    return gm_half_store(st, fy, y);
  }
  gm_mat *ms[2] = {x, y};
  GM_TRY(gm_check_float_mats("axpy_", ms, 2));
  gm_exec e = gm_exec_choose(ms, 2);
  if (!GM_BLAS_ENTRY(e, axpy)) return unsupported(&e, "axpy");
  gm_operand ops[2] = {{x, GM_INPUT, NULL}, {y, GM_IO, NULL}};
  GM_TRY(gm_acquire(&e, ops, 2));
  gm_status st = GM_OK;
  for (size_t done = 0; done < n && st == GM_OK;) {
    int c = chunk_at(n, done);
    st = e.be->blas->axpy(e.dev, x->ctype, c, alpha, elem_at(ops[0].ptr, x->ctype, done, incx), (int)incx,
                          elem_at(ops[1].ptr, x->ctype, done, incy), (int)incy);
    done += (size_t)c;
  }
  return gm_finish(&e, ops, 2, st);
}

/* copy_ of integer and bool mats (no BLAS copy takes them): the
 * backend's strided copy, a walk of n elements with strides incx, incy. */
static gm_status copy_elements(const gm_exec *e, gm_mat *x, gm_mat *y, size_t n, size_t incx, size_t incy) {
  gm_strided_geom g = {.rank = 1, .n = n, .dims = {n}, .src_strides = {(int64_t)incx}, .dst_strides = {(int64_t)incy}};
  gm_direction ydir = n == y->size && incy == 1 ? GM_OUTPUT : GM_IO;
  gm_operand ops[2] = {{x, GM_INPUT, NULL}, {y, ydir, NULL}};
  GM_TRY(gm_acquire(e, ops, 2));
  gm_status st = e->be->strided_copy(e->dev, x->ctype, &g, ops[0].ptr, ops[1].ptr);
  return gm_finish(e, ops, 2, st);
}

gm_status gm_copy_(gm_mat *x, gm_mat *y, size_t n, size_t incx, size_t incy) {
  /* all of x into all of y, another storage, one ctype (x:copy(), a
   * result's first pass): the vector and alias checks have nothing to say */
  bool whole = n == x->size && n == y->size && incx == 1 && incy == 1 && x->vec != y->vec && x->ctype == y->ctype;
  if (!whole) GM_TRY(check_write_pair("copy_", x, y, n, incx, incy));
  if (n == 0) return GM_OK;
  gm_mat *ms[2] = {x, y};
  gm_exec e = gm_exec_choose(ms, 2);
  /* whole views of the same dims, one of them strided: one pass through
   * both (a slice assignment, m[{...}] = other view) */
  if (n == x->size && n == y->size && incx == 1 && incy == 1 && gm_mat_same_dims(x, y) &&
      !(gm_mat_is_contiguous(x) && gm_mat_is_contiguous(y)) && e.be->strided_copy)
    return gm_copy_views(&e, x, y);
  if (!gm_ctype_is_float(x->ctype)) return copy_elements(&e, x, y, n, incx, incy);
  if (!GM_BLAS_ENTRY(e, copy)) return unsupported(&e, "copy");
  /* all of y written: no need to bring its old contents in */
  gm_direction ydir = n == y->size && incy == 1 ? GM_OUTPUT : GM_IO;
  gm_operand ops[2] = {{x, GM_INPUT, NULL}, {y, ydir, NULL}};
  gm_lane lane;
  GM_TRY(gm_acquire_lane(&e, ops, 2, x->size > y->size ? x->size : y->size, false, &lane));
  gm_status st = gm_blas_copy_n(e.be->blas, e.dev, x->ctype, n, ops[0].ptr, incx, ops[1].ptr, incy);
  return gm_finish_lane(&e, ops, 2, false, &lane, st);
}

gm_status gm_scal_(double alpha, gm_mat *x, size_t n, size_t incx) {
  if (n != x->size || incx != 1) GM_TRY(gm_blas_check_vector(x, n, incx, "x", "incx"));
  if (n == 0) return GM_OK;
  if (gm_ctype_is_half(x->ctype)) {
    gm_mat *f, *none;
    GM_TRY(half_copies(x, NULL, &f, &none));
    return gm_half_store(gm_scal_(alpha, f, n, incx), f, x);
  }
  GM_TRY(gm_check_float_mats("scal_", &x, 1));
  gm_exec e = gm_exec_choose(&x, 1);
  if (!GM_BLAS_ENTRY(e, scal)) return unsupported(&e, "scal");
  gm_operand op = {x, GM_IO, NULL};
  GM_TRY(gm_acquire(&e, &op, 1));
  gm_status st = GM_OK;
  for (size_t done = 0; done < n && st == GM_OK;) {
    int c = chunk_at(n, done);
    st = e.be->blas->scal(e.dev, x->ctype, c, alpha, elem_at(op.ptr, x->ctype, done, incx), (int)incx);
    done += (size_t)c;
  }
  return gm_finish(&e, &op, 1, st);
}

/* ---- overlap of blocks in the same storage ---- */

/* Whether two row blocks (absolute start s, rows r, cols c, leading
 * dimension l >= c) share an element.  O(r1): for each row of block 1,
 * the first row of block 2 ending after its start. */
static bool blocks_overlap(size_t s1, size_t r1, size_t c1, size_t l1, size_t s2, size_t r2, size_t c2,
                           size_t l2) {
  if (!r1 || !c1 || !r2 || !c2) return false;
  if (l2 < 1) l2 = 1;
  for (size_t i = 0; i < r1; i++) {
    size_t x = s1 + i * l1, y = x + c1;
    size_t i2 = x < s2 + c2 ? 0 : (x - s2 - c2) / l2 + 1;
    if (i2 < r2 && s2 + i2 * l2 < y) return true;
  }
  return false;
}

typedef struct footprint {
  const gm_mat *m;
  size_t off, rows, cols, ld;
} footprint;

static bool footprints_overlap(footprint a, footprint b) {
  if (a.m->vec != b.m->vec) return false;
  if (!a.m->contiguous || !b.m->contiguous) return false; /* staged through a temporary */
  return blocks_overlap(a.m->displacement + a.off, a.rows, a.cols, a.ld, b.m->displacement + b.off, b.rows,
                        b.cols, b.ld);
}

/* Validates a stored rows x cols block with leading dimension ld at
 * offset off of m. */
static gm_status check_block(const char *name, footprint f) {
  if (f.rows && f.cols > f.ld)
    return gm_fail(GM_EINVAL, "%s: leading dimension %zu is smaller than the row width %zu", name, f.ld, f.cols);
  GM_TRY(check_int(f.rows, "rows"));
  GM_TRY(check_int(f.cols, "columns"));
  GM_TRY(check_int(f.ld, "leading dimension"));
  size_t ext = block_extent(f.rows, f.cols, f.ld);
  if (ext && (f.off > f.m->size || ext > f.m->size - f.off))
    return gm_fail(GM_ERANGE, "%s: a %zux%zu block with leading dimension %zu needs %zu elements, has %zu",
                   name, f.rows, f.cols, f.ld, f.off + ext, f.m->size);
  return GM_OK;
}

/* ---- gemm ---- */

static gm_status need_2d(const gm_mat *m, const char *name, const char *what) {
  if (m->rank != 2)
    return gm_fail(GM_EINVAL, "%s must be 2-dimensional to default %s (rank %d)", name, what, m->rank);
  return GM_OK;
}

/* Default-shape checks, only where every size involved was defaulted
 * (explicit m/n/k/ld select sub-blocks on purpose). */
static gm_status gemm_shape_checks(const gm_mat *a, const gm_mat *b, const gm_gemm_args *g,
                                   const gm_gemm_args *given, int *bad) {
  if (given->k == GM_UNSET && given->ldb == GM_UNSET && b->rank == 2) {
    size_t bk = g->transpose_b ? b->dims[1] : b->dims[0];
    if (bk != g->k) GM_BAD(1, gm_fail(GM_EINVAL, "inner dimensions differ: %zu vs %zu", g->k, bk));
  }
  if (given->m == GM_UNSET && given->k == GM_UNSET && given->lda == GM_UNSET) {
    size_t am = g->transpose_a ? a->dims[1] : a->dims[0];
    if (am != g->m) GM_BAD(1, gm_fail(GM_EINVAL, "op(a) has %zu rows, c has %zu", am, g->m));
  }
  if (given->n == GM_UNSET && given->ldb == GM_UNSET && b->rank == 2) {
    size_t bn = g->transpose_b ? b->dims[0] : b->dims[1];
    if (bn != g->n) GM_BAD(2, gm_fail(GM_EINVAL, "op(b) has %zu columns, c has %zu", bn, g->n));
  }
  return GM_OK;
}

static gm_status gemm_defaults(const gm_mat *a, const gm_mat *b, const gm_mat *c, gm_gemm_args *g, int *bad) {
  if (g->m == GM_UNSET) GM_BAD(3, need_2d(c, "c", "m"));
  if (g->n == GM_UNSET) GM_BAD(3, need_2d(c, "c", "n"));
  if (g->ldc == GM_UNSET) GM_BAD(3, need_2d(c, "c", "ldc"));
  if (g->k == GM_UNSET || g->lda == GM_UNSET) GM_BAD(1, need_2d(a, "a", "k and lda"));
  if (g->ldb == GM_UNSET) GM_BAD(2, need_2d(b, "b", "ldb"));
  if (g->m == GM_UNSET) g->m = c->dims[0];
  if (g->n == GM_UNSET) g->n = c->dims[1];
  if (g->ldc == GM_UNSET) g->ldc = c->dims[1];
  if (g->k == GM_UNSET) g->k = g->transpose_a ? a->dims[0] : a->dims[1];
  if (g->lda == GM_UNSET) g->lda = a->dims[1];
  if (g->ldb == GM_UNSET) g->ldb = b->dims[1];
  return GM_OK;
}

static footprint fp_a(const gm_mat *a, const gm_gemm_args *g) {
  return g->transpose_a ? (footprint){a, 0, g->k, g->m, g->lda} : (footprint){a, 0, g->m, g->k, g->lda};
}
static footprint fp_b(const gm_mat *b, const gm_gemm_args *g) {
  return g->transpose_b ? (footprint){b, 0, g->n, g->k, g->ldb} : (footprint){b, 0, g->k, g->n, g->ldb};
}

gm_status gm_gemm_resolve(const gm_mat *a, const gm_mat *b, const gm_mat *c, gm_gemm_args *g, int *bad) {
  *bad = 0;
  GM_BAD(2, gm_check_same_ctype("gemm_", a, b));
  GM_BAD(3, gm_check_same_ctype("gemm_", a, c));
  gm_gemm_args given = *g;
  GM_TRY(gemm_defaults(a, b, c, g, bad));
  GM_TRY(gemm_shape_checks(a, b, g, &given, bad));
  GM_TRY(check_int(g->m, "m"));
  GM_TRY(check_int(g->n, "n"));
  GM_TRY(check_int(g->k, "k"));
  footprint fa = fp_a(a, g), fb = fp_b(b, g), fc = {c, 0, g->m, g->n, g->ldc};
  if (fa.cols > fa.ld) GM_BAD(1, gm_fail(GM_EINVAL, "%s %zu exceeds lda %zu", g->transpose_a ? "m" : "k", fa.cols, fa.ld));
  if (fb.cols > fb.ld) GM_BAD(2, gm_fail(GM_EINVAL, "%s %zu exceeds ldb %zu", g->transpose_b ? "k" : "n", fb.cols, fb.ld));
  if (fc.cols > fc.ld) GM_BAD(3, gm_fail(GM_EINVAL, "n %zu exceeds ldc %zu", fc.cols, fc.ld));
  GM_BAD(1, check_block("a", fa));
  GM_BAD(2, check_block("b", fb));
  GM_BAD(3, check_block("c", fc));
  if (footprints_overlap(fc, fa)) GM_BAD(3, gm_fail(GM_EINVAL, "c overlaps a in the same storage"));
  if (footprints_overlap(fc, fb)) GM_BAD(3, gm_fail(GM_EINVAL, "c overlaps b in the same storage"));
  return GM_OK;
}

static int ld1(size_t ld) { return ld ? (int)ld : 1; }

/* Operands read or written in place by gemm: contiguous mats, and
 * strided 2-d views that are one row-major block with a leading
 * dimension (blas_views.h).  Only when the sizes are the whole views'
 * (MGL's defaults): other m, n, k and ld count the view's elements in
 * row-major order, which staging gives. */
typedef struct gemm_operand {
  gm_mat *m;
  bool native;
  gm_gemm_view v;
} gemm_operand;

static bool whole_views(const gm_mat *a, const gm_mat *b, const gm_mat *c, const gm_gemm_args *g) {
  if (a->rank != 2 || b->rank != 2 || c->rank != 2) return false;
  return g->m == c->dims[0] && g->n == c->dims[1] && g->ldc == c->dims[1] && g->lda == a->dims[1] &&
         g->ldb == b->dims[1] && g->k == (g->transpose_a ? a->dims[0] : a->dims[1]);
}

/* The stored block of an operand used in place (false: staged). */
static bool in_place_block(const gemm_operand *o, gm_gemm_view *out) {
  if (o->native) {
    *out = o->v;
    return true;
  }
  if (!o->m->contiguous || o->m->rank != 2 || o->m->size == 0) return false;
  out->alias = *o->m;
  out->rows = o->m->dims[0], out->cols = o->m->dims[1], out->ld = o->m->dims[1];
  return true;
}

/* A native input overlapping the in-place c is staged instead; a native c
 * overlapping an in-place input is staged: gemm must not read what it
 * writes. */
static void plan_natives(gemm_operand *a, gemm_operand *b, gemm_operand *c) {
  gm_gemm_view cb, ib;
  gemm_operand *ins[2] = {a, b};
  for (int i = 0; i < 2; i++)
    if (ins[i]->native && in_place_block(c, &cb) && gm_gemm_views_overlap(&cb, &ins[i]->v)) ins[i]->native = false;
  for (int i = 0; i < 2; i++)
    if (c->native && in_place_block(ins[i], &ib) && gm_gemm_views_overlap(&c->v, &ib)) c->native = false;
}

static gm_mat *gemm_mat(gemm_operand *o) { return o->native ? &o->v.alias : o->m; }
static size_t gemm_ld(const gemm_operand *o, size_t ld) { return o->native ? o->v.ld : ld; }
static bool gemm_trans(const gemm_operand *o, bool t) { return o->native && o->v.trans ? !t : t; }

gm_status gm_gemm_(double alpha, gm_mat *a, gm_mat *b, double beta, gm_mat *c, gm_gemm_args g) {
  int bad;
  GM_TRY(gm_gemm_resolve(a, b, c, &g, &bad));
  if (g.m == 0 || g.n == 0) return GM_OK;
  gm_mat *ms[3] = {a, b, c};
  /* complex mats too (cgemm/zgemm), and the half types (the backend's
   * GemmEx-shaped gemm: float32 accumulation, c rounded once); resolve
   * checked that the three share a ctype */
  if (!gm_ctype_is_complex(a->ctype) && !gm_ctype_is_half(a->ctype)) GM_TRY(gm_check_float_mats("gemm_", ms, 3));
  gm_exec e = gm_exec_choose(ms, 3);
  if (!GM_BLAS_ENTRY(e, gemm)) return unsupported(&e, "gemm");
  gemm_operand oa = {.m = a}, ob = {.m = b}, oc = {.m = c};
  if (whole_views(a, b, c, &g)) {
    oa.native = gm_gemm_view_of(a, true, &oa.v);
    ob.native = gm_gemm_view_of(b, true, &ob.v);
    oc.native = gm_gemm_view_of(c, false, &oc.v);
    plan_natives(&oa, &ob, &oc);
  }
  bool covers = g.n == g.ldc && g.m * g.n == c->size;
  gm_operand ops[3] = {{gemm_mat(&oa), GM_INPUT, NULL}, {gemm_mat(&ob), GM_INPUT, NULL},
                       {gemm_mat(&oc), beta == 0 && covers ? GM_OUTPUT : GM_IO, NULL}};
  GM_TRY(gm_acquire(&e, ops, 3));
  bool ta = gemm_trans(&oa, g.transpose_a), tb = gemm_trans(&ob, g.transpose_b);
  /* C = op(B') op(A') in the column-major call; one block read once
   * transposed and once not (`X:t() * X`, `X * X:t()`) is symmetric: syrk,
   * half the products (numpy's A.T @ A was 1.4-1.6x faster) */
  int lda = ld1(gemm_ld(&oa, g.lda)), ldb = ld1(gemm_ld(&ob, g.ldb)), ldc = ld1(gemm_ld(&oc, g.ldc));
  if (beta == 0 && g.m == g.n && ta != tb && ops[0].ptr == ops[1].ptr && lda == ldb && e.be->blas->syrk &&
      (c->ctype == GM_FLOAT || c->ctype == GM_DOUBLE)) {
    gm_status st = e.be->blas->syrk(e.dev, c->ctype, tb ? GM_BLAS_T : GM_BLAS_N, (int)g.n, (int)g.k, alpha,
                                    ops[1].ptr, ldb, ops[2].ptr, ldc);
    return gm_finish(&e, ops, 3, st);
  }
  gm_status st = e.be->blas->gemm(e.dev, c->ctype, tb ? GM_BLAS_T : GM_BLAS_N, ta ? GM_BLAS_T : GM_BLAS_N, (int)g.n,
                                  (int)g.m, (int)g.k, alpha, ops[1].ptr, ldb, ops[0].ptr, lda, beta, ops[2].ptr, ldc);
  return gm_finish(&e, ops, 3, st);
}

/* ---- geam on blocks ---- */

static footprint block_fp(gm_submat b, size_t rows, size_t cols) {
  return b.trans ? (footprint){b.m, b.off, cols, rows, b.ld} : (footprint){b.m, b.off, rows, cols, b.ld};
}

static gm_status geam_check(double beta, gm_submat a, gm_submat b, gm_submat c, size_t rows, size_t cols) {
  GM_TRY(gm_check_same_ctype("geam", a.m, c.m));
  GM_TRY(check_block("a", block_fp(a, rows, cols)));
  GM_TRY(check_block("c", block_fp(c, rows, cols)));
  if (c.trans) return gm_fail(GM_EINVAL, "geam: the result block cannot be transposed");
  if (footprints_overlap(block_fp(c, rows, cols), block_fp(a, rows, cols)))
    return gm_fail(GM_EINVAL, "the result overlaps an input in the same storage");
  if (beta == 0 || !b.m) return GM_OK;
  GM_TRY(gm_check_same_ctype("geam", b.m, c.m));
  GM_TRY(check_block("b", block_fp(b, rows, cols)));
  if (footprints_overlap(block_fp(c, rows, cols), block_fp(b, rows, cols)))
    return gm_fail(GM_EINVAL, "the result overlaps an input in the same storage");
  return GM_OK;
}

static void *at(void *p, const gm_mat *m, size_t off) { return (char *)p + off * gm_ctype_size(m->ctype); }

gm_status gm_geam_(double alpha, gm_submat a, double beta, gm_submat b, gm_submat c, size_t rows, size_t cols) {
  if (beta == 0) b.m = NULL;
  GM_TRY(geam_check(beta, a, b, c, rows, cols));
  if (rows == 0 || cols == 0) return GM_OK;
  gm_mat *ms[3] = {a.m, c.m, b.m};
  GM_TRY(gm_check_float_mats("geam_", ms, b.m ? 3 : 2));
  gm_exec e = gm_exec_choose(ms, b.m ? 3 : 2);
  if (!GM_BLAS_ENTRY(e, geam)) return unsupported(&e, "geam");
  bool covers = c.off == 0 && (c.ld == cols || rows == 1) && rows * cols == c.m->size;
  gm_operand ops[3] = {{a.m, GM_INPUT, NULL}, {c.m, covers ? GM_OUTPUT : GM_IO, NULL}, {b.m, GM_INPUT, NULL}};
  int n_ops = b.m ? 3 : 2;
  GM_TRY(gm_acquire(&e, ops, n_ops));
  gm_status st = e.be->blas->geam(e.dev, c.m->ctype, a.trans ? GM_BLAS_T : GM_BLAS_N,
                                  b.trans ? GM_BLAS_T : GM_BLAS_N, (int)cols, (int)rows, alpha,
                                  at(ops[0].ptr, a.m, a.off), ld1(a.ld), beta,
                                  b.m ? at(ops[2].ptr, b.m, b.off) : NULL, b.m ? ld1(b.ld) : 1,
                                  at(ops[1].ptr, c.m, c.off), ld1(c.ld));
  return gm_finish(&e, ops, n_ops, st);
}
