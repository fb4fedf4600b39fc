/* Test controls of the emulated device (gm.emulated_device): a simulated
 * device memory size, so raw allocations fail as cudaMalloc does, and
 * cudart's error slots: the per-thread last error a failed
 * allocation leaves behind and the sticky error of a broken context. */
#ifndef GM_DEVICE_EMULATED_H
#define GM_DEVICE_EMULATED_H

#include <stdbool.h>
#include <stddef.h>

#include "../../core/mem/runtime.h"

enum { GM_EMU_ERR_NONE = 0, GM_EMU_ERR_OOM = 2 /* cudaErrorMemoryAllocation */ };

/* How the streams run their queued work (queue.h): at once on the
 * calling thread, on worker threads, or only when somebody waits. */
enum { GM_EMU_INLINE = 0, GM_EMU_ASYNC = 1, GM_EMU_LAZY = 2 };

typedef struct gm_emulated_control_in {
  bool set_capacity, set_sticky, set_last_error, set_mode;
  int mode; /* GM_EMU_INLINE, GM_EMU_ASYNC or GM_EMU_LAZY */
  size_t capacity; /* bytes of simulated device memory; 0: the host's */
  bool sticky;
  int last_error;
} gm_emulated_control_in;

typedef struct gm_emulated_state {
  size_t capacity, allocated;
  size_t copies_in_flight; /* queued on the copy stream, not landed yet */
  size_t queued; /* tasks queued on the compute stream, not finished */
  size_t prefetches; /* managed ranges prefetched to the device so far */
  int mode;
  int last_error; /* this thread's slot */
  bool sticky;
} gm_emulated_state;

/* The host's BLAS table with invert/logdet through cuSOLVER's argument
 * mapping (solver.c). */
struct gm_blas_ops;
const struct gm_blas_ops *gm_emulated_blas_ops(const struct gm_blas_ops *host);
/* Replaces the BLAS-1/3 entries of ops by closures queued on the compute
 * stream (blas.c). */
void gm_emulated_blas_queued(struct gm_blas_ops *ops);

/* cuFFT's calls over the host's FFT (fft.c). */
struct gm_fft_ops;
extern const struct gm_fft_ops gm_emulated_fft_ops;

/* The test controls' names: last_error "none" or "out_of_memory" (value
 * may be the embedding's name of a non-string's type, for the message),
 * and the name of a last_error value. */
gm_status gm_emulated_parse_last_error(const char *value, int *err);
const char *gm_emulated_last_error_name(int err);
/* async "lazy" as a string option (true and false are the embedding's
 * booleans: GM_EMU_ASYNC, GM_EMU_INLINE); value as above. */
gm_status gm_emulated_parse_lazy(const char *value, int *mode);

/* d must be an emulated device; in may be NULL (query only). */
gm_status gm_emulated_control(gm_device *d, const gm_emulated_control_in *in, gm_emulated_state *out);

#endif
