/* The host's FFT on host memory (fft.cpp), also what the emulated
 * device's cuFFT shim runs on its worker (src/device/emulated/fft.c). */
#ifndef GM_HOST_FFT_H
#define GM_HOST_FFT_H

#include "../core/ops/fft_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gm_fft_ops.exec on host pointers (the layout's unnormalized transform) */
gm_status gm_host_fft_exec(const gm_fft_layout *l, const void *in, void *out, bool inverse);

/* fftw.c, built with the CMake option GPUMAT_FFTW only (GPL): the same on
 * FFTW 3, for layouts whose sizes fit FFTW's int arguments */
bool gm_host_fftw_fits(const gm_fft_layout *l);
gm_status gm_host_fftw_exec(const gm_fft_layout *l, const void *in, void *out, bool inverse);

#ifdef __cplusplus
}
#endif

#endif
