/* What the launchers of kernels/NAME.cu as built for the emulated device
 * (cmake/EmulatedKernels.cmake, kernels/cpu/emu_kernels.h) need from it.
 * The launchers themselves are the CUDA backend's, renamed gm_emu_*
 * (../kernel_launchers.h with GM_LAUNCHER(name) gm_emu_##name). */
#ifndef GM_DEVICE_EMULATED_LAUNCHERS_H
#define GM_DEVICE_EMULATED_LAUNCHERS_H

#include <stddef.h>

#include "../../../kernels/cpu/emu/emu_hooks.h"

/* The launchers' stream is the emulated gm_device (or NULL); the CPU
 * model reaches it through gm_emu_device_hooks (the shim's table, filled
 * in by device.c from enqueue and wait below, which the device's own files
 * call directly).  Scratch is passed down to the launchers in their
 * gm_launch_ctx (kernels.c): stream-ordered device blocks, 0 or
 * GM_EMU_ERR_OOM after the pool's trim and one retry. */
int gm_emu_scratch_alloc(void *device, size_t bytes, void **out);
/* queued on the compute stream after the kernels that use p */
void gm_emu_scratch_free(void *device, void *p);
/* fn(arg) queued on the compute stream of device (NULL: run now); fn
 * returns a gm_status (0: ok), owns arg and never calls Lua */
void gm_emu_enqueue(void *device, int (*fn)(void *), void *arg);
/* the host waits for device's compute stream (cudaStreamSynchronize) */
void gm_emu_wait(void *device);

#endif
