/* The device FFT driver on cuFFT-shaped entries; see fft.h. */
#include "fft.h"

#include <pthread.h>
#include <string.h>

#include "../core/mem/runtime.h"

/* Plans cached per (device, layout without its loops): cuFFT's plan
 * creation allocates and chooses kernels (milliseconds), which repeated
 * transforms of one shape must not pay again.  Most recently used last;
 * a miss evicts the first.  The lock is held from the lookup through the
 * executions, so one plan never runs for two threads at once (a plan's
 * stream and work area are its own). */
#define PLAN_CACHE 16

typedef struct plan_entry {
  const gm_cufft_ops *s;
  void *ctx;
  gm_fft_layout key;
  void *plan;
} plan_entry;

static plan_entry cache[PLAN_CACHE];
static int cached;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static gm_fft_layout key_of(const gm_fft_layout *l) {
  gm_fft_layout k;
  memset(&k, 0, sizeof k); /* compared with memcmp: no padding garbage */
  k.type = l->type, k.t = l->t, k.n = l->n, k.batch = l->batch;
  k.istride = l->istride, k.idist = l->idist, k.ostride = l->ostride, k.odist = l->odist;
  return k;
}

static void touch(int i) {
  plan_entry e = cache[i];
  memmove(cache + i, cache + i + 1, (size_t)(cached - i - 1) * sizeof *cache);
  cache[cached - 1] = e;
}

/* under cache_lock */
static gm_status plan_for(const gm_cufft_ops *s, void *ctx, const gm_fft_layout *l, void **plan) {
  gm_fft_layout k = key_of(l);
  for (int i = 0; i < cached; i++)
    if (cache[i].s == s && cache[i].ctx == ctx && !memcmp(&cache[i].key, &k, sizeof k)) {
      touch(i);
      *plan = cache[cached - 1].plan;
      return GM_OK;
    }
  GM_TRY(s->plan_many(ctx, l, plan));
  if (cached == PLAN_CACHE) {
    cache[0].s->destroy(cache[0].ctx, cache[0].plan);
    memmove(cache, cache + 1, (size_t)(PLAN_CACHE - 1) * sizeof *cache);
    cached--;
  }
  cache[cached++] = (plan_entry){s, ctx, k, *plan};
  return GM_OK;
}

/* elements of the input a layout spans */
static size_t input_extent(const gm_fft_layout *l) {
  size_t nin = l->type == GM_FFT_C2R ? l->n / 2 + 1 : l->n;
  return (l->loops - 1) * l->iloop + (l->batch - 1) * l->idist + (nin - 1) * l->istride + 1;
}

static gm_status run_loops(const gm_cufft_ops *s, void *ctx, void *plan, const gm_fft_layout *l, char *in, char *out,
                           bool inverse) {
  size_t csize = gm_ctype_size(l->t), rsize = csize / 2;
  size_t isize = l->type == GM_FFT_R2C ? rsize : csize, osize = l->type == GM_FFT_C2R ? rsize : csize;
  for (size_t i = 0; i < l->loops; i++)
    GM_TRY(s->exec(ctx, plan, l->type, l->t, in + i * l->iloop * isize, out + i * l->oloop * osize, inverse));
  return GM_OK;
}

/* C2R overwrites its input: it runs on a stream-ordered copy */
static gm_status copy_input(const gm_cufft_ops *s, void *ctx, const gm_fft_layout *l, const void *in, void **copy) {
  const gm_backend *k = ((const gm_device *)ctx)->ops->kernels;
  size_t n = input_extent(l);
  GM_TRY(s->scratch_alloc(ctx, n * gm_ctype_size(l->t), copy));
  gm_status st = k->convert(ctx, l->t, *copy, l->t, in, n);
  if (st != GM_OK) s->scratch_free(ctx, *copy);
  return st;
}

gm_status gm_device_fft_exec(const gm_cufft_ops *s, void *ctx, const gm_fft_layout *l, const void *in, void *out,
                             bool inverse) {
  void *src = (void *)in, *copy = NULL;
  if (l->type == GM_FFT_C2R) {
    GM_TRY(copy_input(s, ctx, l, in, &copy));
    src = copy;
  }
  pthread_mutex_lock(&cache_lock);
  void *plan = NULL;
  gm_status st = plan_for(s, ctx, l, &plan);
  if (st == GM_OK) st = run_loops(s, ctx, plan, l, src, out, inverse);
  pthread_mutex_unlock(&cache_lock);
  if (copy) s->scratch_free(ctx, copy);
  return st;
}
