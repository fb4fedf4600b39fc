/* GM_SIMD_CLONES (core/model/simd.h) and the loops the host backend's
 * files share. */
#ifndef GM_HOST_SIMD_H
#define GM_HOST_SIMD_H

#include "../core/model/simd.h"

/* GM_LANE_SUM(T) defines gm_lane_sum_T(x, n): the sum of n elements of
 * type T accumulated in double in GM_SUM_LANES independent lanes, so the
 * loop vectorizes without reassociating.  The whole-mat sum and the row
 * sums along an axis share it, so both round the same way. */
#define GM_SUM_LANES 16
#define GM_LANE_SUM(T)                                                            \
  GM_SIMD_CLONES static double gm_lane_sum_##T(const T *x, size_t n) {            \
    double acc[GM_SUM_LANES] = {0};                                               \
    size_t i = 0;                                                                 \
    for (; i + GM_SUM_LANES <= n; i += GM_SUM_LANES)                              \
      for (size_t k = 0; k < GM_SUM_LANES; k++) acc[k] += (double)x[i + k];       \
    for (; i < n; i++) acc[0] += (double)x[i];                                    \
    double s = 0;                                                                 \
    for (size_t k = 0; k < GM_SUM_LANES; k++) s += acc[k];                        \
    return s;                                                                     \
  }

#endif
