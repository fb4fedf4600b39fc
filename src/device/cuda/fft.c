/* cuFFT for gm.fft on the CUDA device: the shared driver (../fft.c) on
 * cufftPlanMany (advanced layout, one dimension; cufftCreate and
 * cufftMakePlanMany64 when a size or extent passes 2^31-1 elements),
 * cufftSetStream to the
 * compute stream and cufftExec{C2C,Z2Z,R2C,D2Z,C2R,Z2D}, with the
 * backend's stream-ordered scratch for the C2R input copy. */
#include <cufft.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../core/mem/backends.h"
#include "../fft.h"
#include "impl.h"

static gm_status cufft_status(cufftResult r, const char *fn) {
  if (r == CUFFT_SUCCESS) return GM_OK;
  (void)cudaGetLastError(); /* handled: no stale error for the next launch */
  gm_set_lib_error_info(fn, (int)r);
  if (r == CUFFT_ALLOC_FAILED) return gm_fail(GM_ECUDA_OOM, "%s: out of device memory (cufft status %d)", fn, (int)r);
  return gm_fail(GM_ECUDA, "%s failed (cufft status %d)", fn, (int)r);
}

static cufftType type_of(gm_fft_type type, gm_ctype t) {
  bool dbl = t == GM_COMPLEX128;
  if (type == GM_FFT_R2C) return dbl ? CUFFT_D2Z : CUFFT_R2C;
  if (type == GM_FFT_C2R) return dbl ? CUFFT_Z2D : CUFFT_C2R;
  return dbl ? CUFFT_Z2Z : CUFFT_C2C;
}

/* whether every size of l fits cufftPlanMany's int arguments (the input
 * and output extents too: cuFFT indexes them in int) */
static bool fits_int(const gm_fft_layout *l) {
  size_t nin = l->type == GM_FFT_C2R ? l->n / 2 + 1 : l->n, nout = l->type == GM_FFT_R2C ? l->n / 2 + 1 : l->n;
  size_t v[] = {l->n, l->batch, l->istride, l->idist, l->ostride, l->odist,
                (l->batch - 1) * l->idist + (nin - 1) * l->istride + 1,
                (l->batch - 1) * l->odist + (nout - 1) * l->ostride + 1};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++)
    if (v[i] > INT_MAX) return false;
  return true;
}

/* cufftCreate and cufftMakePlanMany64 (the same layout in long long, for
 * sizes and extents beyond 2^31-1 elements; cuFFT still picks 32-bit
 * kernels where it can) */
static cufftResult plan_many64(cufftHandle *h, const gm_fft_layout *l) {
  long long n = (long long)l->n, nin = l->type == GM_FFT_C2R ? n / 2 + 1 : n;
  long long nout = l->type == GM_FFT_R2C ? n / 2 + 1 : n, inembed[1] = {nin}, onembed[1] = {nout};
  size_t work = 0;
  cufftResult r = gm_cufft.cufftCreate(h);
  if (r != CUFFT_SUCCESS) return r;
  r = gm_cufft.cufftMakePlanMany64(*h, 1, &n, inembed, (long long)l->istride, (long long)l->idist, onembed,
                                   (long long)l->ostride, (long long)l->odist, type_of(l->type, l->t),
                                   (long long)l->batch, &work);
  if (r != CUFFT_SUCCESS) (void)gm_cufft.cufftDestroy(*h);
  return r;
}

/* the plan is made on the device's own GPU (plans belong to the device
 * current at creation) and keeps its stream */
static gm_status cu_plan_many(void *ctx, const gm_fft_layout *l, void **plan) {
  gm_device *d = ctx;
  size_t v[] = {l->n, l->batch, l->istride, l->idist, l->ostride, l->odist};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++)
    if (v[i] > (size_t)LLONG_MAX) return gm_fail(GM_ERANGE, "fft: a size of %zu is beyond cuFFT's layout", v[i]);
  bool small = fits_int(l);
  int n = small ? (int)l->n : 0, nin = l->type == GM_FFT_C2R ? n / 2 + 1 : n;
  int nout = l->type == GM_FFT_R2C ? n / 2 + 1 : n, inembed[1] = {nin}, onembed[1] = {nout}, prev;
  GM_TRY(gm_cufft_load()); /* cuFFT is opened at the first plan (libs.h) */
  cufftHandle *h = malloc(sizeof *h);
  if (!h) return gm_fail(GM_ENOMEM, "out of host memory");
  cudaError_t e = gm_cuda_use(d, &prev);
  if (e != cudaSuccess) {
    free(h);
    return gm_fail(GM_ECUDA, "cudaSetDevice: %s", cudaGetErrorString(e));
  }
  gm_status st =
      small ? cufft_status(gm_cufft.cufftPlanMany(h, 1, &n, inembed, (int)l->istride, (int)l->idist, onembed,
                                                  (int)l->ostride, (int)l->odist, type_of(l->type, l->t), (int)l->batch),
                           "cufftPlanMany")
            : cufft_status(plan_many64(h, l), "cufftMakePlanMany64");
  if (st == GM_OK) {
    st = cufft_status(gm_cufft.cufftSetStream(*h, gm_cuda_impl(ctx)->stream), "cufftSetStream");
    if (st != GM_OK) (void)gm_cufft.cufftDestroy(*h);
  }
  gm_cuda_unuse(d, prev);
  if (st != GM_OK) free(h);
  else *plan = h;
  return st;
}

static gm_status cu_exec(void *ctx, void *plan, gm_fft_type type, gm_ctype t, void *in, void *out, bool inverse) {
  (void)ctx;
  cufftHandle h = *(cufftHandle *)plan;
  int dir = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  bool dbl = t == GM_COMPLEX128;
  switch (type) {
  case GM_FFT_R2C:
    return dbl ? cufft_status(gm_cufft.cufftExecD2Z(h, in, out), "cufftExecD2Z")
               : cufft_status(gm_cufft.cufftExecR2C(h, in, out), "cufftExecR2C");
  case GM_FFT_C2R:
    return dbl ? cufft_status(gm_cufft.cufftExecZ2D(h, in, out), "cufftExecZ2D")
               : cufft_status(gm_cufft.cufftExecC2R(h, in, out), "cufftExecC2R");
  default:
    return dbl ? cufft_status(gm_cufft.cufftExecZ2Z(h, in, out, dir), "cufftExecZ2Z")
               : cufft_status(gm_cufft.cufftExecC2C(h, in, out, dir), "cufftExecC2C");
  }
}

static void cu_destroy(void *ctx, void *plan) {
  (void)ctx;
  (void)gm_cufft.cufftDestroy(*(cufftHandle *)plan);
  free(plan);
}

static gm_status cu_scratch_alloc(void *ctx, size_t bytes, void **out) { return gm_cuda_scratch_alloc_on(ctx, bytes, out); }

static void cu_scratch_free(void *ctx, void *p) { gm_cuda_scratch_free_on(ctx, p); }

static const gm_cufft_ops cu_fft = {
    .plan_many = cu_plan_many,
    .exec = cu_exec,
    .destroy = cu_destroy,
    .scratch_alloc = cu_scratch_alloc,
    .scratch_free = cu_scratch_free,
};

static gm_status cu_fft_exec(void *ctx, const gm_fft_layout *l, const void *in, void *out, bool inverse) {
  return gm_device_fft_exec(&cu_fft, ctx, l, in, out, inverse);
}

const gm_fft_ops gm_cuda_fft_ops = {.exec = cu_fft_exec};
