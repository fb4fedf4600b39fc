/* Per-thread lists of spare structs.  See spare.h. */
#include "spare.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define GM_RECYCLE_STRUCTS 0
#else
#define GM_RECYCLE_STRUCTS 1
#endif

/* Up to SPARE_MAX structs per kind and thread (about 750 KB for the three
 * kinds): enough for the burst of one paced collection of 1K-element
 * temporaries (8 MiB / 4 KiB results), small beside the mats themselves. */
enum { SPARE_MAX = 1024 };

#if GM_RECYCLE_STRUCTS
typedef struct spare_node {
  struct spare_node *next;
} spare_node;

/* One thread-local object: in a shared library each distinct
 * thread-local variable costs a __tls_get_addr call per access. */
typedef struct spare_lists {
  spare_node *head[GM_N_SPARE_KINDS];
  int n[GM_N_SPARE_KINDS];
  bool registered;
} spare_lists;

static _Thread_local spare_lists spares;
static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;
static bool spare_key_ok;

static void free_lists(spare_lists *s) {
  for (int k = 0; k < GM_N_SPARE_KINDS; k++) {
    while (s->head[k]) {
      spare_node *p = s->head[k];
      s->head[k] = p->next;
      free(p);
    }
    s->n[k] = 0;
  }
}

static void at_thread_exit(void *arg) { free_lists(arg); }

static void make_spare_key(void) { spare_key_ok = pthread_key_create(&spare_key, at_thread_exit) == 0; }

/* Whether this thread's lists will be freed at its exit (registered once). */
static bool registered(spare_lists *s) {
  if (s->registered) return true;
  pthread_once(&spare_once, make_spare_key);
  s->registered = spare_key_ok && pthread_setspecific(spare_key, s) == 0;
  return s->registered;
}
#endif

void *gm_spare_calloc(gm_spare_kind kind, size_t size) {
#if GM_RECYCLE_STRUCTS
  spare_lists *s = &spares;
  spare_node *p = s->head[kind];
  if (p) {
    s->head[kind] = p->next;
    s->n[kind]--;
    memset(p, 0, size);
    return p;
  }
#else
  (void)kind;
#endif
  return calloc(1, size);
}

void gm_spare_free(gm_spare_kind kind, void *p) {
  if (!p) return;
#if GM_RECYCLE_STRUCTS
  spare_lists *s = &spares;
  if (s->n[kind] < SPARE_MAX && registered(s)) {
    spare_node *node = p;
    node->next = s->head[kind];
    s->head[kind] = node;
    s->n[kind]++;
    return;
  }
#else
  (void)kind;
#endif
  free(p);
}

void gm_spare_trim(void) {
#if GM_RECYCLE_STRUCTS
  free_lists(&spares);
#endif
}
