/* What the CPU model of the CUDA runtime (cuda_runtime.h here) and the
 * emulated build of the launchers (../emu_kernels.h) need from the
 * emulated device they run on: a launcher's `stream` is that device (or
 * NULL).  The shim declares the table and the device
 * (src/device/emulated/device.c) fills it in, so the kernels never name a
 * function of the device.  Plain C: the device's C code includes it too. */
#ifndef GPUMAT_EMU_HOOKS_H
#define GPUMAT_EMU_HOOKS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gm_emu_hooks {
  /* fn(arg) queued on the compute stream of device (NULL: run now); fn
   * returns a gm_status (0: ok), owns arg and never calls Lua */
  void (*enqueue)(void *device, int (*fn)(void *), void *arg);
  /* the host waits for device's compute stream (cudaStreamSynchronize) */
  void (*wait)(void *device);
} gm_emu_hooks;

/* Defined by the emulated device. */
extern const gm_emu_hooks gm_emu_device_hooks;

#ifdef __cplusplus
}
#endif

#endif
