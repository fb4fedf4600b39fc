/* The vector loop of gm_move_bytes (move.h): 128 bytes a step, four
 * 32-byte vectors loaded then stored (GCC's vector type: AVX-512/AVX2
 * registers in their clones, two SSE2 halves each in the baseline); the
 * loads and stores are fixed-size memcpy, unaligned moves, not calls.
 * The tail, under 128 bytes, is a short memcpy (vector moves, no
 * `rep movsb`). */
#include "move.h"

#include "../model/simd.h"

typedef unsigned char gm_v32 __attribute__((vector_size(32)));

GM_SIMD_CLONES static void move_loop(unsigned char *restrict d, const unsigned char *restrict s, size_t n) {
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    gm_v32 a, b, c, e;
    memcpy(&a, s + i, 32);
    memcpy(&b, s + i + 32, 32);
    memcpy(&c, s + i + 64, 32);
    memcpy(&e, s + i + 96, 32);
    memcpy(d + i, &a, 32);
    memcpy(d + i + 32, &b, 32);
    memcpy(d + i + 64, &c, 32);
    memcpy(d + i + 96, &e, 32);
  }
  memcpy(d + i, s + i, n - i);
}

void gm_move_apart(void *dst, const void *src, size_t n) { move_loop(dst, src, n); }
