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

#endif
