#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[1024];
static _Thread_local gm_oom_info last_oom;
static _Thread_local gm_lib_error_info last_lib;

gm_status gm_fail(gm_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  va_end(ap);
  return st;
}

const char *gm_last_error(void) { return last_message; }

const char *gm_status_name(gm_status st) {
  switch (st) {
    case GM_OK: return "ok";
    case GM_EINVAL: return "invalid_argument";
    case GM_ERANGE: return "out_of_range";
    case GM_ENOMEM: return "out_of_memory";
    case GM_ESTATE: return "facet_conflict";
    case GM_EUNSUPPORTED: return "unsupported";
    case GM_EIO: return "io_error";
    case GM_ECUDA_OOM: return "cuda_out_of_memory";
    case GM_ECUDA: return "cuda_error";
    case GM_ECUBLAS: return "cublas_error";
    case GM_ECURAND: return "curand_error";
    case GM_ENVRTC: return "nvrtc_error";
    case GM_EMPI: return "mpi_error";
    case GM_ENCCL: return "nccl_error";
    case GM_ELAPACK: return "lapack_error";
  }
  return "unknown";
}

void gm_set_oom_info(const gm_oom_info *info) { last_oom = *info; }
gm_oom_info gm_last_oom_info(void) { return last_oom; }

void gm_set_lib_error_info(const char *function_name, int status) {
  snprintf(last_lib.function_name, sizeof last_lib.function_name, "%s", function_name);
  last_lib.status = status;
}
gm_lib_error_info gm_last_lib_error_info(void) { return last_lib; }
