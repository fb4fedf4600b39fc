/* First version of the device pool: exact-size blocks, reuse of a cached
 * block of the same size, real frees on trim. */
#include "pool.h"

#include <stdlib.h>

#include "runtime.h"

typedef struct gm_pool_block {
  void *ptr;
  size_t bytes;
  bool in_use;
  struct gm_pool_block *next;
} gm_pool_block;

void gm_pool_init(gm_pool *p) {
  pthread_mutex_init(&p->lock, NULL);
  p->limit = p->reserved = p->in_use = p->n_in_use = 0;
  p->blocks = NULL;
}

static gm_status fail_oom(gm_pool *p, size_t bytes, const char *why) {
  gm_oom_info info = {bytes, p->limit, p->reserved, p->in_use};
  gm_set_oom_info(&info);
  return gm_fail(GM_ECUDA_OOM, "cuda out of memory: %s (requested %zu bytes, limit %zu, reserved %zu, in use %zu)",
                 why, bytes, p->limit, p->reserved, p->in_use);
}

gm_status gm_pool_alloc(gm_pool *p, struct gm_device *d, size_t bytes, void **out) {
  pthread_mutex_lock(&p->lock);
  gm_status st = GM_OK;
  gm_pool_block *b;
  for (b = p->blocks; b; b = b->next)
    if (!b->in_use && b->bytes == bytes) break;
  if (!b) {
    if (p->limit && p->reserved + bytes > p->limit) {
      st = fail_oom(p, bytes, "pool limit reached");
    } else if ((b = calloc(1, sizeof *b)) == NULL) {
      st = gm_fail(GM_ENOMEM, "out of host memory");
    } else if ((st = d->ops->raw_alloc(d, bytes, &b->ptr)) != GM_OK) {
      free(b);
      b = NULL;
      if (st == GM_ECUDA_OOM) st = fail_oom(p, bytes, "device allocation failed");
    } else {
      b->bytes = bytes;
      b->next = p->blocks;
      p->blocks = b;
      p->reserved += bytes;
    }
  }
  if (st == GM_OK) {
    b->in_use = true;
    p->in_use += b->bytes;
    p->n_in_use++;
    *out = b->ptr;
  }
  pthread_mutex_unlock(&p->lock);
  return st;
}

void gm_pool_free(gm_pool *p, struct gm_device *d, void *ptr) {
  (void)d;
  pthread_mutex_lock(&p->lock);
  for (gm_pool_block *b = p->blocks; b; b = b->next)
    if (b->ptr == ptr && b->in_use) {
      b->in_use = false;
      p->in_use -= b->bytes;
      p->n_in_use--;
      break;
    }
  pthread_mutex_unlock(&p->lock);
}

void gm_pool_trim(gm_pool *p, struct gm_device *d) {
  pthread_mutex_lock(&p->lock);
  gm_pool_block **link = &p->blocks;
  while (*link) {
    gm_pool_block *b = *link;
    if (b->in_use) {
      link = &b->next;
      continue;
    }
    *link = b->next;
    d->ops->raw_free(d, b->ptr);
    p->reserved -= b->bytes;
    free(b);
  }
  pthread_mutex_unlock(&p->lock);
}

size_t gm_pool_cached(gm_pool *p) {
  pthread_mutex_lock(&p->lock);
  size_t n = p->reserved - p->in_use;
  pthread_mutex_unlock(&p->lock);
  return n;
}

void gm_pool_destroy(gm_pool *p, struct gm_device *d) {
  gm_pool_trim(p, d);
  pthread_mutex_destroy(&p->lock);
}
