/* Run-time kernels on a CUDA device, compile step: CUDA C++ source to PTX
 * with NVRTC.  NVRTC needs no GPU (only the library), so this runs and is
 * tested on CI machines without a device (spec/nvrtc_spec.lua). */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/mem/device.h"

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
