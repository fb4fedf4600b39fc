/* State shared by the emulated device's files (device.c: memory and
 * controls; streams.c: streams, copies and device-call brackets). */
#ifndef GM_DEVICE_EMULATED_IMPL_H
#define GM_DEVICE_EMULATED_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../core/mem/backends.h"
#include "queue.h"

typedef struct emu_block {
  void *ptr;
  size_t bytes; /* mapped length */
  struct emu_block *next;
} emu_block;

typedef struct emu_impl {
  pthread_mutex_t lock;
  int depth;         /* active device calls and running stream workers */
  emu_block *blocks; /* live raw allocations */
  emu_block *parked; /* a freed scratch block kept for the next scratch (device.c) */
  size_t capacity;   /* simulated device memory (0: the host's) */
  size_t allocated;  /* mapped bytes of live raw allocations */
  _Atomic int sticky; /* cudart's sticky error: set, every call fails */
  emu_queue *compute; /* the compute stream */
  _Atomic size_t copies_in_flight; /* queued on other streams, not landed */
  _Atomic size_t prefetches;       /* managed ranges prefetched (the memory is the host's: nothing moves) */
  /* the first failure of queued work, reported by the next sync or
   * launch check (as CUDA reports an asynchronous error) */
  int async_status;
  char async_message[256];
  /* fault injection (GPUMAT_EMULATED_FAIL_EVERY, see emu_fault) */
  unsigned long long fail_every, fail_count, fail_max, n_failed;
  unsigned fail_kinds; /* EMU_FAULT_* bits */
  bool commit;         /* populate raw allocations at once (emu_commit) */
  /* blocks are doubly mapped (alias.h): workers and copies use the
   * aliases and never open the host views */
  bool arena;
} emu_impl;

/* A stream other than the compute stream (the copy stream). */
struct gm_stream {
  emu_queue *q;
};

enum { EMU_FAULT_ALLOC = 1, EMU_FAULT_COPY = 2 };

bool emu_fault(emu_impl *e, unsigned kind);
/* GM_ECUDA with the sticky error's message when the device has one. */
gm_status emu_sticky(emu_impl *e);
/* Opens (depth 0 -> 1) or closes device memory to the host. */
void emu_open(emu_impl *e);
void emu_close(emu_impl *e);
/* Waits for both streams (before memory is freed or unregistered). */
void emu_drain(gm_device *d);
/* Takes the kept failure of queued work (GM_OK when none). */
gm_status emu_take_async_error(emu_impl *e);
gm_status emu_streams_init(gm_device *d, emu_mode mode);
/* The mode GPUMAT_EMULATED_ASYNC names ("0"/"false"/"inline",
 * "lazy"; anything else: async). */
emu_mode emu_mode_from_env(void);

/* The stream entries of the device table (streams.c). */
void emu_enter(gm_device *d);
void emu_leave(gm_device *d);
void *emu_host_address(gm_device *d, void *p);
gm_status emu_h2d(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s);
gm_status emu_d2h(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s);
gm_status emu_d2d(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s);
gm_status emu_copy_2d(gm_device *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                      size_t height);
gm_status emu_stream_new(gm_device *d, gm_stream **out);
void emu_stream_free(gm_device *d, gm_stream *s);
gm_status emu_stream_sync(gm_device *d, gm_stream *s);
gm_status emu_stream_wait(gm_device *d, gm_stream *waiter, gm_stream *s);
gm_status emu_synchronize(gm_device *d);
gm_status emu_event_record(gm_device *d, void **ev);
gm_status emu_event_sync(gm_device *d, void *ev);
void emu_event_free(gm_device *d, void *ev);

#endif
