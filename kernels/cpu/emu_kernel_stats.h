/* Launch counters of the emulated device's kernels (kernels/NAME.cu built
 * for it, see emu_kernels.h): one per launch site, registered at its first
 * launch.  Plain C: src/device/emulated and the Lua binding read them. */
#ifndef GPUMAT_EMU_KERNEL_STATS_H
#define GPUMAT_EMU_KERNEL_STATS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gm_emu_kernel_counter {
  const char *name; /* the kernel as written at the launch site, e.g. "unary_kernel<float>" */
  const char *file; /* __FILE__ of the launch site: the kernels/NAME.cu it was compiled from */
  bool sync;        /* launched with fibers and barriers (GM_LAUNCH_SYNC) */
  unsigned long long launches;
  unsigned long long parallel_launches; /* blocks ran on more than one OS thread */
  struct gm_emu_kernel_counter *next;
} gm_emu_kernel_counter;

void gm_emu_kernel_register(gm_emu_kernel_counter *c);

/* Copies up to cap counters (launches read atomically) into out, in
 * registration order; returns how many exist. */
size_t gm_emu_kernel_stats(gm_emu_kernel_counter *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
