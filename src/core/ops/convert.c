/* Conversion in blocks through a small buffer: each source type loads a
 * block into doubles (float sources) or 64-bit integers (bool and integer
 * sources, unsigned ones keeping their bits), and each destination type
 * stores from it; complex sources load their real parts as doubles and
 * their imaginary parts beside them (complex to real keeps the real part,
 * NumPy's astype; real to complex has imaginary part 0).  Two loops per
 * type instead of one per pair of types
 * (the X-macro list cannot nest in itself), each a plain loop the
 * compiler vectorizes, over a block that stays in L1. */
#include "convert.h"

#include <string.h>

#include "../../../kernels/complex_ops.h"
#include "../../../kernels/half_ops.h"
#include "../../../kernels/int_ops.h"
#include "../exec/par.h"
#include "../model/simd.h"

enum { BLOCK = 2048 };

typedef struct block {
  union {
    double d[BLOCK];
    long long i[BLOCK];
  };
  double im[BLOCK];
} block;

/* What a load left in a block: integers (i), doubles (d), or complex
 * values (d and im). */
enum { FORM_INT, FORM_DOUBLE, FORM_COMPLEX };

/* load_E: src[off..off+len) into b; returns its FORM_* */
#define LOAD_(T, E, name, kw, blas, cublas, etype, S, npy, p, digits, mpi, nccl, kind, ...)    \
  GM_SIMD_CLONES static int load_##E(block *b, const void *src, size_t off, size_t len, bool as_double) { \
    const T *s = (const T *)src + off;                                                      \
    if (kind == GM_KIND_FLOAT || (as_double && sizeof(T) <= 4)) {                           \
      if (kind == GM_KIND_BOOL) {                                                           \
        const unsigned char *u = (const unsigned char *)src + off;                          \
        for (size_t k = 0; k < len; k++) b->d[k] = u[k] != 0;                               \
      } else {                                                                              \
        for (size_t k = 0; k < len; k++) b->d[k] = (double)s[k];                            \
      }                                                                                     \
      return FORM_DOUBLE;                                                                   \
    }                                                                                       \
    if (kind == GM_KIND_BOOL) { /* bytes other than 0 and 1 (from buffers) are true */    \
      const unsigned char *u = (const unsigned char *)src + off;                            \
      for (size_t k = 0; k < len; k++) b->i[k] = u[k] != 0;                                 \
      return FORM_INT;                                                                      \
    }                                                                                       \
    for (size_t k = 0; k < len; k++) b->i[k] = (long long)(unsigned long long)s[k];         \
    return FORM_INT;                                                                        \
  }
/* store_E: b into dst[off..off+len); uns: the integers are unsigned */
#define STORE_(T, E, ...)                                                                        \
  GM_SIMD_CLONES static void store_##E(void *dst, size_t off, size_t len, const block *b, int form, bool uns) { \
    T *d = (T *)dst + off;                                                                       \
    if (form != FORM_INT) {                                                                      \
      for (size_t k = 0; k < len; k++) d[k] = gm_sat_##T(b->d[k]);                               \
    } else if (uns) {                                                                            \
      for (size_t k = 0; k < len; k++) d[k] = (T)(unsigned long long)b->i[k];                    \
    } else {                                                                                     \
      for (size_t k = 0; k < len; k++) d[k] = (T)b->i[k];                                        \
    }                                                                                            \
  }
GM_REAL_CTYPES(LOAD_)
GM_REAL_CTYPES(STORE_)
#undef LOAD_
#undef STORE_

/* the complex rows (R: the parts' type) */
#define LOAD_CX_(T, R, S)                                                   \
  static int load_##T(block *b, const void *src, size_t off, size_t len, bool as_double) { \
    (void)as_double;                                                        \
    const T *s = (const T *)src + off;                                      \
    for (size_t k = 0; k < len; k++) {                                      \
      b->d[k] = (double)s[k].re;                                            \
      b->im[k] = (double)s[k].im;                                           \
    }                                                                       \
    return FORM_COMPLEX;                                                    \
  }
#define STORE_CX_(T, R, S)                                                                       \
  static void store_##T(void *dst, size_t off, size_t len, const block *b, int form, bool uns) { \
    T *d = (T *)dst + off;                                                                       \
    for (size_t k = 0; k < len; k++) {                                                           \
      R re = form != FORM_INT ? (R)b->d[k] : uns ? (R)(unsigned long long)b->i[k] : (R)b->i[k];  \
      d[k] = gm_cxmake_##T(re, form == FORM_COMPLEX ? (R)b->im[k] : (R)0);                       \
    }                                                                                            \
  }
GM_CX_ROWS(LOAD_CX_)
GM_CX_ROWS(STORE_CX_)
#undef LOAD_CX_
#undef STORE_CX_

/* the 16-bit floats: loaded as doubles (exact), stored rounded once to
 * nearest even (half_ops.h: a double, or a uint64 above 2^53, is not
 * rounded twice) */
#define LOAD_HALF_(T, E, ...)                                                \
  static int load_##E(block *b, const void *src, size_t off, size_t len, bool as_double) { \
    (void)as_double;                                                         \
    const T *s = (const T *)src + off;                                       \
    for (size_t k = 0; k < len; k++) b->d[k] = (double)gm_hload_##T(s[k]);   \
    return FORM_DOUBLE;                                                      \
  }
#define STORE_HALF_(T, E, ...)                                                                   \
  static void store_##E(void *dst, size_t off, size_t len, const block *b, int form, bool uns) { \
    T *d = (T *)dst + off;                                                                       \
    for (size_t k = 0; k < len; k++)                                                             \
      d[k] = form != FORM_INT ? gm_sat_##T(b->d[k])                                              \
             : uns            ? gm_sat_##T(gm_half_ull_to_double((unsigned long long)b->i[k]))         \
                              : gm_wrap_##T(b->i[k]);                                            \
  }
GM_HALF_CTYPES(LOAD_HALF_)
GM_HALF_CTYPES(STORE_HALF_)
#undef LOAD_HALF_
#undef STORE_HALF_

#define ENTRY_(NAME, T, E, ...) [GM_##E] = NAME##_##E,
static int (*const load[GM_N_CTYPES])(block *, const void *, size_t, size_t, bool) = {
    GM_REAL_CTYPES_WITH(ENTRY_, load) GM_HALF_CTYPES_WITH(ENTRY_, load)[GM_COMPLEX64] = load_gm_complex64,
    [GM_COMPLEX128] = load_gm_complex128};
static void (*const store[GM_N_CTYPES])(void *, size_t, size_t, const block *, int, bool) = {
    GM_REAL_CTYPES_WITH(ENTRY_, store) GM_HALF_CTYPES_WITH(ENTRY_, store)[GM_COMPLEX64] = store_gm_complex64,
    [GM_COMPLEX128] = store_gm_complex128};
#undef ENTRY_

typedef struct convert_job {
  gm_ctype dt, st;
  void *dst;
  const void *src;
} convert_job;

/* float32 <-> float16 with the x86 F16C instructions where the CPU has
 * them (vcvtps2ph with rounding mode 0 is round to nearest even, with
 * IEEE's NaN, infinity and subnormal results, the same bits as
 * half_ops.h's: spec/half_spec.lua compares both with NumPy); about ten
 * times the bit loop's speed, which does not vectorize. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("avx,f16c"))) static void f16_from_f32_f16c(gm_float16 *d, const float *s, size_t n) {
  size_t k = 0;
  for (; k + 8 <= n; k += 8)
    _mm_storeu_si128((__m128i *)(void *)(d + k), _mm256_cvtps_ph(_mm256_loadu_ps(s + k), 0));
  for (; k < n; k++) d[k] = gm_hstore_gm_float16(s[k]);
}
__attribute__((target("avx,f16c"))) static void f16_to_f32_f16c(float *d, const gm_float16 *s, size_t n) {
  size_t k = 0;
  for (; k + 8 <= n; k += 8)
    _mm256_storeu_ps(d + k, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + k))));
  for (; k < n; k++) d[k] = gm_hload_gm_float16(s[k]);
}
/* (libgcc's CPU model, filled once at load: a read per block) */
static bool have_f16c(void) { return __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx"); }
#else
static bool have_f16c(void) { return false; }
static void f16_from_f32_f16c(gm_float16 *d, const float *s, size_t n) { (void)d, (void)s, (void)n; }
static void f16_to_f32_f16c(float *d, const gm_float16 *s, size_t n) { (void)d, (void)s, (void)n; }
#endif

/* float32 <-> a 16-bit float directly (the compute engine's loads and
 * stores of half mats: one rounding from float, exact loads); false for
 * other pairs */
static bool convert_half_fast(const convert_job *j, size_t b, size_t e) {
  if (j->st == GM_FLOAT && j->dt == GM_FLOAT16 && have_f16c()) {
    f16_from_f32_f16c((gm_float16 *)j->dst + b, (const float *)j->src + b, e - b);
  } else if (j->st == GM_FLOAT16 && j->dt == GM_FLOAT && have_f16c()) {
    f16_to_f32_f16c((float *)j->dst + b, (const gm_float16 *)j->src + b, e - b);
  } else if (j->st == GM_FLOAT && j->dt == GM_FLOAT16) {
    for (size_t k = b; k < e; k++) ((gm_float16 *)j->dst)[k] = gm_hstore_gm_float16(((const float *)j->src)[k]);
  } else if (j->st == GM_FLOAT && j->dt == GM_BFLOAT16) {
    for (size_t k = b; k < e; k++) ((gm_bfloat16 *)j->dst)[k] = gm_hstore_gm_bfloat16(((const float *)j->src)[k]);
  } else if (j->st == GM_FLOAT16 && j->dt == GM_FLOAT) {
    for (size_t k = b; k < e; k++) ((float *)j->dst)[k] = gm_hload_gm_float16(((const gm_float16 *)j->src)[k]);
  } else if (j->st == GM_BFLOAT16 && j->dt == GM_FLOAT) {
    for (size_t k = b; k < e; k++) ((float *)j->dst)[k] = gm_hload_gm_bfloat16(((const gm_bfloat16 *)j->src)[k]);
  } else {
    return false;
  }
  return true;
}

/* float32/float64 -> int32/int64 in one loop each (astype's saturating
 * cast, kernels/int_ops.h: the same values as through the block of
 * doubles): X:astype("int32") of 1M floats spent 0.9 ms packing doubles
 * back into 32-bit lanes (numpy 0.12 ms). */
#define F2I_(S, SN, T)                                                                \
  GM_SIMD_CLONES static void f2i_##SN##_##T(T *d, const S *s, size_t n) {             \
    for (size_t k = 0; k < n; k++) d[k] = gm_cast_##SN##_##T(s[k]);                   \
  }
F2I_(float, float, int32_t)
#undef F2I_

/* double -> int32: the saturating selects in double lanes, then a pack
 * into 32-bit lanes per element, ran 1.5x numpy's time; a block of
 * values within int32's range converts by C's cast alone (one vector
 * instruction), a block with a NaN or a value outside is redone with the
 * saturating cast. */
GM_SIMD_CLONES static void f2i_double_int32_t(int32_t *d, const double *s, size_t n) {
  for (size_t k0 = 0; k0 < n; k0 += 256) {
    const size_t k1 = n - k0 < 256 ? n : k0 + 256;
    int out = 0;
    for (size_t k = k0; k < k1; k++) {
      const double x = s[k];
      const int in = x > -2147483649.0 && x < 2147483648.0;
      out |= !in;
      d[k] = (int32_t)(in ? x : 0.0);
    }
    if (out)
      for (size_t k = k0; k < k1; k++) d[k] = gm_cast_double_int32_t(s[k]);
  }
}

/* ... and to int64, which has no vector conversion before AVX-512DQ (the
 * loop above ran scalar, 1.9 ns an element): a block whose truncated
 * values all lie within +-2^51 converts by the magic-number trick (t +
 * 1.5 * 2^52 holds t in its low mantissa bits, exactly), in a loop that
 * vectorizes; a block with a NaN or a bigger value is redone with the
 * saturating cast.  Same values as gm_cast_T_int64_t. */
#define F2I64_(S, SN)                                                              \
  GM_SIMD_CLONES static void f2i_##SN##_int64_t(int64_t *d, const S *s, size_t n) { \
    for (size_t k0 = 0; k0 < n; k0 += 256) {                                        \
      const size_t k1 = n - k0 < 256 ? n : k0 + 256;                                \
      int big = 0;                                                                  \
      for (size_t k = k0; k < k1; k++) {                                            \
        const double t = __builtin_trunc((double)s[k]);                             \
        const int in = t >= -0x1p51 && t <= 0x1p51;                                 \
        big |= !in;                                                                 \
        const double y = (in ? t : 0.0) + 0x1.8p52;                                 \
        int64_t bits;                                                               \
        memcpy(&bits, &y, sizeof bits);                                             \
        d[k] = bits - (int64_t)0x4338000000000000;                                  \
      }                                                                             \
      if (big)                                                                      \
        for (size_t k = k0; k < k1; k++) d[k] = gm_cast_##SN##_int64_t(s[k]);       \
    }                                                                               \
  }
F2I64_(float, float)
F2I64_(double, double)
#undef F2I64_

/* int32/int64 -> float32/float64 in one loop each (the block path loads
 * int32 as doubles, then stores them: two passes).  int64 has no vector
 * conversion before AVX-512DQ: a block whose values lie within +-2^51
 * converts by the magic-number trick (v + the bits of 1.5 * 2^52, read
 * as a double, minus 1.5 * 2^52 is v exactly), then rounds once to T; a
 * block with a bigger value is redone with C's conversion.  Same values
 * as the block path ((T)v: one rounding). */
#define I2F_(T)                                                                          \
  GM_SIMD_CLONES static void i32_##T(T *d, const int32_t *s, size_t n) {                 \
    for (size_t k = 0; k < n; k++) d[k] = (T)s[k];                                       \
  }                                                                                      \
  GM_SIMD_CLONES static void i64_##T(T *d, const int64_t *s, size_t n) {                 \
    for (size_t k0 = 0; k0 < n; k0 += 256) {                                             \
      const size_t k1 = n - k0 < 256 ? n : k0 + 256;                                     \
      int big = 0;                                                                       \
      for (size_t k = k0; k < k1; k++) {                                                 \
        const int64_t v = s[k];                                                          \
        const int in = v >= -((int64_t)1 << 51) && v <= ((int64_t)1 << 51);              \
        big |= !in;                                                                      \
        const int64_t bits = (in ? v : 0) + (int64_t)0x4338000000000000;                 \
        double y;                                                                        \
        memcpy(&y, &bits, sizeof y);                                                     \
        d[k] = (T)(y - 0x1.8p52);                                                        \
      }                                                                                  \
      if (big)                                                                           \
        for (size_t k = k0; k < k1; k++) d[k] = (T)s[k];                                 \
    }                                                                                    \
  }
I2F_(float)
I2F_(double)
#undef I2F_

static bool convert_int_float_fast(const convert_job *j, size_t b, size_t e) {
  size_t n = e - b;
  if (j->st == GM_INT32 && j->dt == GM_FLOAT) {
    i32_float((float *)j->dst + b, (const int32_t *)j->src + b, n);
  } else if (j->st == GM_INT32 && j->dt == GM_DOUBLE) {
    i32_double((double *)j->dst + b, (const int32_t *)j->src + b, n);
  } else if (j->st == GM_INT64 && j->dt == GM_FLOAT) {
    i64_float((float *)j->dst + b, (const int64_t *)j->src + b, n);
  } else if (j->st == GM_INT64 && j->dt == GM_DOUBLE) {
    i64_double((double *)j->dst + b, (const int64_t *)j->src + b, n);
  } else {
    return false;
  }
  return true;
}

static bool convert_float_int_fast(const convert_job *j, size_t b, size_t e) {
  size_t n = e - b;
  if (j->st == GM_FLOAT && j->dt == GM_INT32) {
    f2i_float_int32_t((int32_t *)j->dst + b, (const float *)j->src + b, n);
  } else if (j->st == GM_FLOAT && j->dt == GM_INT64) {
    f2i_float_int64_t((int64_t *)j->dst + b, (const float *)j->src + b, n);
  } else if (j->st == GM_DOUBLE && j->dt == GM_INT32) {
    f2i_double_int32_t((int32_t *)j->dst + b, (const double *)j->src + b, n);
  } else if (j->st == GM_DOUBLE && j->dt == GM_INT64) {
    f2i_double_int64_t((int64_t *)j->dst + b, (const double *)j->src + b, n);
  } else {
    return false;
  }
  return true;
}

static void convert_range(void *arg, size_t begin, size_t end) {
  const convert_job *j = arg;
  if (convert_half_fast(j, begin, end) || convert_float_int_fast(j, begin, end) ||
      convert_int_float_fast(j, begin, end))
    return;
  block b;
  bool uns = gm_ctype_kind(j->st) == GM_KIND_UINT;
  /* integers of up to 32 bits into a floating type (real, half, complex)
   * go through doubles, which hold them exactly: int64 -> float has no
   * vector instruction before AVX-512DQ, int32 -> double and double ->
   * float do (uint8 -> float32 of 16M: 2x faster) */
  int dk = gm_ctype_kind(j->dt);
  bool as_double = dk != GM_KIND_BOOL && dk != GM_KIND_INT && dk != GM_KIND_UINT;
  for (size_t off = begin; off < end; off += BLOCK) {
    size_t len = end - off < BLOCK ? end - off : BLOCK;
    int form = load[j->st](&b, j->src, off, len, as_double);
    store[j->dt](j->dst, off, len, &b, form, uns);
  }
}

void gm_convert(gm_ctype dt, void *dst, gm_ctype st, const void *src, size_t n) {
  if ((unsigned)dt >= GM_N_CTYPES || (unsigned)st >= GM_N_CTYPES) return;
  convert_job j = {dt, st, dst, src};
  gm_par_for(n, BLOCK, 2.0, convert_range, &j);
}
