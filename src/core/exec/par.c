#define _GNU_SOURCE 1 /* dladdr, RTLD_NODELETE */
#include "par.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

/* Work per thread: a loop uses at most work / GM_PAR_PER_THREAD threads,
 * so each gets about 128K units (10-20 us, several bare-metal wake-ups'
 * worth) however many cores there are: on 16 cores a 2^19 loop uses 4. */
#define GM_PAR_PER_THREAD (1u << 17)

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

int gm_thread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(t, attr, fn, arg);
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
  int slots;   /* under mu: pool threads that may still join */
} par_job;

static void par_run(par_job *j) {
  for (;;) {
    size_t b = __atomic_fetch_add(&j->next, j->block, __ATOMIC_RELAXED);
    if (b >= j->n) break;
    j->fn(j->arg, b, b + j->block < j->n ? b + j->block : j->n);
  }
}

/* The pool: threads started once and parked on a condition variable
 * (thread creation per call cost tens of microseconds).  One caller at a
 * time owns it (owner); a call from a pool thread, or while another
 * thread owns the pool, runs inline.  The caller works on its own job
 * too; a pool thread joins only while the job is open, and the caller
 * closes it when the blocks are all claimed, then waits only for the
 * threads that joined: a thread the scheduler has not run yet is never
 * waited for. */
static pthread_mutex_t owner = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static par_job *open_job;   /* under mu: the job threads may join, or NULL */
static unsigned long posted; /* under mu: jobs posted so far */
static int busy;            /* under mu: pool threads inside open_job's blocks */
static int started;         /* under owner: pool threads running */
static __thread int in_pool;

static void *pool_main(void *unused) {
  (void)unused;
  in_pool = 1;
  unsigned long seen = 0;
  pthread_mutex_lock(&mu);
  for (;;) {
    while (posted == seen) pthread_cond_wait(&wake, &mu);
    seen = posted;
    par_job *j = open_job;
    if (!j || j->slots == 0) continue;
    j->slots--;
    busy++;
    pthread_mutex_unlock(&mu);
    par_run(j);
    pthread_mutex_lock(&mu);
    if (--busy == 0) pthread_cond_signal(&done);
  }
  return NULL;
}

/* Pool threads run this library's code until the process ends, and may
 * be between a job and their wait when Lua closes its state and dlcloses
 * the module: keep the library mapped (RTLD_NODELETE on the already
 * loaded object; linked into a program, it pins the program: harmless). */
static void pin_library(void) {
  Dl_info info;
  if (dladdr(&n_threads_cached, &info) && info.dli_fname)
    (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

/* Starts pool threads up to want - 1 (the caller is the last); returns
 * how many run.  Called with owner held. */
static int pool_size(int want) {
  if (started == 0 && want > 1) pin_library();
  while (started < want - 1) {
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = gm_thread_create(&t, &a, pool_main, NULL);
    pthread_attr_destroy(&a);
    if (rc != 0) break;
    started++;
  }
  return started;
}

static void pool_run(par_job *job) {
  pthread_mutex_lock(&mu);
  open_job = job;
  posted++;
  pthread_cond_broadcast(&wake);
  pthread_mutex_unlock(&mu);
  par_run(job);
  pthread_mutex_lock(&mu);
  open_job = NULL;
  while (busy > 0) pthread_cond_wait(&done, &mu);
  pthread_mutex_unlock(&mu);
}

void gm_par_for(size_t n, size_t align, double cost, void (*fn)(void *arg, size_t begin, size_t end),
                void *arg) {
  int k = gm_par_threads();
  if (align == 0) align = 1;
  if (k > 1 && (size_t)k * align > n) k = (int)(n / align);
  if (k <= 1 || (double)n * cost < (double)GM_PAR_THRESHOLD || in_pool || pthread_mutex_trylock(&owner) != 0) {
    if (n) fn(arg, 0, n);
    return;
  }
  double most = (double)n * cost / (double)GM_PAR_PER_THREAD;
  if ((double)k > most) k = most < 2 ? 2 : (int)most;
  /* About 16 blocks per thread, each a multiple of align. */
  size_t block = (n / ((size_t)k * 16) + align - 1) / align * align;
  par_job job = {fn, arg, n, block ? block : align, 0, k - 1};
  if (pool_size(k) > 0)
    pool_run(&job);
  else
    par_run(&job);
  pthread_mutex_unlock(&owner);
}
