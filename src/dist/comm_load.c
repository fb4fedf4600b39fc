/* comm.h as the core sees it: every function goes to gpumat/dist_mpi.so
 * (see mpi_api.h), opened by the first gm_dist_load (require
 * "gpumat.dist", or gm_dist_init), so the core never links libmpi.  Until
 * then the process group is uninitialised and each function gives its
 * value for that state. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_api.h"

static void *module;
#define X(ret, name, params, args, absent) static ret(*p_##name) params;
GM_DIST_MPI_API(X)
#undef X

static gm_status host_fail(gm_status st, const char *message) { return gm_fail(st, "%s", message); }

/* Opens path and binds its functions; on failure appends why to why. */
static bool open_module(const char *path, char *why, size_t n) {
  static const gm_dist_mpi_host host = {GM_DIST_MPI_ABI, host_fail, gm_set_lib_error_info};
  size_t used = strlen(why);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(why + used, n - used, "%s%s", used ? "; " : "", dlerror());
    return false;
  }
  gm_dist_mpi_bind_fn bind = (gm_dist_mpi_bind_fn)dlsym(h, "gm_dist_mpi_bind");
  bool ok = bind != NULL;
#define X(ret, name, params, args, absent) ok = ok && (p_##name = (ret(*) params)dlsym(h, #name)) != NULL;
  GM_DIST_MPI_API(X)
#undef X
  int abi = ok ? bind(&host) : -1;
  if (abi != 0) {
    snprintf(why + used, n - used, "%s%s: %s", used ? "; " : "", path,
             abi < 0 ? "not a gpumat MPI module" : "built for another gpumat");
    dlclose(h);
    return false;
  }
  module = h;
  return true;
}

gm_status gm_dist_load(void) {
  if (module) return GM_OK;
  char why[1024] = "", path[4096];
  const char *env = getenv("GPUMAT_DIST_MPI");
  if (env && *env) {
    if (open_module(env, why, sizeof why)) return GM_OK;
  } else {
    /* beside the object that holds this code: core.so's folder, or
     * gpumat/ next to libgpumat */
    Dl_info info;
    const char *self = dladdr((void *)gm_dist_load, &info) && info.dli_fname ? info.dli_fname : "";
    const char *slash = strrchr(self, '/');
    int dir = slash ? (int)(slash - self) : 1;
    const char *base = slash ? self : ".";
    static const char *const names[] = {"dist_mpi.so", "gpumat/dist_mpi.so"};
    for (int i = 0; i < 2; i++) {
      snprintf(path, sizeof path, "%.*s/%s", dir, base, names[i]);
      if (open_module(path, why, sizeof why)) return GM_OK;
    }
  }
  return gm_fail(GM_EMPI, "cannot load MPI (gpumat/dist_mpi.so, or $GPUMAT_DIST_MPI): %s", why);
}

gm_status gm_dist_init_loading(void) {
  GM_TRY(gm_dist_load());
  return p_gm_dist_init();
}

#define X(ret, name, params, args, absent) \
  ret name params { return module ? p_##name args : absent; }
GM_DIST_MPI_API(X)
#undef X
