/* The embedding half of the public C API (include/gpumat.h): mats over an
 * application's memory, raw facet access, and cuda contexts begun from C.
 * Like the rest of the core: statuses, never a longjmp. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../model/access.h"
#include "../model/context.h"
#include "../model/mat.h"

gm_status gm_mat_wrap(void *data, int ctype, int rank, const size_t *dims, gm_release_fn release, void *ud,
                      gm_mat **out) {
  if (!out) return gm_fail(GM_EINVAL, "gm_mat_wrap: out is NULL");
  if (!data) return gm_fail(GM_EINVAL, "gm_mat_wrap: data is NULL");
  if (ctype < 0 || ctype >= GM_N_CTYPES) return gm_fail(GM_EINVAL, "gm_mat_wrap: bad ctype %d", ctype);
  if (rank < 0 || rank > GM_MAX_RANK)
    return gm_fail(GM_EINVAL, "gm_mat_wrap: rank %d is out of range 0..%d", rank, GM_MAX_RANK);
  if (rank > 0 && !dims) return gm_fail(GM_EINVAL, "gm_mat_wrap: dims is NULL");
  size_t size = 0;
  GM_TRY(gm_dims_size(rank, dims, &size));
  gm_mat *m = calloc(1, sizeof *m);
  if (!m) return gm_fail(GM_ENOMEM, "out of host memory allocating a mat");
  gm_status st = gm_vec_wrap((gm_ctype)ctype, size, data, release, ud, &m->vec);
  if (st != GM_OK) {
    free(m);
    return st;
  }
  m->ctype = (gm_ctype)ctype;
  m->rank = rank;
  for (int i = 0; i < rank; i++) m->dims[i] = dims[i];
  m->size = size;
  gm_mat_set_row_major_strides(m);
  m->cuda_enabled = true;
  *out = m;
  return GM_OK;
}

/* ---- facet access: a per-thread stack remembers each open access's
 * direction, which the unwatch needs and gm_mat_end_access does not take. */

enum { MAX_OPEN = 64 };
typedef struct open_access {
  gm_mat *m;
  gm_facet_name f;
  gm_direction dir;
} open_access;
static _Thread_local open_access open_stack[MAX_OPEN];
static _Thread_local int n_open;

static struct gm_device *facet_device(gm_facet_name f) {
  return f == GM_FACET_CUDA || f == GM_FACET_CUDA_HOST ? gm_context_device() : NULL;
}

gm_status gm_mat_begin_access(gm_mat *m, gm_facet_name facet, gm_direction direction, void **ptr) {
  if (!m || !ptr) return gm_fail(GM_EINVAL, "gm_mat_begin_access: NULL argument");
  if ((int)facet < 0 || facet >= GM_N_FACETS)
    return gm_fail(GM_EINVAL, "gm_mat_begin_access: bad facet %d", (int)facet);
  if ((int)direction < 0 || direction > GM_IO)
    return gm_fail(GM_EINVAL, "gm_mat_begin_access: bad direction %d", (int)direction);
  if (n_open == MAX_OPEN)
    return gm_fail(GM_ESTATE, "gm_mat_begin_access: more than %d accesses open on this thread", MAX_OPEN);
  void *p;
  GM_TRY(gm_mat_watch(m, facet, direction, facet_device(facet), &p));
  open_stack[n_open++] = (open_access){m, facet, direction};
  *ptr = p;
  return GM_OK;
}

gm_status gm_mat_end_access(gm_mat *m, gm_facet_name facet) {
  int i = n_open - 1;
  while (i >= 0 && !(open_stack[i].m == m && open_stack[i].f == facet)) i--;
  if (i < 0 || !m)
    return gm_fail(GM_ESTATE, "gm_mat_end_access: no open access of this mat's facet '%s' on this thread",
                   (int)facet >= 0 && facet < GM_N_FACETS ? gm_facet_name_str(facet) : "?");
  if (i != n_open - 1)
    return gm_fail(GM_ESTATE, "gm_mat_end_access: accesses must end innermost first");
  gm_mat_unwatch(m, facet, open_stack[i].dir);
  n_open--;
  return GM_OK;
}

/* ---- several facets at once: a gm_access (access.h) on the heap ---- */

static gm_status check_spec(const gm_facet_spec *sp, int i) {
  if (!sp->mat) return gm_fail(GM_EINVAL, "gm_facets_begin: specs[%d].mat is NULL", i);
  if ((int)sp->facet < 0 || sp->facet >= GM_N_FACETS)
    return gm_fail(GM_EINVAL, "gm_facets_begin: specs[%d]: bad facet %d", i, (int)sp->facet);
  if ((int)sp->direction < 0 || sp->direction > GM_IO)
    return gm_fail(GM_EINVAL, "gm_facets_begin: specs[%d]: bad direction %d", i, (int)sp->direction);
  return GM_OK;
}

gm_status gm_facets_begin(const gm_facet_spec *specs, int n, void **ptrs, gm_access **out) {
  if (!out || (n > 0 && (!specs || !ptrs))) return gm_fail(GM_EINVAL, "gm_facets_begin: NULL argument");
  if (n < 0 || n > GM_ACCESS_MAX)
    return gm_fail(GM_EINVAL, "gm_facets_begin: n must be in 0..%d, got %d", GM_ACCESS_MAX, n);
  struct gm_device *devs[GM_ACCESS_MAX];
  for (int i = 0; i < n; i++) {
    GM_TRY(check_spec(&specs[i], i));
    GM_TRY(gm_access_device(specs[i].facet, &devs[i]));
  }
  gm_access *a = malloc(gm_access_size(n));
  if (!a) return gm_fail(GM_ENOMEM, "out of host memory");
  gm_access_init(a, n);
  for (int i = 0; i < n; i++) (void)gm_access_add(a, specs[i].mat, specs[i].facet, specs[i].direction, devs[i]);
  gm_status st = gm_access_watch_all(a, ptrs);
  if (st != GM_OK) {
    free(a); /* watch_all released what it had watched */
    return st;
  }
  *out = a;
  return GM_OK;
}

void gm_facets_end(gm_access *a) {
  if (!a) return;
  gm_access_release(a);
  free(a);
}

/* ---- contexts: gm_cuda_begin's contexts on this thread, innermost last,
 * so gm_cuda_end never exits a context some Lua with_cuda opened. */

typedef struct c_context {
  gm_context c;
  struct c_context *outer;
} c_context;
static _Thread_local c_context *c_contexts;

static gm_status pick_backend(const char *b, const char **out) {
  if (!b) {
    b = getenv("GPUMAT_DEVICE");
    if (!b || !*b) b = "cuda";
    else if (strcmp(b, "cuda") != 0 && strcmp(b, "emulated") != 0)
      return gm_fail(GM_EINVAL, "gm_cuda_begin: environment variable GPUMAT_DEVICE must be \"cuda\" or "
                                "\"emulated\", got '%s'", b);
  }
  if (strcmp(b, "cuda") == 0) *out = "cuda";
  else if (strcmp(b, "emulated") == 0) *out = "emulated";
  else return gm_fail(GM_EINVAL, "gm_cuda_begin: backend must be \"cuda\" or \"emulated\", got '%s'", b);
  return GM_OK;
}

gm_status gm_cuda_begin(const gm_cuda_options *opts) {
  gm_cuda_options def = {0};
  if (!opts) opts = &def;
  gm_context_options o = {0};
  GM_TRY(pick_backend(opts->backend, &o.backend));
  o.backend_option = opts->backend != NULL; /* nested: opens that backend */
  if (opts->device_id < 0 || opts->device_id > 63)
    return gm_fail(GM_EINVAL, "gm_cuda_begin: device_id must be in 0..63, got %d", opts->device_id);
  if (opts->n_random_states < 0 || opts->n_random_states > (1 << 24))
    return gm_fail(GM_EINVAL, "gm_cuda_begin: n_random_states must be in 1..16777216, got %d",
                   opts->n_random_states);
  o.enabled = !opts->disabled;
  o.device_id = opts->device_id;
  o.random_seed = opts->random_seed ? opts->random_seed : 1234;
  int n = opts->n_random_states ? opts->n_random_states : 4096;
  o.n_random_states = (n + 31) / 32 * 32;
  o.n_pool_bytes = opts->n_pool_bytes;
  /* no GC hook: a C application has no collector for the reclaim
   * cascade to run (a Lua with_cuda nested inside installs none either:
   * the device is already open) */
  c_context *cc = calloc(1, sizeof *cc);
  if (!cc) return gm_fail(GM_ENOMEM, "gm_cuda_begin: out of host memory");
  gm_status st = gm_context_enter(&cc->c, &o);
  if (st != GM_OK) {
    free(cc);
    return st;
  }
  cc->outer = c_contexts;
  c_contexts = cc;
  return GM_OK;
}

gm_status gm_cuda_end(void) {
  c_context *cc = c_contexts;
  if (!cc) return gm_fail(GM_ESTATE, "gm_cuda_end: no context begun with gm_cuda_begin on this thread");
  if (gm_context_current() != &cc->c)
    return gm_fail(GM_ESTATE, "gm_cuda_end: an inner cuda context (with_cuda) is still active");
  gm_status st = gm_context_exit(&cc->c);
  c_contexts = cc->outer;
  free(cc);
  return st;
}

int gm_cuda_active(void) { return gm_current_device() != NULL; }
