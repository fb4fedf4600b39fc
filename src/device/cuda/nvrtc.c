/* Run-time kernels on a CUDA device, compile step: CUDA C++ source to PTX
 * with NVRTC.  NVRTC needs no GPU (only the library), so this runs and is
 * tested on CI machines without a device (spec/nvrtc_spec.lua).  Launch
 * step: the PTX loaded with the CUDA runtime's context-independent library
 * API (cudaLibraryLoadData, CUDA >= 12; the driver JIT-compiles it for
 * the device) and launched on the context's stream (cuda_ops.rt_launch). */
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/mem/device.h"
#include "impl.h"

static gm_status nvrtc_fail(const char *fn, nvrtcResult r) {
  gm_set_lib_error_info(fn, (int)r);
  return gm_fail(GM_ENVRTC, "%s: %s", fn, nvrtcGetErrorString(r));
}

static char *take_log(nvrtcProgram prog) {
  size_t n = 0;
  if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS) n = 0;
  char *log = malloc(n + 1);
  if (!log) return NULL;
  if (n == 0 || nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) n = 0;
  log[n] = '\0';
  return log;
}

gm_status gm_nvrtc_compile(const char *src, const char *name, int major, int minor, char **ptx, char **log) {
  *ptx = NULL;
  *log = NULL;
  if (major < 1 || major > 99 || minor < 0 || minor > 9)
    return gm_fail(GM_EINVAL, "bad compute capability %d.%d", major, minor);
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) return nvrtc_fail("nvrtcCreateProgram", r);
  char arch[40];
  /* compute_XY: PTX, which the driver JIT-compiles for the device (and
   * newer ones) at load */
  snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
  const char *opts[] = {arch, "--std=c++17", "-default-device"};
  r = nvrtcCompileProgram(prog, (int)(sizeof opts / sizeof opts[0]), opts);
  if (r != NVRTC_SUCCESS) {
    *log = take_log(prog);
    gm_set_lib_error_info("nvrtcCompileProgram", (int)r);
    gm_status st = gm_fail(GM_ENVRTC, "the kernel does not compile for compute_%d%d (%s):\n%s", major, minor,
                           nvrtcGetErrorString(r), *log ? *log : "(no log)");
    nvrtcDestroyProgram(&prog);
    return st;
  }
  size_t n = 0;
  r = nvrtcGetPTXSize(prog, &n);
  if (r != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&prog);
    return nvrtc_fail("nvrtcGetPTXSize", r);
  }
  char *p = malloc(n + 1);
  if (!p) {
    nvrtcDestroyProgram(&prog);
    return gm_fail(GM_ENOMEM, "out of host memory for the PTX");
  }
  r = nvrtcGetPTX(prog, p);
  if (r != NVRTC_SUCCESS) {
    free(p);
    nvrtcDestroyProgram(&prog);
    return nvrtc_fail("nvrtcGetPTX", r);
  }
  p[n] = '\0';
  nvrtcDestroyProgram(&prog);
  *ptx = p;
  return GM_OK;
}

gm_status gm_nvrtc_version(int *major, int *minor) {
  nvrtcResult r = nvrtcVersion(major, minor);
  if (r != NVRTC_SUCCESS) return nvrtc_fail("nvrtcVersion", r);
  return GM_OK;
}

typedef struct rt_kernel {
  cudaLibrary_t lib;
  cudaKernel_t kernel;
} rt_kernel;

static gm_status rt_fail(cudaError_t e, const char *what, const char *name) {
  (void)cudaGetLastError(); /* handled: no stale error for the next launch (review #1) */
  gm_set_lib_error_info(what, (int)e);
  return gm_fail(e == cudaErrorMemoryAllocation ? GM_ECUDA_OOM : GM_ECUDA, "%s (kernel %s): %s", what, name,
                 cudaGetErrorString(e));
}

void gm_rt_kernel_free(void *slot) {
  rt_kernel *k = slot;
  if (!k) return;
  /* launches queued on a stream may still run the code (the current
   * device's: contexts launch on their own device, and a kernel object
   * outliving its context is collected after the context's final sync) */
  (void)cudaDeviceSynchronize();
  (void)cudaLibraryUnload(k->lib);
  (void)cudaGetLastError();
  free(k);
}

gm_status gm_cuda_rt_launch(gm_device *d, const char *ptx, const char *name, void **slot, void **params,
                            const unsigned *geom) {
  rt_kernel *k = *slot;
  if (!k) {
    k = calloc(1, sizeof *k);
    if (!k) return gm_fail(GM_ENOMEM, "out of host memory");
    cudaError_t e = cudaLibraryLoadData(&k->lib, ptx, NULL, NULL, 0, NULL, NULL, 0);
    if (e != cudaSuccess) {
      free(k);
      return rt_fail(e, "cudaLibraryLoadData", name);
    }
    e = cudaLibraryGetKernel(&k->kernel, k->lib, name);
    if (e != cudaSuccess) {
      (void)cudaLibraryUnload(k->lib);
      free(k);
      return rt_fail(e, "cudaLibraryGetKernel", name);
    }
    *slot = k;
  }
  dim3 grid = {geom[0], geom[1], geom[2]}, block = {geom[3], geom[4], geom[5]};
  /* a cudaKernel_t is accepted where cudaLaunchKernel takes a function */
  cudaError_t e = cudaLaunchKernel((const void *)k->kernel, grid, block, params, 0, gm_cuda_impl(d)->stream);
  if (e != cudaSuccess) return rt_fail(e, "cudaLaunchKernel", name);
  e = cudaGetLastError();
  if (e != cudaSuccess) return rt_fail(e, "cudaLaunchKernel", name);
  return GM_OK;
}
