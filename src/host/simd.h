/* GM_SIMD_CLONES: compile a host loop for AVX-512 and AVX2+FMA besides the
 * baseline, picked once at load time (GCC target_clones/ifunc).  The
 * library is built for generic x86-64, yet the elementwise loops must keep
 * up with SIMD-dispatched numpy; the element functions inline into each
 * clone and vectorize for its instruction set.  Elsewhere (other
 * compilers, other architectures, sanitizer builds) it is empty. */
#ifndef GM_HOST_SIMD_H
#define GM_HOST_SIMD_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(GPUMAT_SANITIZE) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define GM_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GM_SIMD_CLONES
#endif

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
