/* The emulated device: the device contract in host memory, so the device
 * path of every op runs (and is tested) on machines without a GPU.
 * Allocations are separate from host facets, copies are explicit and
 * counted by the runtime, and the ops run the library's CUDA kernels
 * (kernels/NAME.cu built for the CPU model of CUDA, kernels.c) and the
 * host's BLAS on the emulated device's own memory.
 *
 * With GPUMAT_EMULATED_PROTECT (test builds), device memory is mapped
 * page-aligned and kept PROT_NONE except while a device call is active
 * (enter..leave, counted so calls may nest), a copy runs or a stream's
 * worker runs queued work (streams.c): host code that touches device
 * memory crashes in tests as it would on a GPU.  Streams, copies and the
 * asynchronous model are in streams.c and queue.c. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "alias.h"
#include "emulated.h"
#include "impl.h"
#include "launchers.h"

_Static_assert(GM_EMU_INLINE == (int)EMU_MODE_INLINE && GM_EMU_ASYNC == (int)EMU_MODE_ASYNC &&
                   GM_EMU_LAZY == (int)EMU_MODE_LAZY,
               "gm.emulated_device's modes are the queue's");

/* Fault injection for testing the callers' error paths: with the
 * environment variable GPUMAT_EMULATED_FAIL_EVERY=N (read when the device
 * is opened), every Nth raw allocation or copy (counted together) fails,
 * an allocation as out of memory, a copy as a device error.
 * GPUMAT_EMULATED_FAIL_KINDS ("alloc", "copy" or "alloc,copy", the
 * default) limits which calls count; GPUMAT_EMULATED_FAIL_MAX=M stops
 * after M injected faults (so a test can check that the device works
 * again afterwards). */
bool emu_fault(emu_impl *e, unsigned kind) {
  if (!e->fail_every || !(e->fail_kinds & kind)) return false;
  pthread_mutex_lock(&e->lock);
  bool fail = (!e->fail_max || e->n_failed < e->fail_max) && ++e->fail_count % e->fail_every == 0;
  if (fail) e->n_failed++;
  pthread_mutex_unlock(&e->lock);
  return fail;
}

static void emu_fault_init(emu_impl *e) {
  const char *every = getenv("GPUMAT_EMULATED_FAIL_EVERY");
  const char *kinds = getenv("GPUMAT_EMULATED_FAIL_KINDS");
  if (!every || !*every) return;
  char *end;
  unsigned long long n = strtoull(every, &end, 10);
  if (*end || n == 0) return;
  e->fail_every = n;
  const char *max = getenv("GPUMAT_EMULATED_FAIL_MAX");
  if (max && *max) e->fail_max = strtoull(max, NULL, 10);
  e->fail_kinds = EMU_FAULT_ALLOC | EMU_FAULT_COPY;
  if (kinds && *kinds) {
    e->fail_kinds = 0;
    if (strstr(kinds, "alloc")) e->fail_kinds |= EMU_FAULT_ALLOC;
    if (strstr(kinds, "copy")) e->fail_kinds |= EMU_FAULT_COPY;
  }
}


/* cudart's per-thread last-error slot: a failed raw
 * allocation leaves GM_EMU_ERR_OOM here, as a failed cudaMalloc leaves
 * cudaErrorMemoryAllocation; check_error (the launch's cudaGetLastError)
 * returns and clears it, clear_error clears it. */
static _Thread_local int last_error;

#ifdef GPUMAT_EMULATED_PROTECT
static const bool protect = true;
#else
static const bool protect = false;
#endif

static size_t page_round(size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (bytes == 0) bytes = 1;
  return (bytes + page - 1) / page * page;
}

static bool emu_guarded(const emu_impl *e, const void *p);

static void set_access(emu_impl *e, bool on) {
  if (!protect) return;
  for (emu_block *b = e->blocks; b; b = b->next)
    if (emu_guarded(e, b->ptr)) mprotect(b->ptr, b->bytes, on ? PROT_READ | PROT_WRITE : PROT_NONE);
}

void emu_open(emu_impl *e) {
  pthread_mutex_lock(&e->lock);
  if (e->depth++ == 0) set_access(e, true);
  pthread_mutex_unlock(&e->lock);
}

void emu_close(emu_impl *e) {
  pthread_mutex_lock(&e->lock);
  if (e->depth > 0 && --e->depth == 0) set_access(e, false);
  pthread_mutex_unlock(&e->lock);
}

gm_status emu_sticky(emu_impl *e) {
  if (atomic_load(&e->sticky))
    return gm_fail(GM_ECUDA, "emulated device: sticky error (an illegal address was simulated); the device "
                             "is unusable until reset");
  return GM_OK;
}

/* Committing at allocation (a modeling choice, default on): cudaMalloc
 * gives device memory backed at once, so its cost grows with the size and
 * nothing is paid later; a bare mmap gives address space whose pages fault
 * in at first touch, i.e. inside whatever op writes the block first, and a
 * fresh allocation would look nearly free next to a pool or cache hit
 * (bench/RESULTS.md, memperf).  So every raw device allocation (pitched
 * ones included) is populated writable before it is handed out.
 * MADV_POPULATE_WRITE (Linux 5.14) fails with ENOMEM when the host cannot
 * back the block, and the allocation then fails as out of memory, like
 * cudaMalloc; a touch loop or MAP_POPULATE would meet the OOM killer
 * instead.  Kernels without it (EINVAL) keep the pages uncommitted.  The
 * only threshold is an upper one: a block larger than 1 GiB or than half
 * the host's free memory stays uncommitted (as before), since populating
 * it could still wake the OOM killer (the page allocator's, on this
 * process or on another one) before madvise returns ENOMEM, and takes
 * seconds and gigabytes of a shared test machine; the fuzzer asks for
 * such blocks.  No lower threshold: the emulated passes of the suite make
 * about a thousand raw allocations, 185 MiB in all (the pool serves the
 * rest), so committing them costs milliseconds.  GPUMAT_EMULATED_COMMIT=0
 * (read when the device is opened) turns it off, for the benchmark's
 * uncommitted comparison. */
#define EMU_COMMIT_MAX ((size_t)1 << 30)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static bool emu_commit(void *p, size_t len) {
  long free_pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (len > EMU_COMMIT_MAX || free_pages <= 0 || page <= 0 ||
      (unsigned long long)len > (unsigned long long)free_pages * (unsigned long long)page / 2)
    return true; /* too big to commit safely (or unknown): left to fault in */
  if (madvise(p, len, MADV_POPULATE_WRITE) == 0) return true;
  return errno == EINVAL; /* an older kernel: left to fault in */
}

/* Blocks larger than a huge page are private anonymous memory, aligned
 * and advised huge, outside the arena: the arena's memfd pages cannot be
 * huge where shmem has no transparent huge pages (the default), and
 * committing them took 4-5 ms per 4 MiB on the VMs this runs on (page by
 * page) where huge pages take 0.7 ms; a real device maps 2 MiB pages too.
 * Such a block has no alias, so with the arena it stays read-write at the
 * host's address (emu_guarded).  Protection still covers every block of
 * at most 2 MiB: the device pool's segments (GM_POOL_SEGMENT, exactly
 * 2 MiB), which hold every mat up to 1 MiB, and the suite's deliberate
 * stray accesses. */
#define EMU_HUGE ((size_t)2 << 20)

static void *map_huge(size_t len) {
  size_t span = len + EMU_HUGE;
  char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return MAP_FAILED;
  char *p = (char *)(((uintptr_t)raw + EMU_HUGE - 1) & ~(uintptr_t)(EMU_HUGE - 1));
  if (p > raw) munmap(raw, (size_t)(p - raw));
  if (raw + span > p + len) munmap(p + len, (size_t)(raw + span - (p + len)));
  (void)madvise(p, len, MADV_HUGEPAGE); /* advice only */
  return p;
}

/* Whether block p is one of the arena's (doubly mapped, alias.h). */
static bool in_arena(const emu_impl *e, const void *p) { return e->arena && gm_emu_alias(p) != p; }

/* Whether block p is kept PROT_NONE outside device calls: with the arena
 * only the arena's blocks, without it every block (opened for device
 * calls and worker runs). */
static bool emu_guarded(const emu_impl *e, const void *p) {
  return protect && (!e->arena || in_arena(e, p));
}

/* A block's host view (PROT_NONE, opened below when a device call is
 * active) and, with the arena, its worker alias (alias.h). */
static void *map_block(emu_impl *e, size_t len) {
  if (len > EMU_HUGE) return map_huge(len);
  if (!e->arena) return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void *p;
  int err = gm_emu_arena_map(len, false, &p);
  return err ? MAP_FAILED : p;
}

static void unmap(emu_impl *e, void *p, size_t len) {
  if (in_arena(e, p))
    gm_emu_arena_unmap(p, len);
  else
    munmap(p, len);
}

/* What every raw allocation checks first, a reused scratch block too (so
 * the sticky error and injected faults count allocations as before). */
static gm_status emu_alloc_check(emu_impl *e, size_t bytes) {
  GM_TRY(emu_sticky(e)); /* cudaMalloc fails too once the context is broken */
  if (emu_fault(e, EMU_FAULT_ALLOC)) {
    last_error = GM_EMU_ERR_OOM; /* as a failed cudaMalloc leaves it */
    return gm_fail(GM_ECUDA_OOM, "emulated device out of memory (%zu bytes, injected fault)", bytes);
  }
  return GM_OK;
}

static gm_status emu_raw_alloc(gm_device *d, size_t bytes, void **out) {
  emu_impl *e = d->impl;
  GM_TRY(emu_alloc_check(e, bytes));
  size_t len = page_round(bytes);
  pthread_mutex_lock(&e->lock);
  bool full = e->capacity && (len > e->capacity || e->allocated > e->capacity - len);
  pthread_mutex_unlock(&e->lock);
  emu_block *b = full ? NULL : malloc(sizeof *b);
  void *p = b ? map_block(e, len) : MAP_FAILED;
  if (p != MAP_FAILED && e->commit && !emu_commit(gm_emu_alias(p), len)) {
    unmap(e, p, len);
    p = MAP_FAILED;
  }
  if (p == MAP_FAILED) {
    free(b);
    last_error = GM_EMU_ERR_OOM;
    return gm_fail(GM_ECUDA_OOM, "emulated device out of memory (%zu bytes)", bytes);
  }
  pthread_mutex_lock(&e->lock);
  e->allocated += len;
  if (emu_guarded(e, p)) mprotect(p, len, e->depth == 0 ? PROT_NONE : PROT_READ | PROT_WRITE);
  b->ptr = p;
  b->bytes = len;
  b->next = e->blocks;
  e->blocks = b;
  pthread_mutex_unlock(&e->lock);
  *out = p;
  return GM_OK;
}

/* Unmaps at once: on a worker (a queued scratch free) the stream has
 * reached it; elsewhere it first waits for both streams, as cudaFree
 * synchronizes the device (queued work may still use the block). */
static void unmap_block(emu_impl *e, void *p) {
  pthread_mutex_lock(&e->lock);
  for (emu_block **link = &e->blocks; *link; link = &(*link)->next) {
    emu_block *b = *link;
    if (b->ptr != p) continue;
    *link = b->next;
    e->allocated -= b->bytes;
    unmap(e, b->ptr, b->bytes);
    free(b);
    break;
  }
  pthread_mutex_unlock(&e->lock);
}

static void emu_raw_free(gm_device *d, void *p) {
  if (!emu_queue_on_worker()) emu_drain(d);
  unmap_block(d->impl, p);
}

/* Scratch is stream ordered, as cudaMallocAsync's pool: every launch of
 * the CPU model and every scratch free is queued on the compute stream, so
 * a block freed there may be handed to the next scratch allocation at
 * once (the work that gets it is queued after the work that used it).
 * One such block of at most EMU_PARK_MAX bytes is parked: mapping,
 * committing and unmapping a block per op (alias.h: two mappings of a
 * memfd, populated, then torn down with TLB flushes; its pages faulted
 * in the kernel that first wrote them) cost the reductions that split
 * their axis more than their kernels (bench/RESULTS.md, "Scratch reuse on
 * the emulated device").  Parked, it is no device allocation (not in
 * blocks, not counted in allocated); unmapped when the device closes.
 * Up to 256 MiB: the radix sort's pairs of a 16M-element line (128 MiB)
 * faulted in afresh every call took longer than the sort itself on the
 * VMs this runs on (a 4M int32 sort 580 ms with a 16 MiB limit, 290 ms
 * with this one; bench/RESULTS.md). */
#define EMU_PARK_MAX ((size_t)256 << 20)

static void drop_parked(emu_impl *e) {
  emu_block *b = e->parked;
  e->parked = NULL;
  if (!b) return;
  unmap(e, b->ptr, b->bytes);
  free(b);
}

/* Parks block p if the slot is free and p small enough; false: not parked. */
static bool park(emu_impl *e, void *p) {
  bool parked = false;
  pthread_mutex_lock(&e->lock);
  for (emu_block **link = &e->blocks; *link && !e->parked; link = &(*link)->next) {
    emu_block *b = *link;
    if (b->ptr != p) continue;
    if (b->bytes <= EMU_PARK_MAX) {
      *link = b->next;
      e->allocated -= b->bytes;
      e->parked = b;
      parked = true;
    }
    break;
  }
  pthread_mutex_unlock(&e->lock);
  return parked;
}

/* Under e->lock: b becomes a live raw allocation again. */
static void relink(emu_impl *e, emu_block *b) {
  e->allocated += b->bytes;
  if (emu_guarded(e, b->ptr)) mprotect(b->ptr, b->bytes, e->depth == 0 ? PROT_NONE : PROT_READ | PROT_WRITE);
  b->next = e->blocks;
  e->blocks = b;
}

void gm_emu_scratch_free(void *device, void *p);

/* 1: *out is the parked block, now a live allocation again; 0: none fits;
 * -1: the allocation checks failed (as emu_raw_alloc's would). */
static int take_parked(gm_device *d, size_t bytes, void **out) {
  emu_impl *e = d->impl;
  const size_t len = page_round(bytes);
  pthread_mutex_lock(&e->lock);
  emu_block *b = e->parked;
  const bool fits = b && len <= b->bytes &&
                    !(e->capacity && (b->bytes > e->capacity || e->allocated > e->capacity - b->bytes));
  if (fits) e->parked = NULL;
  pthread_mutex_unlock(&e->lock);
  if (!fits) return 0;
  const bool ok = emu_alloc_check(e, bytes) == GM_OK;
  pthread_mutex_lock(&e->lock);
  relink(e, b);
  pthread_mutex_unlock(&e->lock);
  if (!ok) { /* back to the slot, or freed in stream order as any scratch */
    gm_emu_scratch_free(d, b->ptr);
    return -1;
  }
  *out = b->ptr;
  return 1;
}

/* Scratch arrays of the .cu launchers (launchers.h): raw device blocks,
 * allocated when the launch is queued and freed in stream order (a task
 * queued after the kernels that use them).  When the device is full, the
 * deferred frees and the pool's cached blocks go back
 * (gm_device_reclaim_for_scratch) and the allocation is tried once more,
 * as on CUDA (src/device/cuda/memory.c; no GC: the op's operands are
 * held). */
int gm_emu_scratch_alloc(void *device, size_t bytes, void **out) {
  gm_device *d = device;
  const int taken = take_parked(d, bytes, out);
  if (taken) return taken > 0 ? 0 : GM_EMU_ERR_OOM;
  gm_status st = emu_raw_alloc(d, bytes, out);
  if (st == GM_ECUDA_OOM) {
    d->ops->clear_error(d);
    gm_device_reclaim_for_scratch(d);
    st = emu_raw_alloc(d, bytes, out);
  }
  return st == GM_OK ? 0 : GM_EMU_ERR_OOM;
}

typedef struct scratch_free_task {
  emu_impl *e;
  void *p;
} scratch_free_task;

static int run_scratch_free(void *arg) {
  scratch_free_task *t = arg;
  unmap_block(t->e, t->p);
  free(t);
  return 0;
}

void gm_emu_scratch_free(void *device, void *p) {
  gm_device *d = device;
  emu_impl *e = d->impl;
  if (park(e, p)) return;
  scratch_free_task *t = malloc(sizeof *t);
  if (!t) {
    emu_raw_free(d, p);
    return;
  }
  *t = (scratch_free_task){e, p};
  (void)emu_queue_push(e->compute, run_scratch_free, t);
}

/* A closure of a launcher (kernels/cpu/emu_kernels.h) or of a BLAS or
 * solver entry (blas.c), queued on the compute stream of device; without
 * a device it runs at once. */
void gm_emu_enqueue(void *device, int (*fn)(void *), void *arg) {
  if (!device) {
    (void)fn(arg);
    return;
  }
  gm_device *d = device;
  emu_impl *e = d->impl;
  (void)emu_queue_push(e->compute, fn, arg);
}

void gm_emu_wait(void *device) {
  gm_device *d = device;
  emu_impl *e = d->impl;
  if (d && !emu_queue_on_worker()) emu_queue_drain(e->compute);
}

const gm_emu_hooks gm_emu_device_hooks = {
    .enqueue = gm_emu_enqueue,
    .wait = gm_emu_wait,
};

/* Page-locking has no meaning in host memory: registration is recorded by
 * the vec and the runtime (and counted) but needs no work here. */
static gm_status emu_host_register(gm_device *d, void *p, size_t bytes) {
  (void)d;
  (void)p;
  (void)bytes;
  return GM_OK;
}

/* cudaHostUnregister and cudaFreeHost wait for the device: queued
 * copies may still read or write the memory. */
static void emu_host_unregister(gm_device *d, void *p) {
  (void)p;
  emu_drain(d);
}

static gm_status emu_host_alloc(gm_device *d, size_t bytes, void **out) {
  (void)d;
  size_t rounded = (bytes + 63) / 64 * 64;
  *out = aligned_alloc(64, rounded ? rounded : 64);
  if (!*out) return gm_fail(GM_ENOMEM, "out of host memory (%zu bytes)", bytes);
  return GM_OK;
}

static void emu_host_free(gm_device *d, void *p) {
  emu_drain(d);
  free(p);
}

static gm_status emu_get_info(gm_device *d, gm_device_info *out) {
  (void)d;
  memset(out, 0, sizeof *out);
  strcpy(out->name, "gpumat emulated device");
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  out->total_memory = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
  out->multiprocessor_count = 1;
  out->warp_size = 32;
  out->max_threads_per_block = 1024;
  return GM_OK;
}

static void emu_clear_error(gm_device *d) {
  (void)d;
  last_error = 0;
}

static gm_status emu_check_error(gm_device *d) {
  emu_impl *e = d->impl;
  GM_TRY(emu_sticky(e));
  GM_TRY(emu_take_async_error(e));
  int err = last_error;
  last_error = 0;
  if (err == GM_EMU_ERR_OOM)
    return gm_fail(GM_ECUDA, "emulated device launch: out of memory (a stale error from an earlier failed "
                             "allocation that nobody cleared)");
  return GM_OK;
}

/* Managed memory is host memory here: a prefetch is only counted, so the
 * specs can see the core ask for one before device work. */
static void emu_prefetch(gm_device *d, const void *p, size_t bytes) {
  (void)p;
  (void)bytes;
  atomic_fetch_add(&((emu_impl *)d->impl)->prefetches, 1);
}

gm_status gm_emulated_control(gm_device *d, const gm_emulated_control_in *in, gm_emulated_state *out) {
  emu_impl *e = d->impl;
  if (in && in->set_mode) {
    emu_queue_set_mode(e->compute, (emu_mode)in->mode);
    if (d->copy_stream) emu_queue_set_mode(d->copy_stream->q, (emu_mode)in->mode);
  }
  out->mode = (int)emu_queue_mode(e->compute);
  out->queued = emu_queue_pending(e->compute);
  out->copies_in_flight = atomic_load(&e->copies_in_flight);
  out->prefetches = atomic_load(&e->prefetches);
  pthread_mutex_lock(&e->lock);
  if (in && in->set_capacity) e->capacity = in->capacity;
  if (in && in->set_sticky) atomic_store(&e->sticky, in->sticky);
  if (in && in->set_last_error) last_error = in->last_error;
  out->capacity = e->capacity;
  out->allocated = e->allocated;
  out->last_error = last_error;
  out->sticky = atomic_load(&e->sticky);
  pthread_mutex_unlock(&e->lock);
  return GM_OK;
}

static void emu_destroy(gm_device *d) {
  emu_impl *e = d->impl;
  if (!e) return;
  if (d->copy_stream) {
    emu_stream_free(d, d->copy_stream);
    d->copy_stream = NULL;
  }
  emu_queue_free(e->compute);
  e->compute = NULL;
  while (e->blocks) emu_raw_free(d, e->blocks->ptr);
  drop_parked(e);
  pthread_mutex_destroy(&e->lock);
  free(e);
  d->impl = NULL;
}

/* ---- memory spaces of buffers and staging mats ----
 * Pitched blocks are device memory (protected like any other) with rows
 * padded to 256 bytes as cudaMallocPitch would; page-locked blocks are
 * plain host memory (mapped ones are their own device address: they stay
 * host-accessible, as mapped memory is); managed blocks are host memory
 * both sides use in place. */
#define EMU_PITCH_ALIGN ((size_t)256)

static gm_status emu_alloc_pitched(gm_device *d, size_t width, size_t height, void **out, size_t *pitch) {
  size_t p = (width + EMU_PITCH_ALIGN - 1) / EMU_PITCH_ALIGN * EMU_PITCH_ALIGN;
  if (height > SIZE_MAX / p) return gm_fail(GM_ECUDA_OOM, "emulated device out of memory (pitched block)");
  GM_TRY(emu_raw_alloc(d, p * height, out));
  *pitch = p;
  return GM_OK;
}

static gm_status emu_host_alloc_flags(gm_device *d, size_t bytes, unsigned flags, void **out) {
  (void)flags; /* portable and write_combine have no meaning in host memory */
  return emu_host_alloc(d, bytes, out);
}

static gm_status emu_host_device_pointer(gm_device *d, void *host, void **dev) {
  (void)d;
  *dev = host;
  return GM_OK;
}

static void emu_managed_free(gm_device *d, void *p) {
  emu_drain(d);
  free(p);
}

static gm_device_ops emu_ops = {
    .name = "emulated",
    .raw_alloc = emu_raw_alloc,
    .raw_free = emu_raw_free,
    .copy_h2d = emu_h2d,
    .copy_d2h = emu_d2h,
    .copy_d2d = emu_d2d,
    .stream_new = emu_stream_new,
    .stream_free = emu_stream_free,
    .stream_sync = emu_stream_sync,
    .stream_wait = emu_stream_wait,
    .synchronize = emu_synchronize,
    .event_record = emu_event_record,
    .event_sync = emu_event_sync,
    .event_free = emu_event_free,
    .prefetch = emu_prefetch,
    .host_register = emu_host_register,
    .host_unregister = emu_host_unregister,
    .host_alloc = emu_host_alloc,
    .host_free = emu_host_free,
    .enter = emu_enter,
    .leave = emu_leave,
    .host_address = emu_host_address,
    .get_info = emu_get_info,
    .clear_error = emu_clear_error,
    .check_error = emu_check_error,
    .kernels = NULL,
    .context_begin = NULL,
    .context_end = NULL,
    .destroy = emu_destroy,
    .alloc_pitched = emu_alloc_pitched,
    .host_alloc_flags = emu_host_alloc_flags,
    .host_device_pointer = emu_host_device_pointer,
    .managed_alloc = emu_host_alloc,
    .managed_free = emu_managed_free,
    .copy_2d = emu_copy_2d,
};

gm_status gm_emulated_device_init(gm_device *d) {
  emu_impl *e = calloc(1, sizeof *e);
  if (!e) return gm_fail(GM_ENOMEM, "out of host memory");
  pthread_mutex_init(&e->lock, NULL);
  emu_fault_init(e);
  e->arena = protect && gm_emu_arena_ready();
  const char *commit = getenv("GPUMAT_EMULATED_COMMIT");
  e->commit = !(commit && strcmp(commit, "0") == 0);
  emu_ops.kernels = gm_emulated_kernels();
  d->impl = e;
  d->ops = &emu_ops;
  gm_status st = emu_streams_init(d, emu_mode_from_env());
  if (st != GM_OK) {
    pthread_mutex_destroy(&e->lock);
    free(e);
    d->impl = NULL;
  }
  return st;
}

gm_status gm_emulated_parse_last_error(const char *value, int *err) {
  if (strcmp(value, "none") == 0)
    *err = GM_EMU_ERR_NONE;
  else if (strcmp(value, "out_of_memory") == 0)
    *err = GM_EMU_ERR_OOM;
  else
    return gm_fail(GM_EINVAL, "option 'last_error' must be \"none\" or \"out_of_memory\", got %s", value);
  return GM_OK;
}

const char *gm_emulated_last_error_name(int err) {
  return err == GM_EMU_ERR_OOM ? "out_of_memory" : "none";
}

gm_status gm_emulated_parse_lazy(const char *value, int *mode) {
  if (strcmp(value, "lazy") != 0)
    return gm_fail(GM_EINVAL, "option 'async' must be true, false or \"lazy\", got %s", value);
  *mode = GM_EMU_LAZY;
  return GM_OK;
}
