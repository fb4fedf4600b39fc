/* Entry points of the device backends, used by runtime.c. */
#ifndef GM_DEVICE_BACKENDS_H
#define GM_DEVICE_BACKENDS_H

#include "runtime.h"

gm_status gm_emulated_device_init(gm_device *d);
const gm_backend *gm_emulated_kernels(void);
gm_status gm_cuda_device_init(gm_device *d);
const gm_backend *gm_cuda_kernels(void);

#endif
