/* Ops on float16/bfloat16 mats through float32 copies (half.c). */
#ifndef GM_CORE_OPS_HALF_H
#define GM_CORE_OPS_HALF_H

#include "../model/mat.h"

/* A new uninitialized float32 mat with m's dims, where m lives. */
gm_status gm_half_float_like(const gm_mat *m, gm_mat **out);
/* A new float32 mat holding m's values (exact for the half types). */
gm_status gm_half_float_copy(gm_mat *m, gm_mat **out);
/* When st is GM_OK, f's values rounded into dst (astype); frees f either
 * way; returns the first failure. */
gm_status gm_half_store(gm_status st, gm_mat *f, gm_mat *dst);
/* When st is GM_OK and *r is set: the float32 mat *r replaced by a new
 * mat of type t where *r lives, holding its values rounded to nearest even
 * (exact when they are a mat of type t's values, as a sort's or a
 * gather's are); *r freed either way, NULL on failure; returns the first
 * failure.  The result side of an op that ran on gm_half_float_copy's
 * copies and hands back new mats. */
gm_status gm_half_result(gm_status st, gm_ctype t, gm_mat **r);

#endif
