/* CUDA contexts (with_cuda, MGL's WITH-CUDA*): a per-thread stack.
 *
 * Entering a context:
 *  - binds gm_cuda_enabled to the context's `enabled` (restored at exit);
 *  - if an outer context already runs on a device, only pushes a facet
 *    barrier (ensures foreign, destroys cuda and cuda_host), unless the
 *    options themselves name a backend or device id (backend_option,
 *    device_option; the id defaulting to cuda_default_device_id) that is
 *    not the enclosing device: then that device is opened for this context
 *    as if it were outermost (a device_id alone names a device of the
 *    enclosing backend; a named device that cannot be opened is an error), so with_cuda{backend = "emulated"} inside a CUDA
 *    context runs on the emulated device, never silently on the outer one
 *    (a mat whose cuda facet lives on the outer device fails with "mat has
 *    a cuda facet on another device" there);
 *  - else, if enabled and the backend is usable, opens the device, limits
 *    its pool to n_pool_bytes, starts the op tables' per-context state
 *    (random generator seeded with random_seed), binds the copy counters
 *    to zero, and pushes the same barrier;
 *  - else ops simply run on the host, unless the backend "cuda" was
 *    named explicitly (backend_named): then entering fails with the
 *    reason CUDA is not usable.
 * Exiting pops the barrier (the host facet is brought up to date and
 * device facets created inside are destroyed), and a context that opened
 * the device synchronizes it, drains its deferred-free queue (its cached
 * blocks stay for the next context) and restores the counters.  Exit must run also when
 * the body fails (the binding uses a to-be-closed variable). */
#ifndef GM_CORE_CONTEXT_H
#define GM_CORE_CONTEXT_H

#include <stdbool.h>

#include "../mem/runtime.h"
#include "barrier.h"

typedef struct gm_context_options {
  bool enabled;
  int device_id;
  const char *backend; /* "cuda" or "emulated" */
  bool backend_named;  /* asked for by name: an unusable "cuda" is an error,
                          not a quiet fallback to the host */
  bool backend_option; /* backend named by the options themselves, not by
                          $GPUMAT_DEVICE: a nested context on another
                          backend opens it */
  bool device_option;  /* device_id named by the options: likewise */
  unsigned long long random_seed;
  int n_random_states;
  size_t n_pool_bytes; /* 0: no limit */
  gm_gc_hook gc_hook;  /* installed on the device while the context is active */
  void *gc_hook_arg;
} gm_context_options;

typedef struct gm_context {
  struct gm_device *device; /* set when this context opened the device */
  bool has_barrier;
  bool saved_enabled;
  gm_barrier barrier;
  long saved_h2d, saved_d2h;
  size_t saved_limit, saved_budget;
  gm_gc_hook saved_hook;
  void *saved_hook_arg;
  unsigned long long seed; /* what context_begin got (rebinding the device */
  int n_random_states;     /* after a nested context on another one) */
  pthread_t saved_hook_thread;
  struct gm_context *outer;
} gm_context;

/* Global switch gm.cuda_enabled (bound by contexts). */
extern _Atomic bool gm_cuda_enabled;
/* gm.cuda_allow_tf32: float gemm on the CUDA backend may use
 * TF32 tensor cores (10-bit mantissa inputs); default false. */
extern _Atomic bool gm_cuda_allow_tf32;

/* Device ids a context may name: the CUDA runtime numbers devices from 0,
 * and the per-device tables of the core hold 64. */
#define GM_CONTEXT_MAX_DEVICE_ID 63
/* n_random_states: the generator array of a context, at most 2^24
 * generators. */
#define GM_CONTEXT_MAX_RANDOM_STATES (1 << 24)

struct gm_settings;
/* o with an embedding's defaults: enabled is gm.cuda_enabled, the device
 * id, seed and random states are s's (cuda_default_*; the states not yet
 * checked or rounded, and cut to an int: an embedding that accepts more
 * passes s's value to gm_context_random_states itself), the backend is NULL (none named:
 * gm_context_default_backend) and there is no pool limit or GC hook. */
void gm_context_options_default(gm_context_options *o, const struct gm_settings *s);
/* The backend when the options name none: $GPUMAT_DEVICE ("cuda" or
 * "emulated"), else "cuda"; *named (may be NULL) tells whether the
 * variable named one (an unusable named "cuda" is an error, not a quiet
 * fallback to the host).  GM_EINVAL for another value of the variable. */
gm_status gm_context_default_backend(const char **backend, bool *named);
/* The backend an option names: value is the option's string, or the
 * embedding's name of its type when it is not one (for the message;
 * such a name never names a backend). */
gm_status gm_context_parse_backend(const char *value, const char **backend);
/* GM_EINVAL unless id is a device id a context may name (0..63). */
gm_status gm_context_check_device_id(unsigned long long id);
/* The generator count for asked (1..2^24): rounded up to a multiple of
 * 32, a warp of generators. */
gm_status gm_context_random_states(long long asked, int *rounded);

/* The properties of device id of backend ("cuda": asked of the CUDA
 * runtime without opening the device; GM_EINVAL "no usable cuda device
 * ..." and *unusable when it is not usable, a fault of the caller's id
 * rather than of the device). */
gm_status gm_context_device_info(const char *backend, int id, gm_device_info *info, bool *unusable);

/* Whether CUDA device id can be used here: true inside a context on a
 * CUDA device, else the runtime's answer with its reason (n bytes). */
bool gm_context_cuda_usable(int id, char *reason, size_t n);
/* The compute stream (a cudaStream_t) of the current context's CUDA
 * device, or NULL: for C code that launches in order with gpumat's own
 * work. */
void *gm_context_native_stream(void);
/* Waits for the current context's device (none: nothing to wait for). */
gm_status gm_context_synchronize(void);

/* Enters c (caller-owned storage that must stay put until exit).  On
 * failure nothing is pushed and nothing changed. */
gm_status gm_context_enter(gm_context *c, const gm_context_options *o);
/* Exits c, which must be the innermost context of this thread
 * (GM_ESTATE otherwise, and nothing happens).  Everything is undone even
 * if the barrier fails; the first failure is returned. */
gm_status gm_context_exit(gm_context *c);
gm_context *gm_context_current(void);
/* The device of the innermost context that opened one (regardless of
 * enabled), or NULL. */
struct gm_device *gm_context_device(void);
/* The device ops should run on, or NULL for the host: gm_cuda_enabled
 * and a context's device. */
struct gm_device *gm_current_device(void);

#endif
