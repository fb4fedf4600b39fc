/* Streams, copies and device-call brackets of the emulated device.
 *
 * The compute stream and the copy stream are queues run by worker threads
 * (queue.h): an op or a queued copy returns once queued, events order the
 * streams (stream_wait pushes a task that waits for the other queue's
 * ticket), and the host waits where CUDA code must: synchronous copies
 * (cudaMemcpy on the compute stream, then a sync), stream and device
 * syncs, freeing memory.  Device memory is open to the host only while a
 * device call is active (enter..leave) or a worker runs tasks (depth in
 * emu_impl, counted under its lock); mprotect is per process, so in the
 * async mode a host access racing a worker goes unnoticed, but the lazy
 * mode runs workers only while the host waits, which makes any access
 * that skipped its wait crash (device memory) or read stale data (mapped,
 * pinned and managed memory) every time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "alias.h"
#include "impl.h"
#include "../../core/mem/move.h"

/* Without the arena (no protection, or no address space for it) a worker
 * needs the host views opened while it runs. */
static void hook_begin(void *ctx) {
  emu_impl *e = ctx;
  if (!e->arena) emu_open(e);
}

static void hook_end(void *ctx) {
  emu_impl *e = ctx;
  if (!e->arena) emu_close(e);
}

static void hook_failed(void *ctx, int status, const char *message) {
  emu_impl *e = ctx;
  pthread_mutex_lock(&e->lock);
  if (!e->async_status) {
    e->async_status = status;
    snprintf(e->async_message, sizeof e->async_message, "emulated device (queued work): %s", message);
  }
  pthread_mutex_unlock(&e->lock);
}

static emu_queue_hooks hooks_of(emu_impl *e) { return (emu_queue_hooks){hook_begin, hook_end, hook_failed, e}; }

emu_mode emu_mode_from_env(void) {
  const char *v = getenv("GPUMAT_EMULATED_ASYNC");
  if (!v || !*v) return EMU_MODE_ASYNC;
  if (strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "inline") == 0) return EMU_MODE_INLINE;
  if (strcasecmp(v, "lazy") == 0) return EMU_MODE_LAZY;
  return EMU_MODE_ASYNC;
}

gm_status emu_streams_init(gm_device *d, emu_mode mode) {
  emu_impl *e = d->impl;
  emu_queue_hooks h = hooks_of(e);
  return emu_queue_new(&h, mode, &e->compute);
}

gm_status emu_take_async_error(emu_impl *e) {
  pthread_mutex_lock(&e->lock);
  int st = e->async_status;
  char msg[sizeof e->async_message];
  memcpy(msg, e->async_message, sizeof msg);
  e->async_status = 0;
  pthread_mutex_unlock(&e->lock);
  return st ? gm_fail((gm_status)st, "%s", msg) : GM_OK;
}

/* With the arena nothing on the host thread touches device memory at its
 * host address: launches, BLAS and copies are queued or use the alias,
 * and host code that runs inside a device call (a CPU run-time kernel)
 * asks for the alias (host_address).  So the host views stay closed even
 * inside device calls, and any other host access crashes. */
void emu_enter(gm_device *d) {
  emu_impl *e = d->impl;
  if (!e->arena) emu_open(e);
}

void emu_leave(gm_device *d) {
  emu_impl *e = d->impl;
  if (!e->arena) emu_close(e);
}

void *emu_host_address(gm_device *d, void *p) {
  (void)d;
  return gm_emu_alias(p);
}

static emu_queue *queue_of(gm_device *d, gm_stream *s) {
  emu_impl *e = d->impl;
  return s ? s->q : e->compute;
}

void emu_drain(gm_device *d) {
  emu_impl *e = d->impl;
  emu_queue_drain(e->compute);
  if (d->copy_stream) emu_queue_drain(d->copy_stream->q);
}

/* ---- copies ---- */

typedef struct copy_task {
  void *dst;
  const void *src;
  size_t bytes;
  _Atomic size_t *in_flight; /* emu_impl's count of copy-stream copies, or NULL */
} copy_task;

static int run_copy(void *arg) {
  copy_task *t = arg;
  gm_move_bytes(gm_emu_alias(t->dst), gm_emu_alias(t->src), t->bytes);
  if (t->in_flight) atomic_fetch_sub(t->in_flight, 1);
  free(t);
  return 0;
}

static gm_status check_copy(gm_device *d) {
  GM_TRY(emu_sticky(d->impl));
  if (emu_fault(d->impl, EMU_FAULT_COPY)) return gm_fail(GM_ECUDA, "emulated device copy failed (injected fault)");
  return GM_OK;
}

static gm_status queue_copy(gm_device *d, emu_queue *q, void *dst, const void *src, size_t bytes) {
  emu_impl *e = d->impl;
  copy_task *t = malloc(sizeof *t);
  if (!t) return gm_fail(GM_ENOMEM, "out of host memory");
  *t = (copy_task){dst, src, bytes, q == e->compute ? NULL : &e->copies_in_flight};
  if (t->in_flight) atomic_fetch_add(t->in_flight, 1);
  (void)emu_queue_push(q, run_copy, t);
  return GM_OK;
}

/* cudaMemcpy's model: the copy runs after everything on the compute
 * stream, and the host waits for it (so host memory is free to reuse). */
static gm_status host_copy(gm_device *d, void *dst, const void *src, size_t bytes) {
  emu_impl *e = d->impl;
  emu_queue_drain(e->compute);
  GM_TRY(emu_take_async_error(e));
  if (!e->arena) emu_open(e);
  gm_move_bytes(gm_emu_alias(dst), gm_emu_alias(src), bytes);
  if (!e->arena) emu_close(e);
  return GM_OK;
}

gm_status emu_h2d(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s) {
  GM_TRY(check_copy(d));
  return s ? queue_copy(d, s->q, dst, src, bytes) : host_copy(d, dst, src, bytes);
}

gm_status emu_d2h(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s) {
  GM_TRY(check_copy(d));
  return s ? queue_copy(d, s->q, dst, src, bytes) : host_copy(d, dst, src, bytes);
}

/* Device to device: queued on its stream; the host does not wait. */
gm_status emu_d2d(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s) {
  GM_TRY(check_copy(d));
  return queue_copy(d, queue_of(d, s), dst, src, bytes);
}

/* Rows between any two spaces: synchronous, after the compute stream. */
gm_status emu_copy_2d(gm_device *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                      size_t height) {
  emu_impl *e = d->impl;
  GM_TRY(check_copy(d));
  emu_queue_drain(e->compute);
  GM_TRY(emu_take_async_error(e));
  char *to = gm_emu_alias(dst);
  const char *from = gm_emu_alias(src);
  if (!e->arena) emu_open(e);
  for (size_t r = 0; r < height; r++) gm_move_bytes(to + r * dpitch, from + r * spitch, width);
  if (!e->arena) emu_close(e);
  return GM_OK;
}

/* ---- streams and events ---- */

gm_status emu_stream_new(gm_device *d, gm_stream **out) {
  emu_impl *e = d->impl;
  gm_stream *s = calloc(1, sizeof *s);
  if (!s) return gm_fail(GM_ENOMEM, "out of host memory");
  emu_queue_hooks h = hooks_of(e);
  gm_status st = emu_queue_new(&h, emu_queue_mode(e->compute), &s->q);
  if (st != GM_OK) {
    free(s);
    return st;
  }
  *out = s;
  return GM_OK;
}

void emu_stream_free(gm_device *d, gm_stream *s) {
  (void)d;
  if (!s) return;
  emu_queue_free(s->q);
  free(s);
}

gm_status emu_stream_sync(gm_device *d, gm_stream *s) {
  emu_queue_drain(queue_of(d, s));
  GM_TRY(emu_take_async_error(d->impl));
  return emu_sticky(d->impl);
}

typedef struct wait_task {
  emu_queue *on;
  uint64_t ticket;
} wait_task;

static int run_wait(void *arg) {
  wait_task *t = arg;
  emu_queue_wait(t->on, t->ticket);
  free(t);
  return 0;
}

/* An event recorded on s (its current tail) that work queued later on
 * waiter (NULL: the compute stream) waits for; the host does not wait. */
gm_status emu_stream_wait(gm_device *d, gm_stream *waiter, gm_stream *s) {
  emu_queue *w = queue_of(d, waiter), *on = queue_of(d, s);
  if (w == on) return GM_OK;
  uint64_t ticket = emu_queue_tail(on);
  if (ticket == 0) return GM_OK;
  wait_task *t = malloc(sizeof *t);
  if (!t) {
    emu_queue_wait(on, ticket); /* the host waits instead: still ordered */
    return GM_OK;
  }
  *t = (wait_task){on, ticket};
  (void)emu_queue_push(w, run_wait, t);
  return GM_OK;
}

/* cudaDeviceSynchronize: every stream of the device. */
gm_status emu_synchronize(gm_device *d) {
  emu_drain(d);
  GM_TRY(emu_take_async_error(d->impl));
  return emu_sticky(d->impl);
}

/* ---- events: a ticket of the compute stream ---- */

_Static_assert(sizeof(uintptr_t) >= sizeof(uint64_t), "a ticket fits in the event handle");

gm_status emu_event_record(gm_device *d, void **ev) {
  emu_impl *e = d->impl;
  *ev = (void *)(uintptr_t)emu_queue_tail(e->compute);
  return GM_OK;
}

/* Lazy mode runs the queue up to the ticket only: later work stays
 * queued, so a wait that should have covered it still fails. */
gm_status emu_event_sync(gm_device *d, void *ev) {
  emu_impl *e = d->impl;
  emu_queue_wait(e->compute, (uint64_t)(uintptr_t)ev);
  GM_TRY(emu_take_async_error(e));
  return emu_sticky(e);
}

void emu_event_free(gm_device *d, void *ev) {
  (void)d;
  (void)ev;
}
