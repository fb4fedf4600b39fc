/* The host's FFT (core/ops/fft_ops.h) on KISS FFT's C++ class
 * (kissfft.hh of Debian's libkissfft-dev, BSD-3-Clause; a template, so
 * float and double alike: the package's shared library is float only).
 * Lines are gathered into contiguous buffers in blocks of adjacent lines
 * (a transform along a leading axis reads rows of neighbours, not one
 * element per cache line), transformed, and scattered; blocks spread over
 * the cores with gm_par_for.  Plans (twiddles, factors) are cached per
 * length and direction: building one costs n complex exponentials.
 * R2C of an even length is KISS FFT's half-length real transform; odd
 * lengths and C2R go through the complex transform (C2R on the Hermitian
 * extension, keeping the real part, which ignores the imaginary parts of
 * the zero and Nyquist terms as NumPy's pocketfft does; one long even
 * line: the packed inverse of half the length, c2r_long).  Lengths with
 * large prime factors (use_bluestein) go through Bluestein's algorithm
 * (bluestein.hh), as pocketfft's do. */
#include <kissfft.hh>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

extern "C" {
#include "../core/exec/par.h"
#include "../core/ops/fft_ops.h"
#include "fft.h"
}
#include "bluestein.hh"

namespace {

/* Lengths whose prime factors above 5 sum to more than about 4 log2(2n)
 * go through Bluestein's algorithm (bluestein.hh): KISS FFT's generic
 * butterfly costs about n·p per factor p, Bluestein's about three
 * transforms of a smooth length m >= 2n-1.  The constant is measured with
 * bench/fft_bluestein_threshold.cpp (bench/RESULTS.md): Bluestein is
 * faster from p = 23 at n = p, p = 37..61 at n = 64p, p = 61..79 at
 * n = 4096p (float and double alike). */
bool use_bluestein(size_t n) {
  size_t big = 0, m = n;
  for (size_t p : {2, 3, 5})
    while (m % p == 0) m /= p;
  for (size_t p = 7; p * p <= m; p += 2)
    while (m % p == 0) m /= p, big += p;
  if (m > 1) big += m;
  double lg = 0;
  for (size_t v = 2 * n; v > 1; v >>= 1) lg += 1;
  return (double)big > 4.0 * lg;
}

/* One length and direction: KISS FFT's plan or Bluestein's. */
/* Power-of-two lengths, L lines at once, L the lanes of a 32-byte vector
 * (8 floats, 4 doubles): an iterative radix-2 transform of the lines'
 * real parts and imaginary parts side by side, so each butterfly is a few
 * vector operations for L lines.  KISS FFT transforms one line at a time
 * in scalar complex arithmetic: 11-20 us per 1024 points on this machine,
 * against pocketfft's ~5, which left fft2 of 1024x1024 at 0.95-1.5x
 * NumPy's time (bench/RESULTS.md). */
template <class T> struct lanes;
template <> struct lanes<float> {
  typedef float V __attribute__((vector_size(16)));
  static const size_t L = 4;
};
template <> struct lanes<double> {
  typedef double V __attribute__((vector_size(16)));
  static const size_t L = 2;
};

template <class T> struct pow2_plan {
  size_t n;
  std::vector<std::complex<T>> tw; /* w^k, k < n/2, computed in double */
  std::vector<uint32_t> rev;       /* the bit reversal of 0 .. n-1 */
  pow2_plan(size_t n_, bool inverse) : n(n_), tw(n_ / 2), rev(n_) {
    const double a = (inverse ? 2 : -2) * 3.14159265358979323846 / (double)n;
    for (size_t k = 0; k < n / 2; k++) {
      std::complex<double> w = std::polar(1.0, a * (double)k);
      tw[k] = std::complex<T>((T)w.real(), (T)w.imag());
    }
    size_t bits = 0;
    while (((size_t)1 << bits) < n) bits++;
    for (size_t e = 0; e < n; e++) {
      size_t r = 0;
      for (size_t b = 0; b < bits; b++) r |= ((e >> b) & 1) << (bits - 1 - b);
      rev[e] = (uint32_t)r;
    }
  }
  /* the lanes' lines, in bit-reversed order in re/im, transformed in place */
  void transform(typename lanes<T>::V *re, typename lanes<T>::V *im) const {
    typedef typename lanes<T>::V V;
    for (size_t s = 2; s <= n; s <<= 1) {
      const size_t h = s / 2, step = n / s;
      for (size_t j = 0; j < n; j += s)
        for (size_t k = 0; k < h; k++) {
          const std::complex<T> w = tw[k * step];
          V *ar = re + j + k, *ai = im + j + k, *br = ar + h, *bi = ai + h;
          const V tr = *br * w.real() - *bi * w.imag(), ti = *br * w.imag() + *bi * w.real();
          const V xr = *ar, xi = *ai;
          *ar = xr + tr, *ai = xi + ti, *br = xr - tr, *bi = xi - ti;
        }
    }
  }
};

/* lengths the lane transform takes: a power of two from 8 on, to 2^20
 * (its tables; the four-step splits longer lines) */
bool pow2_length(size_t n) { return n >= 8 && n <= ((size_t)1 << 20) && (n & (n - 1)) == 0; }

template <class T> struct plan {
  std::unique_ptr<const kissfft<T>> kiss;
  std::unique_ptr<const gm_fft::bluestein<T>> blue;
  std::unique_ptr<const pow2_plan<T>> pow2;
  plan(size_t n, bool inverse) {
    if (use_bluestein(n))
      blue.reset(new gm_fft::bluestein<T>(n, inverse));
    else
      kiss.reset(new kissfft<T>(n, inverse));
    if (pow2_length(n)) pow2.reset(new pow2_plan<T>(n, inverse));
  }
};

template <class T> using plan_ptr = std::shared_ptr<const plan<T>>;

/* A few plans per precision, most recent last; a miss evicts the oldest
 * (a plan in use elsewhere lives on through its shared_ptr). */
template <class T> plan_ptr<T> cached_plan(size_t n, bool inverse) {
  struct entry {
    size_t n;
    bool inverse;
    plan_ptr<T> p;
  };
  static std::mutex mu;
  static std::vector<entry> cache;
  std::lock_guard<std::mutex> lock(mu);
  for (size_t i = 0; i < cache.size(); i++)
    if (cache[i].n == n && cache[i].inverse == inverse) {
      std::rotate(cache.begin() + (long)i, cache.begin() + (long)i + 1, cache.end());
      return cache.back().p;
    }
  if (cache.size() >= 8) cache.erase(cache.begin());
  cache.push_back({n, inverse, std::make_shared<const plan<T>>(n, inverse)});
  return cache.back().p;
}

/* KISS FFT's butterfly for factors above 5 writes a mutable scratch
 * buffer inside the plan: such plans are copied per worker. */
bool shared_plan_safe(size_t n) {
  for (size_t p : {2, 3, 5})
    while (n % p == 0) n /= p;
  return n == 1;
}

/* A worker's view of a plan: KISS FFT's (the worker's own copy where its
 * generic butterfly writes scratch) or Bluestein's with the worker's
 * scratch. */
template <class T> struct line_fft {
  const kissfft<T> *kiss;
  const gm_fft::bluestein<T> *blue;
  std::complex<T> *work;
  const pow2_plan<T> *pow2;           /* power-of-two lengths: L lines at once */
  typename lanes<T>::V *lre, *lim;    /* the lane transform's n vectors each */
  void transform(const std::complex<T> *in, std::complex<T> *out) const {
    if (blue)
      blue->transform(in, out, work);
    else
      kiss->transform(in, out);
  }
};

/* w^m = e^(-+2 pi i m/n) for any m < n as the product of two short tables
 * (m's high and low bits), computed in double: the four-step's and the
 * large real transform's twiddles without an n-entry table (64 MiB for
 * n = 2^22) or a sin/cos per element. */
struct twiddles {
  static const size_t S = 1024;
  size_t n;
  std::vector<std::complex<double>> lo, hi;
  twiddles(size_t n_, bool inverse) : n(n_), lo(S), hi(n_ / S + 1) {
    const double a = (inverse ? 2 : -2) * 3.14159265358979323846 / (double)n;
    for (size_t i = 0; i < S; i++) lo[i] = std::polar(1.0, a * (double)i);
    for (size_t i = 0; i < hi.size(); i++) hi[i] = std::polar(1.0, a * (double)(i * S));
  }
  template <class T> std::complex<T> at(size_t m) const {
    std::complex<double> w = hi[m / S] * lo[m % S];
    return std::complex<T>((T)w.real(), (T)w.imag());
  }
};

template <class T> struct job {
  const gm_fft_layout *l;
  const std::complex<T> *cin;  /* C2C, C2R */
  const T *rin;                /* R2C */
  std::complex<T> *cout;       /* C2C, R2C */
  T *rout;                     /* C2R */
  plan_ptr<T> plan;            /* length n (n/2 for the half-length R2C) */
  bool half;                   /* R2C through the half-length real transform */
  size_t block, blocks_per_loop;
  const struct twiddles *tw = nullptr; /* the four-step's first pass: line b, term k times w^(b*k) */
  std::atomic<bool> failed{false};
};

/* The lines of one block: loop l, lines b0 .. b0+nb-1. */
struct block {
  size_t in0, out0, nb, b0;
};

template <class T> block block_of(const job<T> &j, size_t k) {
  const gm_fft_layout *l = j.l;
  size_t loop = k / j.blocks_per_loop, b0 = (k % j.blocks_per_loop) * j.block;
  size_t nb = std::min(j.block, l->batch - b0);
  return {loop * l->iloop + b0 * l->idist, loop * l->oloop + b0 * l->odist, nb, b0};
}

/* in line b of the block, element e, gathered to buf[b*P + e] (P: the
 * buffer's pitch, a little over the line so that the lines of a block do
 * not all fall into the same cache sets); the inner loop walks whichever
 * side of the copy is contiguous */
template <class S>
void gather(const S *in, const gm_fft_layout *l, const block &bk, size_t len, S *buf, size_t P) {
  const S *src = in + bk.in0;
  if (l->istride == 1) {
    for (size_t b = 0; b < bk.nb; b++) std::copy(src + b * l->idist, src + b * l->idist + len, buf + b * P);
    return;
  }
  for (size_t e = 0; e < len; e++)
    for (size_t b = 0; b < bk.nb; b++) buf[b * P + e] = src[b * l->idist + e * l->istride];
}

template <class S>
void scatter(const S *buf, size_t P, const gm_fft_layout *l, const block &bk, size_t len, S *out) {
  S *dst = out + bk.out0;
  if (l->ostride == 1) {
    for (size_t b = 0; b < bk.nb; b++) std::copy(buf + b * P, buf + b * P + len, dst + b * l->odist);
    return;
  }
  for (size_t e = 0; e < len; e++)
    for (size_t b = 0; b < bk.nb; b++) dst[b * l->odist + e * l->ostride] = buf[b * P + e];
}

/* R2C of one real line x (contiguous) into n/2+1 outputs y */
template <class T>
void r2c_line(const line_fft<T> &p, bool half, size_t n, const T *x, std::complex<T> *y, std::complex<T> *tmp) {
  typedef std::complex<T> C;
  if (half) { /* the packed result: y[0] = (X0, X_{n/2}) */
    p.kiss->transform_real(x, tmp);
    y[0] = C(tmp[0].real(), 0);
    y[n / 2] = C(tmp[0].imag(), 0);
    for (size_t k = 1; k < n / 2; k++) y[k] = tmp[k];
    return;
  }
  for (size_t e = 0; e < n; e++) tmp[n + e] = C(x[e], 0);
  p.transform(tmp + n, tmp);
  std::copy(tmp, tmp + n / 2 + 1, y);
}

/* C2R of one line x (n/2+1 terms) into n reals y */
template <class T> void c2r_line(const line_fft<T> &p, size_t n, const std::complex<T> *x, T *y, std::complex<T> *tmp) {
  size_t h = n / 2 + 1;
  std::copy(x, x + h, tmp);
  for (size_t k = h; k < n; k++) tmp[k] = std::conj(x[n - k]);
  p.transform(tmp, tmp + n);
  for (size_t e = 0; e < n; e++) y[e] = tmp[n + e].real();
}

/* term k of line b0+b (at y + b*P) times w^((b0+b) k), the exponent kept mod n */
template <class T> void apply_twiddles(const twiddles &tw, const block &bk, size_t len, std::complex<T> *y, size_t P) {
  for (size_t b = 0; b < bk.nb; b++) {
    size_t step = (bk.b0 + b) % tw.n, m = 0;
    for (size_t k = 0; k < len; k++) {
      y[b * P + k] *= tw.at<T>(m);
      m += step;
      if (m >= tw.n) m -= tw.n;
    }
  }
}

/* C2C lines read with a unit stride and written contiguously need no
 * copies: KISS FFT reads its input in place and writes the output line */
/* L lines of the block from line b on through the lane transform: read
 * (strided either way) into the lanes in bit-reversed order, written back
 * from them */
template <class T> void c2c_lanes(const job<T> &j, const line_fft<T> &p, const block &bk, size_t b) {
  const gm_fft_layout *l = j.l;
  const size_t n = l->n, L = lanes<T>::L;
  const std::complex<T> *src = j.cin + bk.in0 + b * l->idist;
  std::complex<T> *dst = j.cout + bk.out0 + b * l->odist;
  const uint32_t *rev = p.pow2->rev.data();
  for (size_t e = 0; e < n; e++) {
    const std::complex<T> *x = src + e * l->istride;
    const size_t r = rev[e];
    for (size_t q = 0; q < L; q++) {
      const std::complex<T> v = x[q * l->idist];
      p.lre[r][q] = v.real(), p.lim[r][q] = v.imag();
    }
  }
  p.pow2->transform(p.lre, p.lim);
  for (size_t e = 0; e < n; e++) {
    std::complex<T> *y = dst + e * l->ostride;
    for (size_t q = 0; q < L; q++) y[q * l->odist] = std::complex<T>(p.lre[e][q], p.lim[e][q]);
  }
}

template <class T> void c2c_block(job<T> &j, const line_fft<T> &p, const block &bk_in, std::complex<T> *cbuf,
                                  std::complex<T> *tmp, size_t P) {
  const gm_fft_layout *l = j.l;
  size_t n = l->n;
  block bk = bk_in;
  if (p.pow2 && !j.tw) { /* whole groups of L lines; the rest below */
    size_t b = 0;
    for (; b + lanes<T>::L <= bk.nb; b += lanes<T>::L) c2c_lanes(j, p, bk, b);
    if (b == bk.nb) return;
    bk = {bk.in0 + b * l->idist, bk.out0 + b * l->odist, bk.nb - b, bk.b0 + b};
  }
  if (l->istride == 1 && l->ostride == 1) {
    for (size_t b = 0; b < bk.nb; b++) p.transform(j.cin + bk.in0 + b * l->idist, j.cout + bk.out0 + b * l->odist);
    if (j.tw) apply_twiddles(*j.tw, bk, n, j.cout + bk.out0, l->odist);
    return;
  }
  gather(j.cin, l, bk, n, cbuf, P);
  for (size_t b = 0; b < bk.nb; b++) p.transform(cbuf + b * P, tmp + b * P);
  if (j.tw) apply_twiddles(*j.tw, bk, n, tmp, P);
  scatter(tmp, P, l, bk, n, j.cout);
}

template <class T> void run_block(job<T> &j, const line_fft<T> &p, size_t k, std::complex<T> *cbuf, T *rbuf,
                                  std::complex<T> *tmp, size_t P) {
  const gm_fft_layout *l = j.l;
  size_t n = l->n, h = n / 2 + 1;
  block bk = block_of(j, k);
  if (l->type == GM_FFT_C2C) {
    c2c_block(j, p, bk, cbuf, tmp, P);
  } else if (l->type == GM_FFT_R2C) {
    gather(j.rin, l, bk, n, rbuf, P);
    for (size_t b = 0; b < bk.nb; b++) r2c_line(p, j.half, n, rbuf + b * P, cbuf + b * P, tmp);
    scatter(cbuf, P, l, bk, h, j.cout);
  } else {
    gather(j.cin, l, bk, h, cbuf, P);
    for (size_t b = 0; b < bk.nb; b++) c2r_line(p, n, cbuf + b * P, rbuf + b * P, tmp);
    scatter(rbuf, P, l, bk, n, j.rout);
  }
}

/* A worker's buffers, kept from call to call: allocating them per chunk
 * made every chunk an mmap and munmap (they pass malloc's threshold), whose
 * page faults and TLB shootdowns made two threads slower than one.  Large
 * ones (a long line without the four-step) are given back after the call. */
template <class T> struct buffers {
  std::vector<std::complex<T>> cbuf, tmp, work;
  std::vector<T> rbuf;
  std::vector<typename lanes<T>::V> lanes_; /* 2n vectors (C++17: aligned to 32) */
  void fit(size_t nc, size_t nt, size_t nw, size_t nl) {
    if (cbuf.size() < nc) cbuf.resize(nc);
    if (tmp.size() < nt) tmp.resize(nt);
    if (rbuf.size() < nc) rbuf.resize(nc);
    if (work.size() < nw) work.resize(nw);
    if (lanes_.size() < nl) lanes_.resize(nl);
  }
  void trim() {
    if (cbuf.size() + tmp.size() + work.size() + lanes_.size() <= ((size_t)1 << 18)) return;
    cbuf = {}, tmp = {}, rbuf = {}, work = {}, lanes_ = {};
  }
};

template <class T> void run_blocks(void *arg, size_t begin, size_t end) {
  job<T> &j = *static_cast<job<T> *>(arg);
  static thread_local buffers<T> bufs;
  try {
    /* pitch: n + 8 elements (n/2+1 <= n + 8 for C2R/R2C's complex side) */
    size_t n = j.l->n, lines = j.block, P = n + 8;
    const plan<T> &pl = *j.plan;
    const pow2_plan<T> *p2 = j.l->type == GM_FFT_C2C ? pl.pow2.get() : nullptr;
    bufs.fit(lines * P, std::max(lines * P, 2 * n + 2), pl.blue ? pl.blue->work_size() : 0, p2 ? 2 * n : 0);
    /* a KISS FFT plan with a generic butterfly is the worker's own copy */
    std::unique_ptr<kissfft<T>> own;
    if (pl.kiss && !shared_plan_safe(j.half ? n / 2 : n)) own.reset(new kissfft<T>(*pl.kiss));
    line_fft<T> p = {own ? own.get() : pl.kiss.get(), pl.blue.get(), bufs.work.data(), p2,
                     p2 ? bufs.lanes_.data() : nullptr, p2 ? bufs.lanes_.data() + n : nullptr};
    for (size_t k = begin; k < end; k++) run_block(j, p, k, bufs.cbuf.data(), bufs.rbuf.data(), bufs.tmp.data(), P);
  } catch (const std::bad_alloc &) {
    j.failed = true;
  }
  bufs.trim();
}

template <class T>
gm_status run_batched(const gm_fft_layout *l, const void *in, void *out, bool inverse, const twiddles *tw = nullptr) {
  job<T> j;
  j.l = l;
  j.tw = tw;
  j.cin = static_cast<const std::complex<T> *>(in);
  j.rin = static_cast<const T *>(in);
  j.cout = static_cast<std::complex<T> *>(out);
  j.rout = static_cast<T *>(out);
  /* the half-length real transform is KISS FFT's (a Bluestein length's
   * R2C goes through the complex transform) */
  j.half = l->type == GM_FFT_R2C && l->n % 2 == 0 && !use_bluestein(l->n / 2);
  try {
    j.plan = cached_plan<T>(j.half ? l->n / 2 : l->n, inverse);
  } catch (const std::bad_alloc &) {
    return gm_fail(GM_ENOMEM, "fft: out of host memory for a plan of length %zu", l->n);
  }
  /* neighbouring lines (idist 1) gather as rows of a tile */
  j.block = l->idist == 1 && l->batch > 1 ? std::min<size_t>(l->batch, 16) : 1;
  /* the lane transform takes L lines at once, neighbours or not */
  if (l->type == GM_FFT_C2C && !tw && pow2_length(l->n) && l->batch >= lanes<T>::L)
    j.block = std::min<size_t>(l->batch, 2 * lanes<T>::L);
  j.blocks_per_loop = (l->batch + j.block - 1) / j.block;
  double cost = 5.0 * (double)j.block * (double)l->n;
  gm_par_for(l->loops * j.blocks_per_loop, 1, cost, run_blocks<T>, &j);
  if (j.failed) return gm_fail(GM_ENOMEM, "fft: out of host memory for buffers of length %zu", l->n);
  return GM_OK;
}

/* Large single lines: Bailey's four-step over n = n1 n2 (n1 the largest
 * divisor up to sqrt n).  KISS FFT's recursion walks a long line with
 * ever larger strides (a cache miss per element once the line outgrows
 * the caches); as n2 transforms of length n1 (the columns of the line
 * read as n1 x n2, gathered in blocks of neighbours), twiddled, then n1
 * of length n2 (the rows, transposed on the way), every pass works on
 * short lines in cache and spreads over the cores.  0: no useful split. */
size_t four_step_split(size_t n) {
  if (n < ((size_t)1 << 15)) return 0;
  size_t n1 = 1;
  for (size_t d = 2; d * d <= n; d++)
    if (n % d == 0) n1 = d;
  return n1 >= 32 ? n1 : 0;
}

/* n elements of scratch, not initialized (a value-initialized vector
 * would write and fault in every page once more); NULL when out of memory */
template <class T> std::unique_ptr<std::complex<T>[], void (*)(void *)> scratch(size_t n) {
  return {static_cast<std::complex<T> *>(std::malloc(n * sizeof(std::complex<T>))), std::free};
}

/* line x (element stride sx) to y (stride sy), both of length n */
template <class T>
gm_status four_step(gm_ctype t, size_t n, size_t n1, const void *x, size_t sx, void *y, size_t sy, bool inverse) {
  size_t n2 = n / n1;
  auto mid = scratch<T>(n);
  if (!mid) return gm_fail(GM_ENOMEM, "fft: out of host memory for a line of length %zu", n);
  twiddles tw(n, inverse);
  /* columns j2: x[(n2 j1 + j2) sx] over j1, into row j2 of mid, twiddled */
  gm_fft_layout cols = {GM_FFT_C2C, t, n1, n2, n2 * sx, sx, 1, n1, 1, 0, 0};
  GM_TRY(run_batched<T>(&cols, x, mid.get(), inverse, &tw));
  /* rows k1: mid[j2 n1 + k1] over j2, to y[(k1 + n1 k2) sy] */
  gm_fft_layout rows = {GM_FFT_C2C, t, n2, n1, n1, 1, n1 * sy, sy, 1, 0, 0};
  return run_batched<T>(&rows, mid.get(), y, inverse);
}

/* R2C of one long even line x (contiguous) into y (contiguous): the
 * complex transform Z of length N = n/2 of z[j] = x[2j] + i x[2j+1],
 * written to y, then split in place, k with N-k:
 * X[k] = (Z[k] + conj Z[N-k])/2 - i w^k (Z[k] - conj Z[N-k])/2 */
template <class T> struct r2c_split {
  std::complex<T> *y;
  size_t N;
  const twiddles *tw;
};

template <class T> void r2c_split_range(void *arg, size_t begin, size_t end) {
  const r2c_split<T> &a = *static_cast<const r2c_split<T> *>(arg);
  typedef std::complex<T> C;
  const C half(0.5, 0), mhalf_i(0, -0.5);
  for (size_t k = begin < 1 ? 1 : begin; k < end; k++) { /* pairs k, N-k for 1 <= k <= N/2 */
    C zk = a.y[k], zm = a.y[a.N - k];
    C xk = half * (zk + std::conj(zm)) + mhalf_i * a.tw->template at<T>(k) * (zk - std::conj(zm));
    C xm = half * (zm + std::conj(zk)) + mhalf_i * a.tw->template at<T>(a.N - k) * (zm - std::conj(zk));
    a.y[k] = xk;
    a.y[a.N - k] = xm;
  }
}

template <class T> gm_status exec_typed(const gm_fft_layout *l, const void *in, void *out, bool inverse);

/* (Z: the four-step's or Bluestein's complex transform of length N, as
 * exec_typed picks for one line) */
template <class T> gm_status r2c_long(const gm_fft_layout *l, const void *in, void *out) {
  size_t N = l->n / 2;
  std::complex<T> *y = static_cast<std::complex<T> *>(out);
  gm_fft_layout z = {GM_FFT_C2C, l->t, N, 1, 1, N, 1, N, 1, 0, 0};
  GM_TRY(exec_typed<T>(&z, in, y, false));
  twiddles tw(l->n, false);
  r2c_split<T> a = {y, N, &tw};
  gm_par_for(N / 2 + 1, 1, 16.0, r2c_split_range<T>, &a);
  std::complex<T> z0 = y[0]; /* X[0] and X[N] are real: Re z0 +- Im z0 */
  y[0] = std::complex<T>(z0.real() + z0.imag(), 0);
  y[N] = std::complex<T>(z0.real() - z0.imag(), 0);
  return GM_OK;
}

/* C2R of one even line of n/2+1 terms X (stride sx) into n reals y
 * (contiguous): y is real, so its even and odd samples are one complex
 * line z[j] = y[2j] + i y[2j+1] of length N = n/2, the inverse transform
 * of Z[k] = (X[k] + conj X[N-k]) + i w^-k (X[k] - conj X[N-k]) (w =
 * e^(-2 pi i/n)); the imaginary parts of X[0] and X[N] are ignored, as
 * the Hermitian extension's real part ignores them. */
template <class T> struct c2r_pack {
  const std::complex<T> *x;
  size_t sx, N;
  std::complex<T> *z;
  const twiddles *tw;
};

template <class T> void c2r_pack_range(void *arg, size_t begin, size_t end) {
  const c2r_pack<T> &a = *static_cast<const c2r_pack<T> *>(arg);
  typedef std::complex<T> C;
  for (size_t k = begin; k < end; k++) {
    if (k == 0) {
      T x0 = a.x[0].real(), xn = a.x[a.N * a.sx].real();
      a.z[0] = C(x0 + xn, x0 - xn);
      continue;
    }
    C xk = a.x[k * a.sx], xm = std::conj(a.x[(a.N - k) * a.sx]);
    a.z[k] = (xk + xm) + C(0, 1) * a.tw->template at<T>(k) * (xk - xm);
  }
}

template <class T> gm_status c2r_long(const gm_fft_layout *l, const void *in, void *out) {
  size_t N = l->n / 2;
  auto z = scratch<T>(N);
  if (!z) return gm_fail(GM_ENOMEM, "fft: out of host memory for a line of length %zu", l->n);
  twiddles tw(l->n, true);
  c2r_pack<T> a = {static_cast<const std::complex<T> *>(in), l->istride, N, z.get(), &tw};
  gm_par_for(N, 1024, 16.0, c2r_pack_range<T>, &a);
  gm_fft_layout zl = {GM_FFT_C2C, l->t, N, 1, 1, N, 1, N, 1, 0, 0};
  return exec_typed<T>(&zl, z.get(), out, true);
}

/* One long line of a Bluestein length: the chirp convolution's two
 * transforms of the smooth length m through the four-step split (both
 * cores, short lines in cache) rather than one KISS FFT recursion over
 * 2m elements.  x: n complex elements at stride sx, or n reals (R2C: the
 * first n/2+1 results written), or for C2R the n/2+1 terms of a
 * Hermitian line (its real part written to the n reals of y). */
template <class T> struct long_bluestein {
  const gm_fft::bluestein<T> *b;
  const gm_fft_layout *l;
  const void *x;
  void *y;
  std::complex<T> *a, *fa;
};

template <class T> void bluestein_in(void *arg, size_t begin, size_t end) {
  const long_bluestein<T> &k = *static_cast<const long_bluestein<T> *>(arg);
  typedef std::complex<T> C;
  const size_t n = k.l->n, s = k.l->istride, h = n / 2 + 1;
  const C *c = k.b->chirp();
  for (size_t j = begin; j < end; j++) {
    C v(0, 0);
    if (j < n) {
      if (k.l->type == GM_FFT_R2C)
        v = C(static_cast<const T *>(k.x)[j * s], 0);
      else if (k.l->type == GM_FFT_C2C || j < h)
        v = static_cast<const C *>(k.x)[j * s];
      else /* C2R: the Hermitian extension */
        v = std::conj(static_cast<const C *>(k.x)[(n - j) * s]);
      v *= c[j];
    }
    k.a[j] = v;
  }
}

template <class T> void bluestein_mid(void *arg, size_t begin, size_t end) {
  const long_bluestein<T> &k = *static_cast<const long_bluestein<T> *>(arg);
  const std::complex<T> *K = k.b->kernel();
  for (size_t j = begin; j < end; j++) k.fa[j] = std::conj(k.fa[j] * K[j]);
}

template <class T> void bluestein_out(void *arg, size_t begin, size_t end) {
  const long_bluestein<T> &k = *static_cast<const long_bluestein<T> *>(arg);
  typedef std::complex<T> C;
  const C *c = k.b->chirp();
  const size_t s = k.l->ostride;
  for (size_t j = begin; j < end; j++) {
    C v = std::conj(k.a[j]) * c[j];
    if (k.l->type == GM_FFT_C2R)
      static_cast<T *>(k.y)[j * s] = v.real();
    else
      static_cast<C *>(k.y)[j * s] = v;
  }
}

template <class T> gm_status bluestein_line(const gm_fft_layout *l, const gm_fft::bluestein<T> &b, size_t n1,
                                            const void *in, void *out) {
  const size_t m = b.conv_size(), n = l->n;
  auto buf = scratch<T>(2 * m);
  if (!buf) return gm_fail(GM_ENOMEM, "fft: out of host memory for a line of length %zu", n);
  long_bluestein<T> k = {&b, l, in, out, buf.get(), buf.get() + m};
  gm_par_for(m, 4096, 8.0, bluestein_in<T>, &k);
  GM_TRY(four_step<T>(l->t, m, n1, k.a, 1, k.fa, 1, false));
  gm_par_for(m, 4096, 8.0, bluestein_mid<T>, &k);
  GM_TRY(four_step<T>(l->t, m, n1, k.fa, 1, k.a, 1, false));
  gm_par_for(l->type == GM_FFT_R2C ? n / 2 + 1 : n, 4096, 8.0, bluestein_out<T>, &k);
  return GM_OK;
}

template <class T> gm_status exec_typed(const gm_fft_layout *l, const void *in, void *out, bool inverse) {
  /* one long even real line, or one whose half length is a Bluestein
   * length: the packed complex transform of half the length (R2C split
   * after it, C2R packed before it) */
  size_t N = l->n / 2;
  if (l->batch == 1 && l->loops == 1 && l->type == GM_FFT_R2C && l->n % 2 == 0 && l->istride == 1 &&
      l->ostride == 1 && (four_step_split(N) || use_bluestein(N)))
    return r2c_long<T>(l, in, out);
  if (l->batch == 1 && l->loops == 1 && l->type == GM_FFT_C2R && l->n % 2 == 0 && l->ostride == 1 &&
      (four_step_split(N) || use_bluestein(N)))
    return c2r_long<T>(l, in, out);
  if (l->batch == 1 && l->loops == 1 && use_bluestein(l->n)) {
    size_t m = gm_fft::smooth_at_least(2 * l->n - 1), n1 = four_step_split(m);
    if (n1) {
      plan_ptr<T> p;
      try {
        p = cached_plan<T>(l->n, inverse || l->type == GM_FFT_C2R);
      } catch (const std::bad_alloc &) {
        return gm_fail(GM_ENOMEM, "fft: out of host memory for a plan of length %zu", l->n);
      }
      return bluestein_line<T>(l, *p->blue, n1, in, out);
    }
  }
  if (l->batch == 1 && l->loops == 1) {
    size_t n1 = four_step_split(l->n);
    if (l->type == GM_FFT_C2C && n1) return four_step<T>(l->t, l->n, n1, in, l->istride, out, l->ostride, inverse);
  }
  return run_batched<T>(l, in, out, inverse);
}

gm_status host_exec(void *ctx, const gm_fft_layout *l, const void *in, void *out, bool inverse) {
  (void)ctx;
  return gm_host_fft_exec(l, in, out, inverse);
}

} // namespace

extern "C" gm_status gm_host_fft_exec(const gm_fft_layout *l, const void *in, void *out, bool inverse) {
#ifdef GPUMAT_HAVE_FFTW
  if (gm_host_fftw_fits(l)) return gm_host_fftw_exec(l, in, out, inverse); /* the GPUMAT_FFTW build */
#endif
  if (l->t == GM_COMPLEX64) return exec_typed<float>(l, in, out, inverse);
  if (l->t == GM_COMPLEX128) return exec_typed<double>(l, in, out, inverse);
  return gm_fail(GM_EINVAL, "fft: %s is not a complex ctype", gm_ctype_dtype(l->t));
}

extern "C" const gm_fft_ops gm_host_fft_ops = {host_exec};
