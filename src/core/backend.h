/* Op entry points shared by the host and the devices.
 *
 * A backend is a table of functions on raw pointers in one memory space
 * (host memory for the host backend, device memory for a device's kernels
 * table).  The core validates arguments, chooses the facet, acquires it
 * and calls the backend of that facet's memory space.
 *
 * The table grows by section; each section is owned by one area of the
 * code (fill/copy here, BLAS, elementwise, NN, random ...).  A NULL entry
 * means the backend lacks that op: the core reports GM_EUNSUPPORTED
 * rather than pretending.
 *
 * Every entry takes ctx first: NULL for the host, the gm_device for a
 * device's kernels. */
#ifndef GM_CORE_BACKEND_H
#define GM_CORE_BACKEND_H

#include <stddef.h>

#include "ctype.h"
#include "status.h"

typedef struct gm_backend {
  const char *name;
  /* x[i*incx] = alpha for i < n */
  gm_status (*fill)(void *ctx, gm_ctype t, size_t n, double alpha, void *x, size_t incx);
} gm_backend;

/* The host backend (src/host). */
extern const gm_backend gm_host_backend;

#endif
