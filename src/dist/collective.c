/* Collectives on mats: place, acquire, NCCL or MPI, release (see
 * collective.h). */
#include "collective.h"

#include "../core/exec/exec.h"
#include "../core/ops/half.h"
#include "nccl.h"

static bool checking;

void gm_dist_set_checking(bool on) { checking = on; }

/* The place of a call: NCCL on the cuda facet of a real GPU, else MPI on
 * the host facet (also for the emulated device: its host copies). */
typedef struct place {
  gm_exec e;
  bool nccl;
} place;

static place choose(gm_mat *const *mats, int n) {
  place p = {gm_exec_choose(mats, n), false};
  if (p.e.dev && gm_nccl_usable(p.e.dev))
    p.nccl = true;
  else
    p.e = gm_exec_host();
  return p;
}

/* x /= size on the host facet (average; floats only: on_mpi refuses the
 * average of other ctypes) */
static void divide(void *p, size_t n, gm_ctype t, int size) {
#define X(T, E, ...)                                     \
  case GM_##E: {                                         \
    T *x = p;                                            \
    for (size_t i = 0; i < n; i++) x[i] /= (T)size;      \
    break;                                               \
  }
  GM_FLOAT_CTYPE_SWITCH(t, X, break)
#undef X
}

/* What every rank must agree on (point to point takes no part: only two
 * peers are involved; recv checks the received count). */
static gm_status check_same(const gm_dist_call *c) {
  if (!checking) return GM_OK;
  const gm_mat *m = c->m;
  long long sig[3] = {(long long)m->size, m->ctype, 0};
  switch (c->kind) {
    case GM_DIST_ALLREDUCE: sig[2] = c->op * 2 + c->average; break;
    case GM_DIST_BROADCAST: sig[2] = c->peer; break;
    case GM_DIST_ALLGATHER: sig[2] = m->rank; break;
    case GM_DIST_REDUCE_SCATTER: sig[0] = (long long)c->out->size, sig[2] = c->op; break;
    default: return GM_OK;
  }
  return gm_dist_check_same(c->fn, sig, 3);
}

static gm_status on_nccl(const gm_dist_call *c, gm_device *d, void *a, void *b) {
  size_t n = c->m->size;
  gm_ctype t = c->m->ctype;
  switch (c->kind) {
    case GM_DIST_ALLREDUCE: return gm_nccl_allreduce(d, a, n, t, c->op, c->average);
    case GM_DIST_BROADCAST: return gm_nccl_bcast(d, a, n, t, c->peer);
    case GM_DIST_ALLGATHER: return gm_nccl_allgather(d, a, b, n, t);
    case GM_DIST_REDUCE_SCATTER: return gm_nccl_reduce_scatter(d, a, b, c->out->size, t, c->op);
    default: break;
  }
  /* NCCL has no tags */
  if (c->tag != 0) return gm_fail(GM_EUNSUPPORTED, "a tagged %s on a cuda facet is not implemented (use tag 0)", c->fn);
  if (c->kind == GM_DIST_SEND) return gm_nccl_send(d, a, n, t, c->peer);
  if (c->kind == GM_DIST_RECV) return gm_nccl_recv(d, a, n, t, c->peer);
  return gm_nccl_sendrecv(d, a, n, c->peer, b, c->out->size, c->peer2, t);
}

static gm_status on_mpi(const gm_dist_call *c, void *a, void *b) {
  size_t n = c->m->size;
  /* MPI has no half datatype: a float16/bfloat16 mat moves as its bits
   * (its reductions ran on float32 copies: half_reduce) */
  gm_ctype t = gm_ctype_is_half(c->m->ctype) ? GM_UINT16 : c->m->ctype;
  switch (c->kind) {
    case GM_DIST_ALLREDUCE: {
      if (c->average) GM_TRY(gm_check_float_ctype(c->fn, 1, t));
      GM_TRY(gm_dist_allreduce(a, n, t, c->op));
      if (c->average && gm_dist_size() > 1) divide(a, n, t, gm_dist_size());
      return GM_OK;
    }
    case GM_DIST_BROADCAST: return gm_dist_bcast(a, n, t, c->peer);
    case GM_DIST_ALLGATHER: return gm_dist_allgather(a, b, n, t);
    case GM_DIST_REDUCE_SCATTER: return gm_dist_reduce_scatter(a, b, c->out->size, t, c->op);
    case GM_DIST_SEND: return gm_dist_send(a, n, t, c->peer, c->tag);
    case GM_DIST_RECV: return gm_dist_recv(a, n, t, c->peer, c->tag);
    default: return gm_dist_sendrecv(a, n, c->peer, b, c->out->size, c->peer2, t, c->tag);
  }
}

static gm_direction first_dir(const gm_dist_call *c) {
  switch (c->kind) {
    case GM_DIST_ALLREDUCE: return GM_IO;
    case GM_DIST_BROADCAST: return c->peer == gm_dist_rank() ? GM_INPUT : GM_OUTPUT;
    case GM_DIST_RECV: return GM_OUTPUT;
    default: return GM_INPUT;
  }
}

/* A reduction of float16/bfloat16 mats: on float32 copies of m (and of
 * out's dims), the result rounded once into m or out (core/ops/half.c),
 * as every op on them computes; MPI and NCCL never reduce half values. */
static gm_status half_reduce(const gm_dist_call *c) {
  gm_dist_call f = *c;
  f.m = f.out = NULL;
  gm_status st = gm_half_float_copy(c->m, &f.m);
  if (st == GM_OK && c->out) st = gm_half_float_like(c->out, &f.out);
  if (st == GM_OK) st = gm_dist_mats(&f);
  if (!c->out) return gm_half_store(st, f.m, c->m);
  gm_mat_free(f.m);
  return gm_half_store(st, f.out, c->out);
}

gm_status gm_dist_mats(const gm_dist_call *c) {
  if (gm_ctype_is_half(c->m->ctype) && (c->kind == GM_DIST_ALLREDUCE || c->kind == GM_DIST_REDUCE_SCATTER))
    return half_reduce(c);
  GM_TRY(check_same(c));
  int n = c->out ? 2 : 1;
  gm_mat *mats[2] = {c->m, c->out};
  place p = choose(mats, n);
  gm_operand ops[2] = {{c->m, first_dir(c), NULL}, {c->out, GM_OUTPUT, NULL}};
  GM_TRY(gm_acquire(&p.e, ops, n));
  void *b = n == 2 ? ops[1].ptr : NULL;
  gm_status st = p.nccl ? on_nccl(c, p.e.dev, ops[0].ptr, b) : on_mpi(c, ops[0].ptr, b);
  gm_release(&p.e, ops, n);
  return st;
}
