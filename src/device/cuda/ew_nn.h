/* The elementwise and NN sub-tables of the CUDA device (elementwise.c,
 * nn.c) and the launchers they call (kernels/elementwise.cu,
 * kernels/nn.cu; each returns a cudaError_t as int). */
#ifndef GM_DEVICE_CUDA_EW_NN_H
#define GM_DEVICE_CUDA_EW_NN_H

#include <stddef.h>

#include "../../core/elementwise_ops.h"
#include "../../core/nn_ops.h"

extern const gm_elementwise_ops gm_cuda_elementwise_ops;
extern const gm_nn_ops gm_cuda_nn_ops;

int gm_cuda_ew_unary(int ctype, int op, size_t n, void *x, void *stream);
/* kind: 0 expt, 1 add_scalar, 2 min, 3 max */
int gm_cuda_ew_scalar(int ctype, int kind, size_t n, double alpha, void *x, void *stream);
int gm_cuda_ew_geem(int ctype, size_t n, double alpha, const void *a, const void *b, double beta, void *c,
                    void *stream);
int gm_cuda_ew_lt(int ctype, size_t n, const void *x, void *y, void *stream);
int gm_cuda_ew_add_sign(int ctype, size_t n, double alpha, const void *a, double beta, void *b, void *stream);
int gm_cuda_ew_geerv(int ctype, size_t rows, size_t cols, double alpha, const void *a, const void *x, double beta,
                     void *b, void *stream);
/* kind: 0 rows, 1 columns */
int gm_cuda_ew_scale(int ctype, int kind, size_t rows, size_t cols, const void *s, const void *a, void *r,
                     void *stream);
int gm_cuda_ew_sum(int ctype, int axis, size_t rows, size_t cols, double alpha, const void *x, double beta, void *y,
                   void *stream);

int gm_cuda_nn_convolve(int ctype, const gm_nn_geom *g, const void *x, const void *w, void *y, void *stream);
int gm_cuda_nn_derive_convolve(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *w, void *wd,
                               const void *yd, void *stream);
int gm_cuda_nn_max_pool(int ctype, const gm_nn_geom *g, const void *x, void *y, void *stream);
int gm_cuda_nn_derive_max_pool(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *y,
                               const void *yd, void *stream);

/* Status of a launch: GM_ECUDA with the CUDA message, naming the kernel. */
gm_status gm_cuda_ew_launch_status(int err, const char *kernel);

#endif
