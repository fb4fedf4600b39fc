/* The deferred-free queue of mats, frames and pins (see deferred.h). */
#include "deferred.h"

#include <stdlib.h>

#include "status.h"

typedef struct frame {
  uint64_t id;
  const void *owner; /* compared only, never dereferenced */
} frame;
typedef struct pin {
  uint64_t frame;
  gm_mat *m;
} pin;

static _Thread_local struct {
  frame *frames;
  size_t n_frames, cap_frames;
  pin *pins;
  size_t n_pins, cap_pins;
  gm_mat **deferred;
  size_t cap_deferred;
  uint64_t next_id;
  int hook;
} G;
_Thread_local size_t gm_n_deferred;
atomic_size_t gm_n_deferred_all;

static bool grow(void **p, size_t *cap, size_t need, size_t elt) {
  if (need <= *cap) return true;
  size_t c = *cap ? 2 * *cap : 16;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * elt);
  if (!q) return false;
  *p = q;
  *cap = c;
  return true;
}

static bool is_pinned(const gm_mat *m) {
  for (size_t i = 0; i < G.n_pins; i++)
    if (G.pins[i].m == m) return true;
  return false;
}

void gm_deferred_drain(void) {
  if (G.hook) return;
  size_t k = 0;
  for (size_t i = 0; i < gm_n_deferred; i++) {
    gm_mat *m = G.deferred[i];
    if (is_pinned(m))
      G.deferred[k++] = m;
    else
      gm_mat_free(m);
  }
  atomic_fetch_sub_explicit(&gm_n_deferred_all, gm_n_deferred - k, memory_order_relaxed);
  gm_n_deferred = k;
}

void gm_deferred_release(gm_mat *m, bool collected) {
  if (!m) return;
  /* A collected mat is unreachable, so no running call holds it unless
   * a frame pinned it (a mat taken from a table that was then emptied):
   * the reclaim cascade frees it at once, which is its point.  An
   * explicit free during the GC hook is deferred. */
  if ((G.hook && !collected) || is_pinned(m)) {
    /* out of memory for the list: leaking the mat is the safe choice */
    if (grow((void **)&G.deferred, &G.cap_deferred, gm_n_deferred + 1, sizeof *G.deferred)) {
      G.deferred[gm_n_deferred++] = m;
      atomic_fetch_add_explicit(&gm_n_deferred_all, 1, memory_order_relaxed);
    }
    return;
  }
  gm_mat_free(m);
}

gm_status gm_deferred_frame_open(const void *owner, size_t n_pins, uint64_t *id) {
  if (!grow((void **)&G.frames, &G.cap_frames, G.n_frames + 1, sizeof *G.frames) ||
      !grow((void **)&G.pins, &G.cap_pins, G.n_pins + n_pins, sizeof *G.pins))
    return gm_fail(GM_ENOMEM, "not enough memory");
  *id = ++G.next_id;
  G.frames[G.n_frames++] = (frame){*id, owner};
  return GM_OK;
}

void gm_deferred_frame_close(uint64_t id) {
  size_t k = 0;
  for (size_t i = 0; i < G.n_pins; i++)
    if (G.pins[i].frame != id) G.pins[k++] = G.pins[i];
  G.n_pins = k;
  k = 0;
  for (size_t i = 0; i < G.n_frames; i++)
    if (G.frames[i].id != id) G.frames[k++] = G.frames[i];
  G.n_frames = k;
  if (gm_n_deferred) gm_deferred_drain();
}

gm_status gm_deferred_pin(const void *owner, gm_mat *m) {
  for (size_t i = G.n_frames; i-- > 0;) {
    if (G.frames[i].owner != owner) continue;
    if (!grow((void **)&G.pins, &G.cap_pins, G.n_pins + 1, sizeof *G.pins))
      return gm_fail(GM_ENOMEM, "not enough memory");
    G.pins[G.n_pins++] = (pin){G.frames[i].id, m};
    return GM_OK;
  }
  return gm_fail(GM_ESTATE, "gpumat internal error: pin without an open frame");
}

bool gm_deferred_in_use(const gm_mat *m) { return G.hook || is_pinned(m); }

void gm_deferred_hook_enter(void) { G.hook++; }
void gm_deferred_hook_leave(void) { G.hook--; }
