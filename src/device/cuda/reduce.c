/* The reduce sub-table on CUDA: kernels/reduce.cu on the compute stream
 * (synchronous: the result is a host number). */
#include "../../core/reduce_ops.h"
#include "ew_nn.h"
#include "impl.h"

int gm_cuda_reduce(int ctype, int op, size_t n, const void *x, double *result, void *stream);

static gm_status cu_reduce(void *ctx, gm_ctype t, gm_reduce_op op, size_t n, const void *x, double *result) {
  int err = gm_cuda_reduce((int)t, (int)op, n, x, result, gm_cuda_impl(ctx)->stream);
  return gm_cuda_ew_launch_status(err, "reduce kernel");
}

const gm_reduce_ops gm_cuda_reduce_ops = {.reduce = cu_reduce};
