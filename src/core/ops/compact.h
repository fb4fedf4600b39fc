/* Stream compaction on the place an op runs (gm_exec_choose): the
 * elements a bool mask selects (masked_select, m[mask] reads) and the
 * positions of nonzero elements (nonzero, argwhere), computed where the
 * mats live by the backend's compact entry (kernels/compact.h: count per
 * chunk, offsets, scatter), so a device mat's data never goes through
 * the host; only the count does, to size the result. */
#ifndef GM_CORE_COMPACT_H
#define GM_CORE_COMPACT_H

#include "../model/mat.h"

/* *out := a new 1-d mat (x's ctype and place) of x's elements where the
 * bool mat mask (x's dims) is true, in row-major order. */
gm_status gm_compact_select(gm_mat *x, gm_mat *mask, gm_mat **out);
/* nonzero (argwhere false: m's rank int64 mats, one per axis,
 * outs[0..rank)) or argwhere (one n x rank int64 mat, outs[0]) of m, any
 * ctype (NaN is nonzero): 1-based coordinates in row-major order. */
gm_status gm_compact_nonzero(gm_mat *m, bool argwhere, gm_mat **outs);
/* masked_scatter_: x's elements where the bool mat mask (x's dims) is
 * true take src's leading elements (converted to x's ctype as astype
 * does) in row-major order, where the mats live; src must hold at least
 * as many elements as mask selects, else GM_EINVAL and x is unchanged. */
gm_status gm_compact_scatter(gm_mat *x, gm_mat *mask, gm_mat *src);
/* NumPy's x[mask] = src for a src of exactly as many elements as mask
 * selects: as gm_compact_scatter, *done true; any other count: x is
 * unchanged and *done false (the caller's general path broadcasts src or
 * raises NumPy's error). */
gm_status gm_compact_assign(gm_mat *x, gm_mat *mask, gm_mat *src, bool *done);

#endif
