/* The arena of doubly mapped device blocks (alias.h). */
#define _GNU_SOURCE 1 /* memfd_create */
#include "alias.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>


uintptr_t gm_emu_arena_base;
size_t gm_emu_arena_span;

/* Address space only (PROT_NONE, no reserve): 256 GiB of host views, as
 * much again for the aliases.  A block that does not fit fails as out of
 * memory, as on a device of that size. */
#define ARENA_SPAN ((size_t)1 << 38)

/* Free ranges of the host half, by offset, coalesced. */
typedef struct range {
  size_t off, len;
  struct range *next;
} range;

static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;
static range *free_ranges;

static void reserve(void) {
  void *p = mmap(NULL, 2 * ARENA_SPAN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  range *r = malloc(sizeof *r);
  if (p == MAP_FAILED || !r) {
    if (p != MAP_FAILED) munmap(p, 2 * ARENA_SPAN);
    free(r);
    return;
  }
  *r = (range){0, ARENA_SPAN, NULL};
  free_ranges = r;
  gm_emu_arena_base = (uintptr_t)p;
  gm_emu_arena_span = ARENA_SPAN;
}

bool gm_emu_arena_ready(void) {
  pthread_once(&arena_once, reserve);
  return gm_emu_arena_span != 0;
}

/* First fit; SIZE_MAX when nothing fits. */
static size_t take_range(size_t len) {
  pthread_mutex_lock(&arena_lock);
  size_t off = SIZE_MAX;
  for (range **link = &free_ranges; *link; link = &(*link)->next) {
    range *r = *link;
    if (r->len < len) continue;
    off = r->off;
    r->off += len;
    r->len -= len;
    if (r->len == 0) {
      *link = r->next;
      free(r);
    }
    break;
  }
  pthread_mutex_unlock(&arena_lock);
  return off;
}

static void give_range(size_t off, size_t len) {
  pthread_mutex_lock(&arena_lock);
  range *prev = NULL, *next = free_ranges;
  while (next && next->off < off) {
    prev = next;
    next = next->next;
  }
  if (prev && prev->off + prev->len == off) {
    prev->len += len;
    if (next && prev->off + prev->len == next->off) {
      prev->len += next->len;
      prev->next = next->next;
      free(next);
    }
  } else if (next && off + len == next->off) {
    next->off = off;
    next->len += len;
  } else {
    range *r = malloc(sizeof *r);
    if (r) { /* else the range is lost to the arena, not to the host */
      *r = (range){off, len, next};
      if (prev)
        prev->next = r;
      else
        free_ranges = r;
    }
  }
  pthread_mutex_unlock(&arena_lock);
}

/* Back to a reservation: the shared pages go once both views are gone. */
static void unreserve(uintptr_t at, size_t len) {
  (void)mmap((void *)at, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

int gm_emu_arena_map(size_t len, bool open, void **host) {
  size_t off = take_range(len);
  if (off == SIZE_MAX) return ENOMEM;
  uintptr_t h = gm_emu_arena_base + off, a = h + gm_emu_arena_span;
  int fd = memfd_create("gpumat-emulated", MFD_CLOEXEC);
  int err = fd < 0 ? errno : 0;
  if (!err && ftruncate(fd, (off_t)len) != 0) err = errno;
  if (!err && mmap((void *)a, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) err = errno;
  if (!err && mmap((void *)h, len, open ? PROT_READ | PROT_WRITE : PROT_NONE, MAP_SHARED | MAP_FIXED, fd, 0) ==
                  MAP_FAILED)
    err = errno;
  if (fd >= 0) close(fd); /* the mappings keep the file */
  if (err) {
    unreserve(h, len);
    unreserve(a, len);
    give_range(off, len);
    return err;
  }
  *host = (void *)h;
  return 0;
}

void gm_emu_arena_unmap(void *host, size_t len) {
  uintptr_t h = (uintptr_t)host;
  unreserve(h, len);
  unreserve(h + gm_emu_arena_span, len);
  give_range(h - gm_emu_arena_base, len);
}
