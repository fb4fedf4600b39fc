/* The emulated device's double mapping (alias.c).  mprotect is per
 * process, not per thread, so a worker thread running queued device work
 * cannot be given access the host thread lacks.  Instead every raw device
 * block is mapped twice from one memfd, at a fixed distance in one
 * reserved arena: the address the core and the host hold (the "host
 * view") stays PROT_NONE outside host-side device calls, and the workers
 * (and the copy functions) reach the same pages through the read-write
 * alias, gm_emu_alias(p) = p + span.  So a host access that skips its
 * wait crashes even while a worker runs.  Shared with the kernels' C++
 * objects (kernels/cpu/emu_kernels.h), which translate their arguments. */
#ifndef GM_DEVICE_EMULATED_ALIAS_H
#define GM_DEVICE_EMULATED_ALIAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Set once, before the first block is mapped; span 0: no arena. */
extern uintptr_t gm_emu_arena_base;
extern size_t gm_emu_arena_span;

/* The worker's address of p: its alias when p is in a host view, else p
 * (host, pinned, managed memory, or no arena). */
static inline void *gm_emu_alias(const void *p) {
  uintptr_t a = (uintptr_t)p;
  return a - gm_emu_arena_base < gm_emu_arena_span ? (void *)(a + gm_emu_arena_span) : (void *)(uintptr_t)p;
}

/* Reserves the arena (once); false when it cannot (then blocks are plain
 * mappings and workers need the host view opened). */
bool gm_emu_arena_ready(void);
/* Maps len bytes (a page multiple): the host view at *host with access
 * RW when open, else PROT_NONE; its alias read-write.  0 or an errno. */
int gm_emu_arena_map(size_t len, bool open, void **host);
/* Unmaps both views of a block from gm_emu_arena_map. */
void gm_emu_arena_unmap(void *host, size_t len);

#ifdef __cplusplus
}
#endif

#endif
