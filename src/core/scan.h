/* Scans and the sort along an axis (gm.cumulative_sum,
 * gm.cumulative_prod, m:cumsum, m:cumprod, gm.sort): validation and
 * dispatch.  The result is a new contiguous mat of x's ctype on x's place
 * (gm_exec_choose over x and the result); x is acquired as input
 * (a strided view staged through a contiguous copy, core/stage.h) and the
 * place's gm_scan_ops runs the per-line functions of kernels/scan.h.
 * Float ctypes; the scans also take bool and integer mats, giving int64
 * (uint64 for unsigned x) as NumPy's cumsum, wrapping. */
#ifndef GM_CORE_SCAN_H
#define GM_CORE_SCAN_H

#include "mat.h"
#include "scan_ops.h"

/* *out := the running sum or product (op GM_SCAN_SUM, GM_SCAN_PROD) of x
 * along 0-based axis (of x's ctype, or int64/uint64 for bool and integer
 * x); initial: the axis gets one more element, the identity, in front
 * (the standard's include_initial). */
gm_status gm_scan_axis(gm_mat *x, int axis, int op, bool initial, gm_mat **out);
/* *out := x with every line along 0-based axis sorted: stable, ascending
 * with NaN last, or descending with NaN first (kernels/scan.h). */
gm_status gm_sort_axis(gm_mat *x, int axis, bool descending, gm_mat **out);

#endif
