/* Where Bluestein's algorithm (src/host/bluestein.hh) overtakes KISS FFT's
 * generic O(n·p) butterfly: for lengths n = p·2^k (p prime) the time of one
 * line's transform both ways, in float and double, one thread.  The
 * threshold in src/host/fft.cpp (use_bluestein) comes from this table.
 *
 *   g++ -O3 -fno-math-errno -fno-trapping-math -fcx-limited-range \
 *     -I/usr/include/kissfft -Isrc/host bench/fft_bluestein_threshold.cpp \
 *     -o /tmp/fft_bluestein_threshold && /tmp/fft_bluestein_threshold
 */
#include <kissfft.hh>

#include <chrono>
#include <cstdio>
#include <vector>

#include "bluestein.hh"

template <class F> static double seconds_per_call(F f) {
  using clk = std::chrono::steady_clock;
  size_t reps = 1;
  for (;;) {
    auto t0 = clk::now();
    for (size_t r = 0; r < reps; r++) f();
    double s = std::chrono::duration<double>(clk::now() - t0).count();
    if (s > 0.05) {
      double best = s / (double)reps; /* best of three rounds of reps */
      for (int round = 0; round < 2; round++) {
        t0 = clk::now();
        for (size_t r = 0; r < reps; r++) f();
        double t = std::chrono::duration<double>(clk::now() - t0).count() / (double)reps;
        if (t < best) best = t;
      }
      return best;
    }
    reps *= 2;
  }
}

template <class T> static void row(size_t p, size_t mult) {
  typedef std::complex<T> C;
  size_t n = p * mult;
  std::vector<C> x(n), y(n);
  for (size_t i = 0; i < n; i++) x[i] = C((T)(i % 7) - 3, (T)(i % 5) - 2);
  kissfft<T> kiss(n, false);
  gm_fft::bluestein<T> blue(n, false);
  std::vector<C> work(blue.work_size());
  double tk = seconds_per_call([&] { kiss.transform(x.data(), y.data()); });
  double tb = seconds_per_call([&] { blue.transform(x.data(), y.data(), work.data()); });
  std::printf("%-6s p=%-6zu n=%-8zu m=%-8zu kiss %10.2f us  bluestein %10.2f us  kiss/bluestein %6.2f\n",
              sizeof(T) == 4 ? "float" : "double", p, n, blue.conv_size(), tk * 1e6, tb * 1e6, tk / tb);
}

int main() {
  const size_t primes[] = {7, 11, 13, 17, 23, 31, 37, 47, 61, 79, 97, 127, 163, 257, 509, 1031};
  const size_t mults[] = {1, 64, 4096};
  for (size_t mult : mults)
    for (size_t p : primes) {
      if (p * mult > ((size_t)1 << 20)) continue; /* KISS FFT's O(n·p): minutes */
      row<float>(p, mult);
      row<double>(p, mult);
    }
  return 0;
}
