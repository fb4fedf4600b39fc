/* kernels/int_ops.h against independent references computed in __int128
 * (wrapping by reduction modulo 2^bits, floor division by a formula other
 * than the header's) and long double (saturating casts), plus tables of
 * NumPy 2's results at the edges.  Every pair of 8-bit values is checked;
 * the wider types take every pair of an edge set (MIN, MAX, +-1, 0, powers
 * of two and their neighbours, shift amounts -width-1..width+1) and
 * pseudo-random values.  Built with UBSan in the sanitizer build, so an
 * overflow inside the header fails too. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../kernels/elementwise.h"
#include "../kernels/int_ops.h"
#include "check.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

/* u reduced modulo 2^bits into the type's range. */
static i128 wrapu(u128 u, int bits, int sgn) {
  u128 m = (u128)1 << bits;
  u &= m - 1;
  if (sgn && u >= m / 2) return (i128)u - (i128)m;
  return (i128)u;
}

static i128 wrap(i128 v, int bits, int sgn) { return wrapu((u128)v, bits, sgn); }

/* a * b modulo 2^bits: products of two 64-bit values reach 2^128, so they
 * are formed in u128, where they wrap modulo 2^128 (a multiple of 2^bits). */
static i128 wrap_mul(i128 a, i128 b, int bits, int sgn) { return wrapu((u128)a * (u128)b, bits, sgn); }

/* floor(a / b), b != 0, without C's truncating / on negative operands. */
static i128 floor_div(i128 a, i128 b) {
  if (b < 0) return floor_div(-a, -b);
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static i128 ref_floordiv(i128 a, i128 b, int bits, int sgn) {
  return b == 0 ? 0 : wrap(floor_div(a, b), bits, sgn);
}

static i128 ref_remainder(i128 a, i128 b, int bits, int sgn) {
  return b == 0 ? 0 : wrap(a - b * floor_div(a, b), bits, sgn);
}

static i128 ref_shl(i128 a, i128 b, int bits, int sgn) {
  if (b < 0 || b >= bits) return 0;
  return wrap_mul(a, (i128)1 << (int)b, bits, sgn);
}

static i128 ref_shr(i128 a, i128 b, int bits) {
  if (b < 0 || b >= bits) return a < 0 ? -1 : 0;
  return floor_div(a, (i128)1 << (int)b);
}

static i128 ref_pow(i128 a, i128 b, int bits, int sgn) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 != 0 ? -1 : 1) : 0;
  i128 r = 1;
  for (i128 i = 0; i < b; i++) r = wrap_mul(r, a, bits, sgn);
  return r;
}

/* Saturating cast: NaN 0, truncate, clamp (long double holds every
 * 64-bit bound exactly). */
static i128 ref_cast(long double x, int bits, int sgn) {
  if (x != x) return 0;
  long double lo = sgn ? -ldexpl(1.0L, bits - 1) : 0.0L;
  long double hi = sgn ? ldexpl(1.0L, bits - 1) - 1.0L : ldexpl(1.0L, bits) - 1.0L;
  long double t = truncl(x);
  t = t < lo ? lo : t > hi ? hi : t;
  return t < 0 ? -(i128)(u128)(-t) : (i128)(u128)t;
}

static long gm_pairs_checked;

/* One pair through every operation, compared as __int128 values. */
#define CHECK_PAIR(T, bits, sgn)                                                          \
  static void check_pair_##T(T a, T b) {                                                  \
    i128 A = a, B = b;                                                                    \
    CHECK((i128)gm_iadd_##T(a, b) == wrap(A + B, bits, sgn));                             \
    CHECK((i128)gm_isub_##T(a, b) == wrap(A - B, bits, sgn));                             \
    CHECK((i128)gm_imul_##T(a, b) == wrap_mul(A, B, bits, sgn));                          \
    CHECK((i128)gm_ineg_##T(a) == wrap(-A, bits, sgn));                                   \
    CHECK((i128)gm_ifloordiv_##T(a, b) == ref_floordiv(A, B, bits, sgn));                 \
    CHECK((i128)gm_iremainder_##T(a, b) == ref_remainder(A, B, bits, sgn));               \
    CHECK((i128)gm_iand_##T(a, b) == wrap((i128)((u128)A & (u128)B), bits, sgn));         \
    CHECK((i128)gm_ior_##T(a, b) == wrap((i128)((u128)A | (u128)B), bits, sgn));          \
    CHECK((i128)gm_ixor_##T(a, b) == wrap((i128)((u128)A ^ (u128)B), bits, sgn));         \
    CHECK((i128)gm_iinvert_##T(a) == wrap(-A - 1, bits, sgn));                            \
    CHECK((i128)gm_ishl_##T(a, b) == ref_shl(A, B, bits, sgn));                           \
    CHECK((i128)gm_ishr_##T(a, b) == ref_shr(A, B, bits));                                \
    if (B < 3 * (bits))                                                                   \
      CHECK((i128)gm_ipow_##T(a, b) == ref_pow(A, B, bits, sgn));                         \
    CHECK(gm_cast_##T##_bool(a) == (A != 0));                                             \
    gm_pairs_checked++;                                                                   \
  }
CHECK_PAIR(int8_t, 8, 1)
CHECK_PAIR(int16_t, 16, 1)
CHECK_PAIR(int32_t, 32, 1)
CHECK_PAIR(int64_t, 64, 1)
CHECK_PAIR(uint8_t, 8, 0)
CHECK_PAIR(uint16_t, 16, 0)
CHECK_PAIR(uint32_t, 32, 0)
CHECK_PAIR(uint64_t, 64, 0)

static uint64_t gm_rng = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) {
  gm_rng = gm_rng * 6364136223846793005u + 1442695040888963407u;
  return gm_rng ^ (gm_rng >> 29);
}

/* The edge set of a type of `bits` bits as 64-bit patterns (truncated to
 * the type by the caller): 0, +-1..+-3, +-2^k and neighbours, MIN, MAX,
 * shift amounts up to bits + 1 and down to -bits - 1, random values. */
static int edge_values(int bits, uint64_t *out) {
  int n = 0;
  for (int64_t v = -(int64_t)bits - 1; v <= bits + 1; v++) out[n++] = (uint64_t)v;
  for (int k = 2; k < 64; k++) {
    uint64_t p = (uint64_t)1 << k;
    out[n++] = p - 1;
    out[n++] = p + 1;
    out[n++] = 0 - p;
    out[n++] = 0 - p - 1;
    out[n++] = 0 - p + 1;
  }
  out[n++] = (uint64_t)1 << 63;
  out[n++] = ((uint64_t)1 << 63) - 1;
  out[n++] = UINT64_MAX;
  for (int i = 0; i < 40; i++) out[n++] = next_random();
  return n;
}

#define CHECK_EDGES(T)                                                \
  static void check_edges_##T(int bits) {                             \
    uint64_t v[512];                                                  \
    int n = edge_values(bits, v);                                     \
    for (int i = 0; i < n; i++)                                       \
      for (int j = 0; j < n; j++) check_pair_##T((T)v[i], (T)v[j]);   \
  }
CHECK_EDGES(int16_t)
CHECK_EDGES(int32_t)
CHECK_EDGES(int64_t)
CHECK_EDGES(uint16_t)
CHECK_EDGES(uint32_t)
CHECK_EDGES(uint64_t)

static void check_all_8bit_pairs(void) {
  for (int a = 0; a < 256; a++)
    for (int b = 0; b < 256; b++) {
      check_pair_int8_t((int8_t)(a - 128), (int8_t)(b - 128));
      check_pair_uint8_t((uint8_t)a, (uint8_t)b);
    }
}

/* NumPy 2's results written out, so a reference mistake shared with the
 * header cannot hide. */
static void check_numpy_table(void) {
  CHECK(gm_ifloordiv_int8_t(INT8_MIN, -1) == INT8_MIN);
  CHECK(gm_iremainder_int8_t(INT8_MIN, -1) == 0);
  CHECK(gm_ifloordiv_int64_t(INT64_MIN, -1) == INT64_MIN);
  CHECK(gm_iremainder_int64_t(INT64_MIN, -1) == 0);
  CHECK(gm_ifloordiv_int32_t(7, 0) == 0 && gm_iremainder_int32_t(7, 0) == 0);
  CHECK(gm_ifloordiv_int32_t(-7, 2) == -4 && gm_iremainder_int32_t(-7, 2) == 1);
  CHECK(gm_ifloordiv_int32_t(7, -2) == -4 && gm_iremainder_int32_t(7, -2) == -1);
  CHECK(gm_ifloordiv_int32_t(-7, -2) == 3 && gm_iremainder_int32_t(-7, -2) == -1);
  CHECK(gm_ifloordiv_uint8_t(200, 7) == 28 && gm_iremainder_uint8_t(200, 7) == 4);
  CHECK(gm_iadd_int8_t(127, 1) == -128 && gm_imul_int16_t(300, 300) == 24464);
  CHECK(gm_imul_uint16_t(65535, 65535) == 1 && gm_ineg_int64_t(INT64_MIN) == INT64_MIN);
  CHECK(gm_ishr_int8_t(-8, 1) == -4 && gm_ishr_int8_t(-8, 8) == -1 && gm_ishr_int8_t(-8, -1) == -1);
  CHECK(gm_ishr_int8_t(8, 8) == 0 && gm_ishr_int8_t(8, -1) == 0 && gm_ishr_int8_t(-1, 7) == -1);
  CHECK(gm_ishl_int8_t(1, 7) == -128 && gm_ishl_int8_t(1, 8) == 0 && gm_ishl_int8_t(1, -1) == 0);
  CHECK(gm_ishl_uint64_t(1, 63) == (uint64_t)1 << 63 && gm_ishl_uint64_t(1, 64) == 0);
  CHECK(gm_ishr_uint32_t(0x80000000u, 31) == 1 && gm_ishr_uint32_t(0x80000000u, 32) == 0);
  CHECK(gm_iinvert_uint8_t(0) == 255 && gm_iinvert_int16_t(0) == -1);
  CHECK(gm_ipow_int32_t(3, 4) == 81 && gm_ipow_int8_t(2, 7) == -128 && gm_ipow_uint8_t(2, 8) == 0);
  CHECK(gm_ipow_int32_t(0, 0) == 1 && gm_ipow_int64_t(-1, -3) == -1 && gm_ipow_int64_t(-1, -4) == 1);
  CHECK(gm_ipow_int16_t(2, -1) == 0 && gm_ipow_int16_t(0, -1) == 0 && gm_ipow_int16_t(1, -9) == 1);
  CHECK((uint64_t)gm_ipow_int64_t(3, 40) == 12157665459056928801u);
}

/* Saturating casts at and around every bound, in float and double. */
#define CHECK_CASTS(T, bits, sgn)                                                         \
  static void check_casts_##T(void) {                                                     \
    double hi = sgn ? ldexp(1.0, bits - 1) : ldexp(1.0, bits);                           \
    double xs[] = { NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 0.5, -0.5, 0.999, -0.999,  \
                    1.0, -1.0, 1.5, -1.5, 2.5, -2.5, 100.7, -100.7, 1e30, -1e30, 1e300,   \
                    -1e300, hi, -hi, hi - 1, -hi + 1, hi + 1, -hi - 1, hi * 0.75, -hi * 0.75, \
                    nextafter(hi, 0), -nextafter(hi, 0), nextafter(hi, INFINITY),        \
                    (double)nextafterf((float)hi, 0.0f), (double)-nextafterf((float)hi, 0.0f) }; \
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {                               \
      float f = (float)xs[i];                                                             \
      CHECK((i128)gm_cast_double_##T(xs[i]) == ref_cast(xs[i], bits, sgn));               \
      CHECK((i128)gm_cast_float_##T(f) == ref_cast(f, bits, sgn));                        \
    }                                                                                     \
  }
CHECK_CASTS(int8_t, 8, 1)
CHECK_CASTS(int16_t, 16, 1)
CHECK_CASTS(int32_t, 32, 1)
CHECK_CASTS(int64_t, 64, 1)
CHECK_CASTS(uint8_t, 8, 0)
CHECK_CASTS(uint16_t, 16, 0)
CHECK_CASTS(uint32_t, 32, 0)
CHECK_CASTS(uint64_t, 64, 0)

static void check_cast_table(void) {
  CHECK(gm_cast_double_int8_t(NAN) == 0 && gm_cast_float_int8_t(300.0f) == 127);
  CHECK(gm_cast_float_int8_t(-300.0f) == -128 && gm_cast_double_int8_t(-1.9) == -1);
  CHECK(gm_cast_double_uint8_t(-0.5) == 0 && gm_cast_double_uint8_t(-7.0) == 0);
  CHECK(gm_cast_double_uint8_t(255.9) == 255 && gm_cast_double_uint8_t(256.0) == 255);
  CHECK(gm_cast_double_int32_t(2147483647.5) == INT32_MAX && gm_cast_double_int32_t(-2147483648.9) == INT32_MIN);
  CHECK(gm_cast_double_int64_t(9.3e18) == INT64_MAX && gm_cast_float_int64_t(-INFINITY) == INT64_MIN);
  CHECK(gm_cast_double_uint64_t(1.8446744073709552e19) == UINT64_MAX);
  CHECK(gm_cast_double_uint64_t(1.8446744073709550e19) == 18446744073709549568u);
  CHECK(gm_cast_float_uint32_t(4294967040.0f) == 4294967040u);
  CHECK(gm_cast_float_bool(NAN) && gm_cast_double_bool(-0.5) && !gm_cast_float_bool(-0.0f));
  CHECK(!gm_cast_double_bool(0.0) && gm_cast_double_bool(INFINITY) && gm_cast_float_bool(1e-45f));
  CHECK(gm_cast_int8_t_bool(-128) && !gm_cast_uint64_t_bool(0) && gm_cast_uint64_t_bool(UINT64_MAX));
}

/* elementwise.h's unary functions of integer mats (GM_UNARY_INT_OPS) on
 * every 8-bit value and the wider types' edges: abs and neg of MIN wrap,
 * square wraps, sign is -1/0/1, the rounding functions are the identity;
 * and the integer predicates. */
#define CHECK_UNARY_INT(T, BITS, SGN)                                                  \
  static void check_unary_##T(T a) {                                                   \
    i128 v = (i128)a;                                                                  \
    CHECK((i128)gm_abs_##T(a) == wrap(v < 0 ? -v : v, BITS, SGN));                     \
    CHECK((i128)gm_neg_##T(a) == wrap(-v, BITS, SGN));                                 \
    CHECK((i128)gm_square_##T(a) == wrap_mul(v, v, BITS, SGN));                        \
    CHECK((i128)gm_sign_##T(a) == (v > 0) - (v < 0));                                  \
    CHECK(gm_floor_##T(a) == a && gm_ceil_##T(a) == a && gm_round_##T(a) == a);        \
    CHECK(gm_trunc_##T(a) == a && gm_positive_##T(a) == a);                            \
    CHECK(gm_unary_##T(GM_UN_ABS, a) == gm_abs_##T(a));                                \
    CHECK(!gm_pred_isnan_##T(a) && !gm_pred_isinf_##T(a) && gm_pred_isfinite_##T(a));  \
    CHECK(gm_pred_signbit_##T(a) == (v < 0) && gm_pred_logical_not_##T(a) == (v == 0)); \
  }
CHECK_UNARY_INT(int8_t, 8, 1)
CHECK_UNARY_INT(uint8_t, 8, 0)
CHECK_UNARY_INT(int16_t, 16, 1)
CHECK_UNARY_INT(uint16_t, 16, 0)
CHECK_UNARY_INT(int32_t, 32, 1)
CHECK_UNARY_INT(uint32_t, 32, 0)
CHECK_UNARY_INT(int64_t, 64, 1)
CHECK_UNARY_INT(uint64_t, 64, 0)

static void check_unary_ints(void) {
  for (int a = 0; a < 256; a++) check_unary_int8_t((int8_t)(a - 128)), check_unary_uint8_t((uint8_t)a);
  const int64_t s[] = {INT64_MIN, INT64_MIN + 1, INT32_MIN, INT16_MIN, -2, -1, 0, 1, 2, INT16_MAX, INT32_MAX, INT64_MAX};
  for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
    check_unary_int16_t((int16_t)s[i]);
    check_unary_int32_t((int32_t)s[i]);
    check_unary_int64_t(s[i]);
    check_unary_uint16_t((uint16_t)s[i]);
    check_unary_uint32_t((uint32_t)s[i]);
    check_unary_uint64_t((uint64_t)s[i]);
  }
  CHECK(gm_abs_int8_t(INT8_MIN) == INT8_MIN && gm_neg_int64_t(INT64_MIN) == INT64_MIN); /* NumPy's */
}

int main(void) {
  check_all_8bit_pairs();
  check_unary_ints();
  check_edges_int16_t(16);
  check_edges_int32_t(32);
  check_edges_int64_t(64);
  check_edges_uint16_t(16);
  check_edges_uint32_t(32);
  check_edges_uint64_t(64);
  check_numpy_table();
  check_casts_int8_t();
  check_casts_int16_t();
  check_casts_int32_t();
  check_casts_int64_t();
  check_casts_uint8_t();
  check_casts_uint16_t();
  check_casts_uint32_t();
  check_casts_uint64_t();
  check_cast_table();
  printf("int_ops_test: %ld pairs, %d failed checks\n", gm_pairs_checked, (int)gm_test_failed);
  return gm_test_failed > 0;
}
