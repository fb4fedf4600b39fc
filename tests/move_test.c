/* gm_move_bytes (src/core/mem/move.h): every path against a byte-by-byte
 * reference move.  Destinations a few bytes ahead of the source modulo
 * 4 KB take the vector loop (gm_move_apart), other distances and
 * overlapping ranges memmove; sizes around the loop's 2 KB threshold and
 * its 128-byte steps, distances 0-130 bytes modulo 4 KB in both
 * directions, overlaps forward and backward.  Run by spec/c_api_spec.lua;
 * exits 0 when every check passes. */
#include <stdlib.h>
#include <string.h>

#include "core/mem/move.h"

#include "check.h"

enum { ARENA = 1 << 19 };

static unsigned char *arena, *ref;

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 131u + seed * 7u + (i >> 8));
}

/* The reference: a move through a copy (memmove's meaning, no memmove). */
static void ref_move(unsigned char *base, size_t d, size_t s, size_t n) {
  unsigned char *tmp = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++) tmp[i] = base[s + i];
  for (size_t i = 0; i < n; i++) base[d + i] = tmp[i];
  free(tmp);
}

/* Moves n bytes from offset s to offset d of the arena and its copy,
 * compares the whole arena (bytes outside the destination untouched). */
static void one(size_t d, size_t s, size_t n, unsigned seed) {
  fill(arena, ARENA, seed);
  memcpy(ref, arena, ARENA);
  gm_move_bytes(arena + d, arena + s, n);
  ref_move(ref, d, s, n);
  if (memcmp(arena, ref, ARENA) != 0) {
    size_t k = 0;
    while (arena[k] == ref[k]) k++;
    fprintf(stderr, "move of %zu bytes from %zu to %zu differs at byte %zu\n", n, s, d, k);
    CHECK(0);
  }
}

int main(void) {
  arena = aligned_alloc(4096, ARENA);
  ref = aligned_alloc(4096, ARENA);
  CHECK(arena && ref);
  if (!arena || !ref) return 1;
  static const size_t sizes[] = {0, 1, 127, 2047, 2048, 2049, 2048 + 127, 2048 + 128, 4096, 4096 + 7, 40000 + 3, 60003};
  unsigned seed = 1;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k];
    for (size_t ahead = 0; ahead <= 130; ahead += (ahead < 70 ? 1 : 30)) {
      /* apart: the destination ahead (or behind) by ahead modulo 4 KB */
      one(8192 + ahead + 4096 * 60, 8192, n, seed++);
      one(8192, 8192 + 4096 * 60 + ahead, n, seed++);
      one(64 + ahead, 4096 * 100 + 64, n, seed++);
      /* overlapping: by ahead bytes either way (memmove's cases) */
      if (n > 0) {
        one(4096 + ahead, 4096, n, seed++);
        one(4096, 4096 + ahead, n, seed++);
      }
    }
  }
  free(arena);
  free(ref);
  if (gm_test_failed) fprintf(stderr, "%d check(s) failed\n", atomic_load(&gm_test_failed));
  else printf("move_test: all checks passed\n");
  return gm_test_failed ? 1 : 0;
}
