/* Scans and the sort along an axis (gm.cumulative_sum,
 * gm.cumulative_prod, m:cumsum, m:cumprod, gm.sort): validation and
 * dispatch.  The result is a new contiguous mat of x's ctype on x's place
 * (gm_exec_choose over x and the result); x is acquired as input
 * (a strided view staged through a contiguous copy, core/exec/stage.h) and the
 * place's gm_scan_ops runs the per-line functions of kernels/scan.h.
 * Float ctypes; the scans also take bool and integer mats, giving int64
 * (uint64 for unsigned x) as NumPy's cumsum, wrapping. */
#ifndef GM_CORE_SCAN_H
#define GM_CORE_SCAN_H

#include "../model/mat.h"
#include "scan_ops.h"

/* *out := the running sum or product (op GM_SCAN_SUM, GM_SCAN_PROD) of x
 * along 0-based axis (of x's ctype, or int64/uint64 for bool and integer
 * x); initial: the axis gets one more element, the identity, in front
 * (the standard's include_initial). */
gm_status gm_scan_axis(gm_mat *x, int axis, int op, bool initial, gm_mat **out);
/* *out := x with every line along 0-based axis sorted: stable, ascending
 * with NaN last, or descending with NaN first (kernels/scan.h). */
gm_status gm_sort_axis(gm_mat *x, int axis, bool descending, gm_mat **out);
/* The index-carrying engine over every ctype (op GM_LINES_* of
 * kernels/scan.h, flag its option): *y (x's ctype; not made when y is
 * NULL, nor for argsort unless values) and *yi (int64, 1-based indices)
 * along 0-based axis: argsort and cummax/cummin keep x's dims, mode makes
 * the axis 1 long, unique takes a 1-d x and gives y of x's length (the
 * first count values are the unique ones) and yi of 3 n + 1 (first
 * positions, counts, inverse, then the count); unique rows takes a 2-d
 * contiguous x and axis 0, y the unique rows first. */
gm_status gm_lines_axis(gm_mat *x, int axis, int op, int flag, bool values, gm_mat **y, gm_mat **yi);
/* *out := each element of v searched in the sorted 1-d s (through the
 * int64 1-based permutation sorter when not NULL): int64 1-based
 * insertion positions for GM_SEARCH_LEFT / RIGHT, bool membership for
 * GM_SEARCH_ISIN / NOTIN; v's dims; s and v of one ctype. */
gm_status gm_search_sorted(gm_mat *s, gm_mat *sorter, gm_mat *v, int mode, gm_mat **out);

/* Elements per chunk of the chunked passes (kernels/scan.h): a scan whose
 * lines are fewer than GM_SCAN_FEW_LINES and at least 4 chunks long runs
 * chunked, so a long line uses every core or GPU thread; stream
 * compaction (core/ops/compact.h) counts and scatters in such chunks too. */
#define GM_SCAN_CHUNK 1024
#define GM_SCAN_FEW_LINES 1024
/* The chunk of a scan of lines x len: 0 for one caller per line. */
size_t gm_scan_chunk(size_t lines, size_t len);
/* For the specs only (core._set_chunk): chunk > 0 makes every scan
 * longer than chunk, and every compaction, use chunks of that many
 * elements, so small mats reach the chunked paths; 0 restores the
 * defaults.  gm_chunk_override() is the current value. */
void gm_set_chunk_override(size_t chunk);
size_t gm_chunk_override(void);

/* *y, *yi := the first k of each line's stable sort along 0-based axis
 * (descending or ascending, NaN as gm_sort_axis), values of x's ctype and
 * int64 1-based positions, the axis k long, found without sorting the
 * lines (core/ops/select.c, kernels/select.h): gm.topk, gm.kthvalue for
 * 1 <= k <= GM_SELECT_MAX_K. */
gm_status gm_select_axis(gm_mat *x, int axis, size_t k, bool descending, gm_mat **y, gm_mat **yi);

/* The radix sort's thresholds (kernels/radix.h), process-wide: lines of
 * gm_sort_radix_min() elements or more sort by radix (shorter ones by the
 * merge sort), a line longer than gm_sort_radix_chunk() (of few lines) in
 * chunks of that many.  gm_sort_radix_set(0, 0) restores the defaults
 * (GM_RADIX_MIN_LEN, GM_RADIX_CHUNK); the specs set small ones so that
 * small mats take every path (core._sort_radix). */
size_t gm_sort_radix_min(void);
size_t gm_sort_radix_chunk(void);
void gm_sort_radix_set(size_t min_len, size_t chunk);

#endif
