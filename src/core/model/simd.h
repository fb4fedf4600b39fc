/* GM_SIMD_CLONES: compile a host loop for AVX-512 and AVX2+FMA besides the
 * baseline, picked once at load time (GCC target_clones/ifunc).  The
 * library is built for generic x86-64, yet the elementwise loops must keep
 * up with SIMD-dispatched numpy; the element functions inline into each
 * clone and vectorize for its instruction set.  Elsewhere (other
 * compilers, other architectures, sanitizer builds) it is empty.  Here, in
 * the core's lowest layer, not in the host backend, because the core's
 * own host loops (the conversions of core/ops/convert.c, the moves of
 * core/mem/move.c) take it too. */
#ifndef GM_CORE_MODEL_SIMD_H
#define GM_CORE_MODEL_SIMD_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(GPUMAT_SANITIZE) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define GM_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
/* For a loop written with GCC's vector types, whose width is fixed in the
 * source (target_clones would lower 32-byte vectors on the baseline clone
 * element by element): a 32-byte version marked GM_AVX2_TARGET, called
 * where GM_CPU_HAS_AVX2(), and a 16-byte one for the rest. */
#define GM_AVX2_TARGET __attribute__((target("arch=x86-64-v3")))
#define GM_CPU_HAS_AVX2() __builtin_cpu_supports("avx2")
#else
#define GM_SIMD_CLONES
#define GM_AVX2_TARGET
#define GM_CPU_HAS_AVX2() 0
#endif

#endif
