/* The deferred-free queue of mats: a mat a running call still holds is not
 * freed when its owner lets go of it, but queued and freed once nothing
 * holds it any more.
 *
 * A running call holds a mat by pinning it into a frame it opened (a
 * frame per call, frames of one owner nested: the innermost receives the
 * pins).  While finalizers run inside the memory manager's GC hook
 * (gm_deferred_hook_enter/leave), every mat counts as held: an explicit
 * free is queued, a collected one (unreachable, so no operand unless
 * pinned) is freed at once.  A held mat also refuses destructive shaping
 * (gm_deferred_in_use).
 *
 * Mats, not memory: a freed mat's device blocks still go through the
 * device's own deferred-free queue (mem/runtime.c).
 *
 * Everything is per OS thread: an embedding runs one interpreter state on
 * one thread at a time, and a frame is open only during one call.  The
 * lists are tiny; linear scans are cheaper than anything cleverer. */
#ifndef GM_CORE_DEFERRED_H
#define GM_CORE_DEFERRED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mat.h"

/* Mats queued on this thread. */
extern _Thread_local size_t gm_n_deferred;
/* Mats queued on all threads together: a thread's own additions are in it
 * in program order, so zero means this thread has none.  A module loaded
 * by require reads a _Thread_local through __tls_get_addr (about 20
 * instructions, two per binary op's operand checks); this is one load. */
extern atomic_size_t gm_n_deferred_all;

/* Opens a frame of owner (compared only, never dereferenced: e.g. the
 * interpreter state the call runs in) with room reserved for n_pins pins,
 * so pinning that many arguments cannot fail for memory.  GM_ENOMEM (and
 * no frame) when the lists cannot grow. */
gm_status gm_deferred_frame_open(const void *owner, size_t n_pins, uint64_t *id);
/* Closes frame id (any frame, not only the innermost: a frame abandoned by
 * a dead coroutine closes late), drops its pins and drains the queue. */
void gm_deferred_frame_close(uint64_t id);
/* Pins m into owner's innermost open frame: GM_ESTATE when owner has none,
 * GM_ENOMEM when the pin list cannot grow. */
gm_status gm_deferred_pin(const void *owner, gm_mat *m);
/* Whether m may not be freed or reshaped now: pinned, or the GC hook runs. */
bool gm_deferred_in_use(const gm_mat *m);
/* Frees m now, or queues it while it is pinned or (unless collected) the
 * GC hook runs.  Out of memory for the queue: m is leaked, the safe
 * choice. */
void gm_deferred_release(gm_mat *m, bool collected);
/* Frees the queued mats that are no longer pinned (not while the GC hook
 * runs). */
void gm_deferred_drain(void);
/* What hot paths call before they use a mat: gm_deferred_drain when this
 * thread has something queued. */
static inline void gm_deferred_poll(void) {
  if (atomic_load_explicit(&gm_n_deferred_all, memory_order_relaxed) && gm_n_deferred) gm_deferred_drain();
}

/* Around the finalizer runs of the GC hook (nestable). */
void gm_deferred_hook_enter(void);
void gm_deferred_hook_leave(void);

#endif
