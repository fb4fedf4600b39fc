/* GM_HD marks functions compiled for both host and device: under nvcc it
 * is __host__ __device__, in plain C it is static inline. */
#ifndef GM_KERNELS_HD_H
#define GM_KERNELS_HD_H

#ifdef __CUDACC__
#define GM_HD __host__ __device__ static inline
#elif defined(GM_EMU_KERNELS)
/* The emulated device's kernels are target_clones (emu_kernels.h), and
 * g++ does not inline a plain inline function into a clone of another
 * arch: gm_expf stayed a call per element and the exp loops scalar. */
#define GM_HD static inline __attribute__((always_inline))
#else
#define GM_HD static inline
#endif

#endif
