/* gm.fft's one primitive: an unnormalized 1-d transform along one axis
 * (lua/gpumat/fft.lua builds the standard's functions on it: lengths,
 * axes, norms, Hermitian variants). */
#ifndef GM_CORE_FFT_H
#define GM_CORE_FFT_H

#include "../model/mat.h"
#include "fft_ops.h"

/* y := the transform of x along axis (0-based) of length n, where x and y
 * live (the host, or the device when both are there): C2C complex to the
 * same complex type, R2C float32/float64 to complex64/complex128 (n/2+1
 * outputs along axis), C2R their inverse (x has n/2+1 along axis, y n).
 * The other dims agree; y does not share x's storage.  *bad: the
 * argument (1 x, 2 y, 3 axis, 4 n) a failure is about, 0 otherwise. */
gm_status gm_fft_axis(gm_mat *x, gm_mat *y, int axis, gm_fft_type type, size_t n, bool inverse, int *bad);

#endif
