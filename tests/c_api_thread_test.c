/* The public C API (include/gpumat.h) from several threads at once, each
 * on its own mats: construction, views on its own storage, element
 * access, errors (per-thread messages) and frees.  Run under
 * ThreadSanitizer by tools/suite.d/30-tsan.sh; exits 0 when every check
 * passes. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gpumat.h"

#include "check.h"

#define N_THREADS 4
#define N_ROUNDS 200

static void *worker(void *arg) {
  int id = (int)(size_t)arg;
  for (int r = 0; r < N_ROUNDS; r++) {
    size_t dims[2] = {3, 4};
    gm_mat_options o = {0};
    o.ctype = (r + id) % 2;
    o.has_initial_element = 1;
    o.initial_element = id;
    o.max_size = 16;
    gm_mat *m = NULL;
    CHECK(gm_mat_new(2, dims, &o, &m) == GM_OK);
    if (!m) continue;
    double v = -1;
    CHECK(gm_mat_get(m, 5, &v) == GM_OK && v == id);
    for (size_t k = 0; k < 12; k++) CHECK(gm_mat_put(m, k, (double)(k + (size_t)id)) == GM_OK);
    size_t vd = 4;
    gm_mat *view = NULL;
    CHECK(gm_mat_view(m, 1, &vd, 4, &view) == GM_OK); /* row 2 */
    if (view) {
      CHECK(gm_mat_get(view, 0, &v) == GM_OK && v == 4 + id);
      CHECK(gm_mat_put(view, 3, 100 + id) == GM_OK);
    }
    CHECK(gm_mat_get(m, 7, &v) == GM_OK && v == 100 + id);
    /* an error sets this thread's message only */
    CHECK(gm_mat_get(m, 12, &v) != GM_OK);
    CHECK(strstr(gm_last_error(), "12") != NULL);
    gm_mat_free(m); /* the view keeps the storage */
    if (view) {
      CHECK(gm_mat_get(view, 3, &v) == GM_OK && v == 100 + id);
      gm_mat_free(view);
    }
  }
  return NULL;
}

int main(void) {
  pthread_t t[N_THREADS];
  for (size_t i = 0; i < N_THREADS; i++) CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0);
  for (size_t i = 0; i < N_THREADS; i++) pthread_join(t[i], NULL);
  int failed = atomic_load(&gm_test_failed);
  printf("c_api_thread_test: %s (%d failed checks)\n", failed ? "FAIL" : "ok", failed);
  return failed ? 1 : 0;
}
