#include "context.h"

#include <stddef.h>

_Atomic bool gm_cuda_enabled = true;
static _Thread_local gm_context *current;

void gm_context_push(gm_context *c) {
  c->outer = current;
  current = c;
}

gm_status gm_context_pop(gm_context *c) {
  current = c->outer;
  return GM_OK;
}

gm_context *gm_context_current(void) { return current; }

struct gm_device *gm_current_device(void) {
  if (!gm_cuda_enabled) return NULL;
  for (gm_context *c = current; c; c = c->outer)
    if (c->device) return c->enabled ? c->device : NULL;
  return NULL;
}
