#include "barrier.h"

#include <stdlib.h>

#include "../mem/runtime.h"

static _Thread_local gm_barrier *innermost;

void gm_barrier_push(gm_barrier *b, unsigned ensures, unsigned destroys) {
  b->ensures = ensures;
  b->destroys = destroys;
  b->records = NULL;
  b->n = b->cap = 0;
  b->outer = innermost;
  innermost = b;
}

void gm_barrier_note_created(gm_vec *v, gm_facet_name f) {
  for (gm_barrier *b = innermost; b; b = b->outer) {
    if (!(b->destroys & GM_FACET_BIT(f))) continue;
    if (b->n == b->cap) {
      size_t cap = b->cap ? b->cap * 2 : 16;
      gm_barrier_record *r = realloc(b->records, cap * sizeof *r);
      if (!r) return; /* out of memory: the facet simply outlives the barrier */
      b->records = r;
      b->cap = cap;
    }
    gm_vec_weak *w = gm_vec_weak_get(v);
    if (!w) return; /* out of memory: as above */
    b->records[b->n++] = (gm_barrier_record){w, f};
    return;
  }
}

static gm_status ensure_facets(gm_vec *v, unsigned ensures) {
  if (gm_vec_check_memory(v) != GM_OK) return GM_OK; /* released or cached: no data to keep */
  for (int g = 0; g < GM_N_FACETS; g++) {
    if (!(ensures & GM_FACET_BIT(g))) continue;
    /* the device for a CUDA ensure is the one already holding the data */
    gm_device *dev = v->facets[GM_FACET_CUDA].device;
    void *p;
    GM_TRY(gm_vec_watch(v, (gm_facet_name)g, GM_INPUT, true, dev, &p));
    gm_vec_unwatch(v, (gm_facet_name)g, GM_INPUT);
  }
  return GM_OK;
}

/* Unlinks b wherever it is: normally the innermost, but a coroutine that
 * yielded inside a barrier may finish after barriers pushed later. */
static void unlink_barrier(gm_barrier *b) {
  for (gm_barrier **p = &innermost; *p; p = &(*p)->outer)
    if (*p == b) {
      *p = b->outer;
      return;
    }
}

void gm_barrier_abandon(gm_barrier *b) {
  unlink_barrier(b);
  for (size_t i = 0; i < b->n; i++) gm_vec_weak_unref(b->records[i].weak);
  free(b->records);
  b->records = NULL;
  b->n = b->cap = 0;
}

gm_status gm_barrier_pop(gm_barrier *b) {
  gm_status first = GM_OK;
  unlink_barrier(b);
  for (size_t i = 0; i < b->n; i++) {
    gm_barrier_record *r = &b->records[i];
    gm_facet info;
    bool destroyed;
    gm_status st = GM_OK;
    gm_vec *v = gm_vec_weak_lock(r->weak);
    gm_vec_weak_unref(r->weak);
    if (!v) continue; /* the mat was garbage: its storage is gone already */
    if (gm_vec_facet_info(v, r->facet, &info) && info.n_references == 0) {
      unsigned ensures = b->ensures & ~GM_FACET_BIT(r->facet);
      if (info.up_to_date) st = ensure_facets(v, ensures);
      if (st == GM_OK) st = gm_vec_destroy_facet(v, r->facet, false, &destroyed);
    }
    if (st != GM_OK && first == GM_OK) first = st;
    gm_vec_unref(v);
  }
  free(b->records);
  b->records = NULL;
  b->n = b->cap = 0;
  return first;
}

size_t gm_barrier_count(gm_facet_name f) {
  size_t n = 0;
  for (gm_barrier *b = innermost; b; b = b->outer)
    for (size_t i = 0; i < b->n; i++) {
      gm_facet info;
      if (b->records[i].facet != f) continue;
      gm_vec *v = gm_vec_weak_lock(b->records[i].weak);
      if (v && gm_vec_facet_info(v, f, &info)) n++;
      gm_vec_unref(v);
    }
  return n;
}
