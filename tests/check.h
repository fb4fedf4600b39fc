/* Minimal check macro of the C tests: reports a failed condition with its
 * place and counts it; main() exits non-zero when gm_test_failed > 0. */
#ifndef GM_TESTS_CHECK_H
#define GM_TESTS_CHECK_H

#include <stdatomic.h>
#include <stdio.h>

/* atomic: the thread test checks from several threads */
static atomic_int gm_test_failed;

#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      atomic_fetch_add(&gm_test_failed, 1);                                     \
    }                                                                           \
  } while (0)

#endif
