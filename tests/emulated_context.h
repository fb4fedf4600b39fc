/* Options of an outermost context on emulated device `id`, as the C tests
 * open it through the core (gm_context_enter). */
#ifndef GM_TESTS_EMULATED_CONTEXT_H
#define GM_TESTS_EMULATED_CONTEXT_H

#include <string.h>

#include "core/model/context.h"

static inline gm_context_options gm_test_emulated_options(int id) {
  gm_context_options o;
  memset(&o, 0, sizeof o);
  o.enabled = true;
  o.device_id = id;
  o.backend = "emulated";
  o.backend_named = true;
  o.n_random_states = 32;
  return o;
}

#endif
