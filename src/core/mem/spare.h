/* Per-thread lists of spare structs (mats, vecs, blocks): the structs
 * behind every result are recycled without malloc/free.
 *
 * Why: a loop of temporaries frees its garbage mats in bursts (a paced
 * collection runs thousands of finalizers at once).  Freed to malloc,
 * those 150-450-byte structs land past its per-size caches, are merged
 * with their neighbours and split again on the next calls: a fifth of
 * an allocating 1K-element `x + 1` was malloc's bin work.  A struct put
 * back on one thread is taken by that thread's next allocation; each
 * thread's lists are freed at its exit (and by gm_spare_trim).  Off under
 * AddressSanitizer, so a use of a freed struct is still reported. */
#ifndef GM_MEM_SPARE_H
#define GM_MEM_SPARE_H

#include <stddef.h>

typedef enum { GM_SPARE_MAT, GM_SPARE_VEC, GM_SPARE_BLOCK, GM_N_SPARE_KINDS } gm_spare_kind;

/* A zeroed struct of `size` bytes (size: the kind's one struct size):
 * a spare one, or calloc's.  NULL when out of memory. */
void *gm_spare_calloc(gm_spare_kind kind, size_t size);

/* Gives p (a struct of its kind, or NULL) back: kept on this thread's list
 * while it has room, else freed. */
void gm_spare_free(gm_spare_kind kind, void *p);

/* Frees the calling thread's spare structs (gm.collect()). */
void gm_spare_trim(void);

#endif
