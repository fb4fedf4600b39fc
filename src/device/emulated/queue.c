/* Streams of the emulated device as worker threads (queue.h). */
#include "queue.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../../core/exec/par.h"

typedef struct emu_task {
  emu_task_fn fn;
  void *arg;
  struct emu_task *next;
} emu_task;

struct emu_queue {
  pthread_mutex_t lock;
  pthread_cond_t work; /* a task became runnable, or stop */
  pthread_cond_t done_cv;
  emu_task *head, **tail;
  uint64_t pushed, done;
  uint64_t demand; /* lazy: run tasks up to this ticket */
  emu_mode mode;
  double task_ns; /* tasks' recent run time, a moving average (see emu_queue_push) */
  bool running; /* a thread (the worker or a waiting caller) runs tasks */
  bool stop;
  pthread_t worker;
  emu_queue_hooks hooks;
};

/* When the worker is worth waking: see emu_queue_push. */
#define EMU_WAKE_TASK_NS 50000.0
#define EMU_WAKE_PENDING 16

static _Thread_local bool on_worker;

bool emu_queue_on_worker(void) { return on_worker; }

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void run_task(emu_queue *q, emu_task_fn fn, void *arg) {
  bool was = on_worker;
  on_worker = true;
  int st = fn(arg);
  on_worker = was;
  if (st != 0 && q->hooks.failed) q->hooks.failed(q->hooks.ctx, st, gm_last_error());
}

/* Lock held, async mode: tasks are pending that the worker should run now
 * rather than leave to the next wait (emu_queue_push). */
static bool worth_waking(const emu_queue *q) {
  const uint64_t pending = q->pushed - q->done;
  return pending > 1 && (q->task_ns >= EMU_WAKE_TASK_NS || pending >= EMU_WAKE_PENDING);
}

/* lock held: the head may run now */
static bool runnable(const emu_queue *q) {
  return q->head && (q->mode != EMU_MODE_LAZY || q->done < q->demand);
}

/* Lock held, q->running taken by the caller: runs tasks from the head,
 * up to ticket (all: UINT64_MAX), one at a time with the lock released,
 * between one begin/end of the hooks (memory is opened once). */
static void run_tasks(emu_queue *q, uint64_t ticket) {
  pthread_mutex_unlock(&q->lock);
  if (q->hooks.begin) q->hooks.begin(q->hooks.ctx);
  pthread_mutex_lock(&q->lock);
  while (runnable(q) && q->done < ticket) {
    emu_task *t = q->head;
    q->head = t->next;
    if (!q->head) q->tail = &q->head;
    pthread_mutex_unlock(&q->lock);
    const double t0 = now_ns();
    run_task(q, t->fn, t->arg);
    const double ns = now_ns() - t0;
    free(t);
    pthread_mutex_lock(&q->lock);
    q->task_ns += (ns - q->task_ns) / 8;
    q->done++;
    pthread_cond_broadcast(&q->done_cv);
  }
  pthread_mutex_unlock(&q->lock);
  if (q->hooks.end) q->hooks.end(q->hooks.ctx);
  pthread_mutex_lock(&q->lock);
}

static void *worker_main(void *p) {
  emu_queue *q = p;
  pthread_mutex_lock(&q->lock);
  for (;;) {
    while (!q->stop && (!runnable(q) || q->running)) pthread_cond_wait(&q->work, &q->lock);
    if (!runnable(q) || q->running) break; /* stopping, nothing left to run */
    q->running = true;
    run_tasks(q, UINT64_MAX);
    q->running = false;
    pthread_cond_broadcast(&q->done_cv); /* a waiting caller may take over */
  }
  pthread_mutex_unlock(&q->lock);
  return NULL;
}

gm_status emu_queue_new(const emu_queue_hooks *hooks, emu_mode mode, emu_queue **out) {
  emu_queue *q = calloc(1, sizeof *q);
  if (!q) return gm_fail(GM_ENOMEM, "out of host memory");
  pthread_mutex_init(&q->lock, NULL);
  pthread_cond_init(&q->work, NULL);
  pthread_cond_init(&q->done_cv, NULL);
  q->tail = &q->head;
  q->task_ns = EMU_WAKE_TASK_NS; /* until measured: wake as soon as two are pending */
  q->mode = mode;
  q->hooks = *hooks;
  if (gm_thread_create(&q->worker, NULL, worker_main, q) != 0) {
    pthread_cond_destroy(&q->done_cv);
    pthread_cond_destroy(&q->work);
    pthread_mutex_destroy(&q->lock);
    free(q);
    return gm_fail(GM_ENOMEM, "emulated device: cannot start a stream's worker thread");
  }
  *out = q;
  return GM_OK;
}

void emu_queue_free(emu_queue *q) {
  if (!q) return;
  emu_queue_drain(q);
  pthread_mutex_lock(&q->lock);
  q->stop = true;
  pthread_cond_broadcast(&q->work);
  pthread_mutex_unlock(&q->lock);
  pthread_join(q->worker, NULL);
  pthread_cond_destroy(&q->done_cv);
  pthread_cond_destroy(&q->work);
  pthread_mutex_destroy(&q->lock);
  free(q);
}

/* Inline: the task runs here, in push order (nothing else is queued:
 * set_mode drained the queue). */
static uint64_t push_inline(emu_queue *q, emu_task_fn fn, void *arg) {
  pthread_mutex_lock(&q->lock);
  uint64_t ticket = ++q->pushed;
  pthread_mutex_unlock(&q->lock);
  if (q->hooks.begin) q->hooks.begin(q->hooks.ctx);
  run_task(q, fn, arg);
  if (q->hooks.end) q->hooks.end(q->hooks.ctx);
  pthread_mutex_lock(&q->lock);
  q->done++;
  pthread_cond_broadcast(&q->done_cv);
  pthread_mutex_unlock(&q->lock);
  return ticket;
}

/* Async: the worker is woken only when a second task is pending, and
 * while the recent tasks ran shorter than EMU_WAKE_TASK_NS on average,
 * only once EMU_WAKE_PENDING are.  Until then tasks wait for a later push
 * or for a wait, whose caller runs them (see emu_queue_wait): a legal
 * order (lazy mode runs every task that way), and the common device calls
 * of a small program, a few ops whose result the host reads next, then
 * cost no wake-up of the worker and no hand-off back (two futex calls and
 * two context switches, 10-20 us on a VM: more than such an op; PCA's
 * power step, a gemv, a dot and a scaling, spent most of its time there;
 * bench/RESULTS.md).  Long tasks still overlap the host's Lua code. */
uint64_t emu_queue_push(emu_queue *q, emu_task_fn fn, void *arg) {
  if (emu_queue_mode(q) == EMU_MODE_INLINE) return push_inline(q, fn, arg);
  emu_task *t = malloc(sizeof *t);
  if (!t) {
    emu_queue_drain(q);
    return push_inline(q, fn, arg);
  }
  *t = (emu_task){fn, arg, NULL};
  pthread_mutex_lock(&q->lock);
  *q->tail = t;
  q->tail = &t->next;
  uint64_t ticket = ++q->pushed;
  if (q->mode == EMU_MODE_ASYNC && worth_waking(q)) pthread_cond_signal(&q->work);
  pthread_mutex_unlock(&q->lock);
  return ticket;
}

uint64_t emu_queue_tail(emu_queue *q) {
  pthread_mutex_lock(&q->lock);
  uint64_t t = q->pushed;
  pthread_mutex_unlock(&q->lock);
  return t;
}

/* Async: while nobody runs tasks, the waiting caller runs them itself,
 * in order, up to its ticket (as push_inline does), and wakes the worker
 * for any left after it when they are worth it (emu_queue_push). */
void emu_queue_wait(emu_queue *q, uint64_t ticket) {
  pthread_mutex_lock(&q->lock);
  if (ticket > q->pushed) ticket = q->pushed;
  while (q->done < ticket) {
    if (q->mode == EMU_MODE_ASYNC && !q->running) {
      q->running = true;
      run_tasks(q, ticket);
      q->running = false;
      if (q->head && worth_waking(q)) pthread_cond_signal(&q->work);
      pthread_cond_broadcast(&q->done_cv);
      continue;
    }
    if (q->demand < ticket) q->demand = ticket;
    pthread_cond_signal(&q->work);
    pthread_cond_wait(&q->done_cv, &q->lock);
  }
  pthread_mutex_unlock(&q->lock);
}

void emu_queue_drain(emu_queue *q) { emu_queue_wait(q, emu_queue_tail(q)); }

size_t emu_queue_pending(emu_queue *q) {
  pthread_mutex_lock(&q->lock);
  size_t n = (size_t)(q->pushed - q->done);
  pthread_mutex_unlock(&q->lock);
  return n;
}

void emu_queue_set_mode(emu_queue *q, emu_mode mode) {
  emu_queue_drain(q);
  pthread_mutex_lock(&q->lock);
  q->mode = mode;
  pthread_mutex_unlock(&q->lock);
}

emu_mode emu_queue_mode(emu_queue *q) {
  pthread_mutex_lock(&q->lock);
  emu_mode m = q->mode;
  pthread_mutex_unlock(&q->lock);
  return m;
}
