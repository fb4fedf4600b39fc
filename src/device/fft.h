/* gm.fft on a device through cuFFT's calls (cufftPlanMany, cufftSetStream,
 * cufftExec*, cufftDestroy), written once for every device backend: the
 * CUDA backend maps the entries to cuFFT (cuda/fft.c), the emulated device
 * to a shim over the host's KISS FFT with cuFFT's calling conventions
 * (emulated/fft.c), so the call sequence below (the plan cache, the copy
 * of a C2R input, one execution per loop of the layout) runs in every CI
 * pass. */
#ifndef GM_DEVICE_FFT_H
#define GM_DEVICE_FFT_H

#include "../core/exec/backend.h"
#include "../core/ops/fft_ops.h"

typedef struct gm_cufft_ops {
  /* cufftPlanMany(&plan, 1, &n, inembed, istride, idist, onembed,
   * ostride, odist, type, batch) for l's batch (not its loops), bound
   * to the device's compute stream (cufftSetStream); l's sizes are
   * size_t: past int, CUDA plans with cufftMakePlanMany64 */
  gm_status (*plan_many)(void *ctx, const gm_fft_layout *l, void **plan);
  /* cufftExec<C2C|Z2Z|R2C|D2Z|C2R|Z2D>(plan, in, out, direction) queued on
   * the compute stream; in and out are device memory; C2R overwrites in */
  gm_status (*exec)(void *ctx, void *plan, gm_fft_type type, gm_ctype t, void *in, void *out, bool inverse);
  /* cufftDestroy */
  void (*destroy)(void *ctx, void *plan);
  /* stream-ordered scratch device memory (freed after the queued work) */
  gm_status (*scratch_alloc)(void *ctx, size_t bytes, void **out);
  void (*scratch_free)(void *ctx, void *p);
} gm_cufft_ops;

/* gm_fft_ops.exec through s on device ctx (a gm_device): the plan from
 * the cache of (device, layout, type) or made and cached, a C2R input
 * copied to scratch first (the caller's x stays as it was), then one
 * cufftExec per loop of l. */
gm_status gm_device_fft_exec(const gm_cufft_ops *s, void *ctx, const gm_fft_layout *l, const void *in, void *out,
                             bool inverse);

#endif
