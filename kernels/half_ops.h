/* Conversions of the 16-bit floating element types (gm_float16,
 * gm_bfloat16: ctype_list.h's structs of bits) to and from float and
 * double, shared by the host loops, the CUDA kernels (nvcc) and the
 * emulated device (C++), so every backend stores the same bits.  The half
 * types are storage types: a computation loads them as float (exact),
 * computes in float32 and stores the result rounded to nearest even.
 *
 * Bit arithmetic only (no __half intrinsics), so the host, the emulated
 * device and CUDA agree and no FTZ or rounding mode setting matters except
 * in gm_f16_from_float's subnormal branch, which adds in float (CUDA
 * builds without --use_fast_math keep subnormals).  NaN stays NaN (quiet,
 * its top payload bits kept), infinities stay, overflow gives infinity
 * (the round-to-nearest rule: float16 values at or above 65520, bfloat16
 * ones past the largest finite value plus half an ulp), subnormals are
 * rounded as IEEE 754 says.
 *
 * A double is rounded once, not twice: it is first rounded to a float
 * with round-to-odd (truncated, its last bit set when inexact), which
 * keeps every tie of the 11- or 8-bit result decidable, then to nearest
 * even (Boldo and Melquiond's double rounding theorem: float's 24 bits are
 * at least p + 2).  An integer goes through gm_half_ll_to_double, which
 * keeps a sticky bit below double's precision for the same reason.
 *
 * Names follow ctype_list.h's C types so GM_HALF_CTYPES rows paste them:
 * gm_hload_T(x) -> float, gm_hstore_T(float), gm_sat_T(double),
 * gm_wrap_T(long long). */
#ifndef GM_KERNELS_HALF_OPS_H
#define GM_KERNELS_HALF_OPS_H

#ifndef __CUDACC_RTC__
#include <stdint.h>
#endif

#include "../src/core/model/ctype_list.h"
#include "bits.h"
#include "hd.h"

/* float -> binary16 bits, round to nearest even */
GM_HD uint16_t gm_f16_bits_from_float(float f) {
  uint32_t x = gm_f2u(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu)); /* NaN */
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 (and inf): inf */
  if (ax >= 0x38800000u) {                                 /* >= 2^-14: a normal half */
    uint32_t r = ax + 0xfffu + ((ax >> 13) & 1u);         /* ties to even at bit 13 */
    return (uint16_t)(sign | ((r - 0x38000000u) >> 13));   /* rebias 127 -> 15 */
  }
  /* a subnormal half (or zero): 0.5f + |f| rounds |f| to a multiple of
   * 2^-24 (0.5's ulp), to nearest even; the low bits are the count */
  float t = gm_u2f(ax) + 0.5f;
  return (uint16_t)(sign | (gm_f2u(t) - 0x3f000000u));
}

/* binary16 bits -> float (exact) */
GM_HD float gm_f16_bits_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return gm_u2f(sign | 0x7f800000u | (m << 13));
  if (e != 0) return gm_u2f(sign | ((e + 112u) << 23) | (m << 13));
  float v = (float)m * 5.9604644775390625e-8f; /* m * 2^-24, exact */
  return sign ? -v : v;
}

/* float -> bfloat16 bits, round to nearest even (a carry into the
 * exponent is right, up to infinity) */
GM_HD uint16_t gm_bf16_bits_from_float(float f) {
  uint32_t x = gm_f2u(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

GM_HD float gm_bf16_bits_to_float(uint16_t b) { return gm_u2f((uint32_t)b << 16); }

/* double -> float rounded to odd: truncated toward zero, last bit set
 * when inexact (beyond float's range: infinity, which both half types
 * overflow to anyway) */
GM_HD float gm_half_odd_float(double x) {
  float f = (float)x;
  if (f != f || (double)f == x) return f;
  double ax = x < 0 ? -x : x;
  if (ax > 3.4028234663852886e38) return f; /* infinity */
  uint32_t u = gm_f2u(f);
  double af = f < 0 ? -(double)f : (double)f;
  if (af > ax) u -= 1; /* rounded away from zero: one step back (same sign) */
  return gm_u2f(u | 1u);
}

/* (unsigned) long long -> double with a sticky bit: exact below 2^53, above it the
 * bits shifted out are or-ed into the last kept one, so the rounding to
 * 11 or 8 bits afterwards is the exact value's */
GM_HD double gm_half_ull_to_double(unsigned long long u) {
  double scale = 1.0;
  while (u >= (1ull << 53)) {
    u = (u >> 1) | (u & 1ull);
    scale *= 2.0;
  }
  return (double)u * scale;
}
GM_HD double gm_half_ll_to_double(long long v) {
  double d = gm_half_ull_to_double(v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v);
  return v < 0 ? -d : d;
}

#define GM_HALF_DEFINE_(T, BITS)                                                                          \
  GM_HD float gm_hload_##T(T x) { return gm_##BITS##_bits_to_float(x.bits); }                            \
  GM_HD T gm_hstore_##T(float f) {                                                                      \
    T h;                                                                                                \
    h.bits = gm_##BITS##_bits_from_float(f);                                                            \
    return h;                                                                                           \
  }                                                                                                     \
  GM_HD T gm_sat_##T(double x) { return gm_hstore_##T(gm_half_odd_float(x)); }                          \
  GM_HD T gm_wrap_##T(long long v) { return gm_sat_##T(gm_half_ll_to_double(v)); }
GM_HALF_DEFINE_(gm_float16, f16)
GM_HALF_DEFINE_(gm_bfloat16, bf16)
#undef GM_HALF_DEFINE_

#endif
