// The emulated device's launches (kernels/cpu/emu_kernels.h) against
// CUDA's rules, with test kernels compiled exactly as
// kernels/*.cu are for the emulated device:
// - a configuration CUDA refuses (grid y or z over 65535, a block over
//   1024 threads, block z over 64, x or y over 1024, a zero dimension,
//   dynamic shared memory over 48 KiB) runs nothing and leaves
//   cudaErrorInvalidConfiguration for cudaGetLastError, which clears it;
//   plain, barrier and range launches alike;
// - GRID_STRIDE and ROWS_2D cover every item exactly once, in range
//   launches and in launches with threads;
// - with GPUMAT_EMULATED_GEOMETRY=exact (spec/c_api_spec.lua runs this test
//   both ways) a range launch runs its real blocks of threads: item i is
//   done by thread i mod (grid x block), as on a GPU.
// Exits 0 when every check passes and prints each failure.
#include "emu_kernels.h"

#include <stdio.h>
#include <string.h>

#include <vector>

static int failed;
#define CHECK(c)                                                              \
  do {                                                                        \
    if (!(c)) {                                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
      failed++;                                                               \
    }                                                                         \
  } while (0)

__global__ void cover_kernel(size_t n, int *hits) {
  GRID_STRIDE(i, n) { atomicAdd(&hits[i], 1); }
}

__global__ void cover_rows_kernel(size_t rows, size_t cols, int *hits) {
  ROWS_2D(r, c, rows, cols) { atomicAdd(&hits[r * cols + c], 1); }
}

// reads the thread index: only for launches with threads (exact mode)
__global__ void who_kernel(size_t n, unsigned *who) {
  GRID_STRIDE(i, n) { who[i] = blockIdx.x * blockDim.x + threadIdx.x; }
}

__global__ void count_kernel(int *hits) { atomicAdd(&hits[0], 1); }

__global__ void sync_kernel(int *hits) {
  atomicAdd(&hits[0], 1);
  __syncthreads();
}

static bool all_equal(const std::vector<int> &v, int want) {
  for (int x : v)
    if (x != want) return false;
  return true;
}

// Every refused configuration: nothing runs, the error is left once.
static void refused(void) {
  std::vector<int> hits(64, 0);
  const dim3 bad_grids[] = {dim3(1, 65536), dim3(1, 1, 65536), dim3(0)};
  for (dim3 g : bad_grids) {
    GM_LAUNCH(cover_kernel, g, 32, 0, nullptr)(hits.size(), hits.data());
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    CHECK(cudaGetLastError() == cudaSuccess);
    GM_LAUNCH_RANGE(cover_kernel, g, 32, nullptr, hits.size(), 1)(hits.size(), hits.data());
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  }
  const dim3 bad_blocks[] = {dim3(1025), dim3(1, 1025), dim3(1, 1, 65), dim3(32, 33), dim3(0)};
  for (dim3 b : bad_blocks) {
    GM_LAUNCH(cover_kernel, 1, b, 0, nullptr)(hits.size(), hits.data());
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    GM_LAUNCH_SYNC(sync_kernel, 1, b, 0, nullptr)(hits.data());
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    GM_LAUNCH_RANGE(cover_kernel, 1, b, nullptr, hits.size(), 1)(hits.size(), hits.data());
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  }
  GM_LAUNCH(cover_kernel, 1, 32, 48 * 1024 + 1, nullptr)(hits.size(), hits.data());
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(all_equal(hits, 0));
  // the limits themselves run: a 1024-thread block, z of 64, grid y of 65535
  GM_LAUNCH_SYNC(sync_kernel, 1, dim3(16, 1, 64), 48 * 1024, nullptr)(hits.data());
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(hits[0] == 1024);
  hits[0] = 0;
  GM_LAUNCH(count_kernel, dim3(1, 65535), 1, 0, nullptr)(hits.data() + 1);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(hits[1] == 65535);
}

// Items covered once, whatever the geometry (grid-stride loops).
static void coverage(void) {
  const size_t n = 1000;
  const dim3 grids[] = {dim3(3), dim3(100), dim3(1)}, blocks[] = {dim3(32), dim3(256), dim3(7)};
  for (int k = 0; k < 3; k++) {
    std::vector<int> a(n, 0), b(n, 0);
    GM_LAUNCH_RANGE(cover_kernel, grids[k], blocks[k], nullptr, n, 1)(n, a.data());
    GM_LAUNCH(cover_kernel, grids[k], blocks[k], 0, nullptr)(n, b.data()); // with threads: CUDA's math
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(all_equal(a, 1));
    CHECK(all_equal(b, 1));
  }
  const size_t rows = 37, cols = 11;
  std::vector<int> r1(rows * cols, 0), r2(rows * cols, 0);
  GM_LAUNCH_ROWS(cover_rows_kernel, dim3(2, 3), dim3(4, 8), nullptr, rows, cols)(rows, cols, r1.data());
  gm_launch_rows l(rows, cols, nullptr);
  GM_LAUNCH_ROWS(cover_rows_kernel, l.grid, l.block, nullptr, rows, cols)(rows, cols, r2.data());
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(all_equal(r1, 1));
  CHECK(all_equal(r2, 1));
  // big enough to be cut into chunks over the cores: chunks start and end
  // inside rows (three long rows), or cut the only row
  for (size_t nr : {(size_t)3, (size_t)1}) {
    const size_t nc = 300007; // over GM_PAR_THRESHOLD (par.c) even as one row
    std::vector<int> r3(nr * nc, 0);
    gm_launch_rows l3(nr, nc, nullptr);
    GM_LAUNCH_ROWS(cover_rows_kernel, l3.grid, l3.block, nullptr, nr, nc)(nr, nc, r3.data());
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(all_equal(r3, 1));
  }
}

// In the exact mode a range launch runs CUDA's threads.
static void exact(void) {
  const size_t n = 1000;
  std::vector<unsigned> who(n, ~0u);
  GM_LAUNCH_RANGE(who_kernel, 3, 32, nullptr, n, 1)(n, who.data());
  CHECK(cudaGetLastError() == cudaSuccess);
  for (size_t i = 0; i < n; i++) CHECK(who[i] == i % 96);
}

int main(void) {
  refused();
  coverage();
  const char *g = getenv("GPUMAT_EMULATED_GEOMETRY");
  bool want_exact = g && strcmp(g, "exact") == 0;
  CHECK(gm_emu_exact_geometry() == want_exact);
  if (want_exact) exact();
  if (failed) return 1;
  printf("emu_launch_test: ok (%s geometry)\n", want_exact ? "exact" : "range");
  return 0;
}
