/* Direct element access: m[k] / m[k] = v from the Lua binding without a
 * watch (three lock round trips).  A certificate (vec.h,
 * gm_vec_direct_open) is a generation of the vec, valid for one thread
 * (v->direct_slot) until any metadata access of the vec stores a new
 * generation (vlock in vec.c).  Each access announces itself in its
 * thread's slot and re-checks the generation and the memory's liveness
 * (buffer release and alloc-cache revocation change liveness without the
 * vec lock); a metadata change on another thread waits the announcement
 * out after a membarrier (vec.c, invalidate_direct).  The fast side is
 * thus two plain stores and a few loads: no atomic read-modify-write, no
 * fence.  Without membarrier (not Linux, or refused) gm_direct_my_slot
 * returns NULL and every access takes the watched path. */
#ifndef GM_CORE_DIRECT_H
#define GM_CORE_DIRECT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "../mem/block.h"
#include "vec.h"

/* One per thread that ever opened a certificate; never freed (a vec may
 * still point at it), kept on a global list. */
typedef struct gm_direct_slot {
  gm_vec *_Atomic vec; /* the vec being accessed right now, or NULL */
  pthread_t owner;
  struct gm_direct_slot *next;
} gm_direct_slot;

/* The calling thread's slot (created on first use), or NULL when direct
 * access is unavailable. */
gm_direct_slot *gm_direct_my_slot(void);
/* A full memory barrier on every thread of the process (membarrier). */
void gm_direct_barrier(void);

/* The announced window: true when gen still certifies an access by this
 * thread and the memory is live.  The signal fences keep the compiler
 * from moving the element access out of the window; the CPU ordering
 * against another thread is membarrier's job. */
static inline gm_direct_slot *gm_direct_enter(gm_vec *v, unsigned long long gen) {
  if (gen == 0) return NULL;
  gm_direct_slot *s = atomic_load_explicit(&v->direct_slot, memory_order_relaxed);
  if (!s || !pthread_equal(s->owner, pthread_self())) return NULL;
  atomic_store_explicit(&s->vec, v, memory_order_relaxed);
  atomic_signal_fence(memory_order_seq_cst);
  if (atomic_load_explicit(&v->gen, memory_order_relaxed) == gen && (!v->scope || !v->scope->closed) &&
      atomic_load_explicit(&v->host_blk->state, memory_order_relaxed) == GM_BLOCK_LIVE)
    return s;
  atomic_store_explicit(&s->vec, NULL, memory_order_release);
  return NULL;
}

static inline void gm_direct_leave(gm_direct_slot *s) {
  atomic_signal_fence(memory_order_seq_cst);
  atomic_store_explicit(&s->vec, NULL, memory_order_release);
}

/* Both return false (nothing read or written) when gen no longer
 * certifies the access; the caller then takes the watched path. */
static inline bool gm_vec_direct_get(gm_vec *v, unsigned long long gen, gm_ctype t, size_t i, double *out) {
  if (!gm_ctype_is_float(t)) return false; /* integers and bool: gm_mat_get_value */
  gm_direct_slot *s = gm_direct_enter(v, gen);
  if (!s) return false;
  switch (t) {
#define X(ct, E, ...) \
  case GM_##E:             \
    *out = (double)((const ct *)v->host)[i]; \
    break;
    GM_FLOAT_CTYPES(X)
#undef X
    default:
      break;
  }
  gm_direct_leave(s);
  return true;
}

static inline bool gm_vec_direct_put(gm_vec *v, unsigned long long gen, gm_ctype t, size_t i, double x) {
  if (!gm_ctype_is_float(t)) return false; /* integers and bool: gm_mat_put_value */
  gm_direct_slot *s = gm_direct_enter(v, gen);
  if (!s) return false;
  switch (t) {
#define X(ct, E, ...) \
  case GM_##E:             \
    ((ct *)v->host)[i] = (ct)x; \
    break;
    GM_FLOAT_CTYPES(X)
#undef X
    default:
      break;
  }
  gm_direct_leave(s);
  return true;
}

#endif
