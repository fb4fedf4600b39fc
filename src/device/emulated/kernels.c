/* The emulated device's op table: the host loops, called on the emulated
 * device's own memory. */
#include "../../core/mem/backends.h"

static gm_backend emulated_kernels;

const gm_backend *gm_emulated_kernels(void) {
  emulated_kernels = gm_host_backend;
  emulated_kernels.name = "emulated";
  return &emulated_kernels;
}
