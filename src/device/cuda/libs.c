/* The tables of libs.h and their loaders; the list of libraries for
 * gm_cuda_library (the check of every table against the installed
 * toolkit). */
#include "libs.h"

#include <dlfcn.h>

#include "../../core/mem/device.h"

/* cmake/Cuda.cmake defines them (and tools/suite.d/25-cuda-compat.sh) */
#if !defined(GPUMAT_CUBLAS_SONAME) || !defined(GPUMAT_CUBLAS_DIR)
#error "the CUDA libraries' sonames come from CMake (cmake/Cuda.cmake: GPUMAT_<LIB>_SONAME, GPUMAT_<LIB>_DIR)"
#endif

#define GM_LIB_COUNT_(sym) +1
#define GM_LIB_BIND_(sym) GM_DYNLIB_BIND(handle, t, sym, missing)
/* (bound into a local table first: gm_<id> is written only once every
 * symbol is there) */
#define GM_LIB_DEFINE_(id, ID, title, fail, LIST)                                                     \
  gm_##id##_api gm_##id;                                                                              \
  static gm_dynlib id##_lib =                                                                         \
      GM_DYNLIB_INIT(title, GPUMAT_##ID##_SONAME, GPUMAT_##ID##_DIR, "GPUMAT_" #ID "_LIBRARY", fail); \
  static bool id##_bind(void *handle, const char **missing) {                                         \
    gm_##id##_api t;                                                                                  \
    LIST(GM_LIB_BIND_)                                                                                \
    gm_##id = t;                                                                                      \
    return true;                                                                                      \
  }                                                                                                   \
  gm_status gm_##id##_load(void) { return gm_dynlib_load(&id##_lib, id##_bind); }
GM_CUDA_LIBS(GM_LIB_DEFINE_)

typedef struct library {
  gm_dynlib *lib;
  gm_status (*load)(void);
  int n_symbols;
} library;

#define GM_LIB_ROW_(id, ID, title, fail, LIST) {&id##_lib, gm_##id##_load, 0 LIST(GM_LIB_COUNT_)},
static const library libraries[] = {GM_CUDA_LIBS(GM_LIB_ROW_)};
#define N_LIBRARIES ((int)(sizeof libraries / sizeof libraries[0]))

bool gm_cuda_library(int i, gm_cuda_library_info *out) {
  if (i < 0 || i >= N_LIBRARIES) return false;
  out->name = libraries[i].lib->title;
  out->file = gm_dynlib_file(libraries[i].lib);
  out->n_symbols = libraries[i].n_symbols;
  return true;
}

gm_status gm_cuda_library_load(int i) {
  if (i < 0 || i >= N_LIBRARIES) return gm_fail(GM_ERANGE, "no CUDA library %d", i);
  return libraries[i].load();
}
