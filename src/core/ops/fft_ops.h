/* The FFT area's backend sub-table (gm_backend.fft): one batched 1-d
 * transform in cuFFT's advanced layout (cufftPlanMany's istride/idist,
 * ostride/odist, batch), repeated `loops` times at pointer offsets, so
 * that a transform along any axis of a contiguous row-major mat is one
 * call.  The host implements it with KISS FFT (src/host/fft.cpp), the CUDA
 * backend with cuFFT and the emulated device with a shim of cuFFT's calls
 * over the host library (src/device/fft.c drives both). */
#ifndef GM_CORE_FFT_OPS_H
#define GM_CORE_FFT_OPS_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/ctype.h"
#include "../model/status.h"

/* cufftType's three families: complex to complex, real to complex (the
 * n/2+1 non-negative frequencies), complex to real (their inverse). */
typedef enum gm_fft_type { GM_FFT_C2C, GM_FFT_R2C, GM_FFT_C2R } gm_fft_type;

/* One batched transform, in elements of each side's type.  Element k of
 * line b of loop l is in[l*iloop + b*idist + k*istride] (and likewise
 * out); the input has n elements per line (n/2+1 for C2R), the output n
 * (n/2+1 for R2C). */
typedef struct gm_fft_layout {
  gm_fft_type type;
  gm_ctype t; /* the complex side's ctype: GM_COMPLEX64 or GM_COMPLEX128 */
  size_t n;   /* the transform's length (the real side's for R2C/C2R) */
  size_t batch, istride, idist, ostride, odist;
  size_t loops, iloop, oloop;
} gm_fft_layout;

typedef struct gm_fft_ops {
  /* the unnormalized transform of every line: exponent sign -1 (forward)
   * or +1 (inverse; C2R is always inverse).  in and out do not overlap;
   * in is left as it was (cuFFT's C2R overwrites its input: the device
   * driver gives it a copy). */
  gm_status (*exec)(void *ctx, const gm_fft_layout *l, const void *in, void *out, bool inverse);
} gm_fft_ops;

/* The host's (src/host/fft.cpp). */
extern const gm_fft_ops gm_host_fft_ops;

#endif
