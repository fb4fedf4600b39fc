/* The view functions' arguments as users write them (gm.narrow,
 * gm.select, gm.permute, gm.view, gm.reshape, gm.expand, m[{...}] and
 * m[{...}] = x): 1-based axes and indices, negative indices counting from
 * the end, ranges {first, last, step}, dims lists with -1 entries, and
 * slice assignment.  An application embedding gpumat gets the same rules
 * and messages as Lua code.
 *
 * Each function returns GM_EINVAL (or a view.h / BLAS status) with the
 * message the user sees; the caller adds the function's name and, for a
 * bad argument, its position.  Where a function has `bad`, *bad is set on
 * an argument error to the 1-based position of the offending argument of
 * gm.NAME(m, ...) (m is 1) and stays 0 for other failures. */
#ifndef GM_CORE_VIEW_ARGS_H
#define GM_CORE_VIEW_ARGS_H

#include "../model/view.h"

/* gm.narrow(m, axis, first, n): n elements from first (1-based) on axis. */
gm_status gm_view_narrow_args(const gm_mat *m, int64_t axis, int64_t first, int64_t n, gm_mat **out, int *bad);
/* gm.select(m, axis, i): index i on axis (negative: from the end). */
gm_status gm_view_select_args(const gm_mat *m, int64_t axis, int64_t i, gm_mat **out, int *bad);
/* gm.t(m): the transpose of the 2-d m as a view. */
gm_status gm_view_t_args(const gm_mat *m, gm_mat **out, int *bad);
/* The 0-based permutation perm[0..n-1] of gm.permute's n 1-based axes;
 * they must be a permutation of 1..rank. */
gm_status gm_view_permute_args(int rank, int n, const int64_t *axes, int *perm);

/* A dims list being read entry by entry (gm.view, gm.reshape: at most one
 * -1, inferred later; gm.expand: any number of -1, each keeping an axis).
 * Start with {0, -1, many_minus}; a -1 entry is stored as SIZE_MAX. */
typedef struct gm_dims_list {
  int rank;
  int infer; /* the axis of the one -1 to infer, or -1 (not for expand) */
  bool many_minus;
  size_t dims[GM_MAX_RANK];
} gm_dims_list;
gm_status gm_dims_list_add(gm_dims_list *l, int64_t v);
/* Replaces the -1 at axis infer (< 0: none) by what makes size elements. */
gm_status gm_dims_infer(int rank, size_t *dims, int infer, size_t size);
/* gm.expand's -1 entries (SIZE_MAX) become m's dims on those axes. */
gm_status gm_expand_dims_resolve(const gm_mat *m, int rank, size_t *dims);

/* One subscript of m[{...}] as written: an index, a range {first, last}
 * or {first, last, step} (any nonzero step; a negative one walks
 * backwards), {} (the whole axis), gm.newaxis (a new size-1 axis) or
 * "..." (as many {} as the other subscripts leave axes; at most once).
 * 1-based; negative first, last and index count from the end; last ==
 * first - step/|step| is empty. */
typedef enum { GM_SUB_SELECT, GM_SUB_RANGE, GM_SUB_ALL, GM_SUB_NEWAXIS, GM_SUB_ELLIPSIS } gm_sub_kind;
typedef struct gm_sub_arg {
  gm_sub_kind kind;
  int64_t a, b, step;
} gm_sub_arg;
/* At most this many subscripts as written (newaxis ones add axes). */
#define GM_MAX_SUBS (2 * GM_MAX_RANK)
/* subs[0..*n_out-1] for gm_view_index from the n written subscripts on
 * m's leading axes ("..." expanded); subs holds GM_MAX_SUBS. */
gm_status gm_view_subs_resolve(const gm_mat *m, int n, const gm_sub_arg *args, gm_view_sub *subs, int *n_out);

/* m[{...}] = x: the view v := x stretched to v's dims (x == NULL: every
 * element := value).  x may share v's storage (it is copied first); v
 * must be writable (no overlapping elements). */
gm_status gm_view_assign(gm_mat *v, gm_mat *x, double value);

#endif
