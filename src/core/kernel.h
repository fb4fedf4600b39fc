/* Run-time kernels (gm.define_cuda_kernel): launching a kernel compiled
 * for the CPU execution model (kernels/cpu/cuda_cpu.h) on the host or on
 * the emulated device.  The Lua side generates and compiles the source;
 * the core validates the arguments, picks the place, acquires the mats
 * with their declared directions and calls the compiled launcher. */
#ifndef GM_CORE_KERNEL_H
#define GM_CORE_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "ctype.h"
#include "mat.h"

#define GM_KERNEL_MAX_ARGS 32

/* The launcher exported by a compiled kernel (gpumat_kernel_launch):
 * args[i] points to a gm_mat's first visible element, a double (scalar)
 * or an int64_t (int); geom = grid x,y,z then block x,y,z. */
typedef void (*gm_cpu_kernel_fn)(void *const *args, const unsigned *geom);

typedef enum { GM_KARG_MAT, GM_KARG_SCALAR, GM_KARG_INT } gm_karg_kind;

typedef struct gm_kernel_arg {
  gm_karg_kind kind;
  gm_mat *m;       /* GM_KARG_MAT */
  gm_direction dir;
  double d;        /* GM_KARG_SCALAR */
  int64_t i;       /* GM_KARG_INT */
} gm_kernel_arg;

/* The same kernel compiled by NVRTC for a CUDA device: PTX text, entry
 * name and the backend's cache of the loaded kernel (gm_rt_kernel_free). */
typedef struct gm_device_kernel {
  const char *ptx;
  const char *name;
  void *slot;
} gm_device_kernel;

/* Launches fn (compiled for ctype) with args on the host or the emulated
 * device, or dk on a CUDA device (the device's rt_launch op).  geom NULL:
 * the default 1-d launch sized by the first mat argument (gm_launch_1d).
 * Every mat must have ctype `ctype`.  Fails with GM_EUNSUPPORTED when the
 * call runs on a CUDA device and dk is NULL. */
gm_status gm_kernel_run(gm_ctype ctype, gm_cpu_kernel_fn fn, gm_device_kernel *dk, gm_kernel_arg *args, int n,
                        const unsigned *geom);

/* Launches of run-time kernels on the host and on the emulated device. */
long gm_kernel_launch_count(bool emulated);
/* Launches of run-time kernels on CUDA devices (NVRTC). */
long gm_kernel_cuda_launch_count(void);

#endif
