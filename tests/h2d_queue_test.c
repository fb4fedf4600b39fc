/* An H2D copy from page-locked host memory is queued on the
 * device's copy stream, with the compute stream made to wait for it,
 * instead of synchronizing the whole compute stream; host code waits for
 * the copy alone, and only when it touches the storage (or releases it).
 * Checked on the emulated device in its lazy mode, whose copy stream runs
 * behind the host until something waits for it: a host access of the
 * storage, or the compute stream once it was made to wait for the copy
 * and something waits for the compute stream (gm_emulated_control's
 * copies_in_flight).  A pageable source is still copied at once.
 *
 * Exits 0 when every check passes and prints each failure. */
#include <stdio.h>
#include <string.h>

#include "core/ops/blas.h"
#include "core/model/context.h"
#include "core/model/mat.h"
#include "core/model/vec.h"
#include "device/emulated/emulated.h"

#include "check.h"
#include "emulated_context.h"

#define N 1000

static size_t in_flight(void) {
  gm_emulated_state s;
  CHECK(gm_emulated_control(gm_current_device(), NULL, &s) == GM_OK);
  return s.copies_in_flight;
}

static gm_mat *new_mat(void) {
  gm_mat_options o = {0};
  o.ctype = 1; /* double */
  o.has_initial_element = 1;
  o.cuda_enabled = 1;
  gm_mat *m = NULL;
  size_t n = N;
  CHECK(gm_mat_new(1, &n, &o, &m) == GM_OK);
  return m;
}

/* Writes base + i through the host facet f. */
static void write_host(gm_mat *m, gm_facet_name f, double base) {
  void *p;
  gm_status st = gm_mat_watch(m, f, GM_OUTPUT, f == GM_FACET_CUDA_HOST ? gm_current_device() : NULL, &p);
  CHECK(st == GM_OK);
  if (st != GM_OK) return;
  for (size_t i = 0; i < N; i++) ((double *)p)[i] = base + (double)i;
  gm_mat_unwatch(m, f, GM_OUTPUT);
}

/* Makes the cuda facet up to date (the H2D refresh) and lets it go. */
static void touch_device(gm_mat *m) {
  void *p;
  CHECK(gm_mat_watch(m, GM_FACET_CUDA, GM_INPUT, gm_current_device(), &p) == GM_OK);
  gm_mat_unwatch(m, GM_FACET_CUDA, GM_INPUT);
}

static double host_at(gm_mat *m, size_t i) {
  double v = -1;
  CHECK(gm_mat_get(m, i, &v) == GM_OK);
  return v;
}

int main(void) {
  gm_context c;
  gm_context_options o = gm_test_emulated_options(0);
  CHECK(gm_context_enter(&c, &o) == GM_OK);
  CHECK(gm_current_device() != NULL);
  /* lazy streams: queued work runs only when waited for, so what is in
   * flight at each step is deterministic */
  gm_emulated_control_in lazy = {.set_mode = true, .mode = GM_EMU_LAZY};
  gm_emulated_state st;
  CHECK(gm_emulated_control(gm_current_device(), &lazy, &st) == GM_OK);

  /* page-locked host storage (foreign_array_strategy = "cuda_host") */
  atomic_store(&gm_cuda_host_strategy, true);
  gm_mat *x = new_mat(), *y = new_mat();
  write_host(x, GM_FACET_CUDA_HOST, 1);
  CHECK(in_flight() == 0);
  touch_device(x);
  CHECK(in_flight() == 1); /* queued, nothing waited */

  /* a host access waits for the copy, then sees its own data */
  CHECK(host_at(x, 4) == 5);
  CHECK(in_flight() == 0);

  /* device work is ordered after the copy: y = 2 x */
  write_host(x, GM_FACET_CUDA_HOST, 10);
  touch_device(x);
  CHECK(in_flight() == 1);
  write_host(y, GM_FACET_CUDA_HOST, 0);
  CHECK(gm_scal_(0, y, N, 1) == GM_OK);
  CHECK(gm_axpy_(2, x, y, N, 1, 1) == GM_OK);
  CHECK(in_flight() == 2); /* the copies of x and y; the ops queued behind them: nothing waited yet */
  CHECK(host_at(y, 0) == 20);
  CHECK(in_flight() == 0); /* reading y ran the compute stream, which waited for the copy */
  CHECK(host_at(y, N - 1) == 2 * (10 + N - 1));

  /* a host write after the refresh waits for the copy first, so the
   * copy reads the old values and the device facet goes stale */
  write_host(x, GM_FACET_CUDA_HOST, 100);
  touch_device(x);
  CHECK(in_flight() == 1);
  CHECK(gm_mat_put(x, 7, -1) == GM_OK);
  CHECK(in_flight() == 0);
  CHECK(gm_scal_(0, y, N, 1) == GM_OK);
  CHECK(gm_axpy_(1, x, y, N, 1, 1) == GM_OK); /* refreshes x again */
  CHECK(host_at(y, 7) == -1);
  CHECK(host_at(y, 8) == 108);

  /* released with the copy in flight: the release waits for it */
  write_host(x, GM_FACET_CUDA_HOST, 0);
  touch_device(x);
  CHECK(in_flight() == 1);
  gm_mat_free(x);
  CHECK(in_flight() == 0);
  gm_mat_free(y);

  /* pageable host storage: copied at once, as before */
  atomic_store(&gm_cuda_host_strategy, false);
  gm_mat *z = new_mat();
  write_host(z, GM_FACET_FOREIGN, 3);
  touch_device(z);
  CHECK(in_flight() == 0);
  gm_mat_free(z);

  CHECK(gm_context_exit(&c) == GM_OK);
  if (gm_test_failed) return 1;
  printf("h2d_queue_test: ok\n");
  return 0;
}
