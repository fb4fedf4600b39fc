/* Bit casts between floats and their integer bits, for the element
 * functions' bit arithmetic (kernels/elementwise.h's exp, log and tanh,
 * kernels/half_ops.h's 16-bit conversions).  memcpy is the portable idiom
 * that vectorizes (a union or pointer cast is undefined behaviour in C++
 * or under strict aliasing); plain C, nvcc and the emulated device's C++
 * include it. */
#ifndef GM_KERNELS_BITS_H
#define GM_KERNELS_BITS_H

#ifndef __CUDACC_RTC__
#include <stdint.h>
#include <string.h>
#endif

#include "hd.h"

GM_HD uint32_t gm_f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

GM_HD float gm_u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

GM_HD uint64_t gm_d2u(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

GM_HD double gm_u2d(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

#endif
