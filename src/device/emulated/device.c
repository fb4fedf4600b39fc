/* The emulated device: the device contract in host memory, so the device
 * path of every op runs (and is tested) on machines without a GPU.
 * Allocations are separate from host facets, copies are explicit and
 * counted by the runtime, and kernels run on the host from the same
 * element functions as the host backend. */
#include <stdlib.h>
#include <string.h>

#include "../backends.h"

static gm_status emu_raw_alloc(gm_device *d, size_t bytes, void **out) {
  (void)d;
  size_t rounded = (bytes + 63) / 64 * 64;
  *out = aligned_alloc(64, rounded ? rounded : 64);
  if (!*out) return gm_fail(GM_ECUDA_OOM, "emulated device out of memory");
  return GM_OK;
}

static void emu_raw_free(gm_device *d, void *p) {
  (void)d;
  free(p);
}

static gm_status emu_copy(gm_device *d, void *dst, const void *src, size_t bytes, gm_stream *s) {
  (void)d;
  (void)s;
  memcpy(dst, src, bytes);
  return GM_OK;
}

static gm_status emu_stream_new(gm_device *d, gm_stream **out) {
  (void)d;
  *out = NULL;
  return GM_OK;
}

static void emu_stream_free(gm_device *d, gm_stream *s) {
  (void)d;
  (void)s;
}

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
 * the vec (and counted) but needs no work here. */
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

static void emu_destroy(gm_device *d) { (void)d; }

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
    .kernels = NULL,
    .destroy = emu_destroy,
};

gm_status gm_emulated_device_init(gm_device *d) {
  emu_ops.kernels = gm_emulated_kernels();
  d->ops = &emu_ops;
  return GM_OK;
}
