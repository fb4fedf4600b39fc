/* Conversion in blocks through a small buffer: each source type loads a
 * block into doubles (float sources) or 64-bit integers (bool and integer
 * sources, unsigned ones keeping their bits), and each destination type
 * stores from it.  Two loops per type instead of one per pair of types
 * (the X-macro list cannot nest in itself), each a plain loop the
 * compiler vectorizes, over a block that stays in L1. */
#include "convert.h"

#include "../../../kernels/int_ops.h"
#include "../exec/par.h"

enum { BLOCK = 2048 };

typedef union block {
  double d[BLOCK];
  long long i[BLOCK];
} block;

/* load_E: src[off..off+len) into b; returns true for doubles */
#define LOAD_(T, E, name, kw, blas, cublas, etype, S, npy, p, digits, mpi, nccl, kind, ...) \
  static bool load_##E(block *b, const void *src, size_t off, size_t len) {              \
    const T *s = (const T *)src + off;                                                   \
    if (kind == GM_KIND_FLOAT) {                                                         \
      for (size_t k = 0; k < len; k++) b->d[k] = (double)s[k];                           \
      return true;                                                                       \
    }                                                                                    \
    if (kind == GM_KIND_BOOL) { /* bytes other than 0 and 1 (from buffers) are true */ \
      const unsigned char *u = (const unsigned char *)src + off;                         \
      for (size_t k = 0; k < len; k++) b->i[k] = u[k] != 0;                              \
      return false;                                                                      \
    }                                                                                    \
    for (size_t k = 0; k < len; k++) b->i[k] = (long long)(unsigned long long)s[k];      \
    return false;                                                                        \
  }
/* store_E: b into dst[off..off+len); uns: the integers are unsigned */
#define STORE_(T, E, ...)                                                                        \
  static void store_##E(void *dst, size_t off, size_t len, const block *b, bool dbl, bool uns) { \
    T *d = (T *)dst + off;                                                                       \
    if (dbl) {                                                                                   \
      for (size_t k = 0; k < len; k++) d[k] = gm_sat_##T(b->d[k]);                               \
    } else if (uns) {                                                                            \
      for (size_t k = 0; k < len; k++) d[k] = (T)(unsigned long long)b->i[k];                    \
    } else {                                                                                     \
      for (size_t k = 0; k < len; k++) d[k] = (T)b->i[k];                                        \
    }                                                                                            \
  }
GM_CTYPES(LOAD_)
GM_CTYPES(STORE_)
#undef LOAD_
#undef STORE_

#define ENTRY_(NAME, T, E, ...) [GM_##E] = NAME##_##E,
static bool (*const load[GM_N_CTYPES])(block *, const void *, size_t, size_t) = {GM_CTYPES_WITH(ENTRY_, load)};
static void (*const store[GM_N_CTYPES])(void *, size_t, size_t, const block *, bool, bool) = {
    GM_CTYPES_WITH(ENTRY_, store)};
#undef ENTRY_

typedef struct convert_job {
  gm_ctype dt, st;
  void *dst;
  const void *src;
} convert_job;

static void convert_range(void *arg, size_t begin, size_t end) {
  const convert_job *j = arg;
  block b;
  bool uns = gm_ctype_kind(j->st) == GM_KIND_UINT;
  for (size_t off = begin; off < end; off += BLOCK) {
    size_t len = end - off < BLOCK ? end - off : BLOCK;
    bool dbl = load[j->st](&b, j->src, off, len);
    store[j->dt](j->dst, off, len, &b, dbl, uns);
  }
}

void gm_convert(gm_ctype dt, void *dst, gm_ctype st, const void *src, size_t n) {
  if ((unsigned)dt >= GM_N_CTYPES || (unsigned)st >= GM_N_CTYPES) return;
  convert_job j = {dt, st, dst, src};
  gm_par_for(n, BLOCK, 2.0, convert_range, &j);
}
