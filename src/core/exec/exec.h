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

/* The small-op lane: a host op on operands whose host storage is up to
 * date with nothing watched or pending holds their vecs' locks for the
 * op's few microseconds instead of watching and unwatching each (a
 * watch's checks and bookkeeping and an unwatch cost about 270
 * instructions an operand, a third of a 1K-element op).  gm_lane_enter
 * sets each ops[i].ptr (a non-contiguous operand only when in_place: at
 * its first element, as gm_acquire_in_place) and returns true, or false
 * having changed and holding nothing: the op then takes gm_acquire's
 * path, which also reports whatever kept it out of the lane.  The first
 * vec's lock is waited for, the others only tried (no lock order, no
 * deadlock).  Between enter and gm_lane_leave the caller runs its kernel
 * on this thread and calls nothing that takes a vec's lock; for ops below
 * the thread pool's threshold (kernels that run inline anyway), so other
 * threads wait microseconds at most. */
#define GM_LANE_MAX 4
/* The largest op (elements) the callers take the lane for: about 10 us */
#define GM_LANE_MAX_ELEMS ((size_t)1 << 16)
typedef struct gm_lane {
  int n;
  struct gm_vec *v[GM_LANE_MAX];
  bool taken[GM_LANE_MAX];
} gm_lane;
bool gm_lane_enter(const gm_exec *e, gm_operand *ops, int n, bool in_place, gm_lane *lane);
void gm_lane_leave(gm_lane *lane);
/* What the ops call: the lane for an op of at most GM_LANE_MAX_ELEMS
 * elements (size: its largest operand's) when it can (lane->n > 0 then),
 * else gm_acquire (in_place: gm_acquire_in_place); gm_finish_lane ends
 * either as gm_finish (gm_finish_in_place) would. */
gm_status gm_acquire_lane(const gm_exec *e, gm_operand *ops, int n, size_t size, bool in_place, gm_lane *lane);
gm_status gm_finish_lane(const gm_exec *e, gm_operand *ops, int n, bool in_place, gm_lane *lane, gm_status st);

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
