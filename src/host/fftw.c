/* The host's FFT on FFTW 3 instead of KISS FFT: built only with the CMake
 * option GPUMAT_FFTW (off by default: FFTW is GPL, and a build linking it
 * is then covered by the GPL; gpumat itself is MIT).  The same layout as
 * every backend (core/ops/fft_ops.h) maps one to one onto
 * fftw_plan_many_dft / _r2c / _c2r (rank 1, howmany = batch, the strides
 * and distances), executed once per loop with the new-array functions on
 * the caller's pointers.  Plans are made with FFTW_ESTIMATE (the planner
 * does not touch the arrays) | FFTW_UNALIGNED (any pointer may run them),
 * C2R with FFTW_PRESERVE_INPUT (the input is the caller's x), and cached;
 * FFTW's planner is not thread-safe, so planning and the cache are under
 * one lock, while executions (thread-safe in FFTW) run outside it. */
#include <fftw3.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "fft.h"

#define FFTW_CACHE 16

typedef struct fftw_entry {
  gm_fft_layout key; /* loops zeroed */
  bool inverse;
  void *plan; /* fftw_plan or fftwf_plan */
} fftw_entry;

static fftw_entry cache[FFTW_CACHE];
static int cached;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void destroy(const fftw_entry *e) {
  if (e->key.t == GM_COMPLEX128) fftw_destroy_plan(e->plan);
  else fftwf_destroy_plan(e->plan);
}

/* the plan of key for these arrays (under lock) */
static void *make_plan(const gm_fft_layout *l, void *in, void *out, bool inverse) {
  int n = (int)l->n, h = n / 2 + 1, b = (int)l->batch, is = (int)l->istride, id = (int)l->idist;
  int os = (int)l->ostride, od = (int)l->odist, sign = inverse ? FFTW_BACKWARD : FFTW_FORWARD;
  unsigned f = FFTW_ESTIMATE | FFTW_UNALIGNED;
  int ni = l->type == GM_FFT_C2R ? h : n, no = l->type == GM_FFT_R2C ? h : n;
  if (l->t == GM_COMPLEX128) {
    if (l->type == GM_FFT_R2C) return fftw_plan_many_dft_r2c(1, &n, b, in, &ni, is, id, out, &no, os, od, f);
    if (l->type == GM_FFT_C2R)
      return fftw_plan_many_dft_c2r(1, &n, b, in, &ni, is, id, out, &no, os, od, f | FFTW_PRESERVE_INPUT);
    return fftw_plan_many_dft(1, &n, b, in, &ni, is, id, out, &no, os, od, sign, f);
  }
  if (l->type == GM_FFT_R2C) return fftwf_plan_many_dft_r2c(1, &n, b, in, &ni, is, id, out, &no, os, od, f);
  if (l->type == GM_FFT_C2R)
    return fftwf_plan_many_dft_c2r(1, &n, b, in, &ni, is, id, out, &no, os, od, f | FFTW_PRESERVE_INPUT);
  return fftwf_plan_many_dft(1, &n, b, in, &ni, is, id, out, &no, os, od, sign, f);
}

static void *plan_for(const gm_fft_layout *l, void *in, void *out, bool inverse) {
  gm_fft_layout k;
  memset(&k, 0, sizeof k); /* compared with memcmp: no padding garbage */
  k.type = l->type, k.t = l->t, k.n = l->n, k.batch = l->batch;
  k.istride = l->istride, k.idist = l->idist, k.ostride = l->ostride, k.odist = l->odist;
  pthread_mutex_lock(&lock);
  void *p = NULL;
  for (int i = 0; i < cached && !p; i++)
    if (cache[i].inverse == inverse && !memcmp(&cache[i].key, &k, sizeof k)) p = cache[i].plan;
  if (!p && (p = make_plan(l, in, out, inverse)) != NULL) {
    if (cached == FFTW_CACHE) {
      destroy(&cache[0]);
      memmove(cache, cache + 1, (size_t)(FFTW_CACHE - 1) * sizeof *cache);
      cached--;
    }
    cache[cached++] = (fftw_entry){k, inverse, p};
  }
  pthread_mutex_unlock(&lock);
  return p;
}

/* FFTW's layout arguments are int */
bool gm_host_fftw_fits(const gm_fft_layout *l) {
  size_t v[] = {l->n, l->batch, l->istride, l->idist, l->ostride, l->odist};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++)
    if (v[i] > INT_MAX) return false;
  return true;
}

static void execute(const gm_fft_layout *l, void *p, char *in, char *out) {
  if (l->t == GM_COMPLEX128) {
    if (l->type == GM_FFT_R2C) fftw_execute_dft_r2c(p, (double *)(void *)in, (fftw_complex *)(void *)out);
    else if (l->type == GM_FFT_C2R) fftw_execute_dft_c2r(p, (fftw_complex *)(void *)in, (double *)(void *)out);
    else fftw_execute_dft(p, (fftw_complex *)(void *)in, (fftw_complex *)(void *)out);
  } else {
    if (l->type == GM_FFT_R2C) fftwf_execute_dft_r2c(p, (float *)(void *)in, (fftwf_complex *)(void *)out);
    else if (l->type == GM_FFT_C2R) fftwf_execute_dft_c2r(p, (fftwf_complex *)(void *)in, (float *)(void *)out);
    else fftwf_execute_dft(p, (fftwf_complex *)(void *)in, (fftwf_complex *)(void *)out);
  }
}

gm_status gm_host_fftw_exec(const gm_fft_layout *l, const void *in, void *out, bool inverse) {
  void *p = plan_for(l, (void *)in, out, inverse);
  if (!p) return gm_fail(GM_EINVAL, "fft: FFTW made no plan for a transform of length %zu", l->n);
  size_t csize = gm_ctype_size(l->t), rsize = csize / 2;
  size_t isize = l->type == GM_FFT_R2C ? rsize : csize, osize = l->type == GM_FFT_C2R ? rsize : csize;
  for (size_t i = 0; i < l->loops; i++)
    execute(l, p, (char *)in + i * l->iloop * isize, (char *)out + i * l->oloop * osize);
  return GM_OK;
}
