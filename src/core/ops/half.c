/* The 16-bit floating mats' compute engine: an op on float16/bfloat16
 * mats runs on float32 copies of them where they live (gm_mat_astype:
 * exact), with the float32 loops and kernels, and its result is rounded
 * to nearest even into the half mat (kernels/half_ops.h).  So every op
 * row that runs on float32 runs on the half types without loops or
 * kernels of their own (two conversion passes more than a fused kernel:
 * the price of not instantiating every op per half type), and the half
 * types' results are float32's rounded once: NumPy's for float16, whose
 * loops compute in float32 too. */
#include "half.h"

gm_status gm_half_float_like(const gm_mat *m, gm_mat **out) {
  gm_mat_options o = {0};
  o.ctype = (int)GM_FLOAT;
  o.cuda_enabled = m->cuda_enabled;
  o.synchronization = m->vec->synchronization;
  return gm_mat_new(m->rank, m->dims, &o, out);
}

gm_status gm_half_float_copy(gm_mat *m, gm_mat **out) {
  GM_TRY(gm_half_float_like(m, out));
  gm_status st = gm_mat_astype(m, *out);
  if (st != GM_OK) {
    gm_mat_free(*out);
    *out = NULL;
  }
  return st;
}

gm_status gm_half_store(gm_status st, gm_mat *f, gm_mat *dst) {
  if (st == GM_OK && f) st = gm_mat_astype(f, dst);
  gm_mat_free(f);
  return st;
}

gm_status gm_half_result(gm_status st, gm_ctype t, gm_mat **r) {
  gm_mat *f = *r, *h = NULL;
  *r = NULL;
  if (st != GM_OK || !f) {
    gm_mat_free(f);
    return st;
  }
  gm_mat_options o = {0};
  o.ctype = (int)t;
  o.cuda_enabled = f->cuda_enabled;
  o.synchronization = f->vec->synchronization;
  st = gm_mat_new(f->rank, f->dims, &o, &h);
  if (st == GM_OK && f->size) st = gm_mat_astype(f, h);
  gm_mat_free(f);
  if (st != GM_OK) gm_mat_free(h);
  else *r = h;
  return st;
}
