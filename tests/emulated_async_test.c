/* The emulated device is asynchronous like a GPU, and host code that skips
 * a wait fails deterministically:
 *  - an op returns once queued (lazy mode: nothing runs until waited for);
 *    gm_mat_get waits and sees the result;
 *  - a deliberately wrong host read of a managed mat's storage right after
 *    a queued op (no wait) sees the old value, every time, in lazy mode;
 *  - a deliberately wrong host read of device memory outside device work
 *    crashes even while a worker runs (the host view stays PROT_NONE; the
 *    worker uses its alias), checked in a forked child;
 *  - a failure of queued work is reported by the next sync, once (as CUDA
 *    reports an asynchronous error);
 *  - a stream's worker runs two pending long tasks without a wait, while
 *    short ones wait for a wait (or for 16 to be pending: then the worker
 *    runs them), so small programs' steps pay no hand-off.
 * Exits 0 when every check passes and prints each failure. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/ops/blas.h"
#include "core/model/context.h"
#include "core/ops/elementwise.h"
#include "core/model/mat.h"
#include "core/model/vec.h"
#include "device/emulated/alias.h"
#include "device/emulated/emulated.h"
#include "device/emulated/launchers.h"
#include "device/emulated/queue.h"

#include "check.h"
#include "emulated_context.h"

#define N 4096

static gm_emulated_state set_mode(int mode) {
  gm_emulated_control_in in = {.set_mode = true, .mode = mode};
  gm_emulated_state st = {0};
  CHECK(gm_emulated_control(gm_current_device(), &in, &st) == GM_OK);
  return st;
}

static size_t queued(void) {
  gm_emulated_state st = {0};
  CHECK(gm_emulated_control(gm_current_device(), NULL, &st) == GM_OK);
  return st.queued;
}

static gm_mat *new_mat(double init) {
  gm_mat_options o = {0};
  o.ctype = 1; /* double */
  o.has_initial_element = 1;
  o.initial_element = init;
  o.cuda_enabled = 1;
  gm_mat *m = NULL;
  size_t n = N;
  CHECK(gm_mat_new(1, &n, &o, &m) == GM_OK);
  return m;
}

static double at(gm_mat *m, size_t i) {
  double v = -1;
  CHECK(gm_mat_get(m, i, &v) == GM_OK);
  return v;
}

/* A pointer the core would hold to the mat's storage in facet f. */
static double *storage(gm_mat *m, gm_facet_name f) {
  void *p = NULL;
  CHECK(gm_mat_watch(m, f, GM_INPUT, gm_current_device(), &p) == GM_OK);
  gm_mat_unwatch(m, f, GM_INPUT);
  return p;
}

static void lazy_ordering(void) {
  set_mode(GM_EMU_LAZY);
  gm_mat *x = new_mat(2);
  CHECK(gm_scal_(3, x, N, 1) == GM_OK);
  CHECK(queued() >= 1); /* returned before the work ran */
  CHECK(at(x, N - 1) == 6);
  CHECK(queued() == 0);
  gm_mat_free(x);
}

/* Wrong on purpose: the managed storage is read without a wait. */
static void lazy_missing_wait_reads_stale(void) {
  set_mode(GM_EMU_LAZY);
  gm_mat *x = new_mat(2);
  double *host = storage(x, GM_FACET_MANAGED);
  CHECK(gm_scal_(3, x, N, 1) == GM_OK);
  CHECK(host[5] == 2); /* stale: the scal is still queued */
  CHECK(at(x, 5) == 6); /* the element access waits */
  CHECK(host[5] == 6);
  gm_mat_free(x);
}

/* Wrong on purpose: device memory read on the host, outside device work,
 * while the async worker may be running: the child must die.  Only with
 * the double-mapped arena: without it (a sanitizer's address space can
 * leave no room for the reservation) the single mapping is open while
 * the worker runs, so the read may or may not fault. */
static void device_read_crashes(void) {
#ifdef GPUMAT_EMULATED_PROTECT
  if (!gm_emu_arena_ready()) {
    fprintf(stderr, "device_read_crashes: no arena (single mapping): skipped\n");
    return;
  }
  set_mode(GM_EMU_ASYNC);
  gm_mat *x = new_mat(1);
  CHECK(gm_fill_(4, x, N) == GM_OK);
  double *dev = storage(x, GM_FACET_CUDA);
  for (int i = 0; i < 20; i++) CHECK(gm_scal_(1, x, N, 1) == GM_OK); /* keep the worker busy */
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2); /* ASan's report of the expected crash is noise */
    volatile double v = dev[1];
    (void)v;
    _exit(0); /* not reached when the host view is protected */
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  /* killed by SIGSEGV, or ASan's report of it: a non-zero exit, or
   * SIGABRT with abort_on_error=1 */
  CHECK((WIFSIGNALED(status) && (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGABRT)) ||
        (WIFEXITED(status) && WEXITSTATUS(status) != 0));
  CHECK(at(x, 1) == 4);
  gm_mat_free(x);
#endif
}

static int failing_task(void *arg) {
  (void)arg;
  return (int)gm_fail(GM_ECUDA, "a queued task failed on purpose");
}

static void queued_failure_reported_at_sync(int mode) {
  gm_device *d = gm_current_device();
  set_mode(mode);
  gm_emu_enqueue(d, failing_task, NULL);
  CHECK(d->ops->stream_sync(d, NULL) == GM_ECUDA);
  CHECK(strstr(gm_last_error(), "a queued task failed on purpose") != NULL);
  CHECK(d->ops->stream_sync(d, NULL) == GM_OK);
}

/* ---- the stream's wake-up policy (queue.c, emu_queue_push) ---- */

typedef struct probe {
  long sleep_ns;           /* how long the task runs */
  atomic_int ran;          /* set when it has run */
  atomic_int on_other;     /* 1: it ran on a thread other than main's */
} probe;

static pthread_t main_thread;

static int probe_task(void *arg) {
  probe *p = arg;
  if (p->sleep_ns) nanosleep(&(struct timespec){p->sleep_ns / 1000000000L, p->sleep_ns % 1000000000L}, NULL);
  atomic_store(&p->on_other, !pthread_equal(pthread_self(), main_thread));
  atomic_store(&p->ran, 1);
  return 0;
}

/* Polls (without waiting on the queue) until n probes have run, up to ~5 s. */
static bool all_ran(probe *p, int n) {
  for (int k = 0; k < 5000; k++) {
    int done = 0;
    for (int i = 0; i < n; i++) done += atomic_load(&p[i].ran);
    if (done == n) return true;
    nanosleep(&(struct timespec){0, 1000000L}, NULL);
  }
  return false;
}

static void worker_wake_policy(void) {
  main_thread = pthread_self();
  emu_queue_hooks hooks = {0};
  emu_queue *q = NULL;
  CHECK(emu_queue_new(&hooks, EMU_MODE_ASYNC, &q) == GM_OK);
  if (!q) return;
  /* long tasks (20 ms): two pending wake the worker, nobody waits */
  static probe lng[3];
  for (int i = 0; i < 3; i++) lng[i].sleep_ns = 20000000L;
  emu_queue_wait(q, emu_queue_push(q, probe_task, &lng[0])); /* measured: long */
  emu_queue_push(q, probe_task, &lng[1]);
  emu_queue_push(q, probe_task, &lng[2]);
  CHECK(all_ran(lng + 1, 2));
  CHECK(atomic_load(&lng[1].on_other) && atomic_load(&lng[2].on_other));
  /* short tasks, each waited for (run by the caller, or by the worker if
   * it is still looping): the average falls.  Then 15 pending short tasks
   * wait for a wait; the 16th wakes the worker (asleep by then: nothing
   * was left to run).  The policy reads a moving average of the tasks'
   * run time: one short task descheduled for milliseconds (this test runs
   * under TSan beside the rest of CI on two cores) makes the average
   * long for a while, and the worker is then rightly woken before 16
   * are pending; such a round runs again, up to five times (a policy
   * that woke the worker early every time fails all five). */
  static probe quick[64], batch[16];
  bool held = false;
  for (int attempt = 0; attempt < 5 && !held; attempt++) {
    for (int i = 0; i < 64; i++) atomic_store(&quick[i].ran, 0);
    for (int i = 0; i < 16; i++) {
      atomic_store(&batch[i].ran, 0);
      atomic_store(&batch[i].on_other, 0);
    }
    for (int i = 0; i < 64; i++) emu_queue_wait(q, emu_queue_push(q, probe_task, &quick[i]));
    for (int i = 0; i < 64; i++) CHECK(atomic_load(&quick[i].ran));
    nanosleep(&(struct timespec){0, 30000000L}, NULL);
    for (int i = 0; i < 15; i++) emu_queue_push(q, probe_task, &batch[i]);
    nanosleep(&(struct timespec){0, 30000000L}, NULL);
    held = emu_queue_pending(q) == 15;
    if (!held) CHECK(all_ran(batch, 15)); /* the woken worker runs them */
  }
  CHECK(held);
  emu_queue_push(q, probe_task, &batch[15]);
  CHECK(all_ran(batch, 16));
  for (int i = 0; i < 16; i++) CHECK(atomic_load(&batch[i].on_other));
  emu_queue_free(q);
}

int main(void) {
  gm_context c;
  gm_context_options o = gm_test_emulated_options(0);
  CHECK(gm_context_enter(&c, &o) == GM_OK);
  CHECK(gm_current_device() != NULL);
  lazy_ordering();
  lazy_missing_wait_reads_stale();
  device_read_crashes();
  queued_failure_reported_at_sync(GM_EMU_LAZY);
  queued_failure_reported_at_sync(GM_EMU_ASYNC);
  queued_failure_reported_at_sync(GM_EMU_INLINE);
  worker_wake_policy();
  CHECK(gm_context_exit(&c) == GM_OK);
  if (gm_test_failed) return 1;
  printf("emulated_async_test: ok\n");
  return 0;
}
