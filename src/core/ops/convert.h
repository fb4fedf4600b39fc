/* Element conversion between any two ctypes, as the array standard's
 * astype: integers wrap into integer types, floats saturate into them
 * (NaN -> 0), anything into bool is != 0, into floats rounds to nearest
 * (kernels/int_ops.h's gm_wrap_T / gm_sat_T). */
#ifndef GM_CORE_CONVERT_H
#define GM_CORE_CONVERT_H

#include <stddef.h>

#include "../model/ctype.h"

/* dst[i] := src[i] converted, for i < n; contiguous host arrays that do
 * not overlap; parallel over the cores for big n. */
void gm_convert(gm_ctype dt, void *dst, gm_ctype st, const void *src, size_t n);

#endif
