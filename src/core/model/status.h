/* Status codes and the per-thread error message.
 * The core never raises: functions return gm_status and record a message
 * with gm_fail(); the Lua binding turns it into exactly one Lua error. */
#ifndef GM_CORE_STATUS_H
#define GM_CORE_STATUS_H

#include "../../../include/gpumat.h"

/* Records a printf-style message for the calling thread and returns st. */
gm_status gm_fail(gm_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Details of the last out-of-memory condition on this thread (for the
 * cuda_out_of_memory error object). */
typedef struct gm_oom_info {
  size_t n_bytes, limit, reserved, in_use;
} gm_oom_info;
void gm_set_oom_info(const gm_oom_info *info);
gm_oom_info gm_last_oom_info(void);

/* Details of the last library error (cublas_error etc.). */
typedef struct gm_lib_error_info {
  char function_name[64];
  int status;
} gm_lib_error_info;
void gm_set_lib_error_info(const char *function_name, int status);
gm_lib_error_info gm_last_lib_error_info(void);

#define GM_TRY(expr)                 \
  do {                               \
    gm_status gm_try_st_ = (expr);   \
    if (gm_try_st_ != GM_OK) return gm_try_st_; \
  } while (0)

#endif
