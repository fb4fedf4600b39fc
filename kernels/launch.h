/* Launch geometry shared by the CUDA launchers (choose-1d-block-and-grid). */
#ifndef GM_KERNELS_LAUNCH_H
#define GM_KERNELS_LAUNCH_H

#include <stddef.h>

#define GM_WARP_SIZE 32
#define GM_MAX_BLOCK 256
#define GM_MAX_GRID 65535

/* Block of up to 256 threads (whole warps), grid so that a grid-stride
 * loop covers n elements. */
static inline void gm_launch_1d(size_t n, int *block, int *grid) {
  size_t b = n < GM_MAX_BLOCK ? (n + GM_WARP_SIZE - 1) / GM_WARP_SIZE * GM_WARP_SIZE : GM_MAX_BLOCK;
  if (b == 0) b = GM_WARP_SIZE;
  size_t g = n / b + (n % b != 0); /* no n + b - 1: n may be near SIZE_MAX */
  if (g == 0) g = 1;
  if (g > GM_MAX_GRID) g = GM_MAX_GRID;
  *block = (int)b;
  *grid = (int)g;
}

#endif
