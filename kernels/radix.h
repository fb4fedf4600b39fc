/* The stable LSD radix sort of the sorts along an axis (sort, argsort,
 * mode, unique, median ...: the lines of kernels/scan.h's index-carrying
 * engine from a length on, core/ops/scan.h), shared by the host
 * (src/host/radix.c) and the devices (kernels/radix.cu, which the
 * emulated device runs too).
 *
 * Keys are the order-preserving unsigned images of the elements, 8 bits a
 * pass, sizeof(T) passes: floats with the sign flipped (negative: all bits
 * flipped), -0.0 as 0.0 (equal keys, as the merge sort's GM_SORT_BEFORE)
 * and every NaN the largest key; signed integers with the sign bit
 * flipped; unsigned ones and bool as they are.  Descending sorts take the
 * complement of the image, so NaN comes first there and equal keys still
 * keep their order: the results are the merge sort's exactly (stable,
 * NaN last ascending and first descending).
 *
 * A pass is three pieces, written once here: the histogram of a chunk of
 * the line (gm_radix_hist_E), the exclusive scan of the counts in digit
 * order then chunk order (gm_radix_digit_scan, gm_radix_exclusive), and
 * the stable scatter of a chunk to its offsets (gm_radix_scatter_E).  A
 * long line runs them on chunks in parallel (host: gm_par_for; device:
 * one launch per piece, an item per chunk); many shorter lines run the
 * whole sort of a line in one caller (gm_radix_sort_line_E), lines in
 * parallel. */
#ifndef GM_KERNELS_RADIX_H
#define GM_KERNELS_RADIX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../src/core/model/ctype_list.h"
#include "hd.h"
#include "scan.h"

#define GM_RADIX_DIGITS 256 /* 8-bit digits */
/* Defaults (measured, bench/ordering_bench.lua): lines from this length
 * sort by radix (shorter ones merge sort), and a long line's chunk. */
#define GM_RADIX_MIN_LEN 768
#define GM_RADIX_CHUNK 65536
/* At most this many lines take the chunked form one after the other;
 * more lines sort one per caller, in parallel. */
#define GM_RADIX_FEW_LINES 4

/* The all-ones mask of the low 8 bytes bytes of a key. */
GM_HD uint64_t gm_radix_mask(size_t bytes) { return ~(uint64_t)0 >> (64 - 8 * bytes); }

/* The images of the float rows: NaN the largest, -0.0 as 0.0. */
GM_HD uint64_t gm_radix_fimage_FLOAT(float v) {
  if (v != v) return 0xffffffffu;
  float z = v == 0 ? 0.0f : v;
  uint32_t u;
  memcpy(&u, &z, sizeof u);
  return (u >> 31) ? (uint64_t)(uint32_t)~u : (uint64_t)(u | 0x80000000u);
}
GM_HD uint64_t gm_radix_fimage_DOUBLE(double v) {
  if (v != v) return ~(uint64_t)0;
  double z = v == 0 ? 0.0 : v;
  uint64_t u;
  memcpy(&u, &z, sizeof u);
  return (u >> 63) ? ~u : u | ((uint64_t)1 << 63);
}
/* Integer and bool rows: signed ones ((T)-1 < (T)1) with the sign bit
 * flipped, in sizeof(T) bytes; the conversion to uint64_t is modular. */
#define GM_RADIX_IMAGE_EXACT(T, E, v) \
  ((((uint64_t)(v)) ^ (((T)-1 < (T)1) ? (uint64_t)1 << (8 * sizeof(T) - 1) : 0u)) & gm_radix_mask(sizeof(T)))
#define GM_RADIX_IMAGE_FLOAT(T, E, v) gm_radix_fimage_##E(v)

/* Exclusive scan of c[0, n) in place; returns the total. */
GM_HD size_t gm_radix_exclusive(size_t *c, size_t n) {
  size_t s = 0;
  for (size_t i = 0; i < n; i++) {
    size_t t = c[i];
    c[i] = s;
    s += t;
  }
  return s;
}

/* Digit d of a long line's counts cnt[chunk * 256 + digit]: the counts of
 * the chunks before each chunk (exclusive, in place), the digit's total in
 * tot[d].  After gm_radix_exclusive(tot, 256), chunk c's elements of
 * digit d go from tot[d] + cnt[c * 256 + d] on (digit order, then chunk
 * order: stable). */
GM_HD void gm_radix_digit_scan(size_t d, size_t nchunks, size_t *cnt, size_t *tot) {
  size_t s = 0;
  for (size_t c = 0; c < nchunks; c++) {
    size_t t = cnt[c * GM_RADIX_DIGITS + d];
    cnt[c * GM_RADIX_DIGITS + d] = s;
    s += t;
  }
  tot[d] = s;
}

/* Whether a pass of the digit counts c[0, 256) would leave every element
 * where it is (one digit holds all n): such a pass is skipped. */
GM_HD int gm_radix_trivial(const size_t *c, size_t n) {
  for (size_t d = 0; d < GM_RADIX_DIGITS; d++)
    if (c[d] == n) return 1;
  return 0;
}

/* Per ctype: the key, a chunk's histogram and scatter (src[lo, hi) at
 * stride st; si the elements' 0-based positions, NULL: their index k;
 * di NULL: values only), and the whole sort of one line. */
#define GM_RADIX_FNS_(T, E, K)                                                                             \
  GM_HD uint64_t gm_radix_key_##E(T v, int desc) {                                                         \
    uint64_t k = GM_RADIX_IMAGE_##K(T, E, v);                                                              \
    return desc ? k ^ gm_radix_mask(sizeof(T)) : k;                                                        \
  }                                                                                                        \
  /* cnt[0, 256) += the digits at bit `shift` of src[lo, hi) */                                            \
  GM_HD void gm_radix_hist_##E(int desc, unsigned shift, size_t lo, size_t hi, size_t st, const T *src,     \
                               size_t *cnt) {                                                              \
    for (size_t k = lo; k < hi; k++) cnt[(gm_radix_key_##E(src[k * st], desc) >> shift) & 255u]++;         \
  }                                                                                                        \
  /* src[lo, hi) to dv (and di) at off[digit]++ (in order: stable) */                                      \
  GM_HD void gm_radix_scatter_##E(int desc, unsigned shift, size_t lo, size_t hi, size_t st, const T *src,  \
                                  const int64_t *si, T *dv, int64_t *di, size_t *off) {                    \
    /* three loops: no per-element test of di and si */                                                   \
    if (!di) {                                                                                             \
      for (size_t k = lo; k < hi; k++) {                                                                   \
        T v = src[k * st];                                                                                 \
        dv[off[(gm_radix_key_##E(v, desc) >> shift) & 255u]++] = v;                                        \
      }                                                                                                    \
    } else if (!si) {                                                                                      \
      for (size_t k = lo; k < hi; k++) {                                                                   \
        T v = src[k * st];                                                                                 \
        size_t p = off[(gm_radix_key_##E(v, desc) >> shift) & 255u]++;                                     \
        dv[p] = v, di[p] = (int64_t)k;                                                                     \
      }                                                                                                    \
    } else {                                                                                               \
      for (size_t k = lo; k < hi; k++) {                                                                   \
        T v = src[k * st];                                                                                 \
        size_t p = off[(gm_radix_key_##E(v, desc) >> shift) & 255u]++;                                     \
        dv[p] = v, di[p] = si[k];                                                                          \
      }                                                                                                    \
    }                                                                                                      \
  }                                                                                                        \
  /* Chunk c (of `chunk` elements) of a long line of len: its counts               \
   * cnt[c * 256, +256) (zeroed first), and its scatter to the offsets of            \
   * gm_radix_digit_scan. */                                                                               \
  GM_HD void gm_radix_chunk_hist_##E(int desc, unsigned shift, size_t c, size_t chunk, size_t len, size_t st, \
                                     const T *src, size_t *cnt) {                                          \
    size_t *h = cnt + c * GM_RADIX_DIGITS, lo = c * chunk, hi = len - lo < chunk ? len : lo + chunk;       \
    for (size_t d = 0; d < GM_RADIX_DIGITS; d++) h[d] = 0;                                                 \
    gm_radix_hist_##E(desc, shift, lo, hi, st, src, h);                                                    \
  }                                                                                                        \
  GM_HD void gm_radix_chunk_scatter_##E(int desc, unsigned shift, size_t c, size_t chunk, size_t len,       \
                                        size_t st, const T *src, const int64_t *si, T *dv, int64_t *di,     \
                                        const size_t *cnt, const size_t *tot) {                            \
    size_t off[GM_RADIX_DIGITS], lo = c * chunk, hi = len - lo < chunk ? len : lo + chunk;                 \
    for (size_t d = 0; d < GM_RADIX_DIGITS; d++) off[d] = tot[d] + cnt[c * GM_RADIX_DIGITS + d];           \
    gm_radix_scatter_##E(desc, shift, lo, hi, st, src, si, dv, di, off);                                   \
  }                                                                                                        \
  /* The whole stable sort of the line x (len at stride inner) by one                \
   * caller into wv (and its 0-based positions into wi, unless NULL), through        \
   * wv/wi[0, 2 len); returns the sorted run's offset (0 or len), as                 \
   * gm_ord_sort_E.  One read counts every pass's digits; passes whose digit         \
   * is the same for all elements are skipped. */                                                          \
  GM_HD size_t gm_radix_sort_line_##E(int desc, size_t len, size_t inner, const T *x, T *wv, int64_t *wi) { \
    size_t cnt[sizeof(T) * GM_RADIX_DIGITS], o = 0;                                                        \
    for (size_t i = 0; i < sizeof(T) * GM_RADIX_DIGITS; i++) cnt[i] = 0;                                   \
    for (size_t k = 0; k < len; k++) {                                                                     \
      uint64_t key = gm_radix_key_##E(x[k * inner], desc);                                                 \
      for (unsigned p = 0; p < sizeof(T); p++) cnt[p * GM_RADIX_DIGITS + ((key >> (8 * p)) & 255u)]++;     \
    }                                                                                                      \
    const T *sv = x;                                                                                       \
    const int64_t *si = NULL;                                                                              \
    size_t st = inner;                                                                                     \
    for (unsigned p = 0; p < sizeof(T); p++) {                                                             \
      size_t *c = cnt + p * GM_RADIX_DIGITS;                                                               \
      if (gm_radix_trivial(c, len)) continue;                                                              \
      gm_radix_exclusive(c, GM_RADIX_DIGITS);                                                              \
      gm_radix_scatter_##E(desc, 8 * p, 0, len, st, sv, si, wv + o, wi ? wi + o : NULL, c);                \
      sv = wv + o, si = wi ? wi + o : NULL, st = 1, o = len - o;                                           \
    }                                                                                                      \
    if (sv != x) return len - o;                                                                           \
    for (size_t k = 0; k < len; k++) { /* every key equal: the line as it is */                           \
      wv[k] = x[k * inner];                                                                                \
      if (wi) wi[k] = (int64_t)k;                                                                          \
    }                                                                                                      \
    return 0;                                                                                              \
  }                                                                                                        \
  /* The tail of gm_lines_line_E (kernels/scan.h) on a sorted run s, si:             \
   * argsort's values and 1-based positions at stride inner, or the mode, or         \
   * unique's; y/yi NULL: not written. */                                                                  \
  GM_HD void gm_radix_finish_##E(int op, size_t len, size_t inner, const T *s, const int64_t *si, T *y,     \
                                 int64_t *yi) {                                                            \
    if (op == GM_LINES_MODE) gm_ord_mode_##E(len, s, si, y, yi);                                           \
    if (op == GM_LINES_UNIQUE) gm_ord_unique_##E(len, s, si, y, yi);                                       \
    if (op != GM_LINES_ARGSORT) return;                                                                    \
    for (size_t k = 0; k < len; k++) {                                                                     \
      if (y) y[k * inner] = s[k];                                                                          \
      if (yi) yi[k * inner] = si[k] + 1;                                                                   \
    }                                                                                                      \
  }                                                                                                        \
  /* One line of the sorting ops (argsort with flag descending, mode,                \
   * unique; yi NULL: sort's values only) by one caller, as gm_lines_line_E          \
   * with the radix sort. */                                                                               \
  GM_HD void gm_radix_lines_line_##E(int op, int flag, size_t len, size_t inner, const T *x, T *y, int64_t *yi, \
                                     T *wv, int64_t *wi) {                                                 \
    size_t o = gm_radix_sort_line_##E(op == GM_LINES_ARGSORT && flag, len, inner, x, wv, yi ? wi : NULL);  \
    gm_radix_finish_##E(op, len, inner, wv + o, yi ? wi + o : NULL, y, yi);                                \
  }
#define GM_RADIX_ROW_(K, T, E, ...) GM_RADIX_FNS_(T, E, K)
GM_FLOAT_CTYPES_WITH(GM_RADIX_ROW_, FLOAT)
GM_BOOL_CTYPES_WITH(GM_RADIX_ROW_, EXACT)
GM_INTEGER_CTYPES_WITH(GM_RADIX_ROW_, EXACT)
#undef GM_RADIX_ROW_
#undef GM_RADIX_FNS_

/* (key, position) pairs of the 4-byte types (float, int32, uint32), which
 * the host (src/host/radix.c) and the devices (kernels/radix.cu) sort
 * instead of values and int64 positions: key << 32 | position, 8 bytes
 * per element and pass instead of 12.  Equal keys keep their positions
 * ascending, so a pair's order as a uint64 is the stable order.  The
 * element of a sorted pair comes back from its key, except for a float
 * whose key stands for several elements (0.0 and -0.0, the NaNs): that
 * one is read from x[position * st]. */
GM_HD uint64_t gm_radix_pair_FLOAT(float v, int desc, uint32_t pos) {
  return (uint64_t)gm_radix_key_FLOAT(v, desc) << 32 | pos;
}
GM_HD uint64_t gm_radix_pair_INT32(int32_t v, int desc, uint32_t pos) {
  return (uint64_t)gm_radix_key_INT32(v, desc) << 32 | pos;
}
GM_HD uint64_t gm_radix_pair_UINT32(uint32_t v, int desc, uint32_t pos) {
  return (uint64_t)gm_radix_key_UINT32(v, desc) << 32 | pos;
}
/* The key of pair pr as it was before descending's complement. */
GM_HD uint32_t gm_radix_pair_key(uint64_t pr, int desc) { return (uint32_t)(pr >> 32) ^ (desc ? 0xffffffffu : 0u); }
GM_HD float gm_radix_pair_value_FLOAT(uint64_t pr, int desc, const float *x, size_t st) {
  uint32_t k = gm_radix_pair_key(pr, desc), u = (k >> 31) ? k & 0x7fffffffu : ~k;
  if (k == 0x80000000u || k == 0xffffffffu) return x[(size_t)(uint32_t)pr * st];
  float v;
  memcpy(&v, &u, sizeof v);
  return v;
}
GM_HD int32_t gm_radix_pair_value_INT32(uint64_t pr, int desc, const int32_t *x, size_t st) {
  (void)x, (void)st;
  uint32_t u = gm_radix_pair_key(pr, desc) ^ 0x80000000u;
  int32_t v;
  memcpy(&v, &u, sizeof v);
  return v;
}
GM_HD uint32_t gm_radix_pair_value_UINT32(uint64_t pr, int desc, const uint32_t *x, size_t st) {
  (void)x, (void)st;
  return gm_radix_pair_key(pr, desc);
}

/* Whether the lines of op (ctype, length len) sort as pairs: sort and
 * argsort of the 4-byte types, positions within 32 bits. */
GM_HD int gm_radix_pairs_fit(int ctype, int op, size_t len) {
  return op == GM_LINES_ARGSORT && (ctype == GM_FLOAT || ctype == GM_INT32 || ctype == GM_UINT32) &&
         len <= 0xffffffffu;
}

/* Whether many lines of op (length len) of the other types sort on a
 * device as keys and uint32 positions (kernels/radix.cu, key_many): sort
 * and argsort, positions within 32 bits. */
GM_HD int gm_radix_keys_fit(int op, size_t len) { return op == GM_LINES_ARGSORT && len <= 0xffffffffu; }

/* Whether op of the index-carrying engine sorts its lines (the ops the
 * radix sort takes over from a length on). */
GM_HD int gm_radix_sorting_op(int op) {
  return op == GM_LINES_ARGSORT || op == GM_LINES_MODE || op == GM_LINES_UNIQUE;
}
/* The chunks of a long line of len. */
GM_HD size_t gm_radix_chunks(size_t len, size_t chunk) { return len / chunk + (len % chunk != 0); }

#endif
