/* Run-time kernels on a CUDA device (gm.define_cuda_kernel): NVRTC
 * compiles the generated CUDA C to PTX for a compute capability (needs no
 * device, so it is tested on machines without a GPU), the runtime's
 * library API loads the PTX on a device (cudaLibraryLoadData, CUDA 12+)
 * and cudaLaunchKernel launches it on the compute stream.  Loaded
 * libraries stay for the life of the process, like the devices. */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impl.h"

static char *take_log(nvrtcProgram prog) {
  size_t n = 0;
  if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n == 0) return NULL;
  char *log = malloc(n + 1);
  if (!log) return NULL;
  if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) {
    free(log);
    return NULL;
  }
  log[n] = '\0';
  return log;
}

gm_status gm_nvrtc_compile(const char *src, const char *name, int major, int minor, char **ptx, char **log) {
  *ptx = NULL;
  *log = NULL;
  if (major < 3 || major > 99 || minor < 0 || minor > 9)
    return gm_fail(GM_EINVAL, "compute capability %d.%d is not one NVRTC knows", major, minor);
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) return gm_fail(GM_ECUDA, "nvrtcCreateProgram: %s", nvrtcGetErrorString(r));
  char arch[48];
  snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
  const char *opts[] = {arch, "--std=c++17"};
  r = nvrtcCompileProgram(prog, 2, opts);
  *log = take_log(prog);
  if (r != NVRTC_SUCCESS) {
    gm_status st = r == NVRTC_ERROR_COMPILATION
                       ? gm_fail(GM_EINVAL, "%s does not compile for compute_%d%d", name, major, minor)
                       : gm_fail(GM_ECUDA, "nvrtcCompileProgram: %s", nvrtcGetErrorString(r));
    (void)nvrtcDestroyProgram(&prog);
    return st;
  }
  size_t n = 0;
  r = nvrtcGetPTXSize(prog, &n);
  if (r == NVRTC_SUCCESS && (*ptx = malloc(n + 1)) == NULL) {
    (void)nvrtcDestroyProgram(&prog);
    return gm_fail(GM_ENOMEM, "out of host memory for the PTX of %s", name);
  }
  if (r == NVRTC_SUCCESS) r = nvrtcGetPTX(prog, *ptx);
  (void)nvrtcDestroyProgram(&prog);
  if (r != NVRTC_SUCCESS) {
    free(*ptx);
    *ptx = NULL;
    return gm_fail(GM_ECUDA, "nvrtcGetPTX: %s", nvrtcGetErrorString(r));
  }
  (*ptx)[n] = '\0';
  return GM_OK;
}

bool gm_nvrtc_version(int *major, int *minor) { return nvrtcVersion(major, minor) == NVRTC_SUCCESS; }

static gm_status rtk_fail(cudaError_t e, const char *what) {
  (void)cudaGetLastError(); /* leave no stale error for the next launch (review #1) */
  return gm_fail(GM_ECUDA, "%s: %s", what, cudaGetErrorString(e));
}

gm_status gm_cuda_rtk_load(gm_device *d, const char *ptx, const char *name, void **kernel) {
  cudaError_t e = cudaSetDevice(d->id);
  if (e != cudaSuccess) return rtk_fail(e, "cudaSetDevice");
  cudaLibrary_t lib;
  e = cudaLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0);
  if (e != cudaSuccess) return rtk_fail(e, "cudaLibraryLoadData");
  cudaKernel_t k;
  e = cudaLibraryGetKernel(&k, lib, name);
  if (e != cudaSuccess) {
    (void)cudaLibraryUnload(lib);
    return rtk_fail(e, "cudaLibraryGetKernel");
  }
  *kernel = (void *)k;
  return GM_OK;
}

gm_status gm_cuda_rtk_launch(gm_device *d, void *kernel, void **args, const unsigned *geom) {
  cuda_impl *impl = d->impl;
  dim3 grid = {geom[0], geom[1], geom[2]}, block = {geom[3], geom[4], geom[5]};
  /* a cudaKernel_t is accepted where cudaLaunchKernel takes a function */
  cudaError_t e = cudaLaunchKernel((const void *)kernel, grid, block, args, 0, impl->stream);
  if (e != cudaSuccess) return rtk_fail(e, "cudaLaunchKernel");
  return GM_OK;
}
