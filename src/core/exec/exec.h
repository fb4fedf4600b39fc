/* Where an operation runs, and acquiring its operands there.
 *
 * An op picks its place with gm_exec_choose(): the current device when a
 * cuda context is active and enabled and every operand is cuda-enabled
 * (MGL's use-cuda-p), else the host.  It then acquires all operands on
 * that place's facet with gm_acquire(), calls the place's backend on raw
 * pointers, and releases with gm_release().  Validation comes first, so a
 * failing op changes nothing. */
#ifndef GM_CORE_EXEC_H
#define GM_CORE_EXEC_H

#include "backend.h"
#include "../model/mat.h"

typedef struct gm_exec {
  gm_facet_name facet;      /* GM_FACET_FOREIGN or GM_FACET_CUDA */
  struct gm_device *dev;    /* NULL on the host */
  const gm_backend *be;     /* gm_host_backend or the device's kernels */
} gm_exec;

gm_exec gm_exec_choose(gm_mat *const *mats, int n);
gm_exec gm_exec_host(void);

typedef struct gm_operand {
  gm_mat *m;
  gm_direction dir;
  /* set by gm_acquire: first visible element in the facet; for a
   * non-contiguous m, a contiguous temporary standing in for the view
   * until gm_release (core/exec/stage.h) */
  void *ptr;
} gm_operand;

/* Acquires all operands (all or none).  On a device, the span between
 * gm_acquire and gm_release is a "device call": the emulated device makes
 * its memory accessible only then (ops->enter/leave), so host code that
 * touches device memory elsewhere crashes in tests as it would on a GPU. */
gm_status gm_acquire(const gm_exec *e, gm_operand *ops, int n);
/* Fails only when writing a staged operand back fails (then the op's
 * result did not reach that view). */
gm_status gm_release(const gm_exec *e, gm_operand *ops, int n);
/* gm_release, then st, or the release's failure when st is GM_OK. */
gm_status gm_finish(const gm_exec *e, gm_operand *ops, int n, gm_status st);
/* gm_acquire and gm_finish for ops that walk strides themselves (the
 * strided elementwise engine): a non-contiguous operand is watched in
 * place, ptr at its first element, never staged. */
gm_status gm_acquire_in_place(const gm_exec *e, gm_operand *ops, int n);
gm_status gm_finish_in_place(const gm_exec *e, gm_operand *ops, int n, gm_status st);

/* True when a and b (contiguous views) share storage elements; false when
 * either is a non-contiguous view, which ops stage through a temporary.  An op
 * whose output may overlap an input gives different results on a GPU,
 * where threads read inputs while others write. */
bool gm_mats_overlap(const gm_mat *a, const gm_mat *b);

/* The element type check of the float-only ops (BLAS, math functions,
 * random fills, NN, reductions, solvers), made where they dispatch so no
 * backend table entry of another ctype is ever looked up: GM_EINVAL
 * naming op and the first non-float mat's position in mats (1-based; NULL
 * entries are skipped). */
gm_status gm_check_float_mats(const char *op, gm_mat *const *mats, int n);

/* Errors for common precondition failures, naming the op. */
gm_status gm_check_same_ctype(const char *op, const gm_mat *a, const gm_mat *b);

#endif
