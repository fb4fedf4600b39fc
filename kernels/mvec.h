/* glibc's libmvec: the libm functions whose SIMD variants (_ZGVeN8v_exp
 * ...) the CPU loops call, one list for the host loops
 * (src/host/elementwise.c) and the emulated device's kernels
 * (kernels/cpu/emu_kernels.h).  Declared with the simd attribute, each
 * target clone's vector loop calls its ISA's variant instead of libm per
 * element (libm's double tanh, before kernels/elementwise.h's polynomial,
 * was 2-10x numpy's time on the host and 38 % of the emulated MLP).  libmvec is within 4 ulp (libm 1); both CPU paths so
 * compute the same values, and nvcc never sees this (a GPU has its own
 * functions).  Only with GPUMAT_HAVE_MVEC (cmake/Dependencies.cmake), and
 * included before the loops that call them. */
#ifndef GM_KERNELS_MVEC_H
#define GM_KERNELS_MVEC_H

#ifdef GPUMAT_HAVE_MVEC
#include <math.h>

#ifdef __cplusplus
#define GM_MVEC(R, F, A) extern "C" __attribute__((simd("notinbranch"))) R F(A) noexcept;
#else
#define GM_MVEC(R, F, A) __attribute__((simd("notinbranch"))) extern R F(A);
#endif
GM_MVEC(double, exp, double)
GM_MVEC(double, log, double)
GM_MVEC(double, sin, double)
GM_MVEC(double, cos, double)
GM_MVEC(double, tan, double)
GM_MVEC(double, sinh, double)
GM_MVEC(double, cosh, double)
GM_MVEC(double, log1p, double)
GM_MVEC(double, expm1, double)
GM_MVEC(float, sinf, float)
GM_MVEC(float, cosf, float)
GM_MVEC(float, tanf, float)
GM_MVEC(float, sinhf, float)
GM_MVEC(float, coshf, float)
GM_MVEC(float, log1pf, float)
GM_MVEC(float, expm1f, float)
#undef GM_MVEC
#endif

#endif
