/* The emulated device's op table: the host loops, called on the emulated
 * device's own memory; invert/logdet go through cuSOLVER's argument
 * mapping (solver.c). */
#include "../../core/blas_ops.h"
#include "../../core/mem/backends.h"
#include "emulated.h"

static gm_backend emulated_kernels;

const gm_backend *gm_emulated_kernels(void) {
  if (emulated_kernels.name) return &emulated_kernels;
  emulated_kernels = gm_host_backend;
  emulated_kernels.name = "emulated";
  emulated_kernels.blas = gm_emulated_blas_ops(gm_host_backend.blas);
  return &emulated_kernels;
}
