/* Integer-array and boolean-mask indexing (m[{idx}], m[mask], take,
 * take_along_axis, put_along_axis and the Torch7 index_* / scatter* /
 * masked_* forms): one engine for all of them.  A form is planned on the
 * host into element offsets (gm_index_plan: the result's dims and, per
 * result element, its offset from the indexed view's first element), the
 * index values all checked before any element is touched; a read then
 * gathers by those offsets (gm_index_read) and a write scatters a source
 * broadcast to the plan's dims through them with a combine mode
 * (gm_index_write: GM_INDEX_SET, the last repeated index wins; ADD, PROD,
 * AMAX, AMIN accumulate in index order), on the place the mats' ops run
 * (gm_exec_choose), with the kernels of kernels/index.h.  Index values
 * are 1-based, negative ones count from the end. */
#ifndef GM_CORE_INDEX_H
#define GM_CORE_INDEX_H

#include "index_ops.h"
#include "../model/mat.h"

/* Index values as given (a Lua list or an integer mat), then normalized
 * in place to 0-based positions by gm_index_normalize. */
typedef struct gm_index_arg {
  int rank;
  size_t dims[GM_MAX_RANK];
  size_t n;
  int64_t *v; /* n values, owned (gm_index_arg_free) */
  size_t cap; /* v's host-pool block size (mem/hostpool.h) */
} gm_index_arg;

/* a := idx's values as 0-based positions along an axis of len elements
 * (gm_index_normalize's rule and error); idx must have an integer ctype. */
gm_status gm_index_arg_from_mat(gm_mat *idx, size_t len, gm_index_arg *a);
/* a := a rank-1 arg of n values (copied). */
gm_status gm_index_arg_from_values(size_t n, const int64_t *v, gm_index_arg *a);
void gm_index_arg_free(gm_index_arg *a);
/* 1-based values (negative from the end) to 0-based positions in 0..len-1;
 * "index V is out of range for length LEN" otherwise. */
gm_status gm_index_normalize(gm_index_arg *a, size_t len);
/* NumPy's several index arrays: a := the positions (0-based, row-major
 * over axes of lengths lens[0..n)) that the normalized args, broadcast
 * together, select; a's dims are the broadcast dims. */
gm_status gm_index_broadcast_flat(int n, const gm_index_arg *args, const size_t *lens, gm_index_arg *a);
/* a := the 0-based row-major positions where the bool mat mask is true
 * (rank 1); "mask must be a bool mat" for other ctypes. */
gm_status gm_index_mask_positions(gm_mat *mask, gm_index_arg *a);
/* args[0..mask's rank) := the 0-based coordinates of the bool mask's true
 * elements, one rank-1 arg per axis (NumPy's mask.nonzero(): how a mask
 * joins other index mats in one subscript). */
gm_status gm_index_mask_coords(gm_mat *mask, gm_index_arg *args);
/* a := the 0-based row-major positions of m's nonzero elements (NaN is
 * nonzero), any ctype. */
gm_status gm_index_nonzero_positions(gm_mat *m, gm_index_arg *a);

typedef struct gm_index_plan {
  int rank;
  size_t dims[GM_MAX_RANK];
  size_t n;     /* the product of dims */
  int64_t *off; /* n offsets, owned (gm_index_plan_free) */
  size_t cap;   /* off's host-pool block size (mem/hostpool.h) */
} gm_index_plan;

/* NumPy's take over axes [axis, axis + k) of x (their row-major
 * positions pos, normalized): x's dims with those k axes replaced by
 * pos's dims.  k = x's rank, axis 0 takes from x flattened. */
gm_status gm_index_plan_take(const gm_mat *x, int axis, int k, const gm_index_arg *pos, gm_index_plan *p);
/* take_along_axis(x, idx, axis): idx (normalized, x's rank) picks along
 * axis; other axes broadcast (a size-1 axis of either side stretches),
 * and an idx axis shorter than x's takes x's leading part (Torch7's
 * gather). */
gm_status gm_index_plan_along(const gm_mat *x, int axis, const gm_index_arg *idx, gm_index_plan *p);
void gm_index_plan_free(gm_index_plan *p);

/* *out := a new mat of the plan's dims with x's elements at its offsets. */
gm_status gm_index_read(gm_mat *x, const gm_index_plan *p, gm_mat **out);
/* y's elements at the plan's offsets combined (mode) with src broadcast
 * to the plan's dims (NumPy's rules, trailing axes aligned; a src axis
 * longer than the plan's gives its leading part, as Torch7's scatter_),
 * or with value when src is NULL.  src is converted to y's ctype. */
gm_status gm_index_write(gm_mat *y, const gm_index_plan *p, gm_mat *src, gm_value value, int mode);
/* The engine under both: out[i] := x[off[i]]; y[dst[i]] combined with
 * src[spos[i]] for i < n (src of y's ctype, contiguous, sharing no
 * storage with y). */
gm_status gm_index_gather(gm_mat *x, const int64_t *off, gm_mat *out);
gm_status gm_index_scatter(gm_mat *y, size_t n, const int64_t *dst, gm_mat *src, const int64_t *spos, int mode);
/* y at the plan's offsets := src's first p->n elements in row-major order
 * (masked_scatter_); src must have at least that many. */
gm_status gm_index_write_flat(gm_mat *y, const gm_index_plan *p, gm_mat *src);
/* *out := a new int64 mat of dims with the values v, placed like `like`. */
gm_status gm_index_int64_mat(const int64_t *v, int rank, const size_t *dims, const gm_mat *like, gm_mat **out);

#endif
