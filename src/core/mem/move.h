/* gm_move_bytes: memmove for mat storage.  glibc 2.36 moves 2 KB or more
 * with `rep movsb`, which on AMD Zen 3 (this project's CI and bench
 * machines) runs 10-30x slower when the destination is a few bytes ahead
 * of the source modulo 4 KB (the stores then alias the loads that
 * follow them): 400 KB from a page to the page + 4 bytes took 189 µs,
 * between aligned pages 12.6 (bench/RESULTS.md).  A slice assignment
 * `y[{{2, n}}] = x` of floats, a copy into any view whose displacement is
 * not a multiple of 16 elements, met it.  Those moves go through a plain
 * vector loop (gm_move_apart, core/mem/move.c), as fast as memmove on
 * every other distance; the rest, and overlapping ranges, through
 * memmove. */
#ifndef GM_CORE_MEM_MOVE_H
#define GM_CORE_MEM_MOVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* below this glibc moves with vector registers, whatever the distance */
#define GM_MOVE_LOOP_FROM 2048

/* dst[0..n) := src[0..n) for ranges that do not overlap, without memmove */
void gm_move_apart(void *dst, const void *src, size_t n);

/* whether [dst, dst + n) and [src, src + n) do not overlap */
static inline bool gm_bytes_apart(const void *dst, const void *src, size_t n) {
  uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
  return d >= s ? d - s >= n : s - d >= n;
}

static inline void gm_move_bytes(void *dst, const void *src, size_t n) {
  size_t ahead = (size_t)(((uintptr_t)dst - (uintptr_t)src) & 4095); /* dst's lead over src modulo 4 KB */
  if (n >= GM_MOVE_LOOP_FROM && ahead != 0 && ahead < 64 && gm_bytes_apart(dst, src, n))
    gm_move_apart(dst, src, n);
  else
    memmove(dst, src, n);
}

#endif
