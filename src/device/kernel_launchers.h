/* The extern "C" launchers of kernels/NAME.cu, named GM_LAUNCHER(name):
 * gm_cuda_NAME as nvcc builds them for the CUDA device, gm_emu_NAME as
 * g++ builds the same sources for the emulated device
 * (kernels/cpu/emu_kernels.h renames them).  Each returns 0 or a
 * cudaError_t-like code; `lc` is what the caller passes down
 * (kernels/launch.h: the stream, the device's scratch allocator, the
 * geometry), filled by the device's kernels.c.  No include guard: a translation unit
 * includes it once, with its GM_LAUNCHER (kernel_tables.h does). */
#include <stddef.h>
#include <stdint.h>

#include "../core/ops/nn_ops.h"
#include "../../kernels/compact.h"
#include "../../kernels/launch.h"
#include "../../kernels/strided.h"
#include "../../kernels/strided_ew.h"

#ifndef GM_LAUNCHER
#error "define GM_LAUNCHER(name) before including kernel_launchers.h"
#endif

int GM_LAUNCHER(fill)(int ctype, size_t n, double alpha, void *x, size_t incx, const gm_launch_ctx *lc);
/* x[i*incx] *= alpha (the devices' scal by 0: an IEEE product) */
int GM_LAUNCHER(scal)(int ctype, size_t n, double alpha, void *x, size_t incx, const gm_launch_ctx *lc);
/* column-major C (m x n, ldc) := alpha op(A) (geam with beta 0, B unread) */
int GM_LAUNCHER(geam0)(int ctype, int trans, size_t m, size_t n, double alpha, const void *a, size_t lda, void *c,
                       size_t ldc, const gm_launch_ctx *lc);
int GM_LAUNCHER(strided_copy)(int ctype, const struct gm_strided_geom *g, const void *src, void *dst, const gm_launch_ctx *lc);
/* dst[k] := src[k] converted from sctype to dctype as astype does, k < n */
int GM_LAUNCHER(convert)(int dctype, void *dst, int sctype, const void *src, size_t n, const gm_launch_ctx *lc);
/* c := x y, integer or bool stacks (kernels/imatmul.cu) */
int GM_LAUNCHER(imatmul)(int ctype, size_t batch, size_t p, size_t q, size_t r, const void *x, const void *y, void *c,
                         const gm_launch_ctx *lc);

int GM_LAUNCHER(ew_unary)(int ctype, int op, size_t n, void *x, const gm_launch_ctx *lc);
/* y (bool) := predicate op (a GM_PREDICATE_OPS row) of x, of ctype */
int GM_LAUNCHER(ew_predicate)(int ctype, int op, size_t n, const void *x, void *y, const gm_launch_ctx *lc);
/* kind: 0 expt, 1 add_scalar, 2 min, 3 max */
int GM_LAUNCHER(ew_scalar)(int ctype, int kind, size_t n, double alpha, void *x, const gm_launch_ctx *lc);
int GM_LAUNCHER(ew_geem)(int ctype, size_t n, double alpha, const void *a, const void *b, double beta, void *c,
                         const gm_launch_ctx *lc);
int GM_LAUNCHER(ew_lt)(int ctype, size_t n, const void *x, void *y, const gm_launch_ctx *lc);
int GM_LAUNCHER(ew_add_sign)(int ctype, size_t n, double alpha, const void *a, double beta, void *b, const gm_launch_ctx *lc);
int GM_LAUNCHER(ew_geerv)(int ctype, size_t rows, size_t cols, double alpha, const void *a, const void *x,
                          double beta, void *b, const gm_launch_ctx *lc);
/* kind: 0 rows, 1 columns */
int GM_LAUNCHER(ew_scale)(int ctype, int kind, size_t rows, size_t cols, const void *s, const void *a, void *r,
                          const gm_launch_ctx *lc);
int GM_LAUNCHER(ew_sum)(int ctype, int axis, size_t rows, size_t cols, double alpha, const void *x, double beta,
                        void *y, const gm_launch_ctx *lc);

int GM_LAUNCHER(nn_convolve)(int ctype, const gm_nn_geom *g, const void *x, const void *w, void *y, const gm_launch_ctx *lc);
int GM_LAUNCHER(nn_derive_convolve)(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *w,
                                    void *wd, const void *yd, const gm_launch_ctx *lc);
int GM_LAUNCHER(nn_max_pool)(int ctype, const gm_nn_geom *g, const void *x, void *y, const gm_launch_ctx *lc);
int GM_LAUNCHER(nn_derive_max_pool)(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *y,
                                    const void *yd, const gm_launch_ctx *lc);

/* Philox on a full grid from the core's reservation (key, counter). */
int GM_LAUNCHER(uniform)(int ctype, unsigned long long key, unsigned long long counter, size_t n, double limit,
                         void *x, const gm_launch_ctx *lc);
int GM_LAUNCHER(gaussian)(int ctype, unsigned long long key, unsigned long long counter, size_t n, double mean,
                          double stddev, void *x, const gm_launch_ctx *lc);

/* synchronous: the result is a host number */
int GM_LAUNCHER(reduce)(int ctype, int op, size_t n, const void *x, double *result, const gm_launch_ctx *lc);
/* x (outer, len, inner) reduced over len into y (kernels/reduce_axis.h ops) */
int GM_LAUNCHER(reduce_axis)(int ctype, int op, int ddof, size_t outer, size_t len, size_t inner, const void *x,
                             void *y, const gm_launch_ctx *lc);

/* kernels/scan.cu: x (outer, len, inner) scanned along len into y (len +
 * initial; chunk as gm_scan_ops' scan), or sorted into y (same dims) */
int GM_LAUNCHER(scan_axis)(int ctype, int op, int initial, size_t outer, size_t len, size_t inner, size_t chunk,
                           const void *x, void *y, const gm_launch_ctx *lc);
int GM_LAUNCHER(sort_axis)(int ctype, int desc, size_t outer, size_t len, size_t inner, const void *x, void *y,
                           const gm_launch_ctx *lc);
/* the index-carrying engine (op GM_LINES_*, every ctype) and the search of
 * v in a sorted s (mode GM_SEARCH_*), as gm_scan_ops' lines and search */
int GM_LAUNCHER(lines_axis)(int ctype, int op, int flag, size_t outer, size_t len, size_t inner, const void *x,
                            void *y, int64_t *yi, const gm_launch_ctx *lc);
/* kernels/radix.cu: the sorting ops of lines_axis (argsort, mode, unique;
 * yi NULL: sort_axis's values) by the radix sort, long lines in chunks */
int GM_LAUNCHER(radix_lines)(int ctype, int op, int flag, size_t outer, size_t len, size_t inner, size_t chunk,
                             const void *x, void *y, int64_t *yi, const gm_launch_ctx *lc);
/* kernels/radix.cu: gm_scan_ops' select (kernels/select.h) */
int GM_LAUNCHER(radix_select)(int ctype, int desc, size_t k, size_t outer, size_t len, size_t inner, size_t chunk,
                              const void *x, void *y, int64_t *yi, const gm_launch_ctx *lc);
int GM_LAUNCHER(search)(int ctype, int mode, size_t n, const void *s, const int64_t *sorter, size_t m, const void *v,
                        void *out, const gm_launch_ctx *lc);

/* the strided elementwise engine (kernels/strided_ew.cu): op a gm_bcast_op; NULL inputs
 * are the numbers of s->scalar */
int GM_LAUNCHER(strided_binary)(int ctype, int op, const gm_strided *s, void *out, const void *a, const void *b,
                                const gm_launch_ctx *lc);
int GM_LAUNCHER(strided_where)(int ctype, const gm_strided *s, void *out, const void *cond, const void *a,
                               const void *b, const gm_launch_ctx *lc);

/* kernels/index.cu: y[i] = x[off[i]] for i < n; the runs of a grouped
 * scatter into y (kernels/index.h) */
int GM_LAUNCHER(index_gather)(int ctype, size_t n, const void *x, const int64_t *off, void *y,
                              const gm_launch_ctx *lc);
int GM_LAUNCHER(index_scatter)(int ctype, int mode, size_t runs, const int64_t *dst, const int64_t *start,
                               const int64_t *spos, const void *src, void *y, const gm_launch_ctx *lc);
/* stream compaction (kernels/compact.h), as gm_index_ops' compact */
int GM_LAUNCHER(index_compact)(int mt, size_t n, size_t chunk, const void *m, size_t esize, const void *x, void *y,
                               const gm_compact_dims *d, int64_t *c, size_t *count, const gm_launch_ctx *lc);
/* its inverse, as gm_index_ops' expand */
int GM_LAUNCHER(index_expand)(size_t n, size_t chunk, const void *m, size_t esize, const void *src, void *x,
                              const gm_launch_ctx *lc);
