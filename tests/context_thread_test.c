/* One host thread per device at a time (docs/GPU.md):
 * while one thread has an outermost context on a device, another
 * thread's outermost context on the same device is refused with a clear
 * error, and succeeds once the first has exited; another device (id 1)
 * is independent.  Uses the emulated device through the core.
 *
 * Exits 0 when every check passes and prints each failure. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/model/context.h"
#include "gpumat.h"

#include "check.h"
#include "emulated_context.h"

static gm_context_options opts(int id) {
  gm_context_options o = gm_test_emulated_options(id);
  o.random_seed = 1;
  return o;
}

static pthread_barrier_t entered, tried;
static gm_status other_status[2];
static char other_message[256];

static void *other(void *arg) {
  (void)arg;
  pthread_barrier_wait(&entered); /* main holds device 0 */
  for (int id = 0; id < 2; id++) {
    gm_context c;
    gm_context_options o = opts(id);
    other_status[id] = gm_context_enter(&c, &o);
    if (id == 0) snprintf(other_message, sizeof other_message, "%s", gm_last_error());
    if (other_status[id] == GM_OK) CHECK(gm_context_exit(&c) == GM_OK);
  }
  pthread_barrier_wait(&tried);
  /* main has exited: device 0 is free now */
  pthread_barrier_wait(&entered);
  gm_context c;
  gm_context_options o = opts(0);
  CHECK(gm_context_enter(&c, &o) == GM_OK);
  CHECK(gm_context_device() != NULL);
  CHECK(gm_context_exit(&c) == GM_OK);
  return NULL;
}

int main(void) {
  pthread_barrier_init(&entered, NULL, 2);
  pthread_barrier_init(&tried, NULL, 2);
  pthread_t t;
  pthread_create(&t, NULL, other, NULL);
  gm_context c, inner;
  gm_context_options o = opts(0);
  CHECK(gm_context_enter(&c, &o) == GM_OK);
  CHECK(gm_context_enter(&inner, &o) == GM_OK); /* nesting on one thread is fine */
  pthread_barrier_wait(&entered);
  pthread_barrier_wait(&tried);
  CHECK(other_status[0] == GM_ESTATE);
  CHECK(strstr(other_message, "emulated device 0 is in use by another thread's with_cuda context") != NULL);
  CHECK(other_status[1] == GM_OK);
  CHECK(gm_context_exit(&inner) == GM_OK);
  CHECK(gm_context_exit(&c) == GM_OK);
  pthread_barrier_wait(&entered);
  pthread_join(t, NULL);
  if (gm_test_failed) return 1;
  printf("context_thread_test: ok\n");
  return 0;
}
