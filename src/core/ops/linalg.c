/* Assembling (stack_), m_eq, and the LAPACK-based invert/logdet.
 *
 * invert/logdet run on the chosen place when its backend has the entries
 * (blas_ops.h); a device without them (cuSOLVER is optional) runs them on
 * the host facet, which costs one device->host copy of the input (and the
 * result then lives on the host until a device op needs it). */
#include <stdint.h>
#include <stdlib.h>

#include "blas.h"
#include "../exec/exec.h"
#include "../model/view.h"

/* ---- stack_ ---- */

static bool ranges_overlap(const gm_mat *a, const gm_mat *b) {
  if (a->vec != b->vec || a->size == 0 || b->size == 0) return false;
  if (!a->contiguous || !b->contiguous) return false; /* staged through a temporary */
  return a->displacement < b->displacement + b->size && b->displacement < a->displacement + a->size;
}

static gm_status stack_check(int axis, gm_mat *const *mats, int n, const gm_mat *dst, int *bad) {
  if (axis < 0 || axis >= dst->rank)
    GM_BAD(1, gm_fail(GM_EINVAL, "axis %d is out of range 1..%d", axis + 1, dst->rank));
  size_t total = 0;
  for (int i = 0; i < n; i++) {
    const gm_mat *m = mats[i];
    if (m->ctype != dst->ctype)
      GM_BAD(2, gm_fail(GM_EINVAL, "mixed ctypes %s (mats[%d]) and %s (mat)", gm_ctype_name(m->ctype), i + 1,
                        gm_ctype_name(dst->ctype)));
    if (m->rank != dst->rank)
      GM_BAD(2, gm_fail(GM_EINVAL, "mats[%d] has rank %d, mat has rank %d", i + 1, m->rank, dst->rank));
    for (int d = 0; d < dst->rank; d++)
      if (d != axis && m->dims[d] != dst->dims[d])
        GM_BAD(2, gm_fail(GM_EINVAL, "mats[%d] has dimension %zu on axis %d, mat has %zu", i + 1, m->dims[d],
                          d + 1, dst->dims[d]));
    if (ranges_overlap(m, dst)) GM_BAD(2, gm_fail(GM_EINVAL, "mats[%d] overlaps mat in the same storage", i + 1));
    total += m->dims[axis];
  }
  if (total != dst->dims[axis])
    GM_BAD(3, gm_fail(GM_EINVAL, "mats add up to %zu along axis %d, mat has %zu", total, axis + 1,
                      dst->dims[axis]));
  return GM_OK;
}

gm_status gm_stack_(int axis, gm_mat *const *mats, int n, gm_mat *dst, int *bad) {
  *bad = 0;
  GM_TRY(stack_check(axis, mats, n, dst, bad));
  size_t outer = 1, trailing = 1;
  for (int d = 0; d < axis; d++) outer *= dst->dims[d];
  for (int d = axis + 1; d < dst->rank; d++) trailing *= dst->dims[d];
  size_t width = dst->dims[axis] * trailing, pos = 0;
  for (int i = 0; i < n; i++) {
    /* one rows x cols block per input; each call acquires dst as IO
     * unless the block covers it (the common single-input case) */
    size_t cols = mats[i]->dims[axis] * trailing;
    gm_submat a = {mats[i], 0, cols, false}, c = {dst, pos, width, false}, none = {NULL, 0, 1, false};
    GM_TRY(gm_geam_(1.0, a, 0.0, none, c, outer, cols));
    pos += cols;
  }
  return GM_OK;
}

/* ---- m_eq ---- */

gm_status gm_m_eq(gm_mat *a, gm_mat *b, bool *out) {
  GM_TRY(gm_check_same_ctype("m_eq", a, b));
  if (a->size != b->size) return gm_fail(GM_EINVAL, "sizes differ: %zu vs %zu", a->size, b->size);
  gm_exec e = gm_exec_host();
  gm_operand ops[2] = {{a, GM_INPUT, NULL}, {b, GM_INPUT, NULL}};
  GM_TRY(gm_acquire(&e, ops, 2));
  bool eq = true;
  size_t n = a->size;
#define X(T, E, ...)                                                \
  case GM_##E: {                                                    \
    const T *x = ops[0].ptr, *y = ops[1].ptr;                       \
    for (size_t i = 0; i < n && eq; i++) eq = x[i] == y[i];         \
    break;                                                          \
  }
  GM_FLOAT_CTYPE_SWITCH(a->ctype, X, break)
#undef X
  gm_release(&e, ops, 2);
  *out = eq;
  return GM_OK;
}

/* ---- invert, logdet ---- */

static gm_status check_square(const gm_mat *a, const char *op) {
  GM_TRY(gm_check_float_ctype(op, 1, a->ctype));
  if (a->rank != 2) return gm_fail(GM_EINVAL, "%s: matrix must be 2-dimensional, has rank %d", op, a->rank);
  if (a->dims[0] != a->dims[1])
    return gm_fail(GM_EINVAL, "%s: matrix must be square, is %zux%zu", op, a->dims[0], a->dims[1]);
  if (a->dims[0] > 46340) return gm_fail(GM_ERANGE, "%s: matrix is too large for LAPACK", op);
  return GM_OK;
}

/* The place for a LAPACK op: the device when it has the entry, else the
 * host facet. */
static gm_exec lapack_place(gm_mat **ms, int n, bool want_invert) {
  gm_exec e = gm_exec_choose(ms, n);
  const gm_blas_ops *b = e.be->blas;
  bool has = b && (want_invert ? b->invert != NULL : b->logdet != NULL) && b->copy;
  return has ? e : gm_exec_host();
}

gm_status gm_invert(gm_mat *a, gm_mat *out) {
  GM_TRY(check_square(a, "invert"));
  GM_TRY(gm_check_same_ctype("invert", a, out));
  if (out->rank != 2 || out->dims[0] != a->dims[0] || out->dims[1] != a->dims[1])
    return gm_fail(GM_EINVAL, "invert: result must be %zux%zu", a->dims[0], a->dims[1]);
  if (out->vec == a->vec) return gm_fail(GM_EINVAL, "invert: result shares storage with the input");
  int n = (int)a->dims[0];
  if (n == 0) return GM_OK;
  gm_mat *ms[2] = {a, out};
  gm_exec e = lapack_place(ms, 2, true);
  gm_operand ops[2] = {{a, GM_INPUT, NULL}, {out, GM_OUTPUT, NULL}};
  GM_TRY(gm_acquire(&e, ops, 2));
  /* row-major A read column-major is A^T, and inv(A^T) = inv(A)^T: the
   * in-place column-major inverse read back row-major is inv(A) */
  size_t nn = (size_t)n * (size_t)n; /* beyond int for n > 46340 */
  gm_status st = gm_blas_copy_n(e.be->blas, e.dev, a->ctype, nn, ops[0].ptr, 1, ops[1].ptr, 1);
  if (st == GM_OK) st = e.be->blas->invert(e.dev, a->ctype, n, ops[1].ptr, n);
  return gm_finish(&e, ops, 2, st);
}

gm_status gm_logdet(gm_mat *a, double *logabs, int *sign) {
  GM_TRY(check_square(a, "logdet"));
  *logabs = 0;
  *sign = 1;
  size_t n = a->dims[0];
  if (n == 0) return GM_OK;
  gm_exec e = lapack_place(&a, 1, false);
  gm_mat_options o = {.ctype = (int)a->ctype, .cuda_enabled = e.dev != NULL, .synchronization = GM_SYNC_FALSE};
  gm_mat *lu;
  GM_TRY(gm_mat_new(2, a->dims, &o, &lu));
  gm_operand ops[2] = {{a, GM_INPUT, NULL}, {lu, GM_OUTPUT, NULL}};
  gm_status st = gm_acquire(&e, ops, 2);
  if (st == GM_OK) {
    /* det(A^T) = det(A): the column-major reading is fine */
    st = gm_blas_copy_n(e.be->blas, e.dev, a->ctype, n * n, ops[0].ptr, 1, ops[1].ptr, 1);
    if (st == GM_OK) st = e.be->blas->logdet(e.dev, a->ctype, (int)n, ops[1].ptr, (int)n, logabs, sign);
    gm_release(&e, ops, 2);
  }
  gm_mat_free(lu);
  return st;
}

/* ---- gm.linalg: one LAPACK job per matrix of a stack ---- */

static bool is_float_ctype(gm_ctype t) {
#define X(T, E, ...) \
  case GM_##E:       \
    return true;
  switch (t) {
    GM_FLOAT_CTYPES(X)
    default:
      return false;
  }
#undef X
}

size_t gm_linalg_job_elems(const gm_linalg_job *j, int i) {
  size_t m = (size_t)j->m, n = (size_t)j->n;
  switch (i) {
    case 0: return j->kind == GM_LA_GEMM ? m * (size_t)j->nrhs : m * n;
    case 1: return j->kind == GM_LA_QR ? m * (size_t)j->qcols : n * (size_t)j->nrhs;
    case 2: /* geev of a real a: real parts, then imaginary ones */
      if (j->kind == GM_LA_GEEV) return gm_ctype_kind(j->t) == GM_KIND_COMPLEX ? n : 2 * n;
      return j->kind == GM_LA_GETRF && m < n ? m : n;
    case 3: return m * (j->full ? m : n);
    default: return n * n;
  }
}

gm_ctype gm_linalg_w_ctype(const gm_linalg_job *j) {
  bool real_w = j->kind == GM_LA_SYEVD || j->kind == GM_LA_GESVD || j->kind == GM_LA_GETRF || j->kind == GM_LA_GETRS;
  return real_w ? gm_ctype_real_of(j->t) : j->t;
}

gm_linalg_job gm_linalg_job_at(const gm_linalg_job *proto, size_t at) {
  gm_linalg_job j = *proto;
  void **slot[5] = {&j.a, &j.b, &j.w, &j.u, &j.vt};
  for (int i = 0; i < 5; i++) {
    size_t elem = gm_ctype_size(i == 2 ? gm_linalg_w_ctype(proto) : proto->t);
    if (*slot[i]) *slot[i] = (char *)*slot[i] + at * gm_linalg_job_elems(proto, i) * elem;
  }
  j.batch = 1;
  return j;
}

static gm_status job_check(const gm_linalg_job *j, gm_mat *const *ms, size_t *batch) {
  if (j->m < 0 || j->n < 0 || j->nrhs < 0 || j->qcols < 0)
    return gm_fail(GM_EINVAL, "negative size");
  int k = j->m < j->n ? j->m : j->n;
  if (j->kind == GM_LA_GESVD && j->m < j->n) return gm_fail(GM_EINVAL, "gesvd needs m >= n");
  bool square = j->kind == GM_LA_GESV || j->kind == GM_LA_TRSM || j->kind == GM_LA_GETRS || j->kind == GM_LA_GEEV;
  if (square && j->m != j->n) return gm_fail(GM_EINVAL, "the job needs m == n");
  if (j->kind == GM_LA_QR && (j->qcols < k || j->qcols > j->m))
    return gm_fail(GM_EINVAL, "q needs between %d and %d columns", k, j->m);
  /* every job runs on the complex ctypes too (LAPACK's c/z routines) */
  if (!is_float_ctype(ms[0]->ctype) && !gm_ctype_is_complex(ms[0]->ctype))
    return gm_fail(GM_EINVAL, "ctype %s is not a floating type", gm_ctype_name(ms[0]->ctype));
  size_t per = gm_linalg_job_elems(j, 0);
  *batch = per ? ms[0]->size / per : 0;
  for (int i = 0; i < 5; i++) {
    const gm_mat *m = ms[i];
    if (!m) continue;
    if (gm_linalg_job_elems(j, i) > (size_t)INT32_MAX) return gm_fail(GM_ERANGE, "matrix too large for LAPACK");
    gm_ctype want = i == 2 ? gm_linalg_w_ctype(j) : ms[0]->ctype;
    if (m->ctype != want)
      return gm_fail(GM_EINVAL, "operand %d is %s, %s expected", i + 1, gm_ctype_name(m->ctype), gm_ctype_name(want));
    if (!m->contiguous) return gm_fail(GM_EINVAL, "operand %d is not contiguous", i + 1);
    if (m->size != *batch * gm_linalg_job_elems(j, i))
      return gm_fail(GM_EINVAL, "operand %d has %zu elements, %zu expected", i + 1, m->size,
                     *batch * gm_linalg_job_elems(j, i));
    for (int o = 0; o < i; o++) {
      bool both_read = j->kind == GM_LA_GEMM && i == 1; /* gemm's a and b may share storage */
      if (ms[o] && !both_read && gm_mats_overlap(ms[o], m)) return gm_fail(GM_EINVAL, "operands overlap");
    }
  }
  return GM_OK;
}

gm_status gm_linalg_run(gm_linalg_job job, gm_mat *const ms[5], size_t *failed, int *info) {
  *failed = 0;
  *info = 0;
  size_t batch = 0;
  job.t = ms[0]->ctype; /* gm_linalg_job_elems reads it */
  GM_TRY(job_check(&job, ms, &batch));
  if (batch == 0 || job.m == 0 || job.n == 0) return GM_OK;
  if ((job.kind == GM_LA_TRSM || job.kind == GM_LA_GETRS) && job.nrhs == 0) return GM_OK;
  gm_mat *present[5];
  int np = 0;
  for (int i = 0; i < 5; i++)
    if (ms[i]) present[np++] = ms[i];
  gm_exec e = gm_exec_choose(present, np);
  if (!e.be->blas || !e.be->blas->linalg) e = gm_exec_host();
  /* gesv reads b; qr's b is read too (LAPACKE's NaN scan covers q's
   * columns past the reflectors), so both are IO: never stale memory */
  bool b_in = job.kind != GM_LA_POTRF && job.kind != GM_LA_SYEVD && job.kind != GM_LA_GESVD && job.kind != GM_LA_GEEV;
  gm_operand ops[5];
  for (int i = 0; i < 5; i++)
    ops[i] = (gm_operand){ms[i], i == 0 || (i == 1 && b_in) ? GM_IO : GM_OUTPUT, NULL};
  if (job.kind == GM_LA_GETRS) ops[2].dir = GM_INPUT; /* the pivots */
  if (job.kind == GM_LA_TRSM || job.kind == GM_LA_GETRS || job.kind == GM_LA_GEMM)
    ops[0].dir = GM_INPUT; /* a is only read */
  if (job.kind == GM_LA_GEMM) ops[1].dir = GM_INPUT;
  /* acquire only the present ones (in place: ops of absent ones stay NULL) */
  gm_operand acq[5];
  int map[5], na = 0;
  for (int i = 0; i < 5; i++)
    if (ms[i]) map[na] = i, acq[na++] = ops[i];
  GM_TRY(gm_acquire(&e, acq, na));
  for (int k = 0; k < na; k++) ops[map[k]] = acq[k];
  /* One job for the whole stack: the backend runs the matrices one after
   * the other (on the host: spreading a stack of small matrices over the
   * cores (gm_par_for) measured 3x slower, OpenBLAS's LAPACK calls
   * contending inside the library), a device with its info read back
   * once, and its batched calls where it has them. */
  job.batch = batch;
  void **slot[5] = {&job.a, &job.b, &job.w, &job.u, &job.vt};
  for (int i = 0; i < 5; i++) *slot[i] = ops[i].m ? ops[i].ptr : NULL;
  int *infos = calloc(batch, sizeof *infos);
  gm_status st = infos ? e.be->blas->linalg(e.dev, &job, infos) : gm_fail(GM_ENOMEM, "out of host memory");
  for (size_t at = 0; st == GM_OK && at < batch; at++) {
    int one = infos[at];
    if (one != 0 && *info == 0) *info = one, *failed = at + 1;
    /* a singular U is a result of lu, not a failure: the stack goes on */
    if (one < 0 || (one > 0 && job.kind != GM_LA_GETRF)) break;
  }
  free(infos);
  return gm_finish(&e, acq, na, st);
}

/* ---- integer and bool matrix products (no BLAS for those) ---- */

static gm_status int_matmul_check(const gm_mat *x, const gm_mat *y, const gm_mat *c) {
  const gm_mat *ms[3] = {x, y, c};
  for (int i = 0; i < 3; i++) {
    if (ms[i]->ctype != x->ctype) return gm_fail(GM_EINVAL, "mixed ctypes");
    if (ms[i]->rank != 3 || !ms[i]->contiguous) return gm_fail(GM_EINVAL, "operand %d is not a contiguous stack", i + 1);
  }
  if (is_float_ctype(x->ctype)) return gm_fail(GM_EINVAL, "ctype %s is floating (gemm's)", gm_ctype_name(x->ctype));
  const size_t *a = x->dims, *b = y->dims, *r = c->dims;
  if (a[0] != b[0] || a[0] != r[0] || a[2] != b[1] || r[1] != a[1] || r[2] != b[2])
    return gm_fail(GM_EINVAL, "dims do not match (batch, p, q) x (batch, q, r) -> (batch, p, r)");
  if (gm_mats_overlap(c, x) || gm_mats_overlap(c, y)) return gm_fail(GM_EINVAL, "operands overlap");
  return GM_OK;
}

gm_status gm_int_matmul(gm_mat *x, gm_mat *y, gm_mat *c) {
  GM_TRY(int_matmul_check(x, y, c));
  GM_TRY(gm_check_writable(NULL, c));
  if (c->size == 0) return GM_OK;
  gm_mat *all[3] = {x, y, c};
  gm_exec e = gm_exec_choose(all, 3);
  if (!e.be->imatmul) e = gm_exec_host();
  gm_operand ops[3] = {{x, GM_INPUT, NULL}, {y, GM_INPUT, NULL}, {c, GM_OUTPUT, NULL}};
  int n = y == x ? 1 : 2; /* x * x: one operand read twice */
  if (n == 1) ops[1] = ops[2];
  GM_TRY(gm_acquire(&e, ops, n + 1));
  const void *py = n == 1 ? ops[0].ptr : ops[1].ptr;
  gm_status st = e.be->imatmul(e.dev, x->ctype, x->dims[0], x->dims[1], x->dims[2], y->dims[2], ops[0].ptr, py,
                               ops[n].ptr);
  return gm_finish(&e, ops, n + 1, st);
}
