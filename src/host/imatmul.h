/* The host's integer and bool matrix products (backend entry imatmul). */
#ifndef GM_HOST_IMATMUL_H
#define GM_HOST_IMATMUL_H

#include <stddef.h>

#include "../core/model/ctype.h"
#include "../core/model/status.h"

gm_status gm_host_imatmul(void *ctx, gm_ctype t, size_t batch, size_t p, size_t q, size_t r, const void *x,
                          const void *y, void *c);

#endif
