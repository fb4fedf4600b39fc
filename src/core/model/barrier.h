/* Facet barriers (MGL-CUBE §8.1): facets created inside a barrier whose
 * `destroys` set names them are destroyed when the barrier exits, after
 * the facets named in `ensures` were brought up to date.  Barriers form a
 * per-thread stack; the innermost matching barrier records the facet. */
#ifndef GM_CORE_BARRIER_H
#define GM_CORE_BARRIER_H

#include <stddef.h>

#include "vec.h"

typedef struct gm_barrier_record {
  gm_vec_weak *weak; /* weak: a garbage mat's storage is not kept alive */
  gm_facet_name facet;
} gm_barrier_record;

typedef struct gm_barrier {
  unsigned ensures;  /* bit mask of gm_facet_name */
  unsigned destroys; /* bit mask of gm_facet_name */
  gm_barrier_record *records;
  size_t n, cap;
  struct gm_barrier *outer;
} gm_barrier;

#define GM_FACET_BIT(f) (1u << (unsigned)(f))

/* b is caller-owned storage (e.g. a Lua userdata or a C local).  Once
 * popped or abandoned (or zero-initialised and never pushed), popping or
 * abandoning b again does nothing, so a scope's close and its finalizer
 * may both run. */
void gm_barrier_push(gm_barrier *b, unsigned ensures, unsigned destroys);
/* Pops b (must be innermost): ensures, then destroys, its records.  Every
 * record is processed even if one fails; the first failure is returned. */
gm_status gm_barrier_pop(gm_barrier *b);
/* Unlinks b without ensuring or destroying anything and drops its records
 * (for a Lua finalizer of a barrier that was never popped: no device
 * call happens there). */
void gm_barrier_abandon(gm_barrier *b);
/* Called by facet creation (vec lock may be held: only appends). */
void gm_barrier_note_created(gm_vec *v, gm_facet_name f);
/* Number of facets named f that active barriers of this thread will destroy. */
size_t gm_barrier_count(gm_facet_name f);

#endif
