/* A mutex for the short critical sections of hot paths: a vec's facet
 * bookkeeping (every operand of every op takes it twice) and the host
 * pool's bins.
 *
 * On Linux, uncontended, taking it is one compare-and-swap and releasing
 * it one exchange, both inline: pthread_mutex_lock and unlock cost about
 * 55 instructions a pair through the PLT, and a 1K-element `x + y` took
 * nine pairs.  A contended waiter sleeps on a futex (Drepper, "Futexes
 * are tricky", the third mutex): the state is 0 free, 1 held, 2 held
 * with waiters (maybe), so a release without waiters makes no system
 * call.  The acquire and release orders are the happens-before edges
 * (ThreadSanitizer sees them as such).  Elsewhere: a pthread mutex.
 * Not recursive, as the pthread mutexes it replaces were not. */
#ifndef GPUMAT_CORE_MODEL_LOCK_H
#define GPUMAT_CORE_MODEL_LOCK_H

#include <stdbool.h>

#ifdef __linux__
#include <stdatomic.h>

typedef struct gm_lock {
  atomic_int state;
} gm_lock;

void gm_lock_wait(gm_lock *l); /* lock.c: the contended acquire */
void gm_lock_wake(gm_lock *l); /* lock.c: wakes one waiter */

static inline void gm_lock_init(gm_lock *l) { atomic_init(&l->state, 0); }
static inline void gm_lock_destroy(gm_lock *l) { (void)l; }

static inline void gm_lock_acquire(gm_lock *l) {
  int free_state = 0;
  if (!atomic_compare_exchange_strong_explicit(&l->state, &free_state, 1, memory_order_acquire,
                                               memory_order_relaxed))
    gm_lock_wait(l);
}

/* Takes l if it is free; never waits. */
static inline bool gm_lock_try(gm_lock *l) {
  int free_state = 0;
  return atomic_compare_exchange_strong_explicit(&l->state, &free_state, 1, memory_order_acquire,
                                                 memory_order_relaxed);
}

static inline void gm_lock_release(gm_lock *l) {
  if (atomic_exchange_explicit(&l->state, 0, memory_order_release) == 2) gm_lock_wake(l);
}
#else
#include <pthread.h>

typedef struct gm_lock {
  pthread_mutex_t m;
} gm_lock;

static inline void gm_lock_init(gm_lock *l) { pthread_mutex_init(&l->m, NULL); }
static inline void gm_lock_destroy(gm_lock *l) { pthread_mutex_destroy(&l->m); }
static inline void gm_lock_acquire(gm_lock *l) { pthread_mutex_lock(&l->m); }
static inline bool gm_lock_try(gm_lock *l) { return pthread_mutex_trylock(&l->m) == 0; }
static inline void gm_lock_release(gm_lock *l) { pthread_mutex_unlock(&l->m); }
#endif

#endif
