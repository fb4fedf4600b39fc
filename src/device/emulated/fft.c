/* cuFFT on the emulated device: a shim with cuFFT's calling conventions
 * (a plan made by cufftPlanMany's layout, executions queued on the
 * compute stream on device buffers, cufftDestroy) over the host's KISS
 * FFT (src/host/fft.cpp), so the shared driver ../fft.c runs here the
 * call sequence it runs on CUDA.  As cuFFT may, C2R leaves its input
 * overwritten (here with NaN), so a caller that relied on it would fail
 * in every CI pass, not only on a GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/mem/backends.h"
#include "../../host/fft.h"
#include "../fft.h"
#include "alias.h"
#include "emulated.h"
#include "launchers.h"

/* the plan: what cufftPlanMany was given (one batch of the layout) */
typedef struct emu_plan {
  gm_fft_layout l;
} emu_plan;

static gm_status emu_plan_many(void *ctx, const gm_fft_layout *l, void **plan) {
  (void)ctx;
  if (l->n < 1 || l->batch < 1) return gm_fail(GM_EINVAL, "cufftPlanMany: invalid size (CUFFT_INVALID_SIZE)");
  emu_plan *p = malloc(sizeof *p);
  if (!p) return gm_fail(GM_ENOMEM, "out of host memory");
  p->l = *l;
  p->l.loops = 1, p->l.iloop = 0, p->l.oloop = 0;
  *plan = p;
  return GM_OK;
}

typedef struct fft_task {
  gm_fft_layout l;
  void *in, *out;
  bool inverse;
} fft_task;

static int run_fft(void *arg) {
  fft_task *k = arg;
  void *in = gm_emu_alias(k->in), *out = gm_emu_alias(k->out); /* the worker's addresses (alias.h) */
  gm_status st = gm_host_fft_exec(&k->l, in, out, k->inverse);
  if (st == GM_OK && k->l.type == GM_FFT_C2R) { /* cuFFT's C2R input is scratch afterwards */
    size_t h = k->l.n / 2 + 1, span = (k->l.batch - 1) * k->l.idist + (h - 1) * k->l.istride + 1;
    memset(in, 0xff, span * gm_ctype_size(k->l.t)); /* all-ones bytes: NaN parts */
  }
  free(k);
  return (int)st;
}

static gm_status emu_exec(void *ctx, void *plan, gm_fft_type type, gm_ctype t, void *in, void *out, bool inverse) {
  emu_plan *p = plan;
  if (p->l.type != type || p->l.t != t) return gm_fail(GM_EINVAL, "cufftExec: plan type mismatch (CUFFT_INVALID_TYPE)");
  fft_task *k = malloc(sizeof *k);
  if (!k) return gm_fail(GM_ENOMEM, "out of host memory");
  *k = (fft_task){p->l, in, out, inverse || type == GM_FFT_C2R};
  gm_emu_enqueue(ctx, run_fft, k);
  return GM_OK;
}

static void emu_destroy(void *ctx, void *plan) {
  (void)ctx;
  free(plan);
}

static gm_status emu_scratch_alloc(void *ctx, size_t bytes, void **out) {
  if (gm_emu_scratch_alloc(ctx, bytes, out) != 0) {
    gm_device *d = ctx;
    if (d->ops->clear_error) d->ops->clear_error(d); /* handled: no stale error (kernels.c) */
    return gm_fail(GM_ECUDA_OOM, "emulated fft: out of device memory for scratch space");
  }
  return GM_OK;
}

static void emu_scratch_free(void *ctx, void *p) { gm_emu_scratch_free(ctx, p); }

static const gm_cufft_ops emu_cufft = {
    .plan_many = emu_plan_many,
    .exec = emu_exec,
    .destroy = emu_destroy,
    .scratch_alloc = emu_scratch_alloc,
    .scratch_free = emu_scratch_free,
};

static gm_status emu_fft_exec(void *ctx, const gm_fft_layout *l, const void *in, void *out, bool inverse) {
  return gm_device_fft_exec(&emu_cufft, ctx, l, in, out, inverse);
}

const gm_fft_ops gm_emulated_fft_ops = {.exec = emu_fft_exec};
