#include "sequence.h"

#include <stdlib.h>

gm_status gm_mat_fill_sequence(gm_mat *m, double first, double step, bool accumulate, bool has_last, double last) {
  size_t n = m->size;
  double *v = malloc(n * sizeof *v + 1); /* + 1: never malloc(0) */
  if (!v) return gm_fail(GM_ENOMEM, "out of host memory for a sequence of %zu values", n);
  double acc = first;
  for (size_t k = 0; k < n; k++) {
    v[k] = accumulate ? acc : first + (double)k * step;
    acc += step;
  }
  if (has_last && n > 0) v[n - 1] = last;
  gm_status st = gm_mat_write_doubles(m, v);
  free(v);
  return st;
}
