/* The settings model (gm.default_ctype, gm.print_mat, ...): every
 * setting's name, kind, default, range and whether it is read-only, and
 * the validation of a new value with its message.
 *
 * Two storages.  The fields of a gm_settings (defaults of new mats,
 * printing, file headers, CUDA defaults) belong to one embedding: the Lua
 * binding keeps one per lua_State, so two states of one application do
 * not see each other's choices, and a C application keeps its own.  The
 * flags that the core reads from any thread (cuda_enabled,
 * cuda_allow_tf32, let_input_through, let_output_through,
 * maybe_synchronize, foreign_array_strategy) are process-wide atomics:
 * code without an embedding, and mats shared between states, consult
 * them.
 *
 * Values cross as gm_setting_value: the embedding converts its own value
 * into one (naming its type for messages), the core checks it, so every
 * embedding reports the same "gpumat.<name> must be ..." text. */
#ifndef GM_CORE_SETTINGS_H
#define GM_CORE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "ctype.h"
#include "status.h"

typedef struct gm_settings {
  gm_ctype default_ctype;
  bool print_mat, print_mat_facets;
  long long print_max_elements;
  bool mat_headers;
  bool default_mat_cuda_enabled;
  gm_sync default_synchronization;
  long long cuda_default_device_id;
  long long cuda_default_random_seed;
  long long cuda_default_n_random_states;
  bool syncing_cuda_facets_safe;
} gm_settings;

/* The values a new embedding starts with. */
extern const gm_settings gm_settings_defaults;

typedef enum gm_setting_kind {
  GM_SETTING_BOOL,     /* true or false */
  GM_SETTING_INT,      /* an integer in min..max */
  GM_SETTING_CTYPE,    /* a ctype name */
  GM_SETTING_SYNC,     /* true, false or "maybe" */
  GM_SETTING_STRATEGY, /* foreign_array_strategy: "static" or "cuda_host" */
  GM_SETTING_POOL_LIMIT, /* host_pool_limit: process-wide bytes, an integer >= 0 (hostpool.h) */
  GM_SETTING_VERSION,  /* read-only: the version string */
  GM_SETTING_CTYPES,   /* read-only: the list of ctype names (gm_ctype_name
                          of 0..GM_N_CTYPES-1; the embedding builds it) */
} gm_setting_kind;

typedef struct gm_setting {
  const char *name;
  gm_setting_kind kind;
  _Atomic bool *flag; /* a process-wide boolean, or NULL: a field */
  size_t offset;      /* the field of gm_settings (bool or long long) */
  long long min, max; /* GM_SETTING_INT */
} gm_setting;

/* The setting called name, or NULL when it is none (a plain field). */
const gm_setting *gm_setting_find(const char *name);

/* A value as the embedding has it: the kinds the rules tell apart. */
typedef enum gm_value_type {
  GM_VALUE_OTHER,  /* none of the below (a table, nil, ...) */
  GM_VALUE_BOOL,
  GM_VALUE_INT,    /* a number with an integer value */
  GM_VALUE_NUMBER, /* any other number */
  GM_VALUE_STRING,
} gm_value_type;

typedef struct gm_setting_value {
  gm_value_type type;
  bool b;
  long long i;
  const char *s;
  const char *type_name; /* the embedding's name of the value's type */
} gm_setting_value;

/* The value of d in s (flags: the process-wide value).  GM_SETTING_SYNC
 * gives a boolean or the string "maybe"; GM_SETTING_CTYPES gives
 * GM_VALUE_OTHER (the embedding lists the ctype names). */
gm_setting_value gm_setting_get(const gm_settings *s, const gm_setting *d);
/* Validates v and stores it; GM_EINVAL with the message
 * "gpumat.<name> must be ..." (or "... is read-only") leaves s as it
 * was. */
gm_status gm_setting_set(gm_settings *s, const gm_setting *d, const gm_setting_value *v);

#endif
