/* The host backend: op entry points on host memory, assembled from the
 * areas' host tables. */
#include "../core/exec/backend.h"
#include "../core/ops/convert.h"
#include "../core/ops/elementwise_ops.h"
#include "../core/ops/nn_ops.h"
#include "../core/ops/blas_ops.h"
#include "../core/ops/random_ops.h"
#include "../core/ops/reduce_ops.h"
#include "../core/ops/reduce_axis_ops.h"
#include "../core/ops/index_ops.h"
#include "../core/ops/scan_ops.h"
#include "../core/ops/strided_ew_ops.h"
#include "../core/ops/fft_ops.h"
#include "../../kernels/fill.h"
#include "../../kernels/int_ops.h"
#include "imatmul.h"
#include "strided.h"

static gm_status host_fill(void *ctx, gm_ctype t, size_t n, double alpha, void *x, size_t incx) {
  (void)ctx;
  if (incx == 1) return gm_host_fill_contiguous(t, n, alpha, x);
#define X(T, E, ...)                               \
  case GM_##E:                                     \
    gm_fill_##T((T *)x, n, incx, gm_sat_##T(alpha)); \
    return GM_OK;
  GM_CTYPE_SWITCH(t, X, return gm_fail(GM_EINVAL, "fill: bad ctype"))
#undef X
}

static gm_status host_convert(void *ctx, gm_ctype dt, void *dst, gm_ctype st, const void *src, size_t n) {
  (void)ctx;
  gm_convert(dt, dst, st, src, n);
  return GM_OK;
}

const gm_backend gm_host_backend = {
    .name = "host",
    .fill = host_fill,
    .strided_copy = gm_host_strided_copy, /* strided.c */
    .convert = host_convert,              /* core/ops/convert.c */
    .imatmul = gm_host_imatmul,           /* imatmul.c */
    .blas = &gm_host_blas_ops,
    .elementwise = &gm_host_elementwise_ops,
    .nn = &gm_host_nn_ops,
    .random = &gm_host_random_ops,
    .reduce = &gm_host_reduce_ops,
    .reduce_axis = &gm_host_reduce_axis_ops,
    .scan = &gm_host_scan_ops,
    .index = &gm_host_index_ops,
    .strided_ew = &gm_host_strided_ew_ops,
    .fft = &gm_host_fft_ops, /* fft.cpp */
};
