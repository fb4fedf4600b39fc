/* The on-demand library loader of the CUDA backend (dynload.h). */
#include "dynload.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gm_dynlib_file(const gm_dynlib *lib) {
  const char *e = lib->env ? getenv(lib->env) : NULL;
  return e && *e ? e : lib->soname;
}

/* The soname through the loader's search (LD_LIBRARY_PATH, RUNPATH, the
 * cache), then in the build's toolkit directory: what a DT_NEEDED entry
 * with core.so's RUNPATH found.  $env alone when set.  *why: the last
 * dlerror. */
static void *open_file(const gm_dynlib *lib, char *why, size_t n) {
  const char *file = gm_dynlib_file(lib);
  void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!h) snprintf(why, n, "%s", dlerror());
  if (h || file != lib->soname || !lib->dir || !*lib->dir || strchr(file, '/')) return h;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", lib->dir, lib->soname);
  h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) snprintf(why, n, "%s", dlerror());
  return h;
}

gm_status gm_dynlib_load(gm_dynlib *lib, gm_dynlib_bind_fn bind) {
  if (atomic_load_explicit(&lib->ready, memory_order_acquire)) return GM_OK;
  pthread_mutex_lock(&lib->lock);
  gm_status st = GM_OK;
  if (!atomic_load_explicit(&lib->ready, memory_order_relaxed)) {
    char why[1024] = "";
    const char *missing = NULL;
    void *h = open_file(lib, why, sizeof why);
    if (!h) {
      st = gm_fail(lib->fail, "%s (%s) could not be loaded: %s", lib->title, gm_dynlib_file(lib), why);
    } else if (!bind(h, &missing)) {
      dlclose(h);
      st = gm_fail(lib->fail, "%s (%s) could not be loaded: it has no %s, which gpumat (built against %s) calls",
                   lib->title, gm_dynlib_file(lib), missing, lib->soname);
    } else {
      lib->handle = h; /* kept for the life of the process, like the devices */
      atomic_store_explicit(&lib->ready, true, memory_order_release);
    }
  }
  pthread_mutex_unlock(&lib->lock);
  return st;
}
