#include "par.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

/* Below this much work (items x cost) a loop runs inline. */
#define GM_PAR_THRESHOLD (1u << 18)

static int n_threads_cached;

int gm_par_threads(void) {
  int n = __atomic_load_n(&n_threads_cached, __ATOMIC_RELAXED);
  if (n > 0) return n;
  const char *env = getenv("GPUMAT_NUM_THREADS");
  long v = env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
  n = v < 1 ? 1 : (v > GM_PAR_MAX ? GM_PAR_MAX : (int)v);
  __atomic_store_n(&n_threads_cached, n, __ATOMIC_RELAXED);
  return n;
}

int gm_thread_create(pthread_t *t, void *(*fn)(void *), void *arg) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(t, NULL, fn, arg);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

/* Work is handed out in blocks from a shared counter rather than split
 * evenly up front: when another process holds one of the cores, the
 * threads that do run take over its share instead of waiting for it. */
typedef struct par_job {
  void (*fn)(void *arg, size_t begin, size_t end);
  void *arg;
  size_t n, block;
  size_t next; /* atomic: start of the next unclaimed block */
} par_job;

static void *par_run(void *p) {
  par_job *j = p;
  for (;;) {
    size_t b = __atomic_fetch_add(&j->next, j->block, __ATOMIC_RELAXED);
    if (b >= j->n) break;
    j->fn(j->arg, b, b + j->block < j->n ? b + j->block : j->n);
  }
  return NULL;
}

void gm_par_for(size_t n, size_t align, double cost, void (*fn)(void *arg, size_t begin, size_t end),
                void *arg) {
  int k = gm_par_threads();
  if (align == 0) align = 1;
  if (k > 1 && (size_t)k * align > n) k = (int)(n / align);
  if (k <= 1 || (double)n * cost < (double)GM_PAR_THRESHOLD) {
    if (n) fn(arg, 0, n);
    return;
  }
  /* About 16 blocks per thread, each a multiple of align. */
  size_t block = (n / ((size_t)k * 16) + align - 1) / align * align;
  par_job job = {fn, arg, n, block ? block : align, 0};
  pthread_t tids[GM_PAR_MAX];
  int started[GM_PAR_MAX] = {0};
  for (int i = 1; i < k; i++) started[i] = gm_thread_create(&tids[i], par_run, &job) == 0;
  par_run(&job); /* also finishes the blocks of threads that failed to start */
  for (int i = 1; i < k; i++)
    if (started[i]) pthread_join(tids[i], NULL);
}
