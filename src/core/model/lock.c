/* The contended paths of gm_lock (lock.h). */
#include "lock.h"

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Marks the lock contended (2) and sleeps until a release finds it free;
 * the state stays 2 after a waiter takes it, so that its own release
 * wakes the next waiter, if any (a spurious wake-up at worst). */
void gm_lock_wait(gm_lock *l) {
  while (atomic_exchange_explicit(&l->state, 2, memory_order_acquire) != 0)
    syscall(SYS_futex, &l->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void gm_lock_wake(gm_lock *l) { syscall(SYS_futex, &l->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }
#else
typedef int gm_lock_c_is_empty_elsewhere;
#endif
