/* The host ?gemm/?syrk's thread rule (src/host/blas.c): a product with a
 * dimension under 128 runs on one OpenBLAS thread, set around the call and
 * restored after it.  Checks that every product, short-sided or not, gives
 * the reference result and leaves OpenBLAS's thread count as it found it.
 * Skips the count checks (and says so) when the BLAS is not OpenBLAS.
 * Exits 0 when every check passes and prints each failure. */
#define _GNU_SOURCE 1 /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec/backend.h"
#include "core/ops/blas_ops.h"

#include "check.h"

static void (*set_threads)(int);
static int (*get_threads)(void);

/* C (m x n) := A (m x k) B (k x n), column-major, against a loop */
static void product(int m, int n, int k) {
  double *a = malloc(sizeof(double) * (size_t)m * (size_t)k), *b = malloc(sizeof(double) * (size_t)k * (size_t)n);
  double *c = calloc((size_t)m * (size_t)n, sizeof(double));
  CHECK(a && b && c);
  for (int i = 0; i < m * k; i++) a[i] = (double)(i % 7) - 3;
  for (int i = 0; i < k * n; i++) b[i] = (double)(i % 5) - 2;
  int before = get_threads ? get_threads() : 0;
  CHECK(gm_host_backend.blas->gemm(NULL, GM_DOUBLE, GM_BLAS_N, GM_BLAS_N, m, n, k, 1.0, a, m, b, k, 0.0, c, m) ==
        GM_OK);
  if (get_threads) CHECK(get_threads() == before);
  int bad = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double v = 0;
      for (int p = 0; p < k; p++) v += a[i + (size_t)p * m] * b[p + (size_t)j * k];
      bad += c[i + (size_t)j * m] != v; /* small integers: exact */
    }
  if (bad) fprintf(stderr, "gemm %dx%d by %dx%d: %d elements differ\n", m, k, k, n, bad);
  CHECK(bad == 0);
  free(a);
  free(b);
  free(c);
}

int main(void) {
  void *s = dlsym(RTLD_DEFAULT, "openblas_set_num_threads"), *g = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  if (s && g) {
    memcpy(&set_threads, &s, sizeof s);
    memcpy(&get_threads, &g, sizeof g);
    set_threads(2); /* so the rule has a count to lower and restore */
    CHECK(get_threads() == 2);
  } else {
    printf("blas_threads_test: the BLAS is not OpenBLAS: thread counts not checked\n");
  }
  product(5000, 10, 16);  /* short sides: one thread */
  product(16, 10, 5000);
  product(1797, 64, 64);
  product(200, 200, 200); /* every side long: OpenBLAS's own rule */
  product(3, 3, 3);
  if (get_threads) CHECK(get_threads() == 2);
  if (gm_test_failed) return 1;
  printf("blas_threads_test: ok\n");
  return 0;
}
