/* Bluestein's algorithm (the chirp z-transform) on KISS FFT: the DFT of
 * any length n as a cyclic convolution of length m >= 2n-1, m 2·3·5-smooth,
 * so O(m log m) where KISS FFT's generic butterfly costs O(n·p) for a prime
 * factor p (a prime n: O(n^2)).  NumPy's pocketfft does the same.
 *
 *   X[k] = sum_j x[j] w^(jk),  w = e^(-+2 pi i/n),  jk = (j^2 + k^2 - (k-j)^2)/2
 *        = c[k] sum_j (x[j] c[j]) conj(c[k-j]),   c[q] = e^(-+pi i q^2/n)
 *
 * The chirp is computed in double from q^2 mod 2n (exact, however large n
 * is), the convolution kernel's transform once per plan in double and
 * rounded to T.  The plan is immutable: its KISS FFT plan has a smooth
 * length (no generic butterfly and its scratch buffer), and each call
 * takes its scratch (work_size() elements) from the caller, so one plan
 * serves every thread.  Used by src/host/fft.cpp; header-only so that
 * bench/fft_bluestein_threshold.cpp measures the same code. */
#ifndef GM_HOST_BLUESTEIN_HH
#define GM_HOST_BLUESTEIN_HH

#include <kissfft.hh>

#include <complex>
#include <cstddef>
#include <vector>

namespace gm_fft {

/* the smallest 2^a 3^b 5^c >= n (n >= 1) */
inline std::size_t smooth_at_least(std::size_t n) {
  std::size_t best = 1;
  while (best < n) best *= 2;
  for (std::size_t p5 = 1; p5 < best; p5 *= 5)
    for (std::size_t p35 = p5; p35 < best; p35 *= 3) {
      std::size_t v = p35;
      while (v < n) v *= 2;
      if (v < best) best = v;
    }
  return best;
}

/* the largest prime factor of n (1 for n = 1) */
inline std::size_t largest_prime_factor(std::size_t n) {
  std::size_t big = 1;
  for (std::size_t p = 2; p * p <= n; p += p == 2 ? 1 : 2)
    while (n % p == 0) n /= p, big = p;
  return n > 1 ? n : big;
}

template <class T> class bluestein {
public:
  typedef std::complex<T> C;

  bluestein(std::size_t n, bool inverse) : n_(n), m_(smooth_at_least(2 * n - 1)), fft_(m_, false), chirp_(n), kernel_(m_) {
    const double pi = 3.14159265358979323846, s = inverse ? 1.0 : -1.0;
    std::vector<std::complex<double>> c(n), b(m_), kb(m_);
    /* q^2 mod 2n, stepped: (q+1)^2 = q^2 + 2q + 1, kept below 2n without overflow */
    std::size_t q2 = 0, n2 = 2 * n;
    for (std::size_t q = 0; q < n; q++) {
      c[q] = std::polar(1.0, s * pi * (double)q2 / (double)n);
      chirp_[q] = C((T)c[q].real(), (T)c[q].imag());
      std::size_t step = (2 * q + 1) % n2;
      q2 = q2 >= n2 - step ? q2 - (n2 - step) : q2 + step;
    }
    /* the kernel conj(c[q]) at q and m-q, its transform scaled by 1/m (the
     * convolution's inverse transform is unnormalized) */
    for (std::size_t q = 0; q < n; q++) {
      b[q] = std::conj(c[q]);
      if (q) b[m_ - q] = b[q];
    }
    kissfft<double>(m_, false).transform(b.data(), kb.data());
    for (std::size_t q = 0; q < m_; q++) {
      std::complex<double> v = kb[q] / (double)m_;
      kernel_[q] = C((T)v.real(), (T)v.imag());
    }
  }

  std::size_t size() const { return n_; }
  std::size_t conv_size() const { return m_; }
  std::size_t work_size() const { return 2 * m_; }
  /* c[q] for q < n, and the kernel's transform (m terms, scaled by 1/m):
   * for a caller that runs the convolution's transforms itself */
  const C *chirp() const { return chirp_.data(); }
  const C *kernel() const { return kernel_.data(); }

  /* out = the DFT of in (n elements each; they may not overlap work) */
  void transform(const C *in, C *out, C *work) const {
    C *a = work, *fa = work + m_;
    for (std::size_t j = 0; j < n_; j++) a[j] = in[j] * chirp_[j];
    for (std::size_t j = n_; j < m_; j++) a[j] = C(0, 0);
    fft_.transform(a, fa);
    /* the inverse transform of fa*K as conj(forward(conj(fa*K))) */
    for (std::size_t j = 0; j < m_; j++) fa[j] = std::conj(fa[j] * kernel_[j]);
    fft_.transform(fa, a);
    for (std::size_t k = 0; k < n_; k++) out[k] = std::conj(a[k]) * chirp_[k];
  }

private:
  std::size_t n_, m_;
  kissfft<T> fft_;
  std::vector<C> chirp_, kernel_;
};

} // namespace gm_fft

#endif
