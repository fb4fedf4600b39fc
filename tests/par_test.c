/* gm_par_for (src/core/exec/par.c): every index of [0, n) is visited exactly
 * once, chunks are multiples of align, loops below the threshold run
 * inline, a gm_par_for inside a chunk (from a pool thread) runs inline,
 * and several threads calling it at once each get their own loop done
 * (one owns the pool, the others run inline).  GPUMAT_NUM_THREADS=4 is
 * set before the first call, so the pool runs on any machine.  Run by
 * spec/c_api_spec.lua and under ThreadSanitizer by
 * tools/suite.d/30-tsan.sh; exits 0 when every check passes. */
#include <pthread.h>
#include <stdlib.h>

#include "core/exec/par.h"

#include "check.h"

#define MAXN (1u << 20)

typedef struct cover {
  atomic_uchar *seen;
  size_t align, n;
  atomic_int bad_chunks, nested_bad;
  int nest; /* chunks run a small gm_par_for of their own */
} cover;

static void nested_chunk(void *arg, size_t b, size_t e) {
  atomic_int *count = arg;
  atomic_fetch_add(count, (int)(e - b));
}

static void cover_chunk(void *arg, size_t b, size_t e) {
  cover *c = arg;
  if (b % c->align != 0 || (e % c->align != 0 && e != c->n)) atomic_fetch_add(&c->bad_chunks, 1);
  for (size_t i = b; i < e; i++) atomic_fetch_add(&c->seen[i], 1);
  if (c->nest) {
    atomic_int count = 0;
    gm_par_for(1u << 19, 1, 1.0, nested_chunk, &count); /* big enough to go parallel, if it could */
    if (atomic_load(&count) != 1 << 19) atomic_fetch_add(&c->nested_bad, 1);
  }
}

/* Runs one loop and checks it; returns the number of failed checks. */
static int run_cover(size_t n, size_t align, double cost, int nest) {
  cover c = {.align = align ? align : 1, .n = n, .nest = nest};
  c.seen = calloc(n ? n : 1, sizeof *c.seen);
  if (!c.seen) return 1;
  gm_par_for(n, align, cost, cover_chunk, &c);
  int bad = atomic_load(&c.bad_chunks) + atomic_load(&c.nested_bad);
  for (size_t i = 0; i < n; i++) bad += atomic_load(&c.seen[i]) != 1;
  free(c.seen);
  return bad;
}

static void *caller(void *arg) {
  int *bad = arg;
  for (int r = 0; r < 20; r++) *bad += run_cover(MAXN / 4 + (size_t)r * 37, 16, 4.0, 0); /* over GM_PAR_THRESHOLD */
  return NULL;
}

int main(void) {
  setenv("GPUMAT_NUM_THREADS", "4", 1);
  CHECK(gm_par_threads() == 4);
  /* inline (small), parallel (big), odd sizes and alignments, costly items */
  size_t sizes[] = {0, 1, 15, 1000, GM_PAR_THRESHOLD - 1, GM_PAR_THRESHOLD, GM_PAR_THRESHOLD + 17, MAXN - 3};
  size_t aligns[] = {0, 1, 16, 1000};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; a++) CHECK(run_cover(sizes[i], aligns[a], 1.0, 0) == 0);
  CHECK(run_cover(5000, 1, 1000.0, 0) == 0); /* few items, much work each */
  for (int r = 0; r < 50; r++) CHECK(run_cover(1u << 19, 16, 1.0, 0) == 0); /* the pool, over and over */
  CHECK(run_cover(1u << 19, 1, 1.0, 1) == 0); /* a parallel-for inside a chunk */
  /* several threads at once */
  pthread_t t[4];
  int bad[4] = {0};
  int started[4] = {0};
  for (int i = 0; i < 4; i++) started[i] = pthread_create(&t[i], NULL, caller, &bad[i]) == 0;
  for (int i = 0; i < 4; i++) {
    CHECK(started[i]);
    if (started[i]) pthread_join(t[i], NULL);
    CHECK(bad[i] == 0);
  }
  int failed = atomic_load(&gm_test_failed);
  printf("par_test: %s\n", failed ? "FAILED" : "ok");
  return failed ? 1 : 0;
}
