#include "rules.h"

#include <stdlib.h>
#include <string.h>

#include "../core/mem/device.h"

gm_status gm_dist_check_active(void) {
  gm_dist_state s = gm_dist_get_state();
  if (s == GM_DIST_UNINIT) return gm_fail(GM_ESTATE, "gpumat.dist is not initialized (call dist.init() first)");
  if (s == GM_DIST_FINALIZED) return gm_fail(GM_ESTATE, "gpumat.dist was finalized");
  return GM_OK;
}

gm_status gm_dist_parse_op(const char *name, gm_dist_op *op) {
  /* in gm_dist_op order */
  static const char *const names[] = {"sum", "max", "min", "prod"};
  for (int i = 0; i < 4; i++)
    if (strcmp(names[i], name) == 0) {
      *op = (gm_dist_op)i;
      return GM_OK;
    }
  return gm_fail(GM_EINVAL, "option 'op' must be \"sum\", \"max\", \"min\" or \"prod\", got %s", name);
}

gm_status gm_dist_check_rank(long long r, const char *what, int *out) {
  if (r < 0 || r >= gm_dist_size())
    return gm_fail(GM_EINVAL, "%s %lld is out of range [0, %d)", what, r, gm_dist_size());
  *out = (int)r;
  return GM_OK;
}

gm_status gm_dist_check_peer(long long r, const char *what, const char *verb, int *out) {
  GM_TRY(gm_dist_check_rank(r, what, out));
  if (*out == gm_dist_rank()) return gm_fail(GM_EINVAL, "cannot %s the calling rank %d", verb, *out);
  return GM_OK;
}

gm_status gm_dist_check_tag(long long t, int *out) {
  if (t < 0 || t > gm_dist_tag_ub())
    return gm_fail(GM_EINVAL, "tag %lld is out of range [0, %d]", t, gm_dist_tag_ub());
  *out = (int)t;
  return GM_OK;
}

/* out of reduce_scatter and sendrecv: m's ctype, its own storage */
static gm_status check_out(const gm_dist_call *c) {
  if (c->out->ctype != c->m->ctype) return gm_fail(GM_EINVAL, "ctype differs from argument #1's");
  size_t size = (size_t)gm_dist_size();
  if (c->kind == GM_DIST_REDUCE_SCATTER && c->m->size != c->out->size * size)
    return gm_fail(GM_EINVAL, "size %zu times the world size %zu differs from argument #1's size %zu", c->out->size,
                   size, c->m->size);
  if (c->out->vec == c->m->vec) return gm_fail(GM_EINVAL, "must not share storage with argument #1");
  return GM_OK;
}

gm_status gm_dist_check_call(const gm_dist_call *c) {
  /* the ctype list has no MPI/NCCL datatype for them (ctype_list.h) */
  if (c->m && gm_ctype_is_complex(c->m->ctype))
    return gm_fail(GM_EINVAL, "a %s mat; gpumat.dist does not take complex mats yet", gm_ctype_dtype(c->m->ctype));
  switch (c->kind) {
    case GM_DIST_ALLREDUCE:
      if (c->average && c->op != GM_DIST_SUM) return gm_fail(GM_EINVAL, "option 'average' needs op \"sum\"");
      break;
    case GM_DIST_ALLGATHER:
      if (c->m->rank + 1 > GM_MAX_RANK)
        return gm_fail(GM_EINVAL, "rank %d leaves no room for the leading axis", c->m->rank);
      break;
    case GM_DIST_REDUCE_SCATTER:
    case GM_DIST_SENDRECV:
      return check_out(c);
    default:
      break;
  }
  return GM_OK;
}

int gm_dist_gathered_dims(const gm_mat *m, size_t *dims) {
  dims[0] = (size_t)gm_dist_size();
  for (int i = 0; i < m->rank; i++) dims[i + 1] = m->dims[i];
  return m->rank + 1;
}

bool gm_dist_checking_default(void) {
  const char *env = getenv("GPUMAT_DIST_CHECK");
  return env && *env && strcmp(env, "0") != 0;
}

int gm_dist_default_device(void) {
  int count = gm_cuda_device_count();
  return count > 0 ? gm_dist_local_rank() % count : -1;
}
