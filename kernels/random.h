/* Random numbers: Philox4x32-10 (Salmon et al., "Parallel random numbers:
 * as easy as 1, 2, 3", SC 2011) and the conversions to samples.
 *
 * Philox is counter-based: block b of a stream with key k is
 * philox(counter = {lo32(b), hi32(b), 0, 0}, key = {lo32(k), hi32(k)}), four
 * 32-bit words that depend on nothing else.  So a fill is embarrassingly
 * parallel and the host and a GPU produce the same values: element i of a
 * fill that starts at block c takes block c + i / GM_RANDOM_PER_BLOCK(t),
 * lane i % GM_RANDOM_PER_BLOCK(t):
 *   float  uniform:  4 per block, one 32-bit word each
 *   double uniform:  2 per block, two words each (53 bits)
 *   float  gaussian: 4 per block, Box-Muller on word pairs (0,1), (2,3)
 *   double gaussian: 2 per block, Box-Muller on (w0w1, w2w3) as 64-bit
 * A fill of n elements consumes gm_random_n_blocks(per, n) blocks. */
#ifndef GM_KERNELS_RANDOM_H
#define GM_KERNELS_RANDOM_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "../src/core/model/ctype_list.h"
#include "hd.h"

#define GM_RANDOM_PER_BLOCK_FLOAT 4
#define GM_RANDOM_PER_BLOCK_DOUBLE 2

GM_HD uint64_t gm_random_n_blocks(size_t per_block, size_t n) {
  return (uint64_t)((n + per_block - 1) / per_block);
}

GM_HD void gm_philox_round(uint32_t c[4], const uint32_t k[2]) {
  const uint64_t p0 = (uint64_t)0xD2511F53u * c[0];
  const uint64_t p1 = (uint64_t)0xCD9E8D57u * c[2];
  const uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
  const uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
  const uint32_t c1 = c[1], c3 = c[3];
  c[0] = hi1 ^ c1 ^ k[0];
  c[1] = lo1;
  c[2] = hi0 ^ c3 ^ k[1];
  c[3] = lo0;
}

/* Philox4x32 with 10 rounds: out = philox(ctr, key). */
GM_HD void gm_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
  uint32_t k[2] = {key[0], key[1]};
  for (int r = 0; r < 10; r++) {
    if (r > 0) {
      k[0] += 0x9E3779B9u;
      k[1] += 0xBB67AE85u;
    }
    gm_philox_round(c, k);
  }
  for (int i = 0; i < 4; i++) out[i] = c[i];
}

/* Block `block` of the stream with key `key`. */
GM_HD void gm_random_block(uint64_t key, uint64_t block, uint32_t out[4]) {
  const uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), 0u, 0u};
  const uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
  gm_philox4x32_10(ctr, k, out);
}

/* Uniform in [0, limit): u = top 24 bits / 2^24 is exact in float, but
 * u * limit can round up to limit itself, so such a product is replaced
 * by `below`, the largest float under limit (the interval stays open). */
GM_HD float gm_uniform_float(uint32_t w, float limit, float below) {
  const float x = (float)(w >> 8) * 5.9604644775390625e-8f * limit; /* 2^-24 */
  return x < limit ? x : below;
}

/* Same with 53 bits from two words, for doubles. */
GM_HD double gm_uniform_double(uint32_t w0, uint32_t w1, double limit, double below) {
  const uint64_t bits = (((uint64_t)w1 << 32) | w0) >> 11;
  const double x = (double)bits * 1.1102230246251565e-16 * limit; /* 2^-53 */
  return x < limit ? x : below;
}

/* Box-Muller from u1 in (0, 1] (log(u1) finite) and u2 in [0, 1), in
 * double for both ctypes so float samples are the rounded double ones. */
GM_HD void gm_box_muller(double u1, double u2, double *z0, double *z1) {
  const double r = sqrt(-2.0 * log(u1));
  const double a = 6.283185307179586 * u2;
  *z0 = r * cos(a);
  *z1 = r * sin(a);
}

/* Two float gaussians from two words (32-bit uniforms). */
GM_HD void gm_gaussian_float_pair(uint32_t wa, uint32_t wb, double mean, double stddev, float *x0,
                                  float *x1) {
  double z0, z1;
  gm_box_muller(((double)wa + 1.0) * 2.3283064365386963e-10, (double)wb * 2.3283064365386963e-10,
                &z0, &z1); /* 2^-32 */
  *x0 = (float)(mean + stddev * z0);
  *x1 = (float)(mean + stddev * z1);
}

/* Two double gaussians from one block (53-bit uniforms). */
GM_HD void gm_gaussian_double_pair(const uint32_t w[4], double mean, double stddev, double *x0,
                                   double *x1) {
  const uint64_t a = (((uint64_t)w[1] << 32) | w[0]) >> 11;
  const uint64_t b = (((uint64_t)w[3] << 32) | w[2]) >> 11;
  double z0, z1;
  gm_box_muller(((double)a + 1.0) * 1.1102230246251565e-16, (double)b * 1.1102230246251565e-16,
                &z0, &z1);
  *x0 = mean + stddev * z0;
  *x1 = mean + stddev * z1;
}

/* Block-level element functions: fill the (at most per-block) values of
 * one block; `count` < per-block only for the last block of a fill. */
GM_HD void gm_uniform_block_float(uint64_t key, uint64_t block, float limit, float below, float *x,
                                  size_t count) {
  uint32_t w[4];
  gm_random_block(key, block, w);
  for (size_t j = 0; j < count; j++) x[j] = gm_uniform_float(w[j], limit, below);
}

GM_HD void gm_uniform_block_double(uint64_t key, uint64_t block, double limit, double below,
                                   double *x, size_t count) {
  uint32_t w[4];
  gm_random_block(key, block, w);
  for (size_t j = 0; j < count; j++) x[j] = gm_uniform_double(w[2 * j], w[2 * j + 1], limit, below);
}

GM_HD void gm_gaussian_block_float(uint64_t key, uint64_t block, double mean, double stddev,
                                   float *x, size_t count) {
  uint32_t w[4];
  float v[4];
  gm_random_block(key, block, w);
  gm_gaussian_float_pair(w[0], w[1], mean, stddev, &v[0], &v[1]);
  gm_gaussian_float_pair(w[2], w[3], mean, stddev, &v[2], &v[3]);
  for (size_t j = 0; j < count; j++) x[j] = v[j];
}

GM_HD void gm_gaussian_block_double(uint64_t key, uint64_t block, double mean, double stddev,
                                    double *x, size_t count) {
  uint32_t w[4];
  double v[2];
  gm_random_block(key, block, w);
  gm_gaussian_double_pair(w, mean, stddev, &v[0], &v[1]);
  for (size_t j = 0; j < count; j++) x[j] = v[j];
}

#endif
