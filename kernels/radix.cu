// The radix sort of the sorts along an axis on the device (kernels/radix.h;
// src/device/kernel_tables.h sends the sorting ops' lines of
// gm_sort_radix_min() elements or more here).
// - Sort and argsort of the 4-byte types, any number of lines: (key,
//   position) pairs as the host sorts them (below, "pairs").
// - Other types and ops, a few long lines one after the other: the plan
//   (which passes move nothing, found on the device), then per pass of
//   8 bits, the chunks' histograms (an item per chunk), the counts' scan
//   (an item per digit, then one for the digits' bases) and the chunks'
//   stable scatter (a block per chunk, its counters in shared memory);
//   then the sorted run written out (an item per element) or, for mode and
//   unique, finished by one item.  Their many lines: sort and argsort a
//   block per line, keys and positions in two arrays (below, "many lines of
//   the other types"); mode and unique stay with kernels/scan.cu's merge
//   sort, a line per item.
// On a real GPU (nvcc), sort and argsort of a few long lines of any real
// type go to CUB's device-wide radix sort instead (below, "a few long
// lines on a real GPU"): the same keys and order, 0.67-0.94 ms for 16M
// floats on an H200 where the chunked split took 121-350 ms.
// The scratch comes from the launch's stream-ordered allocator.
// Launchers return the cudaError_t of the launches.
#include <cuda_runtime.h>
#include <limits.h>
#ifdef __CUDACC__
#include <cub/device/device_radix_sort.cuh>
#endif

#include "launch_cuda.cuh"
#include "radix.h"
#include "select.h"

namespace {

#define GM_CU_RADIX(T, E, ...)                                                                                  \
  __device__ void chunk_hist(int desc, unsigned shift, size_t c, size_t chunk, size_t len, size_t st,           \
                             const T *src, size_t *cnt) {                                                       \
    gm_radix_chunk_hist_##E(desc, shift, c, chunk, len, st, src, cnt);                                          \
  }                                                                                                             \
  __device__ inline uint64_t radix_key(T v, int desc) { return gm_radix_key_##E(v, desc); }                     \
  __device__ void finish(int op, size_t len, size_t inner, const T *s, const int64_t *si, T *y, int64_t *yi) {  \
    gm_radix_finish_##E(op, len, inner, s, si, y, yi);                                                          \
  }                                                                                                             \
  __device__ void sel_chunk(int desc, size_t k, size_t c, size_t chunk, size_t len, size_t st, const T *x,       \
                            gm_sel_item *h, size_t *cnt) {                                                      \
    gm_sel_chunk_##E(desc, k, c, chunk, len, st, x, h, cnt);                                                    \
  }                                                                                                             \
  __device__ void sel_out(size_t k, const gm_sel_item *h, size_t st, const T *x, size_t inner, T *y,            \
                          int64_t *yi) {                                                                        \
    gm_sel_out_##E(k, h, st, x, inner, y, yi);                                                                  \
  }                                                                                                             \
  __device__ void sel_line(int desc, size_t k, size_t len, size_t inner, const T *x, T *y, int64_t *yi,         \
                           gm_sel_item *h) {                                                                    \
    gm_sel_line_##E(desc, k, len, inner, x, y, yi, h);                                                          \
  }
GM_REAL_CTYPES(GM_CU_RADIX)
#undef GM_CU_RADIX

// Block-level digit counters (the pair kernels below and
// radix_scatter_kernel): a block of RB threads (one warp) keeps a counter
// per digit and thread in shared memory, cnt[digit * RP + thread].  Thread
// t counts, then scatters, its own contiguous part of the block's items
// (parts in thread order), and the offsets are the counts' exclusive scan
// in digit order, then thread order: a stable scatter with no atomics and
// no per-thread array in local memory.
#define RB 32u
#define RP (RB + 1u) // padded rows: thread t's counters of rows d, d + 1 lie in different banks

// The counters of every kernel below, one array at namespace scope (a
// kernel's __shared__ storage either way on a GPU).  Declared in each
// template kernel, the CPU model (cuda_cpu.h: __shared__ is a thread_local
// static) kept one 33 KB copy per instantiation, 42 of them: 1.4 MB of the
// library's thread-local block, which every new thread that touches any
// of the library's thread-locals allocates and zeroes (370 page faults, 1-
// 4 ms on a VM, in the first op of a stream worker or pool thread).  One
// kernel runs at a time on an OS thread, its block's fibers to the end.
__shared__ uint32_t radix_counts[GM_RADIX_DIGITS * RP];

struct pair_lane {
  size_t lo, hi;
};

// Thread t's part of m items when `lanes` threads share them (t >= lanes:
// an empty part).
__device__ inline pair_lane lane_part(size_t m, unsigned lanes, unsigned t) {
  if (t >= lanes) return pair_lane{m, m};
  return pair_lane{m * t / lanes, m * (t + 1) / lanes};
}

// The threads that count a segment of m pairs: one per 1024 pairs, at
// least one, at most RB.  Each thread clears, offsets and scans 256
// counters a pass; with a thread per 256 pairs the emulated device spent
// as long on those as on the pairs of 4096-element lines.
__host__ __device__ inline unsigned seg_lanes(size_t m) {
  return m / 1024 >= RB ? RB : m / 1024 > 0 ? (unsigned)(m / 1024) : 1u;
}

// Every thread of the block: rows d = t, t + blockDim.x, ... of cnt
// scanned over the first `lanes` threads (exclusive), each row's total to
// tot[d] (tot NULL: not kept).
__device__ inline void rows_scan(uint32_t *cnt, uint32_t *tot, unsigned lanes, unsigned t) {
  for (unsigned d = t; d < GM_RADIX_DIGITS; d += blockDim.x) {
    uint32_t s = 0;
    for (unsigned l = 0; l < lanes; l++) {
      uint32_t c = cnt[d * RP + l];
      cnt[d * RP + l] = s;
      s += c;
    }
    if (tot) tot[d] = s;
  }
}

// Blocks of a block-per-item launch over n items (at most 65535).
inline int pair_grid(size_t n) { return n < 65535 ? (int)n : 65535; }

// A long line's pass plan (values and int64 positions, 8 bits a pass),
// on the device: radix_plan_kernel sets it from the bits where the keys
// differ, so that a pass whose digit is the same in every element (the
// host skips those too, by their counts) moves nothing here either, with
// no count coming back to the host.  run[p]: where the run is before pass
// p (0: the line x itself, at its stride; 1: w[0, len); 2: w[len, 2 len)).
#define RADIX_MAX_PASSES 8
struct radix_plan {
  unsigned char skip[RADIX_MAX_PASSES];
  unsigned char run[RADIX_MAX_PASSES + 1];
};

// A long line's element type T and the type P of its positions in the
// scratch: uint32_t for sort and argsort of lines within 2^32 elements
// (12 bytes moved per element and pass instead of 16: the scatter's
// random stores are most of its time), int64_t for mode and unique (their
// finish reads int64 positions).  One template argument for the kernels
// (a launch macro's argument holds no comma).
template <typename T_, typename P_>
struct radix_kind {
  typedef T_ T;
  typedef P_ P;
};

// The run before pass p (values; positions: NULL in x, whose positions are
// the indices) and where pass p writes.
template <typename T, typename P>
struct radix_bufs {
  const T *src;
  const P *si;
  size_t st;
  T *dv;
  P *di;
};
template <typename T, typename P>
__device__ inline radix_bufs<T, P> plan_bufs(const radix_plan *pl, unsigned p, size_t len, size_t inner, const T *x,
                                             T *w, P *wi) {
  const unsigned r = pl->run[p];
  const size_t so = r == 2 ? len : 0, dn = r == 1 ? len : 0;
  radix_bufs<T, P> b = {r ? w + so : x, r && wi ? wi + so : NULL, r ? 1 : inner, w + dn, wi ? wi + dn : NULL};
  return b;
}

// Chunk c of the line: the bits where its keys differ from the first key.
template <typename T>
__global__ void radix_diff_kernel(int desc, size_t nch, size_t chunk, size_t len, size_t st, const T *x,
                                  uint64_t *diff) {
  GRID_STRIDE(c, nch) {
    const uint64_t k0 = radix_key(x[0], desc);
    const size_t lo = c * chunk, hi = len - lo < chunk ? len : lo + chunk;
    uint64_t acc = 0;
    for (size_t k = lo; k < hi; k++) acc |= radix_key(x[k * st], desc) ^ k0;
    diff[c] = acc;
  }
}

// One item: the plan of `passes` passes from the chunks' diff.  When every
// pass would be skipped (all keys equal), the last one runs (a stable
// copy), so the sorted run always ends in w.
__global__ void radix_plan_kernel(size_t nch, unsigned passes, const uint64_t *diff, radix_plan *pl) {
  GRID_STRIDE(i, (size_t)1) {
    uint64_t d = 0;
    for (size_t c = 0; c < nch; c++) d |= diff[c];
    unsigned r = 0;
    for (unsigned p = 0; p < passes; p++) {
      const int skip = ((d >> (8 * p)) & 255u) == 0 && !(p + 1 == passes && r == 0);
      pl->skip[p] = (unsigned char)skip;
      pl->run[p] = (unsigned char)r;
      if (!skip) r = r == 1 ? 2 : 1;
    }
    pl->run[passes] = (unsigned char)r;
  }
}

template <typename T>
__global__ void radix_hist_kernel(int desc, unsigned p, size_t nch, size_t chunk, size_t len, size_t inner, const T *x,
                                  T *w, const radix_plan *pl, size_t *cnt) {
  GRID_STRIDE(c, nch) {
    if (pl->skip[p]) continue;
    const radix_bufs<T, int64_t> b = plan_bufs<T, int64_t>(pl, p, len, inner, x, w, (int64_t *)NULL);
    chunk_hist(desc, 8 * p, c, chunk, len, b.st, b.src, cnt);
  }
}

// pl NULL: no plan (the pairs' split); else nothing when pass p is skipped
__global__ void radix_digit_scan_kernel(size_t nch, size_t *cnt, size_t *tot, const radix_plan *pl, unsigned p) {
  GRID_STRIDE(d, (size_t)GM_RADIX_DIGITS) {
    if (!pl || !pl->skip[p]) gm_radix_digit_scan(d, nch, cnt, tot);
  }
}

__global__ void radix_bases_kernel(size_t *tot, const radix_plan *pl, unsigned p) {
  GRID_STRIDE(i, (size_t)1) {
    if (!pl || !pl->skip[p]) gm_radix_exclusive(tot, GM_RADIX_DIGITS);
  }
}

// Block per chunk of pass p (nothing when the plan skips it): the chunk's
// elements (and positions: si, or their index k; di NULL: values only) to
// their offsets, cnt's after gm_radix_digit_scan plus tot's after the
// bases, thread t its part.
template <typename K>
__global__ void radix_scatter_kernel(int desc, unsigned p, size_t nch, size_t chunk, size_t len, size_t inner,
                                     const typename K::T *x, typename K::T *w, typename K::P *wi, const radix_plan *pl,
                                     const size_t *cnt, const size_t *tot) {
  typedef typename K::T T;
  typedef typename K::P P;
  uint32_t *const c = radix_counts;
  __shared__ size_t base[GM_RADIX_DIGITS];
  if (pl->skip[p]) return; // (the same in every thread of the block)
  const radix_bufs<T, P> b = plan_bufs<T, P>(pl, p, len, inner, x, w, wi);
  const T *src = b.src;
  const P *si = b.si;
  T *dv = b.dv;
  P *di = b.di;
  const size_t st = b.st;
  const unsigned t = threadIdx.x, shift = 8 * p;
  for (size_t ch = blockIdx.x; ch < nch; ch += gridDim.x) {
    const size_t lo = ch * chunk, m = len - lo < chunk ? len - lo : chunk;
    const pair_lane r = lane_part(m, RB, t);
    for (unsigned d = 0; d < GM_RADIX_DIGITS; d++) c[d * RP + t] = 0;
    for (size_t k = lo + r.lo; k < lo + r.hi; k++) c[(radix_key(src[k * st], desc) >> shift & 255u) * RP + t]++;
    for (unsigned d = t; d < GM_RADIX_DIGITS; d += RB) base[d] = tot[d] + cnt[ch * GM_RADIX_DIGITS + d];
    __syncthreads();
    rows_scan(c, NULL, RB, t);
    __syncthreads();
    for (size_t k = lo + r.lo; k < lo + r.hi; k++) {
      const T v = src[k * st];
      const unsigned d = (unsigned)(radix_key(v, desc) >> shift & 255u);
      const size_t at = base[d] + c[d * RP + t]++;
      dv[at] = v;
      if (di) di[at] = si ? si[k] : (P)k;
    }
    __syncthreads(); // c and base read before the next chunk's
  }
}

// The sorted run after the plan's last pass p (never the line itself).
template <typename T, typename P>
__device__ inline radix_bufs<T, P> plan_done(const radix_plan *pl, unsigned p, size_t len, T *w, P *wi) {
  const size_t so = pl->run[p] == 2 ? len : 0;
  radix_bufs<T, P> b = {w + so, wi ? wi + so : NULL, 1, NULL, NULL};
  return b;
}

// argsort's (and sort's) copy out: element k of the sorted run, its
// position 1-based (gm_radix_finish_E's argsort, for either position type)
template <typename K>
__global__ void radix_out_kernel(size_t len, size_t inner, typename K::T *w, typename K::P *wi, const radix_plan *pl,
                                 typename K::T *y, int64_t *yi) {
  GRID_STRIDE(k, len) {
    const radix_bufs<typename K::T, typename K::P> b = plan_done(pl, sizeof(typename K::T), len, w, wi);
    if (y) y[k * inner] = b.src[k];
    if (yi) yi[k * inner] = (int64_t)b.si[k] + 1;
  }
}

// mode and unique of the sorted run (int64 positions): one item
template <typename T>
__global__ void radix_finish_kernel(int op, size_t len, T *w, int64_t *wi, const radix_plan *pl, T *y, int64_t *yi) {
  GRID_STRIDE(i, (size_t)1) {
    const radix_bufs<T, int64_t> b = plan_done(pl, sizeof(T), len, w, wi);
    finish(op, len, 1, b.src, b.si, y, yi);
  }
}

// One long line x (stride inner) sorted into the scratch w (2 len values)
// and wi (2 len indices, or NULL), then written out to y/yi; cnt holds
// (nch + 1) x 256 counts, diff nch words, pl the plan.  Every pass is
// launched; the plan (above) makes those of one digit return at once,
// as the host skips them.
template <typename T, typename P>
void sort_long(int op, int desc, size_t len, size_t inner, size_t chunk, const T *x, T *y, int64_t *yi, T *w, P *wi,
               size_t *cnt, uint64_t *diff, radix_plan *pl, void *s) {
  typedef radix_kind<T, P> K;
  const size_t nch = gm_radix_chunks(len, chunk);
  size_t *tot = cnt + nch * GM_RADIX_DIGITS;
  const unsigned passes = (unsigned)sizeof(T);
  gm_launch gc(nch, s), gd(GM_RADIX_DIGITS, s), g1(1, s), ge(len, s);
  GM_LAUNCH_RANGE(radix_diff_kernel<T>, gc.grid, gc.block, gc.s, nch, chunk)(desc, nch, chunk, len, inner, x, diff);
  GM_LAUNCH_RANGE(radix_plan_kernel, g1.grid, g1.block, g1.s, 1, nch)(nch, passes, diff, pl);
  for (unsigned p = 0; p < passes; p++) {
    GM_LAUNCH_RANGE(radix_hist_kernel<T>, gc.grid, gc.block, gc.s, nch, chunk)(desc, p, nch, chunk, len, inner, x, w, pl,
                                                                             cnt);
    GM_LAUNCH_RANGE(radix_digit_scan_kernel, gd.grid, gd.block, gd.s, GM_RADIX_DIGITS, nch)(nch, cnt, tot, pl, p);
    GM_LAUNCH_RANGE(radix_bases_kernel, g1.grid, g1.block, g1.s, 1, GM_RADIX_DIGITS)(tot, pl, p);
    GM_LAUNCH_SYNC_WORK(radix_scatter_kernel<K>, pair_grid(nch), RB, gc.s, 3.0 * (double)chunk)(
        desc, p, nch, chunk, len, inner, x, w, wi, pl, cnt, tot);
  }
  if (op == GM_LINES_ARGSORT)
    GM_LAUNCH_RANGE(radix_out_kernel<K>, ge.grid, ge.block, ge.s, len, 2)(len, inner, w, wi, pl, y, yi);
  else // (mode and unique: P is int64_t, few_long)
    GM_LAUNCH_RANGE(radix_finish_kernel<T>, g1.grid, g1.block, g1.s, 1, 4 * len)(op, len, w, (int64_t *)(void *)wi,
                                                                                 pl, y, yi);
}

// few_long with positions of type P (radix_kind)
template <typename T, typename P>
int few_long_as(int op, int flag, size_t lines, size_t len, size_t inner, size_t chunk, const T *x, T *y, int64_t *yi,
                const gm_launch_ctx *lc) {
  const size_t nch = gm_radix_chunks(len, chunk), vb = (2 * len * sizeof(T) + 7) / 8 * 8;
  const size_t ib = yi ? 2 * len * sizeof(P) : 0, on = gm_lines_out_len(op, len);
  const size_t cb = (nch + 1) * GM_RADIX_DIGITS * sizeof(size_t), db = nch * sizeof(uint64_t);
  void *w = NULL;
  int err = gm_scratch_alloc(lc, vb + ib + cb + db + sizeof(radix_plan), &w);
  if (err != 0) return err;
  P *wi = yi ? (P *)(void *)((char *)w + vb) : NULL;
  const size_t pad = (ib + 7) / 8 * 8 - ib; // (the counts' alignment after uint32 positions)
  size_t *cnt = (size_t *)(void *)((char *)w + vb + ib + pad);
  uint64_t *diff = (uint64_t *)(void *)((char *)w + vb + ib + pad + cb);
  radix_plan *pl = (radix_plan *)(void *)((char *)w + vb + ib + pad + cb + db);
  for (size_t i = 0; i < lines; i++) {
    size_t s = gm_scan_line_start(i, len, inner), o = gm_scan_line_start(i, on, inner);
    sort_long<T, P>(op, op == GM_LINES_ARGSORT && flag, len, inner, chunk, x + s, y ? y + o : NULL,
                    yi ? yi + o : NULL, (T *)w, wi, cnt, diff, pl, lc->stream);
  }
  err = (int)cudaGetLastError();
  gm_scratch_free(lc, w);
  return err;
}

template <typename T>
int few_long(int op, int flag, size_t lines, size_t len, size_t inner, size_t chunk, const T *x, T *y, int64_t *yi,
             const gm_launch_ctx *lc) {
  if (op == GM_LINES_ARGSORT && len <= 0xffffffffu)
    return few_long_as<T, uint32_t>(op, flag, lines, len, inner, chunk, x, y, yi, lc);
  return few_long_as<T, int64_t>(op, flag, lines, len, inner, chunk, x, y, yi, lc);
}

// ---- (key, position) pairs of the 4-byte types (kernels/radix.h) ----
//
// Sort and argsort of float, int32 and uint32 lines sort 8-byte pairs as
// the host does (src/host/radix.c), with the block-level counters above.
// - A few long lines (pair_long): one pass over the line's tiles splits
//   the pairs by 8 bits of the key, the top 8 of the bits where the keys
//   differ (a tile per block; the tiles' counts and offsets as the chunks'
//   above), then a block per bucket sorts it by LSD passes over the key
//   bits below (while the bucket is in the cache) and writes it out.
// - Many lines (pair_many): a block per line, the same LSD passes over
//   the whole key; the lines go in batches whose pairs fit the scratch.
// In both, a pass whose digit is the same in every item of the block
// moves nothing and is skipped.

// One thread: tot[0, 256) to its exclusive scan; whether one digit held
// all m items (the pass moves nothing).
__device__ inline int digits_scan(uint32_t *tot, size_t m) {
  uint32_t s = 0;
  int trivial = 0;
  for (unsigned d = 0; d < GM_RADIX_DIGITS; d++) {
    uint32_t c = tot[d];
    trivial |= c == m;
    tot[d] = s;
    s += c;
  }
  return trivial;
}

// The stable sort of the segment p[0, m) (scratch q[0, m)) by the key bits
// [0, bits), 8 a pass, by every thread of the block; returns p or q,
// whichever holds the sorted run.
__device__ uint64_t *sort_segment(uint64_t *p, uint64_t *q, size_t m, unsigned bits, uint32_t *cnt, uint32_t *tot,
                                  int *trivial) {
  const unsigned t = threadIdx.x, lanes = seg_lanes(m) < blockDim.x ? seg_lanes(m) : blockDim.x;
  const pair_lane r = lane_part(m, lanes, t);
  for (unsigned b = 0; b < bits; b += 8) {
    const unsigned shift = 32 + b;
    if (t < lanes) {
      for (unsigned d = 0; d < GM_RADIX_DIGITS; d++) cnt[d * RP + t] = 0;
      for (size_t k = r.lo; k < r.hi; k++) cnt[((p[k] >> shift) & 255u) * RP + t]++;
    }
    __syncthreads();
    rows_scan(cnt, tot, lanes, t);
    __syncthreads();
    if (t == 0) *trivial = digits_scan(tot, m);
    __syncthreads();
    if (!*trivial) {
      if (t < lanes) {
        for (unsigned d = 0; d < GM_RADIX_DIGITS; d++) cnt[d * RP + t] += tot[d];
        for (size_t k = r.lo; k < r.hi; k++) q[cnt[((p[k] >> shift) & 255u) * RP + t]++] = p[k];
      }
      uint64_t *s = p;
      p = q, q = s;
    }
    __syncthreads(); // the scatter done (and *trivial read) before the next pass
  }
  return p;
}

#define GM_CU_PAIR(T, E)                                                                                   \
  __device__ inline uint32_t pair_key(T v, int desc) { return (uint32_t)gm_radix_key_##E(v, desc); }       \
  __device__ inline uint64_t pair_of(T v, int desc, size_t k) { return gm_radix_pair_##E(v, desc, (uint32_t)k); } \
  __device__ inline T pair_value(uint64_t pr, int desc, const T *x, size_t st) {                           \
    return gm_radix_pair_value_##E(pr, desc, x, st);                                                       \
  }
GM_CU_PAIR(float, FLOAT)
GM_CU_PAIR(int32_t, INT32)
GM_CU_PAIR(uint32_t, UINT32)
#undef GM_CU_PAIR

// The sorted pairs s[lo, hi) of a line x (stride st) written out from
// output position out0 on: values (y, or NULL) and 1-based positions (yi,
// or NULL) at stride inner.
template <typename T>
__device__ void pair_emit(const uint64_t *s, size_t lo, size_t hi, size_t out0, int desc, const T *x, size_t st, T *y,
                          int64_t *yi, size_t inner) {
  for (size_t k = lo; k < hi; k++) {
    const uint64_t pr = s[k];
    const size_t o = (out0 + k) * inner;
    if (y) y[o] = pair_value(pr, desc, x, st);
    if (yi) yi[o] = (int64_t)(uint32_t)pr + 1;
  }
}

// Many lines: block i of the batch sorts line first + i of x (lines of len
// at stride inner) in a[i * len, +len) with b[i * len, +len) as scratch
// and writes it out.
template <typename T>
__global__ void pair_lines_kernel(int desc, size_t first, size_t nl, size_t len, size_t inner, const T *x, T *y,
                                  int64_t *yi, uint64_t *a, uint64_t *b) {
  uint32_t *const cnt = radix_counts;
  __shared__ uint32_t tot[GM_RADIX_DIGITS];
  __shared__ int trivial;
  const unsigned t = threadIdx.x;
  const pair_lane r = lane_part(len, seg_lanes(len) < blockDim.x ? seg_lanes(len) : blockDim.x, t);
  for (size_t i = blockIdx.x; i < nl; i += gridDim.x) {
    const size_t s = gm_scan_line_start(first + i, len, inner);
    uint64_t *p = a + i * len;
    for (size_t k = r.lo; k < r.hi; k++) p[k] = pair_of(x[s + k * inner], desc, k); // the part this thread counts
    const uint64_t *o = sort_segment(p, b + i * len, len, 32, cnt, tot, &trivial);
    pair_emit(o, r.lo, r.hi, 0, desc, x + s, inner, y ? y + s : NULL, yi ? yi + s : NULL, inner);
  }
}

// The device state of a long line's split (pair_pick_kernel sets it).
struct pair_split {
  unsigned shift; // the split digit's lowest key bit; the buckets sort the bits below
};

// Chunk c of the line: the bits where its keys differ from the first key.
template <typename T>
__global__ void pair_diff_kernel(int desc, size_t nch, size_t chunk, size_t len, size_t st, const T *x, uint32_t *diff) {
  GRID_STRIDE(c, nch) {
    const uint32_t k0 = pair_key(x[0], desc);
    const size_t lo = c * chunk, hi = len - lo < chunk ? len : lo + chunk;
    uint32_t acc = 0;
    for (size_t k = lo; k < hi; k++) acc |= pair_key(x[k * st], desc) ^ k0;
    diff[c] = acc;
  }
}

// One item: the split digit, the top 8 of the bits where keys differ.
__global__ void pair_pick_kernel(size_t nch, const uint32_t *diff, pair_split *sp) {
  GRID_STRIDE(i, (size_t)1) {
    uint32_t d = 0;
    for (size_t c = 0; c < nch; c++) d |= diff[c];
    unsigned hi = 0;
    while (hi < 32 && (d >> hi)) hi++;
    sp->shift = hi > 8 ? hi - 8 : 0;
  }
}

// Chunk c's counts of the split digit (zeroed first), cnt[c * 256, +256).
template <typename T>
__global__ void pair_hist_kernel(int desc, size_t nch, size_t chunk, size_t len, size_t st, const T *x,
                                 const pair_split *sp, size_t *cnt) {
  GRID_STRIDE(c, nch) {
    const unsigned shift = sp->shift;
    size_t *h = cnt + c * GM_RADIX_DIGITS, lo = c * chunk, hi = len - lo < chunk ? len : lo + chunk;
    for (unsigned d = 0; d < GM_RADIX_DIGITS; d++) h[d] = 0;
    for (size_t k = lo; k < hi; k++) h[(pair_key(x[k * st], desc) >> shift) & 255u]++;
  }
}

// Block per chunk: the chunk's pairs to a at its offsets (cnt after
// gm_radix_digit_scan, tot after the bases), thread t its part, stably.
template <typename T>
__global__ void pair_split_kernel(int desc, size_t nch, size_t chunk, size_t len, size_t st, const T *x,
                                  const pair_split *sp, const size_t *cnt, const size_t *tot, uint64_t *a) {
  uint32_t *const c = radix_counts;
  const unsigned t = threadIdx.x, shift = sp->shift;
  for (size_t ch = blockIdx.x; ch < nch; ch += gridDim.x) {
    const size_t lo = ch * chunk, m = len - lo < chunk ? len - lo : chunk;
    const pair_lane r = lane_part(m, RB, t);
    for (unsigned d = 0; d < GM_RADIX_DIGITS; d++) c[d * RP + t] = 0;
    for (size_t k = lo + r.lo; k < lo + r.hi; k++) c[((pair_key(x[k * st], desc) >> shift) & 255u) * RP + t]++;
    __syncthreads();
    rows_scan(c, NULL, RB, t);
    __syncthreads();
    for (unsigned d = 0; d < GM_RADIX_DIGITS; d++) // offsets within the line: len < 2^32
      c[d * RP + t] += (uint32_t)(tot[d] + cnt[ch * GM_RADIX_DIGITS + d]);
    for (size_t k = lo + r.lo; k < lo + r.hi; k++) {
      const uint32_t key = pair_key(x[k * st], desc);
      a[c[((key >> shift) & 255u) * RP + t]++] = (uint64_t)key << 32 | (uint32_t)k;
    }
    __syncthreads(); // c read before the next chunk's counts
  }
}

// Block per bucket d of the split (starts tot, after the bases): its pairs
// sorted by the key bits below the split digit, then written out.
template <typename T>
__global__ void pair_buckets_kernel(int desc, size_t len, const size_t *tot, const pair_split *sp, uint64_t *a,
                                    uint64_t *b, const T *x, size_t st, T *y, int64_t *yi) {
  uint32_t *const cnt = radix_counts;
  __shared__ uint32_t dt[GM_RADIX_DIGITS];
  __shared__ int trivial;
  const unsigned bits = sp->shift;
  for (size_t d = blockIdx.x; d < GM_RADIX_DIGITS; d += gridDim.x) {
    const size_t s = tot[d], m = (d + 1 < GM_RADIX_DIGITS ? tot[d + 1] : len) - s;
    if (m == 0) continue; // (the same m in every thread of the block)
    const uint64_t *o = sort_segment(a + s, b + s, m, bits, cnt, dt, &trivial);
    const pair_lane r = lane_part(m, seg_lanes(m) < blockDim.x ? seg_lanes(m) : blockDim.x, threadIdx.x);
    pair_emit(o, r.lo, r.hi, s, desc, x, st, y, yi, st);
  }
}

// The second buffer of the pairs: the int64 positions' own output where
// it is contiguous (each pair is read there before its position is
// written over it, by the same thread), else NULL (scratch).
inline uint64_t *pair_yi(int64_t *yi, size_t inner) { return yi && inner == 1 ? (uint64_t *)(void *)yi : NULL; }

// A few long lines of x (stride inner), one after the other: the split by
// chunks, then the buckets.
template <typename T>
int pair_long(int desc, size_t lines, size_t len, size_t inner, size_t chunk, const T *x, T *y, int64_t *yi,
              const gm_launch_ctx *lc) {
  uint64_t *b = pair_yi(yi, inner);
  const size_t nch = gm_radix_chunks(len, chunk), pb = (b ? 1 : 2) * len * sizeof(uint64_t);
  const size_t cb = (nch + 1) * GM_RADIX_DIGITS * sizeof(size_t), db = (nch * sizeof(uint32_t) + 7) / 8 * 8;
  void *w = NULL;
  int err = gm_scratch_alloc(lc, pb + cb + db + sizeof(pair_split), &w);
  if (err != 0) return err;
  uint64_t *a = (uint64_t *)w;
  size_t *cnt = (size_t *)(void *)((char *)w + pb), *tot = cnt + nch * GM_RADIX_DIGITS;
  uint32_t *diff = (uint32_t *)(void *)((char *)w + pb + cb);
  pair_split *sp = (pair_split *)(void *)((char *)w + pb + cb + db);
  gm_launch gc(nch, lc->stream), gd(GM_RADIX_DIGITS, lc->stream), g1(1, lc->stream);
  for (size_t i = 0; i < lines; i++) {
    const size_t s = gm_scan_line_start(i, len, inner);
    const T *xl = x + s;
    GM_LAUNCH_RANGE(pair_diff_kernel<T>, gc.grid, gc.block, gc.s, nch, chunk)(desc, nch, chunk, len, inner, xl, diff);
    GM_LAUNCH_RANGE(pair_pick_kernel, g1.grid, g1.block, g1.s, 1, nch)(nch, diff, sp);
    GM_LAUNCH_RANGE(pair_hist_kernel<T>, gc.grid, gc.block, gc.s, nch, chunk)(desc, nch, chunk, len, inner, xl, sp, cnt);
    const radix_plan *none = NULL; // (no plan: every launch runs)
    GM_LAUNCH_RANGE(radix_digit_scan_kernel, gd.grid, gd.block, gd.s, GM_RADIX_DIGITS, nch)(nch, cnt, tot, none, 0u);
    GM_LAUNCH_RANGE(radix_bases_kernel, g1.grid, g1.block, g1.s, 1, GM_RADIX_DIGITS)(tot, none, 0u);
    GM_LAUNCH_SYNC_WORK(pair_split_kernel<T>, pair_grid(nch), RB, gc.s, 3.0 * (double)chunk)(desc, nch, chunk, len, inner,
                                                                                        xl, sp, cnt, tot, a);
    GM_LAUNCH_SYNC_WORK(pair_buckets_kernel<T>, GM_RADIX_DIGITS, RB, gc.s, 8.0 * (double)len / GM_RADIX_DIGITS)(
        desc, len, tot, sp, a, b ? b + s : a + len, xl, inner, y ? y + s : NULL, yi ? yi + s : NULL);
  }
  err = (int)cudaGetLastError();
  gm_scratch_free(lc, w);
  return err;
}

// Many lines: a block per line (of seg_lanes threads: few idle ones), in
// batches whose pairs and scratch take at most 16 MiB, at least one line.
template <typename T>
int pair_many(int desc, size_t lines, size_t len, size_t inner, const T *x, T *y, int64_t *yi,
              const gm_launch_ctx *lc) {
  uint64_t *b = pair_yi(yi, inner);
  // at least two threads: the emulated device runs a block of one thread
  // as a plain call, without the fibers its barriers need
  const unsigned block = seg_lanes(len) > 1 ? seg_lanes(len) : 2;
  size_t nb = ((size_t)1 << 20) / len;
  nb = nb < 1 ? 1 : nb > lines ? lines : nb;
  void *w = NULL;
  int err = gm_scratch_alloc(lc, (b ? 1 : 2) * nb * len * sizeof(uint64_t), &w);
  if (err != 0) return err;
  uint64_t *a = (uint64_t *)w;
  for (size_t first = 0; first < lines; first += nb) {
    const size_t nl = lines - first < nb ? lines - first : nb;
    GM_LAUNCH_SYNC_WORK(pair_lines_kernel<T>, pair_grid(nl), block, (cudaStream_t)lc->stream, 12.0 * (double)len)(
        desc, first, nl, len, inner, x, y, yi, a, b ? b + first * len : a + nb * len);
  }
  err = (int)cudaGetLastError();
  gm_scratch_free(lc, w);
  return err;
}

template <typename T>
int pair_lines(int op, int flag, size_t lines, size_t len, size_t inner, size_t chunk, const T *x, T *y, int64_t *yi,
               const gm_launch_ctx *lc) {
  const int desc = op == GM_LINES_ARGSORT && flag;
  if (lines <= GM_RADIX_FEW_LINES && len > chunk) return pair_long<T>(desc, lines, len, inner, chunk, x, y, yi, lc);
  return pair_many<T>(desc, lines, len, inner, x, y, yi, lc);
}

// ---- many lines of the other types: (key, position) in two arrays ----
//
// Sort and argsort of many lines whose keys do not fit a pair (float64,
// int64, uint64, and the 1- and 2-byte types) went to kernels/scan.cu's
// merge sort, a line per thread.  Here a block per line, as pair_many:
// the line's keys (uint64) and uint32 positions sorted by LSD passes of 8
// bits with the block-level counters (passes of one digit skipped), then
// the values gathered from the line by position (exact: -0.0 and NaN
// payloads as they were; the output is a new mat, never x).

// The stable sort of keys k[0, m) with positions q[0, m) (scratch k2, q2)
// by the key bits [0, bits), 8 a pass, by every thread of the block;
// returns whether the sorted run ended in k2/q2.
__device__ int sort_keys(uint64_t *k, uint32_t *q, uint64_t *k2, uint32_t *q2, size_t m, unsigned bits,
                         uint32_t *cnt, uint32_t *tot, int *trivial) {
  const unsigned t = threadIdx.x, lanes = seg_lanes(m) < blockDim.x ? seg_lanes(m) : blockDim.x;
  const pair_lane r = lane_part(m, lanes, t);
  int flip = 0;
  for (unsigned b = 0; b < bits; b += 8) {
    if (t < lanes) {
      for (unsigned d = 0; d < GM_RADIX_DIGITS; d++) cnt[d * RP + t] = 0;
      for (size_t i = r.lo; i < r.hi; i++) cnt[((k[i] >> b) & 255u) * RP + t]++;
    }
    __syncthreads();
    rows_scan(cnt, tot, lanes, t);
    __syncthreads();
    if (t == 0) *trivial = digits_scan(tot, m);
    __syncthreads();
    if (!*trivial) {
      if (t < lanes) {
        for (unsigned d = 0; d < GM_RADIX_DIGITS; d++) cnt[d * RP + t] += tot[d];
        for (size_t i = r.lo; i < r.hi; i++) {
          const uint32_t o = cnt[((k[i] >> b) & 255u) * RP + t]++;
          k2[o] = k[i];
          q2[o] = q[i];
        }
      }
      uint64_t *ks = k;
      uint32_t *qs = q;
      k = k2, q = q2, k2 = ks, q2 = qs;
      flip ^= 1;
    }
    __syncthreads(); // the scatter done (and *trivial read) before the next pass
  }
  return flip;
}

// Block i of the batch: line first + i of x (lines of len at stride
// inner), its keys and positions in ka/qa[2 i len, +2 len).
template <typename T>
__global__ void key_lines_kernel(int desc, size_t first, size_t nl, size_t len, size_t inner, const T *x, T *y,
                                 int64_t *yi, uint64_t *ka, uint32_t *qa) {
  uint32_t *const cnt = radix_counts;
  __shared__ uint32_t tot[GM_RADIX_DIGITS];
  __shared__ int trivial;
  const unsigned t = threadIdx.x;
  const pair_lane r = lane_part(len, seg_lanes(len) < blockDim.x ? seg_lanes(len) : blockDim.x, t);
  for (size_t i = blockIdx.x; i < nl; i += gridDim.x) {
    const size_t s = gm_scan_line_start(first + i, len, inner);
    uint64_t *k = ka + 2 * i * len;
    uint32_t *q = qa + 2 * i * len;
    for (size_t j = r.lo; j < r.hi; j++) { // the part this thread counts
      k[j] = radix_key(x[s + j * inner], desc);
      q[j] = (uint32_t)j;
    }
    const uint32_t *o = sort_keys(k, q, k + len, q + len, len, 8u * (unsigned)sizeof(T), cnt, tot, &trivial) ? q + len : q;
    for (size_t j = r.lo; j < r.hi; j++) {
      const size_t at = s + j * inner;
      if (y) y[at] = x[s + (size_t)o[j] * inner];
      if (yi) yi[at] = (int64_t)o[j] + 1;
    }
  }
}

// Many lines: batches whose keys, positions and scratch take at most
// 24 MiB (at least one line), a block per line.
template <typename T>
int key_many(int desc, size_t lines, size_t len, size_t inner, const T *x, T *y, int64_t *yi, const gm_launch_ctx *lc) {
  const unsigned block = seg_lanes(len) > 1 ? seg_lanes(len) : 2; // (as pair_many: fibers need two)
  size_t nb = ((size_t)1 << 20) / len;
  nb = nb < 1 ? 1 : nb > lines ? lines : nb;
  const size_t kb = 2 * nb * len * sizeof(uint64_t);
  void *w = NULL;
  int err = gm_scratch_alloc(lc, kb + 2 * nb * len * sizeof(uint32_t), &w);
  if (err != 0) return err;
  uint64_t *ka = (uint64_t *)w;
  uint32_t *qa = (uint32_t *)(void *)((char *)w + kb);
  for (size_t first = 0; first < lines; first += nb) {
    const size_t nl = lines - first < nb ? lines - first : nb;
    GM_LAUNCH_SYNC_WORK(key_lines_kernel<T>, pair_grid(nl), block, (cudaStream_t)lc->stream, 16.0 * (double)len)(
        desc, first, nl, len, inner, x, y, yi, ka, qa);
  }
  err = (int)cudaGetLastError();
  gm_scratch_free(lc, w);
  return err;
}

// ---- the selection of topk and kthvalue (kernels/select.h) ----

template <typename T>
__global__ void select_chunk_kernel(int desc, size_t k, size_t nch, size_t chunk, size_t len, size_t st, const T *x,
                                    gm_sel_item *h, size_t *cnt) {
  GRID_STRIDE(c, nch) { sel_chunk(desc, k, c, chunk, len, st, x, h, cnt); }
}

// the chunks' heaps merged and written out: one item
template <typename T>
__global__ void select_merge_kernel(size_t k, size_t nch, gm_sel_item *h, const size_t *cnt, size_t st, const T *x,
                                    T *y, int64_t *yi) {
  GRID_STRIDE(i, (size_t)1) {
    gm_sel_merge(k, nch, h, cnt);
    sel_out(k, h, st, x, st, y, yi);
  }
}

template <typename T>
__global__ void select_line_kernel(int desc, size_t k, size_t lines, size_t len, size_t inner, const T *x, T *y,
                                   int64_t *yi, gm_sel_item *h) {
  GRID_STRIDE(i, lines) {
    size_t s = gm_scan_line_start(i, len, inner), o = gm_scan_line_start(i, k, inner);
    sel_line(desc, k, len, inner, x + s, y + o, yi + o, h + k * i);
  }
}

template <typename T>
int select_lines(int desc, size_t k, size_t lines, size_t len, size_t inner, size_t chunk, const T *x, T *y,
                 int64_t *yi, const gm_launch_ctx *lc) {
  const bool few = lines <= GM_RADIX_FEW_LINES && len > chunk;
  const size_t nch = few ? gm_radix_chunks(len, chunk) : 0, items = few ? nch * k : lines * k;
  void *w = NULL;
  int err = gm_scratch_alloc(lc, items * sizeof(gm_sel_item) + nch * sizeof(size_t), &w);
  if (err != 0) return err;
  gm_sel_item *h = (gm_sel_item *)w;
  size_t *cnt = (size_t *)(void *)(h + items);
  gm_launch gc(few ? nch : lines, lc->stream), g1(1, lc->stream);
  for (size_t i = 0; few && i < lines; i++) {
    size_t s = gm_scan_line_start(i, len, inner), o = gm_scan_line_start(i, k, inner);
    GM_LAUNCH_RANGE(select_chunk_kernel<T>, gc.grid, gc.block, gc.s, nch, chunk)(desc, k, nch, chunk, len, inner,
                                                                                x + s, h, cnt);
    GM_LAUNCH_RANGE(select_merge_kernel<T>, g1.grid, g1.block, g1.s, 1, nch * k)(k, nch, h, cnt, inner, x + s, y + o,
                                                                               yi + o);
  }
  if (!few)
    GM_LAUNCH_RANGE(select_line_kernel<T>, gc.grid, gc.block, gc.s, lines, len)(desc, k, lines, len, inner, x, y, yi,
                                                                               h);
  err = (int)cudaGetLastError();
  gm_scratch_free(lc, w);
  return err;
}

#ifdef __CUDACC__
// ---- a few long lines on a real GPU: CUB's device-wide radix sort ----
//
// The chunked split above was shaped for the emulated device, where a
// chunk is a CPU thread's work.  On an H200 it sorted 16M floats in
// 121-350 ms (CuPy 0.52: docs/GPU.md, third run): one thread walked each
// 65536-element chunk, and 256 blocks of 32 threads sorted the buckets.
// cub::DeviceRadixSort (CUDA's own, onesweep) sorts the same keys, the
// order-preserving images of kernels/radix.h with uint32 positions; it is
// an LSD sort and stable, so the result is the chunked sort's exactly.
// The emulated device cannot run CUB (it runs the chunked sort; the GPU
// specs compare both with the host).

// Line x (len at stride st) as keys and positions 0, 1, ...
template <typename T, typename K>
__global__ void cub_keys_kernel(int desc, size_t len, size_t st, const T *x, K *k, uint32_t *q) {
  GRID_STRIDE(i, len) {
    k[i] = (K)radix_key(x[i * st], desc);
    q[i] = (uint32_t)i;
  }
}

// The sorted positions q of line x written out: values (y, or NULL) and
// 1-based positions (yi, or NULL), at stride st.  Values are read from x,
// so -0.0 and NaN payloads stay as they were (y is a new mat, never x).
template <typename T>
__global__ void cub_emit_kernel(size_t len, size_t st, const T *x, const uint32_t *q, T *y, int64_t *yi) {
  GRID_STRIDE(i, len) {
    const size_t p = q[i];
    if (y) y[i * st] = x[p * st];
    if (yi) yi[i * st] = (int64_t)p + 1;
  }
}

inline size_t cub_round8(size_t b) { return (b + 7) / 8 * 8; }

// Sort and argsort (desc) of a few lines of at most INT_MAX elements, one
// after the other, keys of type K (the element's width).
template <typename T, typename K>
int cub_long_as(int desc, size_t lines, size_t len, size_t inner, const T *x, T *y, int64_t *yi,
                const gm_launch_ctx *lc) {
  const cudaStream_t s = (cudaStream_t)lc->stream;
  const int n = (int)len, bits = 8 * (int)sizeof(T);
  size_t tb = 0;
  cudaError_t e = cub::DeviceRadixSort::SortPairs(NULL, tb, (const K *)NULL, (K *)NULL, (const uint32_t *)NULL,
                                                  (uint32_t *)NULL, n, 0, bits, s);
  if (e != cudaSuccess) return (int)e;
  const size_t kb = cub_round8(len * sizeof(K)), qb = cub_round8(len * sizeof(uint32_t));
  void *w = NULL;
  int err = gm_scratch_alloc(lc, 2 * kb + 2 * qb + tb, &w);
  if (err != 0) return err;
  char *c = (char *)w;
  K *k0 = (K *)(void *)c, *k1 = (K *)(void *)(c + kb);
  uint32_t *q0 = (uint32_t *)(void *)(c + 2 * kb), *q1 = (uint32_t *)(void *)(c + 2 * kb + qb);
  void *t = c + 2 * kb + 2 * qb;
  gm_launch g(len, lc->stream);
  for (size_t i = 0; i < lines && err == 0; i++) {
    const size_t o = gm_scan_line_start(i, len, inner);
    cub_keys_kernel<T, K><<<g.grid, g.block, 0, s>>>(desc, len, inner, x + o, k0, q0);
    e = cub::DeviceRadixSort::SortPairs(t, tb, k0, k1, q0, q1, n, 0, bits, s);
    if (e != cudaSuccess) err = (int)e;
    else
      cub_emit_kernel<T><<<g.grid, g.block, 0, s>>>(len, inner, x + o, q1, y ? y + o : NULL, yi ? yi + o : NULL);
  }
  if (err == 0) err = (int)cudaGetLastError();
  gm_scratch_free(lc, w);
  return err;
}

// 1- and 2-byte keys sort as uint32 keys over their own bits (end_bit):
// CUB's downsweep kernels for uint8 and uint16 keys spill registers on
// sm_80/sm_90 (tools/suite.d/26-ptxas.sh refuses spills), and two key
// types compile in half the time of four.
template <typename T>
int cub_long(int desc, size_t lines, size_t len, size_t inner, const T *x, T *y, int64_t *yi, const gm_launch_ctx *lc) {
  if (sizeof(T) <= 4) return cub_long_as<T, uint32_t>(desc, lines, len, inner, x, y, yi, lc);
  return cub_long_as<T, uint64_t>(desc, lines, len, inner, x, y, yi, lc);
}
#endif

}  // namespace

// topk / kthvalue's selection (gm_scan_ops' select): the first k of each
// line's stable sort of x (outer, len, inner) into y, yi (outer, k, inner).
extern "C" int gm_cuda_radix_select(int ctype, int desc, size_t k, size_t outer, size_t len, size_t inner,
                                    size_t chunk, const void *x, void *y, int64_t *yi, const gm_launch_ctx *lc) {
#define LAUNCH(T) return select_lines<T>(desc, k, outer * inner, len, inner, chunk, (const T *)x, (T *)y, yi, lc);
  switch (ctype) {
    GM_REAL_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    default:
      return (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
}

// The sorting ops of kernels/scan.h's index-carrying engine (argsort with
// flag descending, mode, unique) on the lines of x (outer, len, inner)
// into y and yi as gm_cuda_lines_axis; yi NULL: the values only (the sort
// of gm_cuda_sort_axis).  Lines longer than chunk, at most
// GM_RADIX_FEW_LINES of them (src/device/kernel_tables.h sends only
// those), sort in chunks.
extern "C" int gm_cuda_radix_lines(int ctype, int op, int flag, size_t outer, size_t len, size_t inner, size_t chunk,
                                   const void *x, void *y, int64_t *yi, const gm_launch_ctx *lc) {
  const size_t lines = outer * inner;
#ifdef __CUDACC__
  if (op == GM_LINES_ARGSORT && lines <= GM_RADIX_FEW_LINES && len > chunk && len <= (size_t)INT_MAX) {
#define LAUNCH(T) return cub_long<T>(flag, lines, len, inner, (const T *)x, (T *)y, yi, lc);
    switch (ctype) {
      GM_REAL_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
      default:
        return (int)cudaErrorInvalidValue;
    }
#undef LAUNCH
  }
#endif
  if (gm_radix_pairs_fit(ctype, op, len)) {
    if (ctype == GM_FLOAT) return pair_lines<float>(op, flag, lines, len, inner, chunk, (const float *)x, (float *)y, yi, lc);
    if (ctype == GM_INT32)
      return pair_lines<int32_t>(op, flag, lines, len, inner, chunk, (const int32_t *)x, (int32_t *)y, yi, lc);
    return pair_lines<uint32_t>(op, flag, lines, len, inner, chunk, (const uint32_t *)x, (uint32_t *)y, yi, lc);
  }
  const bool many = !(lines <= GM_RADIX_FEW_LINES && len > chunk); // (only sort and argsort: gm_radix_keys_fit)
  const int desc = op == GM_LINES_ARGSORT && flag;
#define LAUNCH(T)                                                                                  \
  return many ? key_many<T>(desc, lines, len, inner, (const T *)x, (T *)y, yi, lc)                 \
              : few_long<T>(op, flag, lines, len, inner, chunk, (const T *)x, (T *)y, yi, lc);
  switch (ctype) {
    GM_REAL_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    default:
      return (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
}
