/* Built without the CUDA toolkit: the cuda backend reports why it cannot
 * be used (the emulated device still works). */
#include <stdio.h>

#include "../core/mem/backends.h"

bool gm_cuda_runtime_available(int device_id, char *reason, size_t n) {
  (void)device_id;
  snprintf(reason, n, "gpumat was built without the CUDA toolkit");
  return false;
}

int gm_cuda_device_count(void) { return 0; }

gm_status gm_cuda_device_init(gm_device *d) {
  (void)d;
  return gm_fail(GM_EUNSUPPORTED, "cuda is not available: gpumat was built without the CUDA toolkit");
}

gm_status gm_cuda_device_info(int device_id, gm_device_info *out) {
  (void)device_id;
  (void)out;
  return gm_fail(GM_EUNSUPPORTED, "cuda is not available: gpumat was built without the CUDA toolkit");
}

gm_status gm_nvrtc_compile(const char *src, const char *name, int major, int minor, bool cubin, char **image,
                           size_t *size, char **log) {
  (void)src, (void)name, (void)major, (void)minor, (void)cubin;
  *image = *log = NULL;
  *size = 0;
  return gm_fail(GM_EUNSUPPORTED, "NVRTC is not available: gpumat was built without the CUDA toolkit");
}

bool gm_nvrtc_version(int *major, int *minor) {
  *major = *minor = 0;
  gm_fail(GM_EUNSUPPORTED, "NVRTC is not available: gpumat was built without the CUDA toolkit");
  return false;
}

bool gm_cuda_library(int i, gm_cuda_library_info *out) {
  (void)i, (void)out;
  return false;
}

gm_status gm_cuda_library_load(int i) {
  return gm_fail(GM_ERANGE, "no CUDA library %d: gpumat was built without the CUDA toolkit", i);
}
