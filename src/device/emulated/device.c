/* The emulated device: the device contract in host memory, so the device
 * path of every op runs (and is tested) on machines without a GPU.
 * Allocations are separate from host facets, copies are explicit and
 * counted by the runtime, and the op tables are the host's, run on the
 * emulated device's own memory.
 *
 * With GPUMAT_EMULATED_PROTECT (test builds), device memory is mapped
 * page-aligned and kept PROT_NONE except while a device call is active
 * (enter..leave, counted so calls may nest) or inside this file's copy
 * functions: host code that touches device memory crashes in tests as it
 * would on a GPU. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../core/mem/backends.h"

typedef struct emu_block {
  void *ptr;
  size_t bytes; /* mapped length */
  struct emu_block *next;
} emu_block;

typedef struct emu_impl {
  pthread_mutex_t lock;
  int depth;         /* active device calls */
  emu_block *blocks; /* live raw allocations */
} emu_impl;

struct gm_stream {
  int unused; /* copies are synchronous memcpys; a stream is only an identity */
};

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

static void set_access(emu_impl *e, bool on) {
  if (!protect) return;
  for (emu_block *b = e->blocks; b; b = b->next)
    mprotect(b->ptr, b->bytes, on ? PROT_READ | PROT_WRITE : PROT_NONE);
}

static void emu_enter(gm_device *d) {
  emu_impl *e = d->impl;
  pthread_mutex_lock(&e->lock);
  if (e->depth++ == 0) set_access(e, true);
  pthread_mutex_unlock(&e->lock);
}

static void emu_leave(gm_device *d) {
  emu_impl *e = d->impl;
  pthread_mutex_lock(&e->lock);
  if (e->depth > 0 && --e->depth == 0) set_access(e, false);
  pthread_mutex_unlock(&e->lock);
}

static gm_status emu_raw_alloc(gm_device *d, size_t bytes, void **out) {
  emu_impl *e = d->impl;
  size_t len = page_round(bytes);
  emu_block *b = malloc(sizeof *b);
  if (!b) return gm_fail(GM_ENOMEM, "out of host memory");
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    free(b);
    return gm_fail(GM_ECUDA_OOM, "emulated device out of memory (%zu bytes)", bytes);
  }
  pthread_mutex_lock(&e->lock);
  if (protect && e->depth == 0) mprotect(p, len, PROT_NONE);
  b->ptr = p;
  b->bytes = len;
  b->next = e->blocks;
  e->blocks = b;
  pthread_mutex_unlock(&e->lock);
  *out = p;
  return GM_OK;
}

static void emu_raw_free(gm_device *d, void *p) {
  emu_impl *e = d->impl;
  pthread_mutex_lock(&e->lock);
  for (emu_block **link = &e->blocks; *link; link = &(*link)->next) {
    emu_block *b = *link;
    if (b->ptr != p) continue;
    *link = b->next;
    munmap(b->ptr, b->bytes);
    free(b);
    break;
  }
  pthread_mutex_unlock(&e->lock);
}

/* A copy is a device call of its own: memory is accessible only here. */
static gm_status emu_copy(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s) {
  (void)s;
  emu_enter(d);
  memcpy(dst, src, bytes);
  emu_leave(d);
  return GM_OK;
}

static gm_status emu_stream_new(gm_device *d, gm_stream **out) {
  (void)d;
  *out = calloc(1, sizeof **out);
  if (!*out) return gm_fail(GM_ENOMEM, "out of host memory");
  return GM_OK;
}

static void emu_stream_free(gm_device *d, gm_stream *s) {
  (void)d;
  free(s);
}

/* Copies complete before they return, so there is nothing to wait for. */
static gm_status emu_stream_sync(gm_device *d, gm_stream *s) {
  (void)d;
  (void)s;
  return GM_OK;
}

static gm_status emu_synchronize(gm_device *d) {
  (void)d;
  return GM_OK;
}

/* Page-locking has no meaning in host memory: registration is recorded by
 * the vec and the runtime (and counted) but needs no work here. */
static gm_status emu_host_register(gm_device *d, void *p, size_t bytes) {
  (void)d;
  (void)p;
  (void)bytes;
  return GM_OK;
}

static void emu_host_unregister(gm_device *d, void *p) {
  (void)d;
  (void)p;
}

static gm_status emu_host_alloc(gm_device *d, size_t bytes, void **out) {
  (void)d;
  size_t rounded = (bytes + 63) / 64 * 64;
  *out = aligned_alloc(64, rounded ? rounded : 64);
  if (!*out) return gm_fail(GM_ENOMEM, "out of host memory (%zu bytes)", bytes);
  return GM_OK;
}

static void emu_host_free(gm_device *d, void *p) {
  (void)d;
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

static void emu_destroy(gm_device *d) {
  emu_impl *e = d->impl;
  if (!e) return;
  while (e->blocks) emu_raw_free(d, e->blocks->ptr);
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
  (void)d;
  free(p);
}

/* Rows between any two spaces; a device call of its own, as emu_copy. */
static gm_status emu_copy_2d(gm_device *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                             size_t height) {
  emu_enter(d);
  for (size_t r = 0; r < height; r++) memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
  emu_leave(d);
  return GM_OK;
}

static gm_device_ops emu_ops = {
    .name = "emulated",
    .raw_alloc = emu_raw_alloc,
    .raw_free = emu_raw_free,
    .copy_h2d = emu_copy,
    .copy_d2h = emu_copy,
    .copy_d2d = emu_copy,
    .stream_new = emu_stream_new,
    .stream_free = emu_stream_free,
    .stream_sync = emu_stream_sync,
    .synchronize = emu_synchronize,
    .host_register = emu_host_register,
    .host_unregister = emu_host_unregister,
    .host_alloc = emu_host_alloc,
    .host_free = emu_host_free,
    .enter = emu_enter,
    .leave = emu_leave,
    .get_info = emu_get_info,
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
  emu_ops.kernels = gm_emulated_kernels();
  d->impl = e;
  d->ops = &emu_ops;
  return GM_OK;
}
