/* Run-time kernels (gm.define_cuda_kernel): launching a kernel compiled
 * for the CPU execution model (kernels/cpu/cuda_cpu.h) on the host or on
 * the emulated device.  The Lua side generates and compiles the source;
 * the core validates the arguments, picks the place, acquires the mats
 * with their declared directions and calls the compiled launcher. */
#ifndef GM_CORE_KERNEL_H
#define GM_CORE_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "../model/ctype.h"
#include "../model/mat.h"

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

/* A kernel's code for one ctype: the CPU model's launcher (host and
 * emulated device) and/or an NVRTC kernel loaded on one device (its
 * ops->rtk_load handle). */
typedef struct gm_kernel_code {
  gm_cpu_kernel_fn cpu;
  struct gm_device *dev;
  void *dev_kernel;
} gm_kernel_code;

/* Opens a kernel compiled for the CPU model: the shared object at path,
 * exporting gpumat_kernel_launch.  Sets *handle (for gm_kernel_close;
 * NULL when dlopen failed) and code->cpu; GM_EINVAL with dlopen's message
 * or "<path>: no gpumat_kernel_launch". */
gm_status gm_kernel_open(const char *path, void **handle, gm_kernel_code *code);
/* Closes a handle of gm_kernel_open (NULL: nothing).  Only when no launch
 * of its code can run any more. */
void gm_kernel_close(void *handle);
/* Loads an NVRTC image (CUBIN or PTX) of kernel name on the current
 * context's device into code; GM_ESTATE "no CUDA device in the current
 * context" when that device cannot load one. */
gm_status gm_kernel_load_image(const char *image, const char *name, gm_kernel_code *code);

/* Where a launch with these mat arguments runs (the exec rules of every
 * op): *dev NULL on the host; else the device, and *nvrtc tells whether
 * it needs NVRTC code (a CUDA device) rather than the CPU model. */
void gm_kernel_place(gm_kernel_arg *args, int n, struct gm_device **dev, bool *nvrtc);

/* Launches code (compiled for ctype) with args.  geom NULL: the default
 * 1-d launch sized by the first mat argument (gm_launch_1d).  Every mat
 * must have ctype `ctype`; the place must have its code (GM_ESTATE). */
gm_status gm_kernel_run(gm_ctype ctype, const gm_kernel_code *code, gm_kernel_arg *args, int n,
                        const unsigned *geom);

/* A launch's parameter spec: one character per parameter, 'i', 'o' or
 * 'x' a mat (input, output, both), 's' a scalar (a double), 'n' an
 * integer.  Sets kind (and dir for mats) of args[0..n), the rest zero;
 * GM_EINVAL "at most 32 parameters" or "bad parameter spec". */
gm_status gm_kernel_parse_spec(const char *spec, size_t n, gm_kernel_arg *args);
/* Whether spec character c is a mat parameter. */
bool gm_kernel_spec_is_mat(char c);
/* An explicit launch geometry (grid x, y, z, block x, y, z): every entry
 * in 1..2^31-1 (what cudaLaunchKernel takes), or GM_EINVAL "bad launch
 * geometry". */
gm_status gm_kernel_check_geometry(const long long in[6], unsigned geom[6]);
/* The compute capability of a CUDA device (NVRTC compiles for it), asked
 * of the device once per device id. */
gm_status gm_kernel_compute_capability(struct gm_device *dev, int *major, int *minor);

/* Launches of run-time kernels on the host, the emulated device and
 * CUDA devices. */
typedef enum { GM_KPLACE_HOST, GM_KPLACE_EMULATED, GM_KPLACE_CUDA } gm_kernel_place_kind;
long gm_kernel_launch_count(gm_kernel_place_kind where);

#endif
