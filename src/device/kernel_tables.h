/* The op sub-tables of a device that runs kernels/NAME.cu: each entry
 * adapts the core's interface (core/ops/elementwise_ops.h, nn_ops.h,
 * random_ops.h, reduce_ops.h) to a launcher of kernel_launchers.h.  The
 * CUDA device (src/device/cuda/kernels.c) and the emulated device
 * (src/device/emulated/kernels.c) run the same kernel sources, so they
 * share these adapters; each includes this file once, after defining
 *   GM_LAUNCHER(name)         its launchers' names (kernel_launchers.h),
 *   GM_LT_LAUNCH(ctx)         the launchers' stream argument for device ctx,
 *   GM_LT_STATUS(ctx, err, k) the gm_status of launcher code err for the
 *                             kernel named k (clearing cudart's slot),
 * and gets static gm_lt_fill, gm_lt_strided_copy, gm_lt_convert, gm_lt_imatmul,
 * gm_lt_{elementwise,index,nn,random,reduce,reduce_axis,scan,strided_ew}_ops and
 * gm_lt_blas_ops(library), the device's BLAS library table with the two
 * cases that do not depend on the library's conventions. */
#include "../core/ops/blas_ops.h"
#include "../core/ops/elementwise_ops.h"
#include "../core/ops/nn_ops.h"
#include "../core/ops/random_ops.h"
#include "../core/ops/reduce_ops.h"
#include "../core/ops/reduce_axis_ops.h"
#include "../core/ops/index_ops.h"
#include "../core/ops/scan.h"
#include "../core/ops/scan_ops.h"
#include "../../kernels/radix.h"
#include "../core/ops/strided_ew_ops.h"
#include "kernel_launchers.h"

#if !defined(GM_LT_LAUNCH) || !defined(GM_LT_STATUS)
#error "define GM_LT_LAUNCH and GM_LT_STATUS before including kernel_tables.h"
#endif

/* launcher name(args...) on device ctx, as a gm_status */
#define GM_LT_RUN(name, args, kernel) GM_LT_STATUS(ctx, GM_LAUNCHER(name) args, kernel)

static gm_status gm_lt_fill(void *ctx, gm_ctype t, size_t n, double alpha, void *x, size_t incx) {
  return GM_LT_RUN(fill, ((int)t, n, alpha, x, incx, GM_LT_LAUNCH(ctx)), "fill kernel");
}

/* kernels/strided.cu */
static gm_status gm_lt_strided_copy(void *ctx, gm_ctype t, const gm_strided_geom *g, const void *src, void *dst) {
  return GM_LT_RUN(strided_copy, ((int)t, g, src, dst, GM_LT_LAUNCH(ctx)), "strided copy kernel");
}

/* kernels/strided.cu */
static gm_status gm_lt_convert(void *ctx, gm_ctype dt, void *dst, gm_ctype st, const void *src, size_t n) {
  return GM_LT_RUN(convert, ((int)dt, dst, (int)st, src, n, GM_LT_LAUNCH(ctx)), "convert kernel");
}

/* kernels/imatmul.cu */
static gm_status gm_lt_imatmul(void *ctx, gm_ctype t, size_t batch, size_t p, size_t q, size_t r, const void *x,
                               const void *y, void *c) {
  return GM_LT_RUN(imatmul, ((int)t, batch, p, q, r, x, y, c, GM_LT_LAUNCH(ctx)), "integer matmul kernel");
}

/* ---- BLAS cases run as kernels (kernels/fill.cu) ----
 * scal by 0 must give NaN for NaN and Inf (0 * x, as on the host), and
 * geam with beta 0 must not read B (0 * Inf would be NaN) nor depend on
 * how the library treats beta == 0: neither is left to cuBLAS (or to the
 * emulated device's host BLAS, which stands in for it), so both devices
 * run the same kernels for them. */

static const gm_blas_ops *gm_lt_blas_library;

static gm_status gm_lt_scal(void *ctx, gm_ctype t, int n, double alpha, void *x, int incx) {
  if (alpha != 0) return gm_lt_blas_library->scal(ctx, t, n, alpha, x, incx);
  if (n <= 0 || incx <= 0) return GM_OK;
  return GM_LT_RUN(scal, ((int)t, (size_t)n, alpha, x, (size_t)incx, GM_LT_LAUNCH(ctx)), "scal kernel");
}

static gm_status gm_lt_geam(void *ctx, gm_ctype t, gm_blas_trans ta, gm_blas_trans tb, int m, int n, double alpha,
                            const void *a, int lda, double beta, const void *b, int ldb, void *c, int ldc) {
  if (beta != 0) return gm_lt_blas_library->geam(ctx, t, ta, tb, m, n, alpha, a, lda, beta, b, ldb, c, ldc);
  if (m <= 0 || n <= 0) return GM_OK;
  return GM_LT_RUN(geam0, ((int)t, ta == GM_BLAS_T, (size_t)m, (size_t)n, alpha, a, (size_t)lda, c, (size_t)ldc,
                           GM_LT_LAUNCH(ctx)), "geam kernel");
}

/* The library's table (kept for every other entry) with scal and geam
 * going through the kernels above when alpha (scal) or beta (geam) is 0. */
static gm_blas_ops gm_lt_blas_ops(const gm_blas_ops *library) {
  gm_lt_blas_library = library;
  gm_blas_ops o = *library;
  o.scal = gm_lt_scal;
  o.geam = gm_lt_geam;
  return o;
}

/* ---- elementwise (kernels/elementwise.cu) ---- */

static gm_status gm_lt_unary(void *ctx, gm_ctype t, gm_unary_op op, size_t n, void *x) {
  return GM_LT_RUN(ew_unary, ((int)t, (int)op, n, x, GM_LT_LAUNCH(ctx)), "unary kernel");
}

static gm_status gm_lt_predicate(void *ctx, gm_ctype t, gm_predicate_op op, size_t n, const void *x, void *y) {
  return GM_LT_RUN(ew_predicate, ((int)t, (int)op, n, x, y, GM_LT_LAUNCH(ctx)), "predicate kernel");
}

static gm_status gm_lt_scalar(void *ctx, gm_ctype t, gm_scalar_op op, size_t n, double alpha, void *x) {
  return GM_LT_RUN(ew_scalar, ((int)t, (int)op, n, alpha, x, GM_LT_LAUNCH(ctx)), "scalar kernel");
}

static gm_status gm_lt_geem(void *ctx, gm_ctype t, size_t n, double alpha, const void *a, const void *b,
                            double beta, void *c) {
  return GM_LT_RUN(ew_geem, ((int)t, n, alpha, a, b, beta, c, GM_LT_LAUNCH(ctx)), "geem kernel");
}

static gm_status gm_lt_geerv(void *ctx, gm_ctype t, size_t rows, size_t cols, double alpha, const void *a,
                             const void *x, double beta, void *b) {
  return GM_LT_RUN(ew_geerv, ((int)t, rows, cols, alpha, a, x, beta, b, GM_LT_LAUNCH(ctx)), "geerv kernel");
}

static gm_status gm_lt_lt(void *ctx, gm_ctype t, size_t n, const void *x, void *y) {
  return GM_LT_RUN(ew_lt, ((int)t, n, x, y, GM_LT_LAUNCH(ctx)), "lt kernel");
}

static gm_status gm_lt_add_sign(void *ctx, gm_ctype t, size_t n, double alpha, const void *a, double beta,
                                void *b) {
  return GM_LT_RUN(ew_add_sign, ((int)t, n, alpha, a, beta, b, GM_LT_LAUNCH(ctx)), "add_sign kernel");
}

static gm_status gm_lt_sum(void *ctx, gm_ctype t, size_t rows, size_t cols, int axis, double alpha, const void *x,
                           double beta, void *y) {
  return GM_LT_RUN(ew_sum, ((int)t, axis, rows, cols, alpha, x, beta, y, GM_LT_LAUNCH(ctx)), "sum kernel");
}

static gm_status gm_lt_scale(void *ctx, gm_ctype t, gm_scale_kind kind, size_t rows, size_t cols,
                             const void *scales, const void *a, void *result) {
  int k = kind == GM_SCALE_ROWS ? 0 : 1;
  return GM_LT_RUN(ew_scale, ((int)t, k, rows, cols, scales, a, result, GM_LT_LAUNCH(ctx)), "scale kernel");
}

static const gm_elementwise_ops gm_lt_elementwise_ops = {
    .unary = gm_lt_unary,
    .predicate = gm_lt_predicate,
    .scalar = gm_lt_scalar,
    .geem = gm_lt_geem,
    .geerv = gm_lt_geerv,
    .lt = gm_lt_lt,
    .add_sign = gm_lt_add_sign,
    .sum = gm_lt_sum,
    .scale = gm_lt_scale,
};

/* ---- NN (kernels/nn.cu) ---- */

static gm_status gm_lt_convolve(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, const void *w, void *y) {
  return GM_LT_RUN(nn_convolve, ((int)t, g, x, w, y, GM_LT_LAUNCH(ctx)), "convolve kernel");
}

static gm_status gm_lt_derive_convolve(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *xd,
                                       const void *w, void *wd, const void *yd) {
  return GM_LT_RUN(nn_derive_convolve, ((int)t, g, x, xd, w, wd, yd, GM_LT_LAUNCH(ctx)), "derive_convolve kernel");
}

static gm_status gm_lt_max_pool(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *y) {
  return GM_LT_RUN(nn_max_pool, ((int)t, g, x, y, GM_LT_LAUNCH(ctx)), "max_pool kernel");
}

static gm_status gm_lt_derive_max_pool(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *xd,
                                       const void *y, const void *yd) {
  return GM_LT_RUN(nn_derive_max_pool, ((int)t, g, x, xd, y, yd, GM_LT_LAUNCH(ctx)), "derive_max_pool kernel");
}

static const gm_nn_ops gm_lt_nn_ops = {
    .convolve = gm_lt_convolve,
    .derive_convolve = gm_lt_derive_convolve,
    .max_pool = gm_lt_max_pool,
    .derive_max_pool = gm_lt_derive_max_pool,
};

/* ---- random (kernels/random.cu) ----
 * The core's Philox reservation (`start`) expanded on the device with the
 * host's block functions (kernels/random.h) on a full grid: device samples
 * equal the host's for the same state, and there is no per-context
 * generator state to create, seed or free. */

static gm_status gm_lt_uniform(void *ctx, const gm_random_state *start, gm_ctype t, size_t n, double limit,
                               void *x) {
  return GM_LT_RUN(uniform, ((int)t, start->key, start->counter, n, limit, x, GM_LT_LAUNCH(ctx)), "uniform kernel");
}

static gm_status gm_lt_gaussian(void *ctx, const gm_random_state *start, gm_ctype t, size_t n, double mean,
                                double stddev, void *x) {
  return GM_LT_RUN(gaussian, ((int)t, start->key, start->counter, n, mean, stddev, x, GM_LT_LAUNCH(ctx)),
                   "gaussian kernel");
}

static const gm_random_ops gm_lt_random_ops = {
    .uniform = gm_lt_uniform,
    .gaussian = gm_lt_gaussian,
};

/* ---- whole-array reductions (kernels/reduce.cu) ---- */

static gm_status gm_lt_reduce(void *ctx, gm_ctype t, gm_reduce_op op, size_t n, const void *x, double *result) {
  return GM_LT_RUN(reduce, ((int)t, (int)op, n, x, result, GM_LT_LAUNCH(ctx)), "reduce kernel");
}

static const gm_reduce_ops gm_lt_reduce_ops = {.reduce = gm_lt_reduce};

/* ---- reductions along an axis (kernels/reduce_axis.cu) ---- */

static gm_status gm_lt_reduce_axis(void *ctx, gm_ctype t, int op, int ddof, size_t outer, size_t len, size_t inner,
                                   const void *x, void *y) {
  return GM_LT_RUN(reduce_axis, ((int)t, op, ddof, outer, len, inner, x, y, GM_LT_LAUNCH(ctx)), "reduce_axis kernel");
}

static const gm_reduce_axis_ops gm_lt_reduce_axis_ops = {.axis = gm_lt_reduce_axis};

/* ---- scans and sorts along an axis (kernels/scan.cu) ---- */

static gm_status gm_lt_scan_axis(void *ctx, gm_ctype t, int op, int initial, size_t outer, size_t len, size_t inner,
                                 size_t chunk, const void *x, void *y) {
  return GM_LT_RUN(scan_axis, ((int)t, op, initial, outer, len, inner, chunk, x, y, GM_LT_LAUNCH(ctx)), "scan kernel");
}

/* The device radix-sorts a few long lines (kernels/radix.cu: chunks over
 * many threads), and the sort and argsort of many lines a block per line
 * (the 4-byte types as (key, position) pairs, the others as keys and
 * positions); mode and unique of many lines keep the merge sort of
 * kernels/scan.cu, a line per thread (a per-thread radix sort of a whole
 * line would keep its counters in local memory). */
static bool radix_lines_here(gm_ctype t, int op, size_t lines, size_t len) {
  return len >= gm_sort_radix_min() && ((lines <= GM_RADIX_FEW_LINES && len > gm_sort_radix_chunk()) ||
                                        gm_radix_pairs_fit((int)t, op, len) || gm_radix_keys_fit(op, len));
}

static gm_status gm_lt_sort_axis(void *ctx, gm_ctype t, int desc, size_t outer, size_t len, size_t inner,
                                 const void *x, void *y) {
  if (radix_lines_here(t, GM_LINES_ARGSORT, outer * inner, len)) /* kernels/radix.cu (core/ops/scan.h) */
    return GM_LT_RUN(radix_lines, ((int)t, GM_LINES_ARGSORT, desc, outer, len, inner, gm_sort_radix_chunk(), x, y, NULL,
                                   GM_LT_LAUNCH(ctx)), "radix sort kernel");
  return GM_LT_RUN(sort_axis, ((int)t, desc, outer, len, inner, x, y, GM_LT_LAUNCH(ctx)), "sort kernel");
}

static gm_status gm_lt_lines_axis(void *ctx, gm_ctype t, int op, int flag, size_t outer, size_t len, size_t inner,
                                  const void *x, void *y, int64_t *yi) {
  if (gm_radix_sorting_op(op) && radix_lines_here(t, op, outer * inner, len))
    return GM_LT_RUN(radix_lines, ((int)t, op, flag, outer, len, inner, gm_sort_radix_chunk(), x, y, yi,
                                   GM_LT_LAUNCH(ctx)), "radix sort kernel");
  return GM_LT_RUN(lines_axis, ((int)t, op, flag, outer, len, inner, x, y, yi, GM_LT_LAUNCH(ctx)), "lines kernel");
}

static gm_status gm_lt_search(void *ctx, gm_ctype t, int mode, size_t n, const void *s, const int64_t *sorter,
                              size_t m, const void *v, void *out) {
  return GM_LT_RUN(search, ((int)t, mode, n, s, sorter, m, v, out, GM_LT_LAUNCH(ctx)), "search kernel");
}

static gm_status gm_lt_select(void *ctx, gm_ctype t, int desc, size_t k, size_t outer, size_t len, size_t inner,
                              const void *x, void *y, int64_t *yi) {
  return GM_LT_RUN(radix_select, ((int)t, desc, k, outer, len, inner, gm_sort_radix_chunk(), x, y, yi, GM_LT_LAUNCH(ctx)),
                   "select kernel");
}

static const gm_scan_ops gm_lt_scan_ops = {.scan = gm_lt_scan_axis,
                                           .sort = gm_lt_sort_axis,
                                           .lines = gm_lt_lines_axis,
                                           .search = gm_lt_search,
                                           .select = gm_lt_select};

/* ---- the strided elementwise engine (kernels/strided_ew.cu) ---- */

static gm_status gm_lt_strided_binary(void *ctx, gm_ctype t, gm_bcast_op op, const gm_strided *s, void *out,
                                      const void *a, const void *b) {
  return GM_LT_RUN(strided_binary, ((int)t, (int)op, s, out, a, b, GM_LT_LAUNCH(ctx)), "strided binary kernel");
}

static gm_status gm_lt_strided_where(void *ctx, gm_ctype t, const gm_strided *s, void *out, const void *cond,
                                     const void *a, const void *b) {
  return GM_LT_RUN(strided_where, ((int)t, s, out, cond, a, b, GM_LT_LAUNCH(ctx)), "strided where kernel");
}

static const gm_strided_ew_ops gm_lt_strided_ew_ops = {.binary = gm_lt_strided_binary, .where = gm_lt_strided_where};

/* ---- the gather/scatter engine of indexing (kernels/index.cu) ---- */

static gm_status gm_lt_index_gather(void *ctx, gm_ctype t, size_t n, const void *x, const int64_t *off, void *y) {
  return GM_LT_RUN(index_gather, ((int)t, n, x, off, y, GM_LT_LAUNCH(ctx)), "index gather kernel");
}

static gm_status gm_lt_index_scatter(void *ctx, gm_ctype t, int mode, size_t runs, const int64_t *dst,
                                     const int64_t *start, const int64_t *spos, const void *src, void *y) {
  return GM_LT_RUN(index_scatter, ((int)t, mode, runs, dst, start, spos, src, y, GM_LT_LAUNCH(ctx)),
                   "index scatter kernel");
}

static gm_status gm_lt_index_compact(void *ctx, gm_ctype mt, size_t n, size_t chunk, const void *m, size_t esize,
                                     const void *x, void *y, const gm_compact_dims *d, int64_t *c, size_t *count) {
  return GM_LT_RUN(index_compact, ((int)mt, n, chunk, m, esize, x, y, d, c, count, GM_LT_LAUNCH(ctx)),
                   "compaction kernel");
}

static gm_status gm_lt_index_expand(void *ctx, size_t n, size_t chunk, const void *m, size_t esize, const void *src,
                                    void *x) {
  return GM_LT_RUN(index_expand, (n, chunk, m, esize, src, x, GM_LT_LAUNCH(ctx)), "compaction-inverse kernel");
}

static const gm_index_ops gm_lt_index_ops = {.gather = gm_lt_index_gather,
                                             .scatter = gm_lt_index_scatter,
                                             .compact = gm_lt_index_compact,
                                             .expand = gm_lt_index_expand};

#undef GM_LT_RUN
