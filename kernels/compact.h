/* Stream compaction (masked_select, m[mask] reads, nonzero, argwhere):
 * the per-chunk pieces shared by the host loops (src/host/index.c) and
 * the device kernels (kernels/index.cu, which the emulated device runs
 * too).  A flat, contiguous m of n elements is cut into chunks of
 * `chunk` elements (kernels/scan.h's gm_scan_nchunks/gm_scan_chunk_end):
 * pass 1 counts each chunk's nonzero elements (gm_compact_count_E, one
 * caller per chunk), pass 2 turns the counts into each chunk's first
 * output position (gm_compact_offsets: an exclusive scan, one caller),
 * pass 3 has each chunk write its selected elements from there in order
 * (gm_compact_values_U: bool masks, by element size; gm_compact_coords_E:
 * the 1-based coordinates of nonzero/argwhere).  Every output element has
 * one writer and the order is row-major, whatever the chunking.  The
 * inverse (masked_scatter_: gm_compact_expand_U) counts the same way and
 * has each chunk read its selected elements' values from its offset.  Nonzero
 * means != 0, so NaN counts (NumPy's rule). */
#ifndef GM_KERNELS_COMPACT_H
#define GM_KERNELS_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/model/ctype_list.h"
#include "hd.h"
#include "scan.h"

/* On a CPU with AVX2 (the host's loops, src/host/index.c, and the
 * emulated device's kernels, both built for generic x86-64: a runtime
 * check, as core/ops/convert.c's F16C), a bool mask's count sums 32 mask
 * bytes per vpsadbw, and its 4- and 8-byte values' pass 3 turns 32 mask
 * bytes into a bit mask and moves each group's selected elements to the
 * front with one vpermd (lane lists from gm_compact_nib), storing whole
 * vectors.  A store writes past the selected elements, so the vector
 * steps stop 32 elements before the chunk's output end hi and the scalar
 * loop finishes the chunk: the same elements in the same order, each
 * chunk writing its own range only.  (The generic count widened byte by
 * byte; it and the one-store-per-element write were 16M float32's whole
 * m[mask] time, 3-4x numpy's.)  Elsewhere (nvcc, other CPUs) the plain
 * loops. */
#if !defined(__CUDACC__) && defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GM_COMPACT_AVX2 1
/* gm_compact_nib[b]: the positions of b's set bits, lowest first, 4 bits each */
static const uint32_t gm_compact_nib[256] = {
    0x0u, 0x0u, 0x1u, 0x10u, 0x2u, 0x20u, 0x21u, 0x210u,
    0x3u, 0x30u, 0x31u, 0x310u, 0x32u, 0x320u, 0x321u, 0x3210u,
    0x4u, 0x40u, 0x41u, 0x410u, 0x42u, 0x420u, 0x421u, 0x4210u,
    0x43u, 0x430u, 0x431u, 0x4310u, 0x432u, 0x4320u, 0x4321u, 0x43210u,
    0x5u, 0x50u, 0x51u, 0x510u, 0x52u, 0x520u, 0x521u, 0x5210u,
    0x53u, 0x530u, 0x531u, 0x5310u, 0x532u, 0x5320u, 0x5321u, 0x53210u,
    0x54u, 0x540u, 0x541u, 0x5410u, 0x542u, 0x5420u, 0x5421u, 0x54210u,
    0x543u, 0x5430u, 0x5431u, 0x54310u, 0x5432u, 0x54320u, 0x54321u, 0x543210u,
    0x6u, 0x60u, 0x61u, 0x610u, 0x62u, 0x620u, 0x621u, 0x6210u,
    0x63u, 0x630u, 0x631u, 0x6310u, 0x632u, 0x6320u, 0x6321u, 0x63210u,
    0x64u, 0x640u, 0x641u, 0x6410u, 0x642u, 0x6420u, 0x6421u, 0x64210u,
    0x643u, 0x6430u, 0x6431u, 0x64310u, 0x6432u, 0x64320u, 0x64321u, 0x643210u,
    0x65u, 0x650u, 0x651u, 0x6510u, 0x652u, 0x6520u, 0x6521u, 0x65210u,
    0x653u, 0x6530u, 0x6531u, 0x65310u, 0x6532u, 0x65320u, 0x65321u, 0x653210u,
    0x654u, 0x6540u, 0x6541u, 0x65410u, 0x6542u, 0x65420u, 0x65421u, 0x654210u,
    0x6543u, 0x65430u, 0x65431u, 0x654310u, 0x65432u, 0x654320u, 0x654321u, 0x6543210u,
    0x7u, 0x70u, 0x71u, 0x710u, 0x72u, 0x720u, 0x721u, 0x7210u,
    0x73u, 0x730u, 0x731u, 0x7310u, 0x732u, 0x7320u, 0x7321u, 0x73210u,
    0x74u, 0x740u, 0x741u, 0x7410u, 0x742u, 0x7420u, 0x7421u, 0x74210u,
    0x743u, 0x7430u, 0x7431u, 0x74310u, 0x7432u, 0x74320u, 0x74321u, 0x743210u,
    0x75u, 0x750u, 0x751u, 0x7510u, 0x752u, 0x7520u, 0x7521u, 0x75210u,
    0x753u, 0x7530u, 0x7531u, 0x75310u, 0x7532u, 0x75320u, 0x75321u, 0x753210u,
    0x754u, 0x7540u, 0x7541u, 0x75410u, 0x7542u, 0x75420u, 0x75421u, 0x754210u,
    0x7543u, 0x75430u, 0x75431u, 0x754310u, 0x75432u, 0x754320u, 0x754321u, 0x7543210u,
    0x76u, 0x760u, 0x761u, 0x7610u, 0x762u, 0x7620u, 0x7621u, 0x76210u,
    0x763u, 0x7630u, 0x7631u, 0x76310u, 0x7632u, 0x76320u, 0x76321u, 0x763210u,
    0x764u, 0x7640u, 0x7641u, 0x76410u, 0x7642u, 0x76420u, 0x76421u, 0x764210u,
    0x7643u, 0x76430u, 0x76431u, 0x764310u, 0x76432u, 0x764320u, 0x764321u, 0x7643210u,
    0x765u, 0x7650u, 0x7651u, 0x76510u, 0x7652u, 0x76520u, 0x76521u, 0x765210u,
    0x7653u, 0x76530u, 0x76531u, 0x765310u, 0x76532u, 0x765320u, 0x765321u, 0x7653210u,
    0x7654u, 0x76540u, 0x76541u, 0x765410u, 0x76542u, 0x765420u, 0x765421u, 0x7654210u,
    0x76543u, 0x765430u, 0x765431u, 0x7654310u, 0x765432u, 0x7654320u, 0x7654321u, 0x76543210u};

/* (libgcc's CPU model, filled once at load: a read per call) */
static inline int gm_compact_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"); }

__attribute__((target("avx2"))) static inline int64_t gm_compact_count_mask_avx2(size_t *a, size_t b, const bool *m) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i acc = zero;
  size_t k = *a;
  for (; k + 32 <= b; k += 32)
    acc = _mm256_add_epi64(acc, _mm256_sad_epu8(_mm256_loadu_si256((const __m256i *)(const void *)(m + k)), zero));
  uint64_t lanes[4];
  _mm256_storeu_si256((__m256i *)(void *)lanes, acc);
  *a = k;
  return (int64_t)(lanes[0] + lanes[1] + lanes[2] + lanes[3]);
}

/* The vector steps of pass 3 for es-byte values (4 or 8) from x[*a], y[*p]
 * on; *a and *p advance to where the scalar loop goes on. */
__attribute__((target("avx2,popcnt"))) static inline void gm_compact_values_avx2(size_t es, size_t *a, size_t b,
                                                                                 const bool *m, size_t *p, size_t hi,
                                                                                 const void *x, void *y) {
  const __m256i zero = _mm256_setzero_si256(), seven = _mm256_set1_epi32(7);
  const __m256i sh32 = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
  const __m256i sh64 = _mm256_setr_epi32(0, 0, 4, 4, 8, 8, 12, 12), odd = _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1);
  size_t k = *a, o = *p;
  for (; k + 32 <= b && o + 32 <= hi; k += 32) {
    __m256i mm = _mm256_loadu_si256((const __m256i *)(const void *)(m + k));
    uint32_t bits = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(mm, zero));
    if (es == 4) {
      const uint32_t *xs = (const uint32_t *)x + k;
      uint32_t *ys = (uint32_t *)y;
      for (unsigned g = 0; g < 32; g += 8) {
        uint32_t bb = (bits >> g) & 255u;
        __m256i idx = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)gm_compact_nib[bb]), sh32), seven);
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(xs + g));
        _mm256_storeu_si256((__m256i *)(void *)(ys + o), _mm256_permutevar8x32_epi32(v, idx));
        o += (size_t)__builtin_popcount(bb);
      }
    } else {
      const uint64_t *xs = (const uint64_t *)x + k;
      uint64_t *ys = (uint64_t *)y;
      for (unsigned g = 0; g < 32; g += 4) {
        uint32_t bb = (bits >> g) & 15u;
        __m256i lane = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)gm_compact_nib[bb]), sh64), seven);
        __m256i idx = _mm256_add_epi32(_mm256_add_epi32(lane, lane), odd);
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(xs + g));
        _mm256_storeu_si256((__m256i *)(void *)(ys + o), _mm256_permutevar8x32_epi32(v, idx));
        o += (size_t)__builtin_popcount(bb);
      }
    }
  }
  *a = k, *p = o;
}
#define GM_COMPACT_COUNT_SIMD(a, b, m, n)                                                   \
  if (gm_compact_avx2()) n += gm_compact_count_mask_avx2(&a, b, (const bool *)(const void *)(m));
#define GM_COMPACT_VALUES_SIMD(U, a, b, m, p, end, x, y)                                    \
  if ((sizeof(U) == 4 || sizeof(U) == 8) && gm_compact_avx2()) gm_compact_values_avx2(sizeof(U), &a, b, m, &p, end, x, y);
#else
#define GM_COMPACT_COUNT_SIMD(a, b, m, n)
#define GM_COMPACT_VALUES_SIMD(U, a, b, m, p, end, x, y)
#endif

#define GM_COMPACT_MAX_RANK 8 /* the library's GM_MAX_RANK */

/* Where coordinates go: m's dims, and which: axis < 0 writes every
 * axis, c[k rank + d] (argwhere's n x rank); axis a >= 0 only axis a,
 * c[k] (one of nonzero's per-axis mats). */
typedef struct gm_compact_dims {
  int rank, axis;
  size_t dims[GM_COMPACT_MAX_RANK];
} gm_compact_dims;

/* Pass 2: counts c[0, nc) := the first output position of each chunk;
 * c[nc] := the total. */
GM_HD void gm_compact_offsets(size_t nc, int64_t *c) {
  int64_t acc = 0;
  for (size_t k = 0; k < nc; k++) {
    int64_t t = c[k];
    c[k] = acc;
    acc += t;
  }
  c[nc] = acc;
}

/* The coordinates (0-based, per axis) of flat position i; the next
 * position's, as an odometer; the 1-based coordinates idx written as
 * selected element k: all of them (argwhere's row k) or axis d->axis's. */
GM_HD void gm_compact_start(const gm_compact_dims *d, size_t i, size_t *idx) {
  for (int a = d->rank - 1; a >= 0; a--) {
    idx[a] = i % d->dims[a];
    i /= d->dims[a];
  }
}
GM_HD void gm_compact_step(const gm_compact_dims *d, size_t *idx) {
  for (int a = d->rank - 1; a >= 0; a--) {
    if (++idx[a] < d->dims[a]) return;
    idx[a] = 0;
  }
}
GM_HD void gm_compact_put_idx(const gm_compact_dims *d, const size_t *idx, size_t k, int64_t *c) {
  if (d->axis >= 0) {
    c[k] = (int64_t)idx[d->axis] + 1;
    return;
  }
  for (int a = 0; a < d->rank; a++) c[k * (size_t)d->rank + (size_t)a] = (int64_t)idx[a] + 1;
}

/* Pass 1's vector steps: a bool mask's (MASK), none for the others (ANY) */
#define GM_COMPACT_COUNT_PRE_MASK(a, b, m, n) GM_COMPACT_COUNT_SIMD(a, b, m, n)
#define GM_COMPACT_COUNT_PRE_ANY(a, b, m, n)
#define GM_COMPACT_FNS_(T, E, K)                                                                     \
  /* Pass 1: nonzero elements of m[a, b) (branch-free: vectorizes) */                                \
  GM_HD int64_t gm_compact_count_##E(size_t a, size_t b, const T *m) {                              \
    int64_t n = 0;                                                                                   \
    GM_COMPACT_COUNT_PRE_##K(a, b, m, n)                                                             \
    for (size_t k = a; k < b; k++) n += m[k] != 0;                                                   \
    return n;                                                                                        \
  }                                                                                                  \
  /* Pass 3 of nonzero/argwhere: coordinates of m[a, b)'s nonzeros from o.                          \
   * Divisions once, at a (then an odometer): a division per axis and                               \
   * element was most of gm.nonzero's 5.5 ms on 1M bools (numpy 0.8).                               \
   * Rank 1 writes every position and advances o by the selection, with                              \
   * no branch; only up to the last nonzero, so no write passes the                                 \
   * chunk's own outputs. */                                                                         \
  GM_HD void gm_compact_coords_##E(size_t a, size_t b, const T *m, int64_t o, const gm_compact_dims *d, \
                                   int64_t *c) {                                                     \
    size_t e = b;                                                                                    \
    while (e > a && m[e - 1] == 0) e--;                                                              \
    if (e == a) return;                                                                              \
    if (d->rank == 1) {                                                                              \
      for (size_t k = a; k < e; k++) {                                                               \
        c[o] = (int64_t)k + 1;                                                                       \
        o += m[k] != 0;                                                                              \
      }                                                                                              \
      return;                                                                                        \
    }                                                                                                \
    size_t idx[GM_COMPACT_MAX_RANK];                                                                 \
    gm_compact_start(d, a, idx);                                                                     \
    for (size_t k = a; k < e; k++) {                                                                 \
      if (m[k] != 0) gm_compact_put_idx(d, idx, (size_t)o++, c);                                     \
      gm_compact_step(d, idx);                                                                       \
    }                                                                                                \
  }
#define GM_COMPACT_ROW_(K, T, E, ...) GM_COMPACT_FNS_(T, E, K)
GM_BOOL_CTYPES_WITH(GM_COMPACT_ROW_, MASK)
GM_INTEGER_CTYPES_WITH(GM_COMPACT_ROW_, ANY)
GM_FLOAT_CTYPES_WITH(GM_COMPACT_ROW_, ANY)
#undef GM_COMPACT_ROW_
#undef GM_COMPACT_FNS_

/* Pass 3 of a bool mask: x[k] for the true m[k] of [a, b) to y[o, hi)
 * in order, moved as U of the element's size.  The store does not wait
 * for the mask (no branch to mispredict on a random mask): while p < hi a
 * selected element is still ahead in the chunk and overwrites y[p], so
 * the chunk writes only its own range. */
#define GM_COMPACT_VALUES_(U)                                                                        \
  GM_HD void gm_compact_values_##U(size_t a, size_t b, const bool *m, int64_t o, int64_t hi, const U *x, \
                                   U *y) {                                                           \
    size_t p = (size_t)o, end = (size_t)hi;                                                          \
    GM_COMPACT_VALUES_SIMD(U, a, b, m, p, end, x, y)                                                 \
    for (size_t k = a; k < b && p < end; k++) {                                                      \
      y[p] = x[k];                                                                                   \
      p += m[k];                                                                                     \
    }                                                                                                \
  }
GM_COMPACT_VALUES_(uint8_t)
GM_COMPACT_VALUES_(uint16_t)
GM_COMPACT_VALUES_(uint32_t)
GM_COMPACT_VALUES_(uint64_t)
/* 16-byte elements (complex128) move as the struct: no wider integer */
GM_COMPACT_VALUES_(gm_complex128)
#undef GM_COMPACT_VALUES_

/* Pass 3's inverse (masked_scatter_): the true m[k] of [a, b) take src[o,
 * hi) in order.  Every x[k] of the chunk is stored, unselected ones with
 * their own value, and src is read at min(p, hi - 1), so no branch waits
 * for the mask and no read passes the chunk's part of src (the caller
 * skips a chunk with none: o == hi). */
#define GM_COMPACT_EXPAND_(U)                                                                         \
  GM_HD void gm_compact_expand_##U(size_t a, size_t b, const bool *m, int64_t o, int64_t hi, const U *src, \
                                   U *x) {                                                            \
    if (o >= hi) return;                                                                              \
    int64_t p = o;                                                                                    \
    for (size_t k = a; k < b; k++) {                                                                  \
      const U v = src[p < hi ? p : hi - 1];                                                           \
      const bool t = m[k];                                                                            \
      x[k] = t ? v : x[k];                                                                            \
      p += t;                                                                                         \
    }                                                                                                 \
  }
GM_COMPACT_EXPAND_(uint8_t)
GM_COMPACT_EXPAND_(uint16_t)
GM_COMPACT_EXPAND_(uint32_t)
GM_COMPACT_EXPAND_(uint64_t)
GM_COMPACT_EXPAND_(gm_complex128)
#undef GM_COMPACT_EXPAND_

#endif
