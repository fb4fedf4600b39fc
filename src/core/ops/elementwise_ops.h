/* The elementwise area's backend sub-table (gm_backend.elementwise).
 *
 * Entries take ctx first (NULL on the host, the gm_device on a device)
 * and raw pointers in that backend's memory space, already at the first
 * visible element.  Arrays are contiguous; scalars arrive as doubles and
 * are rounded to the ctype by the backend.  The core (core/ops/elementwise.c)
 * has validated everything: entries only compute. */
#ifndef GM_CORE_ELEMENTWISE_OPS_H
#define GM_CORE_ELEMENTWISE_OPS_H

#include <stddef.h>

#include "../model/ctype.h"
#include "../model/status.h"

/* gm_unary_op, gm_scalar_op: the rows of the op table. */
#include "../../../kernels/elementwise_table.h"

/* Lua/MGL name of a unary op ("square", ...). */
const char *gm_unary_name(gm_unary_op op);
/* Lua function of a scalar op ("expt_", "add_scalar_", ...). */
const char *gm_scalar_name(gm_scalar_op op);

typedef enum gm_scale_kind { GM_SCALE_ROWS = 0, GM_SCALE_COLUMNS } gm_scale_kind;

/* In every entry, "beta == 0" means the written array is not read (the
 * BLAS rule), so NaNs there do not leak into the result. */
typedef struct gm_elementwise_ops {
  /* x[i] := op(x[i]) for i < n */
  gm_status (*unary)(void *ctx, gm_ctype t, gm_unary_op op, size_t n, void *x);
  /* y[i] := op(x[i]) for i < n, x and y disjoint (optional; NULL: the
   * core copies x into y and runs unary on y, two passes) */
  gm_status (*unary_into)(void *ctx, gm_ctype t, gm_unary_op op, size_t n, const void *x, void *y);
  /* y[i] := op(x[i]) for i < n, y bool, x of ctype t (any), disjoint */
  gm_status (*predicate)(void *ctx, gm_ctype t, gm_predicate_op op, size_t n, const void *x, void *y);
  /* x[i] := f(x[i], alpha), f the GM_SCALAR_OPS row op (pow, +, min, max) */
  gm_status (*scalar)(void *ctx, gm_ctype t, gm_scalar_op op, size_t n, double alpha, void *x);
  /* c[i] := alpha * a[i] * b[i] + beta * c[i]  (b or a may alias c) */
  gm_status (*geem)(void *ctx, gm_ctype t, size_t n, double alpha, const void *a, const void *b,
                    double beta, void *c);
  /* b[r,c] := alpha * a[r,c] * x[c] + beta * b[r,c]  (row-major rows x cols) */
  gm_status (*geerv)(void *ctx, gm_ctype t, size_t rows, size_t cols, double alpha, const void *a,
                     const void *x, double beta, void *b);
  /* y[i] := x[i] < y[i] ? 1 : 0 */
  gm_status (*lt)(void *ctx, gm_ctype t, size_t n, const void *x, void *y);
  /* b[i] := alpha * sign(a[i]) + beta * b[i] */
  gm_status (*add_sign)(void *ctx, gm_ctype t, size_t n, double alpha, const void *a, double beta,
                        void *b);
  /* axis 0: y[c] := alpha * sum_r x[r,c] + beta * y[c]  (cols results)
   * axis 1: y[r] := alpha * sum_c x[r,c] + beta * y[r]  (rows results) */
  gm_status (*sum)(void *ctx, gm_ctype t, size_t rows, size_t cols, int axis, double alpha,
                   const void *x, double beta, void *y);
  /* ROWS: result[r,c] := scales[r] * a[r,c]; COLUMNS: scales[c] * a[r,c]
   * (result may be a) */
  gm_status (*scale)(void *ctx, gm_ctype t, gm_scale_kind kind, size_t rows, size_t cols,
                     const void *scales, const void *a, void *result);
} gm_elementwise_ops;

/* The host implementation (src/host/elementwise.c). */
extern const gm_elementwise_ops gm_host_elementwise_ops;

/* x[i] := alpha for i < n on host memory: parallel, with streaming stores
 * for arrays beyond the caches.  The host backend's fill uses it for
 * incx == 1. */
gm_status gm_host_fill_contiguous(gm_ctype t, size_t n, double alpha, void *x);

#endif
