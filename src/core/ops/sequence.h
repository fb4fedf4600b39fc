/* Arithmetic sequences written into a mat (gm.range, gm.linspace): the
 * values a Lua numeric for visits, computed in double (or exactly in
 * integers) and stored in the mat's ctype, without a Lua table of them. */
#ifndef GM_CORE_SEQUENCE_H
#define GM_CORE_SEQUENCE_H

#include "../model/mat.h"

/* Element k of m := first + k * step, or with accumulate the running sum
 * first + step + step ... (what a numeric for with float operands
 * visits); has_last: last replaces the final element, so an inclusive
 * end is exact. */
gm_status gm_mat_fill_sequence(gm_mat *m, double first, double step, bool accumulate, bool has_last, double last);

/* Element k of m := first + k * step exactly, in two's complement
 * (wrapping), converted to the ctype as astype converts integers. */
gm_status gm_mat_fill_int_sequence(gm_mat *m, long long first, long long step);

#endif
