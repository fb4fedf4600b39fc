/* The CUDA libraries gpumat calls, opened on first use (dynload.h says
 * why and how): ONE list per library of the symbols gpumat uses, which
 * gives the table's function pointers (typed from the library's own
 * header), their resolution at the library's first use (all at once,
 * under its lock) and the check that resolves every table against the
 * installed toolkit (spec/cuda_libs_spec.lua).  A call goes through the
 * table, gm_cublas.cublasSgemm_v2(...) (cublas_v2.h's cublasSgemm names
 * the same member); a library is loaded before: cuBLAS and cuSOLVER at
 * device init, cuFFT at a plan, NVRTC at a compile, NCCL at a
 * communicator.  A symbol gpumat starts to call is a row here, or the
 * build fails (no such member). */
#ifndef GM_DEVICE_CUDA_LIBS_H
#define GM_DEVICE_CUDA_LIBS_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <cusolverDn.h>
#include <nvrtc.h>
#ifdef GPUMAT_HAVE_NCCL
#include <nccl.h>
#endif

#include "dynload.h"

/* X(prefix##S##name) ... for the four BLAS/LAPACK types */
#define GM_SDCZ_(X, pre, name) X(pre##S##name) X(pre##D##name) X(pre##C##name) X(pre##Z##name)
#define GM_SD_(X, pre, name) X(pre##S##name) X(pre##D##name)
#define GM_CZ_(X, pre, name) X(pre##C##name) X(pre##Z##name)

/* blas.c, device.c, solver.c's batched LU */
#define GM_CUBLAS_SYMBOLS(X)                                                                              \
  X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasSetStream_v2) X(cublasSetPointerMode_v2)               \
  X(cublasSetMathMode) X(cublasGetStatusString) X(cublasGemmEx)                                         \
  GM_SD_(X, cublas, asum_v2) GM_SD_(X, cublas, nrm2_v2) GM_SD_(X, cublas, dot_v2)                        \
  GM_SD_(X, cublas, axpy_v2) GM_SD_(X, cublas, copy_v2) GM_SD_(X, cublas, scal_v2)                       \
  GM_SD_(X, cublas, geam) GM_SDCZ_(X, cublas, gemm_v2) GM_SDCZ_(X, cublas, gemmStridedBatched)           \
  GM_SDCZ_(X, cublas, trsm_v2) GM_SDCZ_(X, cublas, getrfBatched) GM_SDCZ_(X, cublas, getrsBatched)

/* cusolverDnXgeev: CUDA 12.6+ (solver.c's xgeev) */
#if CUDART_VERSION >= 12060
#define GM_CUSOLVER_XGEEV_(X) X(cusolverDnXgeev_bufferSize) X(cusolverDnXgeev)
#else
#define GM_CUSOLVER_XGEEV_(X)
#endif

/* solver.c, device.c */
#define GM_CUSOLVER_SYMBOLS(X)                                                                            \
  X(cusolverDnCreate) X(cusolverDnDestroy) X(cusolverDnSetStream)                                        \
  GM_SDCZ_(X, cusolverDn, getrf_bufferSize) GM_SDCZ_(X, cusolverDn, getrf) GM_SDCZ_(X, cusolverDn, getrs) \
  GM_SDCZ_(X, cusolverDn, potrf_bufferSize) GM_SDCZ_(X, cusolverDn, potrf)                               \
  GM_SDCZ_(X, cusolverDn, geqrf_bufferSize) GM_SDCZ_(X, cusolverDn, geqrf)                               \
  GM_SD_(X, cusolverDn, orgqr_bufferSize) GM_SD_(X, cusolverDn, orgqr)                                   \
  GM_CZ_(X, cusolverDn, ungqr_bufferSize) GM_CZ_(X, cusolverDn, ungqr)                                   \
  GM_SD_(X, cusolverDn, syevd_bufferSize) GM_SD_(X, cusolverDn, syevd)                                   \
  GM_CZ_(X, cusolverDn, heevd_bufferSize) GM_CZ_(X, cusolverDn, heevd)                                   \
  GM_SDCZ_(X, cusolverDn, gesvd_bufferSize) GM_SDCZ_(X, cusolverDn, gesvd)                               \
  GM_SDCZ_(X, cusolverDn, potrfBatched)                                                                  \
  GM_SD_(X, cusolverDn, syevjBatched_bufferSize) GM_SD_(X, cusolverDn, syevjBatched)                     \
  GM_CZ_(X, cusolverDn, heevjBatched_bufferSize) GM_CZ_(X, cusolverDn, heevjBatched)                     \
  GM_SDCZ_(X, cusolverDn, gesvdjBatched_bufferSize) GM_SDCZ_(X, cusolverDn, gesvdjBatched)               \
  X(cusolverDnCreateSyevjInfo) X(cusolverDnDestroySyevjInfo) X(cusolverDnCreateGesvdjInfo)               \
  X(cusolverDnDestroyGesvdjInfo) X(cusolverDnXgesvdjSetSortEig) X(cusolverDnCreateParams)                \
  X(cusolverDnDestroyParams) GM_CUSOLVER_XGEEV_(X)

/* fft.c */
#define GM_CUFFT_SYMBOLS(X)                                                                               \
  X(cufftPlanMany) X(cufftCreate) X(cufftMakePlanMany64) X(cufftSetStream) X(cufftDestroy)              \
  X(cufftExecC2C) X(cufftExecZ2Z) X(cufftExecR2C) X(cufftExecD2Z) X(cufftExecC2R) X(cufftExecZ2D)

/* rtk.c */
#define GM_NVRTC_SYMBOLS(X)                                                                               \
  X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcCreateProgram) X(nvrtcCompileProgram)                  \
  X(nvrtcDestroyProgram) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetPTXSize)             \
  X(nvrtcGetPTX) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN)

/* src/dist/nccl.c */
#define GM_NCCL_SYMBOLS(X)                                                                                \
  X(ncclGetErrorString) X(ncclGetUniqueId) X(ncclCommInitRankConfig) X(ncclCommGetAsyncError)            \
  X(ncclCommAbort) X(ncclCommFinalize) X(ncclCommDestroy) X(ncclGroupStart) X(ncclGroupEnd)              \
  X(ncclAllReduce) X(ncclBroadcast) X(ncclAllGather) X(ncclReduceScatter) X(ncclSend) X(ncclRecv)

/* The libraries: X(id, ID, title, status of a failed load, symbol list);
 * the soname and the directory come from CMake (GPUMAT_<ID>_SONAME,
 * GPUMAT_<ID>_DIR: cmake/Cuda.cmake), the variable that names another
 * file is GPUMAT_<ID>_LIBRARY. */
#define GM_CUDA_LIBS_BASE_(X)                                       \
  X(cublas, CUBLAS, "cuBLAS", GM_ECUDA, GM_CUBLAS_SYMBOLS)          \
  X(cusolver, CUSOLVER, "cuSOLVER", GM_ECUDA, GM_CUSOLVER_SYMBOLS)  \
  X(cufft, CUFFT, "cuFFT", GM_ECUDA, GM_CUFFT_SYMBOLS)              \
  X(nvrtc, NVRTC, "NVRTC", GM_ECUDA, GM_NVRTC_SYMBOLS)
#ifdef GPUMAT_HAVE_NCCL
#define GM_CUDA_LIBS(X) GM_CUDA_LIBS_BASE_(X) X(nccl, NCCL, "NCCL", GM_ENCCL, GM_NCCL_SYMBOLS)
#else
#define GM_CUDA_LIBS(X) GM_CUDA_LIBS_BASE_(X)
#endif

/* gm_<id>: the table (gm_cublas_api gm_cublas ...); gm_<id>_load(): opens
 * the library and fills it (once; GM_ECUDA, or GM_ENCCL for NCCL, with
 * the file and dlerror when it cannot). */
#define GM_LIB_MEMBER_(sym) __typeof__(sym) *sym;
#define GM_LIB_DECLARE_(id, ID, title, fail, LIST) \
  typedef struct gm_##id##_api {        \
    LIST(GM_LIB_MEMBER_)                \
  } gm_##id##_api;                      \
  extern gm_##id##_api gm_##id;         \
  gm_status gm_##id##_load(void);
GM_CUDA_LIBS(GM_LIB_DECLARE_)
#undef GM_LIB_DECLARE_

#endif
