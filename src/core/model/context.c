#include "context.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "settings.h"
#include "vec.h"

_Atomic bool gm_cuda_enabled = true;
_Atomic bool gm_cuda_allow_tf32 = false;
static _Thread_local gm_context *current;

gm_context *gm_context_current(void) { return current; }

struct gm_device *gm_context_device(void) {
  for (gm_context *c = current; c; c = c->outer)
    if (c->device) return c->device;
  return NULL;
}

struct gm_device *gm_current_device(void) {
  if (!gm_cuda_enabled) return NULL;
  return gm_context_device();
}

static void push(gm_context *c, const gm_context_options *o) {
  c->saved_enabled = gm_cuda_enabled;
  gm_cuda_enabled = o->enabled;
  c->outer = current;
  current = c;
}

static void push_barrier(gm_context *c) {
  gm_barrier_push(&c->barrier, GM_FACET_BIT(GM_FACET_FOREIGN),
                  GM_FACET_BIT(GM_FACET_CUDA) | GM_FACET_BIT(GM_FACET_CUDA_HOST));
  c->has_barrier = true;
}

/* The device for o, or NULL (and GM_OK) when the body should simply run
 * on the host because CUDA is not usable here and was not asked for by
 * name.  A named "cuda" that is not usable (no device, a driver older
 * than the toolkit needs, no toolkit in the build) fails with the reason
 * instead of running on the CPU silently. */
static gm_status open_device(const gm_context_options *o, gm_device **out) {
  *out = NULL;
  if (strcmp(o->backend, "cuda") == 0) {
    char reason[256];
    if (!gm_cuda_runtime_available(o->device_id, reason, sizeof reason)) {
      if (!o->backend_named) return GM_OK;
      return gm_fail(GM_ECUDA, "cuda was requested (backend \"cuda\") but is not usable: %s", reason);
    }
  }
  return gm_device_get(o->backend, o->device_id, out);
}

/* Claims d for this thread: its per-device state (pool
 * limit, GC hook, cuBLAS handle, compute stream) must not be shared by
 * two host threads' contexts. */
static gm_status claim(gm_device *d) {
  pthread_mutex_lock(&d->queue_lock);
  bool busy = d->n_owner_contexts > 0 && !pthread_equal(d->owner_thread, pthread_self());
  if (!busy) {
    d->owner_thread = pthread_self();
    d->n_owner_contexts++;
  }
  pthread_mutex_unlock(&d->queue_lock);
  if (busy)
    return gm_fail(GM_ESTATE, "%s device %d is in use by another thread's with_cuda context (one host thread "
                              "per device at a time)",
                   d->ops->name, d->id);
  return GM_OK;
}

static void unclaim(gm_device *d) {
  pthread_mutex_lock(&d->queue_lock);
  if (d->n_owner_contexts > 0) d->n_owner_contexts--;
  pthread_mutex_unlock(&d->queue_lock);
}

static gm_status begin_device(gm_context *c, gm_device *d, const gm_context_options *o) {
  GM_TRY(claim(d));
  if (d->ops->context_begin) {
    gm_status st = d->ops->context_begin(d, o->random_seed, o->n_random_states);
    if (st != GM_OK) {
      unclaim(d);
      return st;
    }
  }
  c->device = d;
  c->seed = o->random_seed;
  c->n_random_states = o->n_random_states;
  gm_device_ref(d);
  gm_pool_stats ps = gm_pool_get_stats(&d->pool);
  c->saved_limit = ps.limit;
  gm_pool_set_limit(&d->pool, o->n_pool_bytes);
  /* blocks cached by earlier contexts count against this one's limit */
  if (o->n_pool_bytes && ps.reserved > o->n_pool_bytes) gm_pool_trim(&d->pool, d);
  /* nudge the GC at least 8 times per limit's worth of allocations */
  c->saved_budget = d->gc_step_budget;
  if (o->n_pool_bytes && o->n_pool_bytes / 8 < d->gc_step_budget) d->gc_step_budget = o->n_pool_bytes / 8 + 1;
  c->saved_hook = d->gc_hook;
  c->saved_hook_arg = d->gc_hook_arg;
  c->saved_hook_thread = d->gc_hook_thread;
  d->gc_hook = o->gc_hook;
  d->gc_hook_arg = o->gc_hook_arg;
  d->gc_hook_thread = pthread_self();
  c->saved_h2d = atomic_exchange(&gm_counter.n_memcpy_host_to_device, 0);
  c->saved_d2h = atomic_exchange(&gm_counter.n_memcpy_device_to_host, 0);
  return GM_OK;
}

/* Does o name a device other than outer (the enclosing context's)?  Only
 * options that spell out a backend or a device id name one (the id
 * defaulting to cuda_default_device_id); a backend that comes from
 * $GPUMAT_DEVICE, or no option at all, means "the device already open". */
static bool names_other_device(const gm_device *outer, const gm_context_options *o) {
  if (!o->enabled || !(o->backend_option || o->device_option)) return false;
  if (o->backend_option && o->backend && strcmp(o->backend, outer->ops->name) != 0) return true;
  return o->device_id != outer->id;
}

gm_status gm_context_enter(gm_context *c, const gm_context_options *o) {
  memset(c, 0, sizeof *c);
  gm_device *outer = gm_context_device();
  gm_context_options own = *o;
  if (outer) {
    /* a device_id alone names a device of the enclosing backend; and a
     * nested context must get the device it names, never fall back to
     * running on the enclosing one */
    if (o->device_option && !o->backend_option) own.backend = outer->ops->name;
    own.backend_named = true;
  }
  if (outer && !names_other_device(outer, &own)) {
    push(c, o);
    push_barrier(c);
    return GM_OK;
  }
  if (o->enabled) {
    gm_device *d;
    GM_TRY(open_device(&own, &d));
    if (d) {
      GM_TRY(begin_device(c, d, o));
      push(c, o);
      push_barrier(c);
      return GM_OK;
    }
  }
  push(c, o);
  return GM_OK;
}

static gm_status end_device(gm_context *c) {
  gm_device *d = c->device;
  gm_status st = d->ops->synchronize(d);
  gm_device_collect(d); /* the cache stays: trimmed on OOM and by gm.collect() */
  if (d->ops->context_end) d->ops->context_end(d);
  gm_pool_set_limit(&d->pool, c->saved_limit);
  d->gc_step_budget = c->saved_budget;
  d->gc_hook = c->saved_hook;
  d->gc_hook_arg = c->saved_hook_arg;
  d->gc_hook_thread = c->saved_hook_thread;
  atomic_store(&gm_counter.n_memcpy_host_to_device, c->saved_h2d);
  atomic_store(&gm_counter.n_memcpy_device_to_host, c->saved_d2h);
  unclaim(d);
  gm_device_unref(d);
  c->device = NULL;
  return st;
}

gm_status gm_context_exit(gm_context *c) {
  if (c != current) return gm_fail(GM_ESTATE, "cuda contexts must be exited innermost first");
  gm_status st = GM_OK;
  if (c->has_barrier) st = gm_barrier_pop(&c->barrier);
  c->has_barrier = false;
  bool had_device = c->device != NULL;
  if (c->device) {
    gm_status st2 = end_device(c);
    if (st == GM_OK) st = st2;
  }
  current = c->outer;
  gm_cuda_enabled = c->saved_enabled;
  if (had_device) {
    /* a nested context on another device ended: bind the enclosing one
     * again (CUDA: its device current for the launches that follow) */
    for (gm_context *k = current; k; k = k->outer) {
      if (!k->device) continue;
      gm_device *d = k->device;
      gm_status st2 = d->ops->context_begin ? d->ops->context_begin(d, k->seed, k->n_random_states) : GM_OK;
      if (st == GM_OK) st = st2;
      break;
    }
  }
  return st;
}

/* ---- options ---- */

void gm_context_options_default(gm_context_options *o, const struct gm_settings *s) {
  memset(o, 0, sizeof *o);
  o->enabled = gm_cuda_enabled;
  o->device_id = (int)s->cuda_default_device_id;
  o->random_seed = (unsigned long long)s->cuda_default_random_seed;
  o->n_random_states = (int)s->cuda_default_n_random_states;
}

gm_status gm_context_default_backend(const char **backend, bool *named) {
  const char *env = getenv("GPUMAT_DEVICE");
  if (named) *named = env && *env;
  if (!env || !*env || strcmp(env, "cuda") == 0) {
    *backend = "cuda";
    return GM_OK;
  }
  if (strcmp(env, "emulated") == 0) {
    *backend = "emulated";
    return GM_OK;
  }
  return gm_fail(GM_EINVAL, "environment variable GPUMAT_DEVICE must be \"cuda\" or \"emulated\", got '%s'", env);
}

gm_status gm_context_parse_backend(const char *value, const char **backend) {
  if (strcmp(value, "cuda") == 0)
    *backend = "cuda";
  else if (strcmp(value, "emulated") == 0)
    *backend = "emulated";
  else
    return gm_fail(GM_EINVAL, "option 'backend' must be \"cuda\" or \"emulated\", got %s", value);
  return GM_OK;
}

gm_status gm_context_check_device_id(unsigned long long id) {
  if (id > GM_CONTEXT_MAX_DEVICE_ID)
    return gm_fail(GM_EINVAL, "option 'device_id' must be at most %d, got %llu", GM_CONTEXT_MAX_DEVICE_ID, id);
  return GM_OK;
}

gm_status gm_context_random_states(long long asked, int *rounded) {
  if (asked < 1 || asked > GM_CONTEXT_MAX_RANDOM_STATES)
    return gm_fail(GM_EINVAL, "option 'n_random_states' must be in 1..%d, got %lld", GM_CONTEXT_MAX_RANDOM_STATES,
                   asked);
  *rounded = (int)((asked + 31) / 32 * 32);
  return GM_OK;
}

gm_status gm_context_device_info(const char *backend, int id, gm_device_info *info, bool *unusable) {
  *unusable = false;
  if (strcmp(backend, "cuda") == 0) {
    char reason[256];
    *unusable = !gm_cuda_runtime_available(id, reason, sizeof reason);
    if (*unusable)
      return gm_fail(GM_EINVAL, "no usable cuda device %d: %s", id, reason);
    return gm_cuda_device_info(id, info);
  }
  gm_device *d;
  GM_TRY(gm_device_get(backend, id, &d));
  return d->ops->get_info(d, info);
}

bool gm_context_cuda_usable(int id, char *reason, size_t n) {
  /* the device this thread's context holds is usable; another id is
   * asked of the runtime (a bad id is refused there, with a GPU too) */
  gm_device *d = gm_context_device();
  if (d && strcmp(d->ops->name, "cuda") == 0 && d->id == id) return true;
  return gm_cuda_runtime_available(id, reason, n);
}

void *gm_context_native_stream(void) {
  gm_device *d = gm_context_device();
  return d && d->ops->native_stream ? d->ops->native_stream(d) : NULL;
}

gm_status gm_context_synchronize(void) {
  gm_device *d = gm_context_device();
  return d ? d->ops->synchronize(d) : GM_OK;
}
