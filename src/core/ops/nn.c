/* Validation and dispatch of the NN ops. */
#include "nn.h"

#include "../exec/exec.h"

static gm_status bad_arg(gm_nn_arg *bad, gm_nn_arg which) {
  *bad = which;
  return GM_EINVAL;
}

static int spatial_axis(const gm_nn_params *p, int i) { return (p->batched ? 2 : 1) + i; }

/* Checks x's rank and the start/stride/anchor parameters against x and
 * the kernel dims k (kname: "w" or "the pool"), and fills g except y's
 * dims. */
static gm_status geom_x(const char *op, const gm_mat *x, const int64_t k[2], const char *kname,
                        const gm_nn_params *p, gm_nn_geom *g, gm_nn_arg *bad) {
  int want = p->batched ? 3 : 2;
  if (x->rank != want) {
    gm_fail(GM_EINVAL, "%s: x must have rank %d (%s2 spatial dimensions), got %d", op, want,
            p->batched ? "batch and " : "", x->rank);
    return bad_arg(bad, GM_NN_X);
  }
  int64_t xd[2] = {(int64_t)x->dims[want - 2], (int64_t)x->dims[want - 1]};
  for (int i = 0; i < 2; i++) {
    if (p->stride[i] < 1) {
      gm_fail(GM_EINVAL, "%s: stride[%d] must be positive, got %lld", op, i + 1, (long long)p->stride[i]);
      return bad_arg(bad, GM_NN_OPTS);
    }
    if (p->start[i] < 0 || p->start[i] >= xd[i]) {
      gm_fail(GM_EINVAL, "%s: start[%d] = %lld is outside x's dimension %d (1..%lld)", op, i + 1,
              (long long)p->start[i] + 1, spatial_axis(p, i), (long long)xd[i]);
      return bad_arg(bad, GM_NN_OPTS);
    }
    if (p->anchor[i] < 0 || p->anchor[i] >= k[i]) {
      gm_fail(GM_EINVAL, "%s: anchor[%d] = %lld is outside %s's dimension %d (1..%lld)", op, i + 1,
              (long long)p->anchor[i] + 1, kname, i + 1, (long long)k[i]);
      return bad_arg(bad, GM_NN_OPTS);
    }
  }
  *g = (gm_nn_geom){.batch = p->batched ? (int64_t)x->dims[0] : 1, .xh = xd[0], .xw = xd[1],
                    .kh = k[0], .kw = k[1], .start0 = p->start[0], .start1 = p->start[1],
                    .stride0 = p->stride[0], .stride1 = p->stride[1],
                    .anchor0 = p->anchor[0], .anchor1 = p->anchor[1]};
  return GM_OK;
}

/* Checks y (named yname, operand yarg) against the application points. */
static gm_status geom_y(const char *op, const gm_mat *x, const gm_mat *y, const char *yname, gm_nn_arg yarg,
                        const gm_nn_params *p, gm_nn_geom *g, gm_nn_arg *bad) {
  if (y->rank != x->rank) {
    gm_fail(GM_EINVAL, "%s: %s must have rank %d like x, got %d", op, yname, x->rank, y->rank);
    return bad_arg(bad, yarg);
  }
  if (p->batched && y->dims[0] != x->dims[0]) {
    gm_fail(GM_EINVAL, "%s: %s has batch size %zu but x has %zu", op, yname, y->dims[0], x->dims[0]);
    return bad_arg(bad, yarg);
  }
  int64_t xd[2] = {g->xh, g->xw};
  int64_t pts[2];
  for (int i = 0; i < 2; i++) {
    pts[i] = gm_nn_points(xd[i], p->start[i], p->stride[i]);
    int axis = spatial_axis(p, i);
    if ((int64_t)y->dims[axis - 1] != pts[i]) {
      gm_fail(GM_EINVAL,
              "%s: %s has %zu elements along dimension %d but there are %lld application points "
              "(1 + floor((%lld - %lld) / %lld) for x's dimension %d, start %lld, stride %lld)",
              op, yname, y->dims[axis - 1], axis, (long long)pts[i], (long long)xd[i],
              (long long)p->start[i] + 1, (long long)p->stride[i], axis, (long long)p->start[i] + 1,
              (long long)p->stride[i]);
      return bad_arg(bad, yarg);
    }
  }
  g->yh = pts[0];
  g->yw = pts[1];
  return GM_OK;
}

/* Same ctype as x and, when dims_of is given, the same dims. */
static gm_status check_like(const char *op, const gm_mat *x, const gm_mat *m, const char *name,
                            const gm_mat *dims_of, const char *dname, gm_nn_arg which, gm_nn_arg *bad) {
  if (m->ctype != x->ctype) {
    gm_fail(GM_EINVAL, "%s: mixed ctypes: x is %s, %s is %s", op, gm_ctype_name(x->ctype), name,
            gm_ctype_name(m->ctype));
    return bad_arg(bad, which);
  }
  if (!dims_of) return GM_OK;
  bool same = m->rank == dims_of->rank;
  for (int i = 0; same && i < m->rank; i++) same = m->dims[i] == dims_of->dims[i];
  if (!same) {
    gm_fail(GM_EINVAL, "%s: %s must have the dimensions of %s", op, name, dname);
    return bad_arg(bad, which);
  }
  return GM_OK;
}

static gm_status w_dims(const char *op, const gm_mat *w, int64_t k[2], gm_nn_arg *bad) {
  if (w->rank != 2) {
    gm_fail(GM_EINVAL, "%s: w must be 2-dimensional, got rank %d", op, w->rank);
    return bad_arg(bad, GM_NN_W);
  }
  k[0] = (int64_t)w->dims[0];
  k[1] = (int64_t)w->dims[1];
  return GM_OK;
}

static gm_status nn_table(const gm_exec *e, const char *op, const gm_nn_ops **out) {
  *out = e->be->nn;
  if (!*out) return gm_fail(GM_EUNSUPPORTED, "%s: not implemented on the %s backend", op, e->be->name);
  return GM_OK;
}

/* Acquires ops[0..n) (inputs listed first), runs, releases. */
typedef struct nn_call {
  gm_exec e;
  const gm_nn_ops *t;
} nn_call;

static gm_status nn_begin(nn_call *c, const char *op, gm_operand *o, int n) {
  gm_mat *all[5];
  for (int i = 0; i < n; i++) all[i] = o[i].m;
  GM_TRY(gm_check_float_mats(op, all, n));
  c->e = gm_exec_choose(all, n);
  GM_TRY(nn_table(&c->e, op, &c->t));
  return gm_acquire(&c->e, o, n);
}

/* Outputs must not share storage with any other operand:
 * the GPU kernels read inputs while other threads write outputs. */
typedef struct nn_operand_name {
  gm_mat *m;
  const char *name;
  gm_nn_arg arg;
} nn_operand_name;

static gm_status no_alias(const char *op, const nn_operand_name *outs, int n_out, const nn_operand_name *all,
                          int n_all, gm_nn_arg *bad) {
  for (int i = 0; i < n_out; i++)
    for (int j = 0; j < n_all; j++) {
      if (all[j].arg == outs[i].arg || !gm_mats_overlap(outs[i].m, all[j].m)) continue;
      gm_fail(GM_EINVAL, "%s: %s shares storage with %s", op, outs[i].name, all[j].name);
      return bad_arg(bad, outs[i].arg);
    }
  return GM_OK;
}

gm_status gm_convolve_(gm_mat *x, gm_mat *w, gm_mat *y, const gm_nn_params *p, gm_nn_arg *bad) {
  const char *op = "convolve_";
  int64_t k[2];
  gm_nn_geom g;
  GM_TRY(check_like(op, x, w, "w", NULL, NULL, GM_NN_W, bad));
  GM_TRY(check_like(op, x, y, "y", NULL, NULL, GM_NN_Y, bad));
  GM_TRY(w_dims(op, w, k, bad));
  GM_TRY(geom_x(op, x, k, "w", p, &g, bad));
  GM_TRY(geom_y(op, x, y, "y", GM_NN_Y, p, &g, bad));
  if (y->size == 0) return GM_OK;
  const nn_operand_name names[3] = {{y, "y", GM_NN_Y}, {x, "x", GM_NN_X}, {w, "w", GM_NN_W}};
  GM_TRY(no_alias(op, names, 1, names, 3, bad));
  gm_operand o[3] = {{x, GM_INPUT, NULL}, {w, GM_INPUT, NULL}, {y, GM_IO, NULL}};
  nn_call c;
  GM_TRY(nn_begin(&c, op, o, 3));
  gm_status st = c.t->convolve(c.e.dev, x->ctype, &g, o[0].ptr, o[1].ptr, o[2].ptr);
  return gm_finish(&c.e, o, 3, st);
}

gm_status gm_derive_convolve_(gm_mat *x, gm_mat *xd, gm_mat *w, gm_mat *wd, gm_mat *yd,
                              const gm_nn_params *p, gm_nn_arg *bad) {
  const char *op = "derive_convolve_";
  int64_t k[2];
  gm_nn_geom g;
  GM_TRY(check_like(op, x, xd, "xd", x, "x", GM_NN_XD, bad));
  GM_TRY(check_like(op, x, w, "w", NULL, NULL, GM_NN_W, bad));
  GM_TRY(check_like(op, x, wd, "wd", w, "w", GM_NN_WD, bad));
  GM_TRY(check_like(op, x, yd, "yd", NULL, NULL, GM_NN_YD, bad));
  GM_TRY(w_dims(op, w, k, bad));
  GM_TRY(geom_x(op, x, k, "w", p, &g, bad));
  GM_TRY(geom_y(op, x, yd, "yd", GM_NN_YD, p, &g, bad));
  if (yd->size == 0) return GM_OK;
  const nn_operand_name names[5] = {
      {xd, "xd", GM_NN_XD}, {wd, "wd", GM_NN_WD}, {x, "x", GM_NN_X}, {w, "w", GM_NN_W}, {yd, "yd", GM_NN_YD}};
  GM_TRY(no_alias(op, names, 2, names, 5, bad));
  gm_operand o[5] = {{x, GM_INPUT, NULL}, {w, GM_INPUT, NULL}, {yd, GM_INPUT, NULL},
                     {xd, GM_IO, NULL},   {wd, GM_IO, NULL}};
  nn_call c;
  GM_TRY(nn_begin(&c, op, o, 5));
  gm_status st = c.t->derive_convolve(c.e.dev, x->ctype, &g, o[0].ptr, o[3].ptr, o[1].ptr, o[4].ptr, o[2].ptr);
  return gm_finish(&c.e, o, 5, st);
}

static gm_status pool_dims(const char *op, const int64_t pool[2], gm_nn_arg *bad) {
  for (int i = 0; i < 2; i++)
    if (pool[i] < 1) {
      gm_fail(GM_EINVAL, "%s: pool_dimensions[%d] must be positive, got %lld", op, i + 1, (long long)pool[i]);
      return bad_arg(bad, GM_NN_OPTS);
    }
  return GM_OK;
}

gm_status gm_max_pool_(gm_mat *x, gm_mat *y, const int64_t pool[2], const gm_nn_params *p, gm_nn_arg *bad) {
  const char *op = "max_pool_";
  gm_nn_geom g;
  GM_TRY(check_like(op, x, y, "y", NULL, NULL, GM_NN_Y, bad));
  GM_TRY(pool_dims(op, pool, bad));
  GM_TRY(geom_x(op, x, pool, "the pool", p, &g, bad));
  GM_TRY(geom_y(op, x, y, "y", GM_NN_Y, p, &g, bad));
  if (y->size == 0) return GM_OK;
  const nn_operand_name names[2] = {{y, "y", GM_NN_Y}, {x, "x", GM_NN_X}};
  GM_TRY(no_alias(op, names, 1, names, 2, bad));
  gm_operand o[2] = {{x, GM_INPUT, NULL}, {y, GM_OUTPUT, NULL}};
  nn_call c;
  GM_TRY(nn_begin(&c, op, o, 2));
  gm_status st = c.t->max_pool(c.e.dev, x->ctype, &g, o[0].ptr, o[1].ptr);
  return gm_finish(&c.e, o, 2, st);
}

gm_status gm_derive_max_pool_(gm_mat *x, gm_mat *xd, gm_mat *y, gm_mat *yd, const int64_t pool[2],
                              const gm_nn_params *p, gm_nn_arg *bad) {
  const char *op = "derive_max_pool_";
  gm_nn_geom g;
  GM_TRY(check_like(op, x, xd, "xd", x, "x", GM_NN_XD, bad));
  GM_TRY(check_like(op, x, y, "y", NULL, NULL, GM_NN_Y, bad));
  GM_TRY(check_like(op, x, yd, "yd", y, "y", GM_NN_YD, bad));
  GM_TRY(pool_dims(op, pool, bad));
  GM_TRY(geom_x(op, x, pool, "the pool", p, &g, bad));
  GM_TRY(geom_y(op, x, y, "y", GM_NN_Y, p, &g, bad));
  if (y->size == 0) return GM_OK;
  const nn_operand_name names[4] = {{xd, "xd", GM_NN_XD}, {x, "x", GM_NN_X}, {y, "y", GM_NN_Y}, {yd, "yd", GM_NN_YD}};
  GM_TRY(no_alias(op, names, 1, names, 4, bad));
  gm_operand o[4] = {{x, GM_INPUT, NULL}, {y, GM_INPUT, NULL}, {yd, GM_INPUT, NULL}, {xd, GM_IO, NULL}};
  nn_call c;
  GM_TRY(nn_begin(&c, op, o, 4));
  gm_status st = c.t->derive_max_pool(c.e.dev, x->ctype, &g, o[0].ptr, o[3].ptr, o[1].ptr, o[2].ptr);
  return gm_finish(&c.e, o, 4, st);
}

gm_status gm_nn_run(gm_nn_kind k, gm_mat *const ops[GM_NN_OPTS], const int64_t pool[2], const gm_nn_params *p,
                    gm_nn_arg *bad) {
  gm_mat *x = ops[GM_NN_X], *xd = ops[GM_NN_XD], *w = ops[GM_NN_W], *wd = ops[GM_NN_WD];
  gm_mat *y = ops[GM_NN_Y], *yd = ops[GM_NN_YD];
  switch (k) {
    case GM_NN_CONVOLVE:
      return gm_convolve_(x, w, y, p, bad);
    case GM_NN_DERIVE_CONVOLVE:
      return gm_derive_convolve_(x, xd, w, wd, yd, p, bad);
    case GM_NN_MAX_POOL:
      return gm_max_pool_(x, y, pool, p, bad);
    case GM_NN_DERIVE_MAX_POOL:
      return gm_derive_max_pool_(x, xd, y, yd, pool, p, bad);
  }
  return gm_fail(GM_EINVAL, "gm_nn_run: unknown op %d", (int)k);
}
