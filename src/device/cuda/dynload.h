/* Libraries of the CUDA backend opened on first use (dynload.c): cuBLAS,
 * cuSOLVER, cuFFT, NVRTC (libs.h) and NCCL (src/dist/nccl.c).  Linked
 * as DT_NEEDED they cost every `require "gpumat"` about 225 MB resident
 * (their relocations, cuBLASLt, NVRTC, nvJitLink), GPU or not; now only a
 * program that opens a CUDA device, compiles with NVRTC, plans a cuFFT
 * or runs a device collective maps them.  cudart stays linked: the nvcc
 * kernels' registration needs it at load, and it is under 1 MB.
 *
 * A library is opened by the soname CMake read from the toolkit it built
 * against (the loader's path, LD_LIBRARY_PATH first, then the module's
 * RUNPATH), else from that toolkit's library directory; the environment
 * variable env, when set, names the file instead (another toolkit's, a
 * wheel's).  Every symbol of its table is resolved at the open, so a
 * missing one fails there, naming it, not at its first call.  No CUDA
 * header here: src/dist/nccl.c uses it too. */
#ifndef GM_DEVICE_CUDA_DYNLOAD_H
#define GM_DEVICE_CUDA_DYNLOAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "../../core/model/status.h"

typedef struct gm_dynlib {
  const char *title;  /* "cuBLAS": the errors name it */
  const char *soname; /* "libcublas.so.13" (CMake, at build time) */
  const char *dir;    /* the toolkit's library directory (CMake) */
  const char *env;    /* "GPUMAT_CUBLAS_LIBRARY": a file name or path that replaces both */
  gm_status fail;     /* the status of a failed load (GM_ECUDA, GM_ENCCL) */
  atomic_bool ready;  /* set (release) once every symbol is bound */
  pthread_mutex_t lock;
  void *handle;
} gm_dynlib;

#define GM_DYNLIB_INIT(title, soname, dir, env, fail) \
  {(title), (soname), (dir), (env), (fail), false, PTHREAD_MUTEX_INITIALIZER, NULL}

/* Resolves the table's symbols from handle (dlsym); on a missing one sets
 * *missing to its name and returns false. */
typedef bool (*gm_dynlib_bind_fn)(void *handle, const char **missing);

/* Opens lib and binds its table once (the first caller under lib->lock;
 * later calls return at once).  A failure is lib->fail with "<title>
 * (<file>) could not be loaded: <dlerror>" or "... has no <symbol>"; the
 * next call tries again. */
gm_status gm_dynlib_load(gm_dynlib *lib, gm_dynlib_bind_fn bind);

/* The file lib was or would be opened from first ($env or the soname). */
const char *gm_dynlib_file(const gm_dynlib *lib);

/* One symbol: dlsym's object pointer to the slot's function pointer type
 * (POSIX guarantees the conversion). */
#define GM_DYNLIB_BIND(handle, table, sym, missing)         \
  do {                                                      \
    void *p_ = dlsym((handle), #sym);                       \
    if (!p_) {                                              \
      *(missing) = #sym;                                    \
      return false;                                         \
    }                                                       \
    (table).sym = (__typeof__((table).sym))p_;              \
  } while (0);

#endif
