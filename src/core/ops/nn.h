/* NN ops (MGL-MAT §12): 2-d convolution and max pooling, batched or not,
 * with validation and dispatch.
 *
 * Parameters are 0-based here (the binding converts the 1-based Lua
 * lists).  x is (B x) H x W, y (B x) yh x yw with yh, yw the numbers of
 * application points 1 + floor((H - 1 - start) / stride) (same for W);
 * start must lie inside x's spatial dims and anchor inside the kernel.
 * On a validation failure the function returns GM_EINVAL, sets the
 * message, and sets *bad to the offending operand (so the binding can
 * name the argument); nothing is touched then. */
#ifndef GM_CORE_NN_H
#define GM_CORE_NN_H

#include <stdbool.h>

#include "../model/mat.h"
#include "nn_ops.h"

typedef struct gm_nn_params {
  int64_t start[2], stride[2], anchor[2];
  bool batched;
} gm_nn_params;

/* Operand at fault in a validation error. */
typedef enum gm_nn_arg { GM_NN_NONE = -1, GM_NN_X = 0, GM_NN_XD, GM_NN_W, GM_NN_WD, GM_NN_Y, GM_NN_YD, GM_NN_OPTS } gm_nn_arg;

/* y += conv(x, w) */
gm_status gm_convolve_(gm_mat *x, gm_mat *w, gm_mat *y, const gm_nn_params *p, gm_nn_arg *bad);
/* xd += dF/dx, wd += dF/dw for yd = dF/dy of the convolution */
gm_status gm_derive_convolve_(gm_mat *x, gm_mat *xd, gm_mat *w, gm_mat *wd, gm_mat *yd,
                              const gm_nn_params *p, gm_nn_arg *bad);
/* y := max over pool windows of pool[0] x pool[1] (0 for empty windows) */
gm_status gm_max_pool_(gm_mat *x, gm_mat *y, const int64_t pool[2], const gm_nn_params *p, gm_nn_arg *bad);
/* xd += dF/dx of max pooling (ties all receive the gradient) */
gm_status gm_derive_max_pool_(gm_mat *x, gm_mat *xd, gm_mat *y, gm_mat *yd, const int64_t pool[2],
                              const gm_nn_params *p, gm_nn_arg *bad);

/* The four ops by kind, their operands indexed by gm_nn_arg (those an op
 * does not take are ignored) and pool used by the pooling ops: one entry
 * for an embedding that reads every op's operands alike. */
typedef enum gm_nn_kind { GM_NN_CONVOLVE, GM_NN_DERIVE_CONVOLVE, GM_NN_MAX_POOL, GM_NN_DERIVE_MAX_POOL } gm_nn_kind;
gm_status gm_nn_run(gm_nn_kind k, gm_mat *const ops[GM_NN_OPTS], const int64_t pool[2], const gm_nn_params *p,
                    gm_nn_arg *bad);

#endif
