/* The NN area's backend sub-table (gm_backend.nn): 2-d convolution and
 * max pooling over batches (MGL-MAT §12).  Entries take ctx first (NULL
 * on the host, the gm_device on a device) and raw contiguous pointers in
 * that backend's memory space; the geometry (kernels/nn.h) has been
 * validated by core/ops/nn.c. */
#ifndef GM_CORE_NN_OPS_H
#define GM_CORE_NN_OPS_H

#include "../../../kernels/nn.h"
#include "../model/ctype.h"
#include "../model/status.h"

typedef struct gm_nn_ops {
  /* y += conv(x, w)  (x: B x xh x xw, w: kh x kw, y: B x yh x yw) */
  gm_status (*convolve)(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, const void *w, void *y);
  /* xd += dF/dx, wd += dF/dw given yd = dF/dy */
  gm_status (*derive_convolve)(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *xd,
                               const void *w, void *wd, const void *yd);
  /* y := window maxima (0 for empty windows) */
  gm_status (*max_pool)(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *y);
  /* xd += dF/dx given y (the max_pool result) and yd = dF/dy */
  gm_status (*derive_max_pool)(void *ctx, gm_ctype t, const gm_nn_geom *g, const void *x, void *xd,
                               const void *y, const void *yd);
} gm_nn_ops;

/* The host implementation (src/host/nn.c). */
extern const gm_nn_ops gm_host_nn_ops;

#endif
