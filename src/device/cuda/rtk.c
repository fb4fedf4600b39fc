/* Run-time kernels on a CUDA device (gm.define_cuda_kernel): NVRTC
 * compiles the generated CUDA C to CUBIN for the device's architecture, or
 * to PTX (needs no device, so it is tested on machines without a GPU), the
 * runtime's library API loads the image on a device (cudaLibraryLoadData
 * takes CUBIN and PTX alike, CUDA 12+)
 * and cudaLaunchKernel launches it on the compute stream.  Loaded
 * libraries stay for the life of the process, like the devices. */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impl.h"

static char *take_log(nvrtcProgram prog) {
  size_t n = 0;
  if (gm_nvrtc.nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n == 0) return NULL;
  char *log = malloc(n + 1);
  if (!log) return NULL;
  if (gm_nvrtc.nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) {
    free(log);
    return NULL;
  }
  log[n] = '\0';
  return log;
}

/* The compiled image of prog: CUBIN (machine code) or PTX (NUL-ended). */
static nvrtcResult take_image(nvrtcProgram prog, bool cubin, char **image, size_t *size) {
  nvrtcResult r = cubin ? gm_nvrtc.nvrtcGetCUBINSize(prog, size) : gm_nvrtc.nvrtcGetPTXSize(prog, size);
  if (r != NVRTC_SUCCESS) return r;
  if ((*image = malloc(*size + 1)) == NULL) return NVRTC_ERROR_OUT_OF_MEMORY;
  r = cubin ? gm_nvrtc.nvrtcGetCUBIN(prog, *image) : gm_nvrtc.nvrtcGetPTX(prog, *image);
  (*image)[*size] = '\0';
  if (!cubin && r == NVRTC_SUCCESS) *size = strlen(*image);
  return r;
}

static gm_status compile_fail(nvrtcResult r, const char *name, const char *arch) {
  if (r == NVRTC_ERROR_COMPILATION) return gm_fail(GM_EINVAL, "%s does not compile for %s", name, arch);
  /* an architecture this NVRTC does not know (-arch=sm_XY): PTX may still do */
  if (r == NVRTC_ERROR_INVALID_OPTION) return gm_fail(GM_EUNSUPPORTED, "NVRTC does not compile for %s", arch);
  return gm_fail(GM_ECUDA, "nvrtcCompileProgram: %s", gm_nvrtc.nvrtcGetErrorString(r));
}

/* CUBIN (-arch=sm_XY) is machine code the driver loads as it is; PTX
 * (compute_XY) is JIT-compiled by the driver at load, which fails with
 * cudaErrorUnsupportedPtxVersion when NVRTC is newer than the driver. */
gm_status gm_nvrtc_compile(const char *src, const char *name, int major, int minor, bool cubin, char **image,
                           size_t *size, char **log) {
  *image = NULL;
  *log = NULL;
  *size = 0;
  if (major < 3 || major > 99 || minor < 0 || minor > 9)
    return gm_fail(GM_EINVAL, "compute capability %d.%d is not one NVRTC knows", major, minor);
  GM_TRY(gm_nvrtc_load()); /* opened at the first compile (libs.h) */
  nvrtcProgram prog;
  nvrtcResult r = gm_nvrtc.nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) return gm_fail(GM_ECUDA, "nvrtcCreateProgram: %s", gm_nvrtc.nvrtcGetErrorString(r));
  char arch[32], opt[64];
  snprintf(arch, sizeof arch, "%s_%d%d", cubin ? "sm" : "compute", major, minor);
  snprintf(opt, sizeof opt, "--gpu-architecture=%s", arch);
  const char *opts[] = {opt, "--std=c++17"};
  r = gm_nvrtc.nvrtcCompileProgram(prog, 2, opts);
  *log = take_log(prog);
  if (r != NVRTC_SUCCESS) {
    gm_status st = compile_fail(r, name, arch);
    (void)gm_nvrtc.nvrtcDestroyProgram(&prog);
    return st;
  }
  r = take_image(prog, cubin, image, size);
  (void)gm_nvrtc.nvrtcDestroyProgram(&prog);
  if (r != NVRTC_SUCCESS) {
    free(*image);
    *image = NULL;
    if (r == NVRTC_ERROR_OUT_OF_MEMORY) return gm_fail(GM_ENOMEM, "out of host memory for the code of %s", name);
    return gm_fail(GM_ECUDA, "%s: %s", cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX", gm_nvrtc.nvrtcGetErrorString(r));
  }
  return GM_OK;
}

bool gm_nvrtc_version(int *major, int *minor) {
  *major = *minor = 0;
  if (gm_nvrtc_load() != GM_OK) return false;
  nvrtcResult r = gm_nvrtc.nvrtcVersion(major, minor);
  if (r == NVRTC_SUCCESS) return true;
  gm_fail(GM_ECUDA, "nvrtcVersion: %s", gm_nvrtc.nvrtcGetErrorString(r));
  return false;
}

static gm_status rtk_fail(cudaError_t e, const char *what) {
  (void)cudaGetLastError(); /* leave no stale error for the next launch */
  return gm_fail(GM_ECUDA, "%s: %s", what, cudaGetErrorString(e));
}

/* image: CUBIN or PTX (cudaLibraryLoadData tells them apart); loaded
 * with d current for the call only, so a load for another device leaves
 * the thread on its context's device. */
static gm_status load_library(const char *image, const char *name, void **kernel) {
  cudaLibrary_t lib;
  cudaError_t e = cudaLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);
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

gm_status gm_cuda_rtk_load(gm_device *d, const char *image, const char *name, void **kernel) {
  int prev;
  cudaError_t e = gm_cuda_use(d, &prev);
  if (e != cudaSuccess) return rtk_fail(e, "cudaSetDevice");
  gm_status st = load_library(image, name, kernel);
  gm_cuda_unuse(d, prev);
  return st;
}

gm_status gm_cuda_rtk_launch(gm_device *d, void *kernel, void **args, const unsigned *geom) {
  cuda_impl *impl = d->impl;
  dim3 grid = {geom[0], geom[1], geom[2]}, block = {geom[3], geom[4], geom[5]};
  /* a cudaKernel_t is accepted where cudaLaunchKernel takes a function */
  cudaError_t e = cudaLaunchKernel((const void *)kernel, grid, block, args, 0, impl->stream);
  if (e != cudaSuccess) return rtk_fail(e, "cudaLaunchKernel");
  return GM_OK;
}
