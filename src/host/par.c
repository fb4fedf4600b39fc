#include "par.h"

#include <pthread.h>
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

typedef struct par_job {
  void (*fn)(void *arg, size_t begin, size_t end);
  void *arg;
  size_t begin, end;
} par_job;

static void *par_run(void *p) {
  par_job *j = p;
  j->fn(j->arg, j->begin, j->end);
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
  par_job jobs[GM_PAR_MAX];
  pthread_t tids[GM_PAR_MAX];
  int started[GM_PAR_MAX] = {0};
  size_t chunk = (n / align + (size_t)k - 1) / (size_t)k * align;
  for (int i = 0; i < k; i++) {
    size_t b = (size_t)i * chunk, e = i == k - 1 ? n : b + chunk;
    jobs[i] = (par_job){fn, arg, b > n ? n : b, e > n ? n : e};
  }
  /* Threads take chunks 1..k-1; the caller runs chunk 0 and any chunk
   * whose thread could not start. */
  for (int i = 1; i < k; i++) started[i] = pthread_create(&tids[i], NULL, par_run, &jobs[i]) == 0;
  par_run(&jobs[0]);
  for (int i = 1; i < k; i++) {
    if (started[i])
      pthread_join(tids[i], NULL);
    else
      par_run(&jobs[i]);
  }
}
