/* Op entry points shared by the host and the devices.
 *
 * A backend is a table of functions on raw pointers in one memory space
 * (host memory for the host backend, device memory for a device's kernels
 * table).  The core validates arguments, chooses the place (exec.h),
 * acquires the operands' facets there and calls that place's backend.
 *
 * The table is split by area; each area owns its sub-table type (in
 * src/core/<area>_ops.h) and its host implementation (src/host/<area>.c),
 * and the devices provide theirs.  A NULL sub-table or entry means the
 * backend lacks that op: the core reports GM_EUNSUPPORTED rather than
 * pretending.
 *
 * Every entry takes ctx first: NULL for the host, the gm_device for a
 * device's kernels.  BLAS entries take column-major (cuBLAS) arguments on
 * every backend; the row-major mapping lives once in core/ops/blas.c. */
#ifndef GM_CORE_BACKEND_H
#define GM_CORE_BACKEND_H

#include <stddef.h>

#include "../model/ctype.h"
#include "../model/status.h"

struct gm_blas_ops;        /* core/ops/blas_ops.h */
struct gm_elementwise_ops; /* core/ops/elementwise_ops.h */
struct gm_nn_ops;          /* core/ops/nn_ops.h */
struct gm_random_ops;      /* core/ops/random_ops.h */
struct gm_reduce_ops;      /* core/ops/reduce_ops.h */
struct gm_reduce_axis_ops; /* core/ops/reduce_axis_ops.h */
struct gm_scan_ops;        /* core/ops/scan_ops.h */
struct gm_strided_ew_ops;  /* core/ops/strided_ew_ops.h */
struct gm_index_ops;       /* core/ops/index_ops.h */
struct gm_fft_ops;         /* core/ops/fft_ops.h */
struct gm_strided_geom;    /* kernels/strided.h */

typedef struct gm_backend {
  const char *name;
  /* x[i*incx] = alpha for i < n */
  gm_status (*fill)(void *ctx, gm_ctype t, size_t n, double alpha, void *x, size_t incx);
  /* dst[k] = src[k] along g's walk, each side with its own strides: the
   * gather and scatter of non-contiguous operands (core/exec/stage.c) */
  gm_status (*strided_copy)(void *ctx, gm_ctype t, const struct gm_strided_geom *g, const void *src, void *dst);
  /* dst[k] = src[k] converted from st to dt (astype's rules, kernels/int_ops.h) for k < n, both contiguous */
  gm_status (*convert)(void *ctx, gm_ctype dt, void *dst, gm_ctype st, const void *src, size_t n);
  /* c := x y for contiguous row-major stacks x (batch, p, q), y (batch, q,
   * r), c (batch, p, r) of an integer or bool ctype (kernels/imatmul.h) */
  gm_status (*imatmul)(void *ctx, gm_ctype t, size_t batch, size_t p, size_t q, size_t r, const void *x,
                       const void *y, void *c);
  const struct gm_blas_ops *blas;
  const struct gm_elementwise_ops *elementwise;
  const struct gm_nn_ops *nn;
  const struct gm_random_ops *random;
  const struct gm_reduce_ops *reduce;
  const struct gm_reduce_axis_ops *reduce_axis;
  const struct gm_scan_ops *scan; /* scans and sorts along an axis */
  const struct gm_strided_ew_ops *strided_ew; /* the strided elementwise engine */
  const struct gm_index_ops *index;           /* the gather/scatter engine of indexing */
  const struct gm_fft_ops *fft;               /* batched 1-d FFTs (KISS FFT, cuFFT or its shim) */
} gm_backend;

/* The host backend (src/host/backend.c). */
extern const gm_backend gm_host_backend;

#endif
