/* GM_HD marks functions compiled for both host and device: under nvcc it
 * is __host__ __device__, in plain C it is static inline. */
#ifndef GM_KERNELS_HD_H
#define GM_KERNELS_HD_H

#ifdef __CUDACC__
#define GM_HD __host__ __device__ static inline
#else
#define GM_HD static inline
#endif

#endif
