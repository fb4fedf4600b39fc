/* gm_lock (src/core/model/lock.h): mutual exclusion under contention
 * (threads incrementing plain counters under one lock, some of them
 * sleeping inside it, so that waiters take the futex path), a waiter that
 * blocks while another thread holds the lock and proceeds after the
 * release, and the free state after all of it.  Run by
 * spec/c_api_spec.lua and under ThreadSanitizer by
 * tools/suite.d/30-tsan.sh (a missing happens-before edge is a race on
 * the counters); exits 0 when every check passes. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "core/model/lock.h"

#include "check.h"

enum { N_THREADS = 6, N_ROUNDS = 20000 };

static gm_lock lock;
static long counter, shadow; /* plain: only the lock orders their updates */

static void nap(long ns) {
  struct timespec t = {0, ns};
  nanosleep(&t, NULL);
}

static void *hammer(void *arg) {
  long id = (long)(size_t)arg;
  for (int i = 0; i < N_ROUNDS; i++) {
    gm_lock_acquire(&lock);
    long c = counter;
    /* now and then sleep holding it: the others find it held and wait */
    if (i % 2000 == (int)id) nap(200000);
    counter = c + 1;
    shadow += 2;
    gm_lock_release(&lock);
  }
  return NULL;
}

static atomic_int entered;

static void *waiter(void *arg) {
  (void)arg;
  gm_lock_acquire(&lock);
  atomic_store(&entered, 1);
  counter += 100;
  gm_lock_release(&lock);
  return NULL;
}

int main(void) {
  gm_lock_init(&lock);
  pthread_t t[N_THREADS];
  for (long k = 0; k < N_THREADS; k++) CHECK(pthread_create(&t[k], NULL, hammer, (void *)(size_t)k) == 0);
  for (int k = 0; k < N_THREADS; k++) pthread_join(t[k], NULL);
  CHECK(counter == (long)N_THREADS * N_ROUNDS);
  CHECK(shadow == 2L * N_THREADS * N_ROUNDS);

  /* a waiter blocks while the lock is held, and runs after the release */
  counter = 0;
  gm_lock_acquire(&lock);
  pthread_t w;
  CHECK(pthread_create(&w, NULL, waiter, NULL) == 0);
  nap(50000000);
  CHECK(atomic_load(&entered) == 0);
  counter = 1;
  gm_lock_release(&lock);
  pthread_join(w, NULL);
  CHECK(atomic_load(&entered) == 1);
  CHECK(counter == 101);

  /* free again: a fresh acquire does not block */
  gm_lock_acquire(&lock);
  gm_lock_release(&lock);
#ifdef __linux__
  CHECK(atomic_load(&lock.state) == 0);
#endif
  gm_lock_destroy(&lock);
  if (gm_test_failed) fprintf(stderr, "%d check(s) failed\n", atomic_load(&gm_test_failed));
  else printf("lock_test: all checks passed\n");
  return gm_test_failed ? 1 : 0;
}
