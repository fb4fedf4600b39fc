/* The host caching allocator: size classes, exact bins below 4 MiB, a
 * best-fit list above, trimming.  See hostpool.h for the policy. */
#include "hostpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../model/counters.h"

/* Cached blocks are linked through their own first bytes: caching needs
 * no allocation of its own. */
typedef struct gm_hostpool_node {
  struct gm_hostpool_node *next;
  size_t bytes;
} gm_hostpool_node;

/* Under AddressSanitizer a cached block is poisoned (but its link), so a
 * use of a mat's storage after its release is still reported. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* ---- size classes ---- */

static size_t base_of(size_t s) { return (size_t)1 << (63 - __builtin_clzll((unsigned long long)s - 1)); }

size_t gm_hostpool_round(size_t bytes) {
  if (bytes <= 64) return 64;
  if (bytes >= GM_HOSTPOOL_LARGE) {
    if (bytes > SIZE_MAX - GM_HOSTPOOL_HUGE) return SIZE_MAX;
    return (bytes + GM_HOSTPOOL_HUGE - 1) / GM_HOSTPOOL_HUGE * GM_HOSTPOOL_HUGE;
  }
  size_t p = base_of(bytes), step = p / 4; /* bytes in (p, 2p] */
  size_t min_step = p >= GM_HOSTPOOL_PAGE ? GM_HOSTPOOL_PAGE : 64;
  if (step < min_step) step = min_step;
  size_t s = (bytes + step - 1) / step * step;
  return s >= GM_HOSTPOOL_LARGE ? GM_HOSTPOOL_LARGE : s;
}

size_t gm_hostpool_align(size_t size_class) {
  if (size_class >= GM_HOSTPOOL_LARGE) return GM_HOSTPOOL_HUGE;
  return size_class >= GM_HOSTPOOL_PAGE ? GM_HOSTPOOL_PAGE : 64;
}

/* The bin of a class under GM_HOSTPOOL_LARGE: 4 per power of two. */
static size_t bin_of(size_t s) {
  if (s <= 64) return 0;
  size_t p = base_of(s);
  size_t k = (size_t)(63 - __builtin_clzll((unsigned long long)p));
  return (k - 6) * 4 + (s - p) / (p / 4) - 1;
}

/* ---- fault injection ---- */

static unsigned long env_count(const char *name, unsigned long dflt) {
  const char *v = getenv(name);
  if (!v || !*v) return dflt;
  char *end;
  unsigned long n = strtoul(v, &end, 10);
  return *end ? dflt : n;
}

/* Under the lock: whether this request is an injected failure. */
static bool injected(gm_hostpool *p) {
  if (!p->fail_every || p->n_faults >= p->fail_max) return false;
  if (++p->n_requests % p->fail_every) return false;
  p->n_faults++;
  return true;
}

void gm_hostpool_init(gm_hostpool *p, const char *what, gm_status (*raw_alloc)(void *, size_t, void **),
                      void (*raw_free)(void *, void *, size_t), void *arg) {
  *p = (gm_hostpool){.raw_alloc = raw_alloc, .raw_free = raw_free, .arg = arg, .what = what};
  gm_lock_init(&p->lock);
  p->fail_every = env_count("GPUMAT_HOST_FAIL_EVERY", 0);
  p->fail_max = env_count("GPUMAT_HOST_FAIL_MAX", (unsigned long)-1);
}

/* ---- the cache (all under the lock) ---- */

static void *pop(gm_hostpool *p, gm_hostpool_node **link) {
  gm_hostpool_node *f = *link;
  *link = f->next;
  p->cached -= f->bytes;
  p->n_cached--;
  return f;
}

/* A cached block of class size: the bin's most recent, or the smallest
 * large block of at least size and at most 1.5 times it. */
static void *take(gm_hostpool *p, size_t size, size_t *got) {
  gm_hostpool_node **link;
  if (size < GM_HOSTPOOL_LARGE) {
    link = &p->bins[bin_of(size)];
    if (!*link) return NULL;
  } else {
    link = &p->large;
    while (*link && (*link)->bytes < size) link = &(*link)->next;
    if (!*link || (*link)->bytes - size > size / 2) return NULL;
  }
  *got = (*link)->bytes;
  void *b = pop(p, link);
  UNPOISON(b, *got);
  return b;
}

static void insert(gm_hostpool *p, void *ptr, size_t size) {
  gm_hostpool_node *f = ptr, **link;
  if (size < GM_HOSTPOOL_LARGE) {
    link = &p->bins[bin_of(size)];
  } else {
    link = &p->large;
    while (*link && (*link)->bytes < size) link = &(*link)->next;
  }
  f->bytes = size;
  f->next = *link;
  *link = f;
  POISON((char *)ptr + sizeof *f, size - sizeof *f);
  p->cached += size;
  p->n_cached++;
}

/* The link of the largest cached block, or NULL when none is cached. */
static gm_hostpool_node **largest(gm_hostpool *p) {
  if (p->large) {
    gm_hostpool_node **link = &p->large;
    while ((*link)->next) link = &(*link)->next;
    return link;
  }
  for (size_t i = GM_HOSTPOOL_N_BINS; i-- > 0;)
    if (p->bins[i]) return &p->bins[i];
  return NULL;
}

static void release_to(gm_hostpool *p, size_t keep) {
  gm_hostpool_node **link;
  while (p->cached > keep && (link = largest(p)) != NULL) {
    size_t n = (*link)->bytes;
    void *b = pop(p, link);
    UNPOISON(b, n);
    p->raw_free(p->arg, b, n);
    p->n_trimmed++;
  }
}

/* ---- the interface ---- */

/* Under the lock: a block of class size (*got: its real size). */
static gm_status fresh(gm_hostpool *p, size_t size, void **out, size_t *got) {
  if (injected(p)) {
    release_to(p, 0); /* as a real failure would: trimming while blocks are in use */
    return gm_fail(GM_ENOMEM, "out of %s memory (%zu bytes, injected fault)", p->what, size);
  }
  void *b = take(p, size, got);
  if (b) {
    p->hits++;
    *out = b;
    return GM_OK;
  }
  *got = size;
  p->misses++;
  if (p->raw_alloc(p->arg, size, out) == GM_OK) return GM_OK;
  release_to(p, 0); /* memory pressure: give the cache back, then retry */
  if (p->raw_alloc(p->arg, size, out) == GM_OK) return GM_OK;
  return gm_fail(GM_ENOMEM, "out of %s memory (%zu bytes)", p->what, size);
}

gm_status gm_hostpool_alloc(gm_hostpool *p, size_t bytes, void **out, size_t *size) {
  size_t s = gm_hostpool_round(bytes);
  if (s == SIZE_MAX || s > SIZE_MAX / 2) return gm_fail(GM_ENOMEM, "out of %s memory (%zu bytes)", p->what, bytes);
  gm_lock_acquire(&p->lock);
  void *b = NULL;
  size_t got = s;
  gm_status st = fresh(p, s, &b, &got);
  if (st == GM_OK) {
    p->in_use += got;
    p->n_in_use++;
  }
  gm_lock_release(&p->lock);
  if (st != GM_OK) return st;
  atomic_fetch_add(&gm_counter.n_bytes_allocated, (long)got);
  *out = b;
  *size = got;
  return GM_OK;
}

bool gm_hostpool_take(gm_hostpool *p, size_t bytes, void **out, size_t *size) {
  size_t s = gm_hostpool_round(bytes);
  if (s == SIZE_MAX) return false;
  gm_lock_acquire(&p->lock);
  size_t got = s;
  void *b = take(p, s, &got);
  if (b) {
    p->hits++;
    p->in_use += got;
    p->n_in_use++;
  }
  gm_lock_release(&p->lock);
  if (!b) return false;
  atomic_fetch_add(&gm_counter.n_bytes_allocated, (long)got);
  *out = b;
  *size = got;
  return true;
}

void gm_hostpool_free(gm_hostpool *p, void *ptr, size_t size) {
  if (!ptr) return;
  size_t limit = gm_host_pool_limit();
  gm_lock_acquire(&p->lock);
  p->in_use -= size;
  p->n_in_use--;
  if (size > limit) {
    p->raw_free(p->arg, ptr, size);
    p->n_trimmed++;
  } else {
    release_to(p, limit - size);
    insert(p, ptr, size);
  }
  gm_lock_release(&p->lock);
}

void gm_hostpool_trim_to(gm_hostpool *p, size_t keep) {
  gm_lock_acquire(&p->lock);
  release_to(p, keep);
  gm_lock_release(&p->lock);
}

void gm_hostpool_trim(gm_hostpool *p) { gm_hostpool_trim_to(p, 0); }

gm_hostpool_stats gm_hostpool_get_stats(gm_hostpool *p) {
  gm_lock_acquire(&p->lock);
  gm_hostpool_stats s = {p->in_use, p->n_in_use, p->cached, p->n_cached, p->hits, p->misses, p->n_trimmed};
  gm_lock_release(&p->lock);
  return s;
}

void gm_hostpool_destroy(gm_hostpool *p) {
  gm_hostpool_trim(p);
  gm_lock_destroy(&p->lock);
}

/* ---- the process-wide host pool ---- */

/* Fresh memory for blocks under GM_HOSTPOOL_LARGE is carved from slabs of
 * SLAB bytes, SLAB-aligned and advised to use transparent huge pages.
 * Why: the first touch of a fresh 4 KiB page is a fault, and a loop of
 * temporaries touches a pool's worth of fresh pages before its blocks are
 * reused (the collector finds them about every 8 MiB).  On the 2-core VM
 * a 4 KiB fault cost 19 us and a 2 MiB huge page 0.4 us per 4 KiB; the
 * logistic-regression program faulted 2242 pages in its 300 steps (numpy:
 * 126) and spent a third of its time there (bench/RESULTS.md, branch
 * programs).  Blocks from glibc's malloc take 4 KiB pages.
 *
 * A slab's first 64 bytes count its blocks not given back (in use or
 * cached in the pool); blocks are bumped from the current slab, whose
 * tail is left when the next block does not fit (at most a quarter of a
 * slab: blocks are under 4 MiB); a slab is unmapped when its last block is
 * given back (a trim), and a trimmed block of whole pages gives its pages
 * back, so trimming lowers the resident size as free() did.  Under
 * AddressSanitizer blocks come from aligned_alloc, whose redzones catch
 * overflows between blocks.  Called with the pool's lock held (raw_alloc,
 * raw_free): no lock of its own. */
#define SLAB ((size_t)16 << 20)

typedef struct slab_head {
  size_t live; /* blocks carved and not given back */
} slab_head;

static char *slab_cur, *slab_end; /* the current slab's free tail */
static slab_head *slab_now;       /* the current slab, or NULL */

static slab_head *slab_new(void) {
  char *m = mmap(NULL, 2 * SLAB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  char *a = (char *)(((uintptr_t)m + SLAB - 1) & ~(uintptr_t)(SLAB - 1));
  if (a > m) munmap(m, (size_t)(a - m));
  if (a + SLAB < m + 2 * SLAB) munmap(a + SLAB, (size_t)(m + 2 * SLAB - (a + SLAB)));
  (void)madvise(a, SLAB, MADV_HUGEPAGE); /* advice only */
  slab_head *h = (slab_head *)a;
  h->live = 0;
  return h;
}

static gm_status slab_alloc(size_t size, void **out) {
  uintptr_t align = gm_hostpool_align(size), b = 0;
  if (slab_now) b = ((uintptr_t)slab_cur + align - 1) & ~(align - 1);
  if (!slab_now || b > (uintptr_t)slab_end || (uintptr_t)slab_end - b < size) {
    slab_head *h = slab_new();
    if (!h) return GM_ENOMEM;
    slab_now = h;
    slab_end = (char *)h + SLAB;
    b = (uintptr_t)h + align; /* past the head, aligned */
  }
  slab_cur = (char *)(b + size);
  slab_now->live++;
  *out = (void *)b;
  return GM_OK;
}

/* A trimmed block: its slab is unmapped with its last block; else a
 * block of whole pages gives its pages back (MADV_DONTNEED), so a trim
 * (gm.collect()) lowers the resident size as free() did. */
static void slab_free(void *ptr, size_t size) {
  slab_head *h = (slab_head *)((uintptr_t)ptr & ~(uintptr_t)(SLAB - 1));
  if (--h->live == 0) {
    if (h == slab_now) slab_now = NULL;
    munmap(h, SLAB);
    return;
  }
  if (size >= GM_HOSTPOOL_PAGE) (void)madvise(ptr, size, MADV_DONTNEED);
}

#if defined(__SANITIZE_ADDRESS__)
#define USE_SLABS 0
#else
#define USE_SLABS 1
#endif

/* Large blocks use transparent huge pages, as numpy's do: a pass over
 * hundreds of MiB with 4 KiB pages spends a measurable share of its time
 * on TLB misses (about 10% for mul_ on 16M elements here). */
static gm_status system_alloc(void *arg, size_t size, void **out) {
  (void)arg;
  if (USE_SLABS && size < GM_HOSTPOOL_LARGE) return slab_alloc(size, out);
  void *b = aligned_alloc(gm_hostpool_align(size), size);
  if (!b) return GM_ENOMEM;
  if (size >= GM_HOSTPOOL_LARGE) (void)madvise(b, size, MADV_HUGEPAGE); /* advice only */
  *out = b;
  return GM_OK;
}

static void system_free(void *arg, void *ptr, size_t size) {
  (void)arg;
  if (USE_SLABS && size < GM_HOSTPOOL_LARGE) {
    slab_free(ptr, size);
    return;
  }
  free(ptr);
}

static gm_hostpool host_pool;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;
static atomic_size_t pool_limit;

static void host_pool_init(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t phys = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
  size_t lim = phys / 16, lo = (size_t)64 << 20, hi = (size_t)2 << 30;
  atomic_store(&pool_limit, lim < lo ? lo : lim > hi ? hi : lim);
  gm_hostpool_init(&host_pool, "host", system_alloc, system_free, NULL);
}

gm_hostpool *gm_host_pool(void) {
  pthread_once(&host_once, host_pool_init);
  return &host_pool;
}

gm_status gm_host_scratch(size_t bytes, void **out, size_t *size) {
  return gm_hostpool_alloc(gm_host_pool(), bytes, out, size);
}

void gm_host_scratch_free(void *ptr, size_t size) { gm_hostpool_free(gm_host_pool(), ptr, size); }

size_t gm_host_pool_limit(void) {
  pthread_once(&host_once, host_pool_init);
  return atomic_load(&pool_limit);
}

void gm_host_pool_set_limit(size_t bytes) {
  gm_hostpool *p = gm_host_pool();
  atomic_store(&pool_limit, bytes);
  gm_hostpool_trim_to(p, bytes);
}
