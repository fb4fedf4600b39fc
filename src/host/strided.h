/* The host's strided copy (backend entry strided_copy). */
#ifndef GM_HOST_STRIDED_H
#define GM_HOST_STRIDED_H

#include "../core/exec/backend.h"

gm_status gm_host_strided_copy(void *ctx, gm_ctype t, const struct gm_strided_geom *g, const void *src, void *dst);

#endif
