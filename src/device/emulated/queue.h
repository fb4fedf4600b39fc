/* The emulated device's streams: FIFO queues of tasks run by a worker
 * thread of their own, as a GPU's streams run behind the host.  A push
 * returns at once (ticket = its position); a wait blocks the caller until
 * every task up to a ticket has run.  Modes:
 *   inline  push runs the task at once on the caller's thread;
 *   async   the worker runs tasks as soon as they are queued;
 *   lazy    the worker runs tasks only up to the highest ticket somebody
 *           waits for: the most adversarial legal order, so a missing
 *           wait reads stale (or protected) memory every time.
 * Tasks never call Lua; a task's failure (non-zero gm_status) is handed
 * to the owner's `failed` hook, which keeps it for the next sync. */
#ifndef GM_DEVICE_EMULATED_QUEUE_H
#define GM_DEVICE_EMULATED_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../core/model/status.h"

typedef enum emu_mode { EMU_MODE_INLINE = 0, EMU_MODE_ASYNC = 1, EMU_MODE_LAZY = 2 } emu_mode;

/* Runs on the worker (or inline); returns a gm_status as int (0: ok). */
typedef int (*emu_task_fn)(void *arg);

typedef struct emu_queue_hooks {
  /* around a run of tasks (the worker opens device memory) */
  void (*begin)(void *ctx);
  void (*end)(void *ctx);
  /* a task failed; message is the worker's gm_last_error() */
  void (*failed)(void *ctx, int status, const char *message);
  void *ctx;
} emu_queue_hooks;

typedef struct emu_queue emu_queue;

gm_status emu_queue_new(const emu_queue_hooks *hooks, emu_mode mode, emu_queue **out);
/* Runs what is queued, stops the worker and frees q. */
void emu_queue_free(emu_queue *q);
/* Queues fn(arg) (fn owns arg); returns its ticket.  Without memory for
 * the queue node it waits for q and runs fn at once (a legal order). */
uint64_t emu_queue_push(emu_queue *q, emu_task_fn fn, void *arg);
/* The ticket of the last task pushed so far (0: none). */
uint64_t emu_queue_tail(emu_queue *q);
/* Blocks until every task up to ticket has run (lazy: runs them now). */
void emu_queue_wait(emu_queue *q, uint64_t ticket);
/* Waits for everything queued so far. */
void emu_queue_drain(emu_queue *q);
/* Tasks queued and not finished. */
size_t emu_queue_pending(emu_queue *q);
/* Drains q, then switches its mode. */
void emu_queue_set_mode(emu_queue *q, emu_mode mode);
emu_mode emu_queue_mode(emu_queue *q);
/* True on a queue's worker thread (such code must not wait for its own
 * queue). */
bool emu_queue_on_worker(void);

#endif
