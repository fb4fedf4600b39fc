/* gpumat/dist_mpi.so's glue (see mpi_api.h): comm.c is compiled into this
 * module with libmpi, and reports errors into the core's per-thread slot
 * through the host table the core binds at load. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>

#include "mpi_api.h"

static gm_dist_mpi_host host;

__attribute__((visibility("default"))) int gm_dist_mpi_bind(const gm_dist_mpi_host *h);
int gm_dist_mpi_bind(const gm_dist_mpi_host *h) {
  if (h->abi != GM_DIST_MPI_ABI) return GM_DIST_MPI_ABI;
  host = *h;
  /* Open MPI's components resolve libmpi's symbols at their own dlopen:
   * make libmpi global, as if the program had linked it (the module itself
   * was opened RTLD_LOCAL) */
  Dl_info info;
  if (dladdr((void *)MPI_Init, &info) && info.dli_fname) (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL);
  return 0;
}

gm_status gm_fail(gm_status st, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return host.fail ? host.fail(st, msg) : st;
}

void gm_set_lib_error_info(const char *function_name, int status) {
  if (host.lib_error) host.lib_error(function_name, status);
}
