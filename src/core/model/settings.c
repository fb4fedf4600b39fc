#include "settings.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "context.h"
#include "../mem/hostpool.h"
#include "vec.h"

const gm_settings gm_settings_defaults = {
    .default_ctype = GM_DOUBLE,
    .print_mat = true,
    .print_mat_facets = true,
    .print_max_elements = 1000,
    .mat_headers = true,
    .default_mat_cuda_enabled = true,
    .default_synchronization = GM_SYNC_MAYBE,
    .cuda_default_device_id = 0,
    .cuda_default_random_seed = 1234,
    .cuda_default_n_random_states = 4096,
    .syncing_cuda_facets_safe = true,
};

#define FLAG(name, var) {name, GM_SETTING_BOOL, &(var), 0, 0, 0}
#define FIELD(kind, field) {#field, kind, NULL, offsetof(gm_settings, field), 0, 0}
#define INT_FIELD(field, lo, hi) {#field, GM_SETTING_INT, NULL, offsetof(gm_settings, field), lo, hi}
#define READ_ONLY(name, kind) {name, kind, NULL, 0, 0, 0}

static const gm_setting table[] = {
    FLAG("cuda_enabled", gm_cuda_enabled),
    FLAG("cuda_allow_tf32", gm_cuda_allow_tf32),
    FLAG("let_input_through", gm_let_input_through),
    FLAG("let_output_through", gm_let_output_through),
    FLAG("maybe_synchronize", gm_maybe_synchronize),
    {"foreign_array_strategy", GM_SETTING_STRATEGY, &gm_cuda_host_strategy, 0, 0, 0},
    {"host_pool_limit", GM_SETTING_POOL_LIMIT, NULL, 0, 0, LLONG_MAX},
    FIELD(GM_SETTING_BOOL, print_mat),
    FIELD(GM_SETTING_BOOL, print_mat_facets),
    FIELD(GM_SETTING_BOOL, mat_headers),
    FIELD(GM_SETTING_BOOL, default_mat_cuda_enabled),
    FIELD(GM_SETTING_BOOL, syncing_cuda_facets_safe),
    INT_FIELD(print_max_elements, 0, LLONG_MAX),
    INT_FIELD(cuda_default_random_seed, 0, LLONG_MAX),
    /* the context rounds it up to a warp and checks its upper bound */
    INT_FIELD(cuda_default_n_random_states, 1, LLONG_MAX),
    /* device ids the CUDA runtime could ever number */
    INT_FIELD(cuda_default_device_id, 0, 1023),
    FIELD(GM_SETTING_CTYPE, default_ctype),
    FIELD(GM_SETTING_SYNC, default_synchronization),
    READ_ONLY("version", GM_SETTING_VERSION),
    READ_ONLY("supported_ctypes", GM_SETTING_CTYPES),
};

const gm_setting *gm_setting_find(const char *name) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(name, table[i].name) == 0) return &table[i];
  return NULL;
}

/* The field of d in s, as the bool or long long it is. */
static void *field(const gm_settings *s, const gm_setting *d) { return (char *)(uintptr_t)s + d->offset; }

static gm_setting_value of_bool(bool b) { return (gm_setting_value){.type = GM_VALUE_BOOL, .b = b}; }
static gm_setting_value of_string(const char *str) { return (gm_setting_value){.type = GM_VALUE_STRING, .s = str}; }

gm_setting_value gm_setting_get(const gm_settings *s, const gm_setting *d) {
  switch (d->kind) {
    case GM_SETTING_BOOL:
      return of_bool(d->flag ? atomic_load(d->flag) : *(bool *)field(s, d));
    case GM_SETTING_INT:
      return (gm_setting_value){.type = GM_VALUE_INT, .i = *(long long *)field(s, d)};
    case GM_SETTING_CTYPE:
      return of_string(gm_ctype_name(s->default_ctype));
    case GM_SETTING_SYNC:
      if (s->default_synchronization == GM_SYNC_MAYBE) return of_string("maybe");
      return of_bool(s->default_synchronization == GM_SYNC_TRUE);
    case GM_SETTING_STRATEGY:
      return of_string(atomic_load(d->flag) ? "cuda_host" : "static");
    case GM_SETTING_POOL_LIMIT: {
      size_t lim = gm_host_pool_limit();
      return (gm_setting_value){.type = GM_VALUE_INT, .i = lim > LLONG_MAX ? LLONG_MAX : (long long)lim};
    }
    case GM_SETTING_VERSION:
      return of_string(GPUMAT_VERSION);
    case GM_SETTING_CTYPES:
      break;
  }
  return (gm_setting_value){.type = GM_VALUE_OTHER};
}

static bool is_string(const gm_setting_value *v, const char *str) {
  return v->type == GM_VALUE_STRING && strcmp(v->s, str) == 0;
}

static gm_status set_int(gm_settings *s, const gm_setting *d, const gm_setting_value *v) {
  bool ok = v->type == GM_VALUE_INT && v->i >= d->min && v->i <= d->max;
  if (!ok && d->max == LLONG_MAX)
    return gm_fail(GM_EINVAL, "gpumat.%s must be an integer >= %d", d->name, (int)d->min);
  if (!ok) return gm_fail(GM_EINVAL, "gpumat.%s must be an integer in %lld..%lld", d->name, d->min, d->max);
  *(long long *)field(s, d) = v->i;
  return GM_OK;
}

static gm_status set_ctype(gm_settings *s, const gm_setting_value *v) {
  gm_ctype t;
  /* the default element type of floats: integer mats are asked for */
  if (v->type != GM_VALUE_STRING || gm_ctype_parse(v->s, &t) != 0 || !gm_ctype_is_float(t))
    return gm_fail(GM_EINVAL, "gpumat.default_ctype must be \"float\" or \"double\"");
  s->default_ctype = t;
  return GM_OK;
}

static gm_status set_sync(gm_settings *s, const gm_setting_value *v) {
  if (v->type != GM_VALUE_BOOL && !is_string(v, "maybe"))
    return gm_fail(GM_EINVAL, "gpumat.default_synchronization must be true, false or \"maybe\"");
  s->default_synchronization = v->type != GM_VALUE_BOOL ? GM_SYNC_MAYBE : v->b ? GM_SYNC_TRUE : GM_SYNC_FALSE;
  return GM_OK;
}

static gm_status set_strategy(const gm_setting *d, const gm_setting_value *v) {
  if (!is_string(v, "static") && !is_string(v, "cuda_host"))
    return gm_fail(GM_EINVAL, "gpumat.foreign_array_strategy must be \"static\" or \"cuda_host\"");
  atomic_store(d->flag, is_string(v, "cuda_host"));
  return GM_OK;
}

static gm_status set_bool(gm_settings *s, const gm_setting *d, const gm_setting_value *v) {
  if (v->type != GM_VALUE_BOOL)
    return gm_fail(GM_EINVAL, "gpumat.%s must be a boolean, got %s", d->name, v->type_name ? v->type_name : "?");
  if (d->flag)
    atomic_store(d->flag, v->b);
  else
    *(bool *)field(s, d) = v->b;
  return GM_OK;
}

gm_status gm_setting_set(gm_settings *s, const gm_setting *d, const gm_setting_value *v) {
  switch (d->kind) {
    case GM_SETTING_BOOL:
      return set_bool(s, d, v);
    case GM_SETTING_INT:
      return set_int(s, d, v);
    case GM_SETTING_CTYPE:
      return set_ctype(s, v);
    case GM_SETTING_SYNC:
      return set_sync(s, v);
    case GM_SETTING_STRATEGY:
      return set_strategy(d, v);
    case GM_SETTING_POOL_LIMIT:
      if (v->type != GM_VALUE_INT || v->i < 0)
        return gm_fail(GM_EINVAL, "gpumat.%s must be an integer >= 0 (bytes)", d->name);
      gm_host_pool_set_limit((size_t)v->i); /* trims the cache to it */
      return GM_OK;
    case GM_SETTING_VERSION:
    case GM_SETTING_CTYPES:
      break;
  }
  return gm_fail(GM_EINVAL, "gpumat.%s is read-only", d->name);
}
