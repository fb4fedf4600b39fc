/* gm_fft_axis: the operand rules, the cuFFT layout of a transform along
 * one axis of contiguous row-major operands, and the dispatch to the
 * place's FFT table (host: KISS FFT; devices: cuFFT or its shim). */
#include "fft.h"

#include "blas.h"
#include "../exec/exec.h"

/* the lengths along axis the type asks of x and y */
static void side_lengths(gm_fft_type type, size_t n, size_t *nx, size_t *ny) {
  size_t half = n / 2 + 1;
  *nx = type == GM_FFT_C2R ? half : n;
  *ny = type == GM_FFT_R2C ? half : n;
}

static gm_status check_types(const gm_mat *x, const gm_mat *y, gm_fft_type type, int *bad) {
  gm_ctype cx = x->ctype, cy = y->ctype;
  bool ok_x = type == GM_FFT_R2C ? (cx == GM_FLOAT || cx == GM_DOUBLE) : gm_ctype_is_complex(cx);
  if (!ok_x) GM_BAD(1, gm_fail(GM_EINVAL, "x is %s, the transform takes %s", gm_ctype_dtype(cx),
                               type == GM_FFT_R2C ? "float32 or float64" : "complex64 or complex128"));
  gm_ctype want = type == GM_FFT_C2C ? cx : type == GM_FFT_R2C ? gm_ctype_complex_for(cx) : gm_ctype_real_of(cx);
  if (cy != want) GM_BAD(2, gm_fail(GM_EINVAL, "y is %s, must be %s", gm_ctype_dtype(cy), gm_ctype_dtype(want)));
  return GM_OK;
}

static gm_status check_operands(const gm_mat *x, const gm_mat *y, int axis, gm_fft_type type, size_t n, int *bad) {
  GM_TRY(check_types(x, y, type, bad));
  if (axis < 0 || axis >= x->rank)
    GM_BAD(3, gm_fail(GM_EINVAL, "axis %d is out of range 1..%d", axis + 1, x->rank));
  if (n < 1) GM_BAD(4, gm_fail(GM_EINVAL, "n must be at least 1"));
  if (y->rank != x->rank) GM_BAD(2, gm_fail(GM_EINVAL, "y has rank %d, x %d", y->rank, x->rank));
  size_t nx, ny;
  side_lengths(type, n, &nx, &ny);
  for (int d = 0; d < x->rank; d++) {
    size_t wx = d == axis ? nx : y->dims[d], wy = d == axis ? ny : x->dims[d];
    if (x->dims[d] != wx) GM_BAD(1, gm_fail(GM_EINVAL, "x has %zu on axis %d, needs %zu", x->dims[d], d + 1, wx));
    if (y->dims[d] != wy) GM_BAD(2, gm_fail(GM_EINVAL, "y has %zu on axis %d, needs %zu", y->dims[d], d + 1, wy));
  }
  if (x->vec == y->vec) GM_BAD(2, gm_fail(GM_EINVAL, "y shares storage with x"));
  return GM_OK;
}

/* Row-major (outer, len, inner): the last axis is one batch of
 * contiguous lines; any other is `inner` lines at stride inner, repeated
 * for each outer index (one plan, `outer` executions). */
static gm_fft_layout layout_of(const gm_mat *x, int axis, gm_fft_type type, size_t n) {
  size_t outer = 1, inner = 1, nx, ny;
  for (int d = 0; d < axis; d++) outer *= x->dims[d];
  for (int d = axis + 1; d < x->rank; d++) inner *= x->dims[d];
  side_lengths(type, n, &nx, &ny);
  gm_fft_layout l = {.type = type, .n = n};
  l.t = type == GM_FFT_R2C ? gm_ctype_complex_for(x->ctype) : x->ctype;
  if (inner == 1) {
    l.batch = outer, l.istride = 1, l.idist = nx, l.ostride = 1, l.odist = ny, l.loops = 1;
  } else {
    l.batch = inner, l.istride = inner, l.idist = 1, l.ostride = inner, l.odist = 1;
    l.loops = outer, l.iloop = nx * inner, l.oloop = ny * inner;
  }
  return l;
}

gm_status gm_fft_axis(gm_mat *x, gm_mat *y, int axis, gm_fft_type type, size_t n, bool inverse, int *bad) {
  *bad = 0;
  GM_TRY(check_operands(x, y, axis, type, n, bad));
  if (x->size == 0 || y->size == 0) return GM_OK;
  gm_mat *ms[2] = {x, y};
  gm_exec e = gm_exec_choose(ms, 2);
  if (!e.be->fft) return gm_fail(GM_EUNSUPPORTED, "fft: the %s backend has no FFT", e.be->name);
  gm_fft_layout l = layout_of(x, axis, type, n);
  gm_operand ops[2] = {{x, GM_INPUT, NULL}, {y, GM_OUTPUT, NULL}};
  GM_TRY(gm_acquire(&e, ops, 2));
  gm_status st = e.be->fft->exec(e.dev, &l, ops[0].ptr, ops[1].ptr, inverse || type == GM_FFT_C2R);
  return gm_finish(&e, ops, 2, st);
}
