/* The emulated device's op table: the library's own CUDA kernels
 * (kernels/NAME.cu, compiled at build time for the CPU model of CUDA by
 * cmake/EmulatedKernels.cmake) for fill, elementwise, NN, random and
 * reductions (whole and along an axis), with the CUDA backend's launch geometry and the same adapters
 * (../kernel_tables.h), run on the emulated device's memory inside the
 * core's device call (enter..leave).  BLAS is the host's (cuBLAS is a
 * library, not our kernels) with invert/logdet through cuSOLVER's
 * argument mapping (solver.c), and scal by 0 and geam with beta 0 as
 * kernels/fill.cu kernels, as on the CUDA backend (kernel_tables.h). */
#include "../../core/ops/blas_ops.h"
#include "../../core/mem/backends.h"
#include "emulated.h"
#include "launchers.h"

/* The shim runtime's launches cannot fail to start; a scratch allocation
 * (sums, reductions) can, and leaves the error in the thread's last-error
 * slot, which is cleared here as the CUDA backend clears cudart's (review
 * #1: no stale error for the next launch). */
static gm_status launch_status_of(void *ctx, int err, const char *kernel) {
  if (err == 0) return GM_OK;
  gm_device *d = ctx;
  if (d && d->ops->clear_error) d->ops->clear_error(d);
  if (err == GM_EMU_ERR_OOM)
    return gm_fail(GM_ECUDA_OOM, "emulated %s: out of device memory for scratch space", kernel);
  if (err == 9) /* cudaErrorInvalidConfiguration: a geometry CUDA refuses (emu_kernels.h) */
    return gm_fail(GM_ECUDA, "emulated %s: invalid launch configuration (cudaErrorInvalidConfiguration)", kernel);
  return gm_fail(GM_ECUDA, "emulated %s: error %d", kernel, err);
}

#define GM_LAUNCHER(name) gm_emu_##name
/* what a launcher gets from device ctx (a compound literal: lives through
 * the call): the device as its stream (the CPU model queues launches on
 * its compute stream), its scratch (device.c: device blocks, with the
 * simulated memory limit, fault injection, and the trim and retry on out
 * of memory), and the CPU model's geometry (kernels/launch.h) */
#define GM_LT_LAUNCH(ctx) (&(gm_launch_ctx){(ctx), gm_emu_scratch_alloc, gm_emu_scratch_free, (ctx), 1})
#define GM_LT_STATUS(ctx, err, kernel) launch_status_of(ctx, err, kernel)
#include "../kernel_tables.h"

static gm_backend emulated_kernels;
static gm_blas_ops emulated_blas; /* host BLAS in cuBLAS's place, scal by 0 and geam with beta 0 as kernels */

const gm_backend *gm_emulated_kernels(void) {
  if (emulated_kernels.name) return &emulated_kernels;
  emulated_kernels = gm_host_backend;
  emulated_kernels.name = "emulated";
  emulated_kernels.fill = gm_lt_fill;
  emulated_kernels.strided_copy = gm_lt_strided_copy;
  emulated_kernels.convert = gm_lt_convert;
  emulated_kernels.imatmul = gm_lt_imatmul;
  emulated_blas = gm_lt_blas_ops(gm_emulated_blas_ops(gm_host_backend.blas));
  emulated_kernels.blas = &emulated_blas;
  emulated_kernels.elementwise = &gm_lt_elementwise_ops;
  emulated_kernels.nn = &gm_lt_nn_ops;
  emulated_kernels.random = &gm_lt_random_ops;
  emulated_kernels.reduce = &gm_lt_reduce_ops;
  emulated_kernels.reduce_axis = &gm_lt_reduce_axis_ops;
  emulated_kernels.scan = &gm_lt_scan_ops;
  emulated_kernels.strided_ew = &gm_lt_strided_ew_ops;
  emulated_kernels.index = &gm_lt_index_ops;
  emulated_kernels.fft = &gm_emulated_fft_ops; /* cuFFT's calls over the host's FFT (fft.c) */
  return &emulated_kernels;
}
