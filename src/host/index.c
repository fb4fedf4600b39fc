/* Host loops of the gather/scatter engine (core/ops/index_ops.h): the
 * per-item functions of kernels/index.h, the ones the device kernels
 * run, split across the cores (gm_par_for).  A scatter's runs write
 * distinct elements, so chunks of runs never write one element twice.
 * Stream compaction: kernels/compact.h's passes, chunks over the cores. */
#include <stdlib.h>
#include <string.h>

#include "../core/ops/index_ops.h"
#include "../core/exec/par.h"

typedef struct index_job {
  gm_ctype t;
  int mode;
  size_t esize;
  const int64_t *off, *dst, *start, *spos;
  const void *x;
  void *y;
} index_job;

/* By element size: typed moves, not a memcpy call per element. */
static void gather_chunk(void *arg, size_t begin, size_t end) {
  const index_job *j = arg;
#define G(U)                                                                       \
  case sizeof(U):                                                                  \
    for (size_t i = begin; i < end; i++) ((U *)j->y)[i] = ((const U *)j->x)[j->off[i]]; \
    return;
  switch (j->esize) {
    /* 16 bytes (complex128): the struct */
    G(uint8_t) G(uint16_t) G(uint32_t) G(uint64_t) G(gm_complex128) default : break;
  }
#undef G
  const char *x = j->x;
  char *y = j->y;
  for (size_t i = begin; i < end; i++) memcpy(y + i * j->esize, x + j->off[i] * (int64_t)j->esize, j->esize);
}

static void scatter_chunk(void *arg, size_t begin, size_t end) {
  const index_job *j = arg;
#define X(T, E, ...)                                                                                 \
  case GM_##E:                                                                                       \
    for (size_t r = begin; r < end; r++)                                                             \
      gm_index_scatter_run_##T(j->mode, r, j->dst, j->start, j->spos, (const T *)j->x, (T *)j->y);   \
    break;
  switch (j->t) {
    GM_REAL_CTYPES(X)
    GM_COMPLEX_CTYPES(X)
    GM_HALF_CTYPES(X)
    default:
      break;
  }
#undef X
}

static gm_status host_gather(void *ctx, gm_ctype t, size_t n, const void *x, const int64_t *off, void *y) {
  (void)ctx;
  index_job j = {.t = t, .esize = gm_ctype_size(t), .off = off, .x = x, .y = y};
  gm_par_for(n, 1, 1.0, gather_chunk, &j);
  return GM_OK;
}

static gm_status host_scatter(void *ctx, gm_ctype t, int mode, size_t runs, const int64_t *dst, const int64_t *start,
                              const int64_t *spos, const void *src, void *y) {
  (void)ctx;
  index_job j = {.t = t, .mode = mode, .dst = dst, .start = start, .spos = spos, .x = src, .y = y};
  gm_par_for(runs, 1, 2.0, scatter_chunk, &j);
  return GM_OK;
}

typedef struct compact_job {
  gm_ctype mt;
  size_t n, chunk, esize;
  const void *m, *x;
  void *y;
  const gm_compact_dims *d;
  int64_t *c, *cnt; /* coordinates; per-chunk counts, then offsets */
} compact_job;

static bool have_avx2(void);
static int64_t count_bool_avx2(const bool *m, size_t a, size_t b);

static void count_chunks(void *arg, size_t begin, size_t end) {
  const compact_job *j = arg;
  if (j->mt == GM_BOOL && have_avx2()) { /* (the generic count of bool widens byte by byte: half the time) */
    for (size_t k = begin; k < end; k++)
      j->cnt[k] = count_bool_avx2((const bool *)j->m, k * j->chunk, gm_scan_chunk_end(k, j->n, j->chunk));
    return;
  }
#define X(T, E, ...)                                                                                          \
  case GM_##E:                                                                                                \
    for (size_t k = begin; k < end; k++)                                                                      \
      j->cnt[k] = gm_compact_count_##E(k * j->chunk, gm_scan_chunk_end(k, j->n, j->chunk), (const T *)j->m); \
    break;
  switch (j->mt) {
    GM_REAL_CTYPES(X)
    default:
      break;
  }
#undef X
}

/* Pass 3 of a bool mask's 4- and 8-byte values with AVX2 where the CPU
 * has it: 32 mask bytes to a bit mask (vpmovmskb), then per 8 elements (4
 * of 8 bytes) the selected ones moved to the front by one permute
 * (vpermd, its lane list from compact_nib) and stored whole, the output
 * position advanced by their count.  A store writes past the selected
 * elements, so the loop stops 32 elements before the chunk's end hi and
 * kernels/compact.h's loop finishes the chunk: the chunk still writes its
 * own range only, the same elements in the same order.  About four times
 * the scalar loop's speed (one store per element, the position a serial
 * dependency). */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* compact_nib[b]: the positions of b's set bits, lowest first, 4 bits each */
static const uint32_t compact_nib[256] = {
    0x0u, 0x0u, 0x1u, 0x10u, 0x2u, 0x20u, 0x21u, 0x210u,
    0x3u, 0x30u, 0x31u, 0x310u, 0x32u, 0x320u, 0x321u, 0x3210u,
    0x4u, 0x40u, 0x41u, 0x410u, 0x42u, 0x420u, 0x421u, 0x4210u,
    0x43u, 0x430u, 0x431u, 0x4310u, 0x432u, 0x4320u, 0x4321u, 0x43210u,
    0x5u, 0x50u, 0x51u, 0x510u, 0x52u, 0x520u, 0x521u, 0x5210u,
    0x53u, 0x530u, 0x531u, 0x5310u, 0x532u, 0x5320u, 0x5321u, 0x53210u,
    0x54u, 0x540u, 0x541u, 0x5410u, 0x542u, 0x5420u, 0x5421u, 0x54210u,
    0x543u, 0x5430u, 0x5431u, 0x54310u, 0x5432u, 0x54320u, 0x54321u, 0x543210u,
    0x6u, 0x60u, 0x61u, 0x610u, 0x62u, 0x620u, 0x621u, 0x6210u,
    0x63u, 0x630u, 0x631u, 0x6310u, 0x632u, 0x6320u, 0x6321u, 0x63210u,
    0x64u, 0x640u, 0x641u, 0x6410u, 0x642u, 0x6420u, 0x6421u, 0x64210u,
    0x643u, 0x6430u, 0x6431u, 0x64310u, 0x6432u, 0x64320u, 0x64321u, 0x643210u,
    0x65u, 0x650u, 0x651u, 0x6510u, 0x652u, 0x6520u, 0x6521u, 0x65210u,
    0x653u, 0x6530u, 0x6531u, 0x65310u, 0x6532u, 0x65320u, 0x65321u, 0x653210u,
    0x654u, 0x6540u, 0x6541u, 0x65410u, 0x6542u, 0x65420u, 0x65421u, 0x654210u,
    0x6543u, 0x65430u, 0x65431u, 0x654310u, 0x65432u, 0x654320u, 0x654321u, 0x6543210u,
    0x7u, 0x70u, 0x71u, 0x710u, 0x72u, 0x720u, 0x721u, 0x7210u,
    0x73u, 0x730u, 0x731u, 0x7310u, 0x732u, 0x7320u, 0x7321u, 0x73210u,
    0x74u, 0x740u, 0x741u, 0x7410u, 0x742u, 0x7420u, 0x7421u, 0x74210u,
    0x743u, 0x7430u, 0x7431u, 0x74310u, 0x7432u, 0x74320u, 0x74321u, 0x743210u,
    0x75u, 0x750u, 0x751u, 0x7510u, 0x752u, 0x7520u, 0x7521u, 0x75210u,
    0x753u, 0x7530u, 0x7531u, 0x75310u, 0x7532u, 0x75320u, 0x75321u, 0x753210u,
    0x754u, 0x7540u, 0x7541u, 0x75410u, 0x7542u, 0x75420u, 0x75421u, 0x754210u,
    0x7543u, 0x75430u, 0x75431u, 0x754310u, 0x75432u, 0x754320u, 0x754321u, 0x7543210u,
    0x76u, 0x760u, 0x761u, 0x7610u, 0x762u, 0x7620u, 0x7621u, 0x76210u,
    0x763u, 0x7630u, 0x7631u, 0x76310u, 0x7632u, 0x76320u, 0x76321u, 0x763210u,
    0x764u, 0x7640u, 0x7641u, 0x76410u, 0x7642u, 0x76420u, 0x76421u, 0x764210u,
    0x7643u, 0x76430u, 0x76431u, 0x764310u, 0x76432u, 0x764320u, 0x764321u, 0x7643210u,
    0x765u, 0x7650u, 0x7651u, 0x76510u, 0x7652u, 0x76520u, 0x76521u, 0x765210u,
    0x7653u, 0x76530u, 0x76531u, 0x765310u, 0x76532u, 0x765320u, 0x765321u, 0x7653210u,
    0x7654u, 0x76540u, 0x76541u, 0x765410u, 0x76542u, 0x765420u, 0x765421u, 0x7654210u,
    0x76543u, 0x765430u, 0x765431u, 0x7654310u, 0x765432u, 0x7654320u, 0x7654321u, 0x76543210u};

__attribute__((target("avx2,popcnt"))) static void compact_avx2(size_t es, size_t *a, size_t b, const bool *m,
                                                                size_t *o, size_t hi, const void *x, void *y) {
  const __m256i zero = _mm256_setzero_si256(), seven = _mm256_set1_epi32(7);
  const __m256i sh32 = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
  const __m256i sh64 = _mm256_setr_epi32(0, 0, 4, 4, 8, 8, 12, 12);
  const __m256i odd = _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1);
  size_t k = *a, p = *o;
  for (; k + 32 <= b && p + 32 <= hi; k += 32) {
    __m256i mm = _mm256_loadu_si256((const __m256i *)(const void *)(m + k));
    uint32_t bits = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(mm, zero));
    if (es == 4) {
      const uint32_t *xs = (const uint32_t *)x + k;
      uint32_t *ys = y;
      for (unsigned g = 0; g < 32; g += 8) {
        uint32_t bb = (bits >> g) & 255u;
        __m256i idx = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)compact_nib[bb]), sh32), seven);
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(xs + g));
        _mm256_storeu_si256((__m256i *)(void *)(ys + p), _mm256_permutevar8x32_epi32(v, idx));
        p += (size_t)__builtin_popcount(bb);
      }
    } else {
      const uint64_t *xs = (const uint64_t *)x + k;
      uint64_t *ys = y;
      for (unsigned g = 0; g < 32; g += 4) {
        uint32_t bb = (bits >> g) & 15u;
        __m256i lane = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)compact_nib[bb]), sh64), seven);
        __m256i idx = _mm256_add_epi32(_mm256_add_epi32(lane, lane), odd);
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(xs + g));
        _mm256_storeu_si256((__m256i *)(void *)(ys + p), _mm256_permutevar8x32_epi32(v, idx));
        p += (size_t)__builtin_popcount(bb);
      }
    }
  }
  *a = k, *o = p;
}
/* The true elements of the bool mask m[a, b) (bytes 0 or 1): vpsadbw
 * sums 32 of them at a time. */
__attribute__((target("avx2"))) static int64_t count_bool_avx2(const bool *m, size_t a, size_t b) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i acc = zero;
  size_t k = a;
  for (; k + 32 <= b; k += 32)
    acc = _mm256_add_epi64(acc, _mm256_sad_epu8(_mm256_loadu_si256((const __m256i *)(const void *)(m + k)), zero));
  uint64_t lanes[4];
  _mm256_storeu_si256((__m256i *)(void *)lanes, acc);
  int64_t n = (int64_t)(lanes[0] + lanes[1] + lanes[2] + lanes[3]);
  for (; k < b; k++) n += m[k];
  return n;
}
/* (libgcc's CPU model, filled once at load) */
static bool have_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"); }
#else
static bool have_avx2(void) { return false; }
static int64_t count_bool_avx2(const bool *m, size_t a, size_t b) { return gm_compact_count_BOOL(a, b, m); }
static void compact_avx2(size_t es, size_t *a, size_t b, const bool *m, size_t *o, size_t hi, const void *x, void *y) {
  (void)es, (void)a, (void)b, (void)m, (void)o, (void)hi, (void)x, (void)y;
}
#endif

/* Pass 3 of chunk k: the values (bool m), the coordinates, or both. */
static void write_chunk(const compact_job *j, size_t k) {
  size_t a = k * j->chunk, b = gm_scan_chunk_end(k, j->n, j->chunk);
  int64_t o = j->cnt[k], hi = j->cnt[k + 1];
  if (j->y && !j->c && (j->esize == 4 || j->esize == 8) && have_avx2()) {
    size_t va = a, vo = (size_t)o;
    compact_avx2(j->esize, &va, b, (const bool *)j->m, &vo, (size_t)hi, j->x, j->y);
    a = va, o = (int64_t)vo;
  }
#define V(U)                                                                                         \
  case sizeof(U):                                                                                    \
    gm_compact_values_##U(a, b, (const bool *)j->m, o, hi, (const U *)j->x, (U *)j->y);               \
    break;
  if (j->y) switch (j->esize) {
      V(uint8_t) V(uint16_t) V(uint32_t) V(uint64_t) V(gm_complex128) default : break;
    }
#undef V
#define X(T, E, ...)                                                   \
  case GM_##E:                                                         \
    gm_compact_coords_##E(a, b, (const T *)j->m, o, j->d, j->c);       \
    break;
  if (j->c) switch (j->mt) {
      GM_REAL_CTYPES(X)
      default:
        break;
    }
#undef X
}

static void write_chunks(void *arg, size_t begin, size_t end) {
  for (size_t k = begin; k < end; k++) write_chunk(arg, k);
}

static gm_status host_compact(void *ctx, gm_ctype mt, size_t n, size_t chunk, const void *m, size_t esize,
                              const void *x, void *y, const gm_compact_dims *d, int64_t *c, size_t *count) {
  (void)ctx;
  size_t nc = gm_scan_nchunks(n, chunk);
  compact_job j = {mt, n, chunk, esize, m, x, y, d, c, malloc((nc + 1) * sizeof(int64_t))};
  if (!j.cnt) return gm_fail(GM_ENOMEM, "compaction: out of host memory for %zu chunk counts", nc);
  gm_par_for(nc, 1, (double)chunk, count_chunks, &j);
  gm_compact_offsets(nc, j.cnt);
  if (!y && !c) *count = (size_t)j.cnt[nc];
  else gm_par_for(nc, 1, 2.0 * (double)chunk, write_chunks, &j);
  free(j.cnt);
  return GM_OK;
}

const gm_index_ops gm_host_index_ops = {.gather = host_gather, .scatter = host_scatter, .compact = host_compact};
