// The gather/scatter engine of the indexing forms on the device
// (index.h): a gather moves elements by their offsets, one thread per
// result element, by element size (it only copies bits); a scatter runs
// one thread per written element (a run of index.h), so no two threads
// write one element and no atomics are needed: duplicates combine in
// index order, the same bits as the host for every ctype and mode.
// Range launches (no barriers, no thread reads another's result).
// Stream compaction (compact.h): one thread per chunk counts, one thread
// turns the counts into offsets, one thread per chunk writes its
// selected elements; only the count comes back to the host.
// Launchers return the cudaError_t of the launch.
#include <cuda_runtime.h>

#include "compact.h"
#include "index.h"
#include "launch_cuda.cuh"

namespace {

template <typename U>
__global__ void index_gather_kernel(size_t n, const U *x, const int64_t *off, U *y) {
  GRID_STRIDE(i, n) { y[i] = x[off[i]]; }
}

#define GM_CU_INDEX(T, ...)                                                                              \
  __device__ void scatter_run(int mode, size_t r, const int64_t *dst, const int64_t *start,               \
                              const int64_t *spos, const T *src, T *y) {                                  \
    gm_index_scatter_run_##T(mode, r, dst, start, spos, src, y);                                          \
  }
GM_REAL_CTYPES(GM_CU_INDEX)
GM_COMPLEX_CTYPES(GM_CU_INDEX)
GM_HALF_CTYPES(GM_CU_INDEX)
#undef GM_CU_INDEX

template <typename T>
__global__ void index_scatter_kernel(int mode, size_t runs, const int64_t *dst, const int64_t *start,
                                     const int64_t *spos, const T *src, T *y) {
  GRID_STRIDE(r, runs) { scatter_run(mode, r, dst, start, spos, src, y); }
}

#define GM_CU_COMPACT(T, E, ...)                                                                      \
  __device__ int64_t compact_count(size_t a, size_t b, const T *m) { return gm_compact_count_##E(a, b, m); } \
  __device__ void compact_coords(size_t a, size_t b, const T *m, int64_t o, const gm_compact_dims *d, int64_t *c) { \
    gm_compact_coords_##E(a, b, m, o, d, c);                                                          \
  }
GM_REAL_CTYPES(GM_CU_COMPACT)
#undef GM_CU_COMPACT
// The element units a bool mask's values move as, by size (compact.h's
// gm_compact_values_U and gm_compact_expand_U): 16 bytes (complex128)
// as the struct.  SIZE_CASE: a switch case on esize launching LAUNCH(U).
#define UNITS(X) X(uint8_t) X(uint16_t) X(uint32_t) X(uint64_t) X(gm_complex128)
#define SIZE_CASE(U) \
  case sizeof(U):    \
    LAUNCH(U);       \
    break;
#define GM_CU_UNIT(U)                                                                                 \
  __device__ void compact_values(size_t a, size_t b, const bool *m, int64_t o, int64_t hi, const U *x, U *y) { \
    gm_compact_values_##U(a, b, m, o, hi, x, y);                                                      \
  }                                                                                                   \
  __device__ void compact_expand(size_t a, size_t b, const bool *m, int64_t o, int64_t hi, const U *src, U *x) { \
    gm_compact_expand_##U(a, b, m, o, hi, src, x);                                                    \
  }
UNITS(GM_CU_UNIT)
#undef GM_CU_UNIT

template <typename T>
__global__ void compact_count_kernel(size_t n, size_t chunk, const T *m, int64_t *cnt) {
  GRID_STRIDE(k, gm_scan_nchunks(n, chunk)) { cnt[k] = compact_count(k * chunk, gm_scan_chunk_end(k, n, chunk), m); }
}

__global__ void compact_offsets_kernel(size_t nc, int64_t *cnt) {
  GRID_STRIDE(i, 1) { gm_compact_offsets(nc, cnt); }
}

template <typename U>
__global__ void compact_values_kernel(size_t n, size_t chunk, const bool *m, const int64_t *cnt, const U *x, U *y) {
  GRID_STRIDE(k, gm_scan_nchunks(n, chunk)) {
    compact_values(k * chunk, gm_scan_chunk_end(k, n, chunk), m, cnt[k], cnt[k + 1], x, y);
  }
}

template <typename U>
__global__ void compact_expand_kernel(size_t n, size_t chunk, const bool *m, const int64_t *cnt, const U *src, U *x) {
  GRID_STRIDE(k, gm_scan_nchunks(n, chunk)) {
    compact_expand(k * chunk, gm_scan_chunk_end(k, n, chunk), m, cnt[k], cnt[k + 1], src, x);
  }
}

template <typename T>
__global__ void compact_coords_kernel(size_t n, size_t chunk, const T *m, const int64_t *cnt, gm_compact_dims d,
                                      int64_t *c) {
  GRID_STRIDE(k, gm_scan_nchunks(n, chunk)) {
    compact_coords(k * chunk, gm_scan_chunk_end(k, n, chunk), m, cnt[k], &d, c);
  }
}

// Pass 3: the values by element size (bool masks), the coordinates by m's ctype.
int compact_write(int mt, size_t n, size_t chunk, const void *m, const int64_t *cnt, size_t esize, const void *x,
                  void *y, const gm_compact_dims *d, int64_t *c, cudaStream_t s) {
  const size_t nc = gm_scan_nchunks(n, chunk);
  gm_launch l(nc, s);
#define LAUNCH(U)                                                                                        \
  GM_LAUNCH_RANGE(compact_values_kernel<U>, l.grid, l.block, l.s, nc, 2 * chunk)(n, chunk, (const bool *)m, cnt, \
                                                                                 (const U *)x, (U *)y)
  if (y) switch (esize) {
      UNITS(SIZE_CASE)
      default: return (int)cudaErrorInvalidValue;
    }
#undef LAUNCH
#define LAUNCH(T) \
  GM_LAUNCH_RANGE(compact_coords_kernel<T>, l.grid, l.block, l.s, nc, 2 * chunk)(n, chunk, (const T *)m, cnt, *d, c)
  if (c) switch (mt) {
      GM_REAL_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
      default:
        return (int)cudaErrorInvalidValue;
    }
#undef LAUNCH
  return (int)cudaGetLastError();
}

}  // namespace

extern "C" int gm_cuda_index_gather(int ctype, size_t n, const void *x, const int64_t *off, void *y,
                                    const gm_launch_ctx *lc) {
  gm_launch l(n, lc->stream);
#define LAUNCH(U) \
  GM_LAUNCH_RANGE(index_gather_kernel<U>, l.grid, l.block, l.s, n, 1)(n, (const U *)x, off, (U *)y)
  switch (gm_ctype_bytes(ctype)) {
    UNITS(SIZE_CASE)
    default:
      return (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_index_scatter(int ctype, int mode, size_t runs, const int64_t *dst, const int64_t *start,
                                     const int64_t *spos, const void *src, void *y, const gm_launch_ctx *lc) {
  gm_launch l(runs, lc->stream);
#define LAUNCH(T)                                                                                 \
  GM_LAUNCH_RANGE(index_scatter_kernel<T>, l.grid, l.block, l.s, runs, 2)(mode, runs, dst, start, spos, \
                                                                          (const T *)src, (T *)y)
  switch (ctype) {
    GM_REAL_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    GM_COMPLEX_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    GM_HALF_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    default:
      return (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
  return (int)cudaGetLastError();
}

// The passes both directions share: the counts per chunk of m (type mt)
// into cnt[0, nc), then their offsets (cnt[nc] the total).
static int count_offsets(int mt, size_t n, size_t chunk, const void *m, int64_t *cnt, cudaStream_t s) {
  const size_t nc = gm_scan_nchunks(n, chunk);
  gm_launch l(nc, s), one(1, s);
#define LAUNCH(T) \
  GM_LAUNCH_RANGE(compact_count_kernel<T>, l.grid, l.block, l.s, nc, chunk)(n, chunk, (const T *)m, cnt)
  switch (mt) {
    GM_REAL_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
    default:
      return (int)cudaErrorInvalidValue;
  }
#undef LAUNCH
  GM_LAUNCH_RANGE(compact_offsets_kernel, one.grid, one.block, one.s, 1, nc)(nc, cnt);
  return (int)cudaGetLastError();
}

// Counts per chunk and their offsets in a scratch of nc + 1 int64; then
// the total to the host (count mode) or pass 3.
extern "C" int gm_cuda_index_compact(int mt, size_t n, size_t chunk, const void *m, size_t esize, const void *x,
                                     void *y, const gm_compact_dims *d, int64_t *c, size_t *count,
                                     const gm_launch_ctx *lc) {
  const size_t nc = gm_scan_nchunks(n, chunk);
  cudaStream_t s = (cudaStream_t)lc->stream;
  int64_t *cnt = NULL;
  int err = gm_scratch_alloc(lc, (nc + 1) * sizeof(int64_t), (void **)&cnt);
  if (err != 0) return err;
  err = count_offsets(mt, n, chunk, m, cnt, s);
  int64_t total = 0;
  if (err == 0 && !y && !c) err = (int)cudaMemcpyAsync(&total, cnt + nc, sizeof total, cudaMemcpyDeviceToHost, s);
  else if (err == 0) err = compact_write(mt, n, chunk, m, cnt, esize, x, y, d, c, s);
  gm_scratch_free(lc, cnt);
  cudaError_t sync = !y && !c ? cudaStreamSynchronize(s) : cudaSuccess;
  if (err == 0) err = (int)sync;
  if (err == 0 && !y && !c) *count = (size_t)total;
  return err;
}

// The compaction's inverse (masked_scatter_): the bool m's counts per
// chunk and their offsets, then each chunk writes src's values from its
// offset into x where m is true.
extern "C" int gm_cuda_index_expand(size_t n, size_t chunk, const void *m, size_t esize, const void *src, void *x,
                                    const gm_launch_ctx *lc) {
  const size_t nc = gm_scan_nchunks(n, chunk);
  cudaStream_t s = (cudaStream_t)lc->stream;
  int64_t *cnt = NULL;
  int err = gm_scratch_alloc(lc, (nc + 1) * sizeof(int64_t), (void **)&cnt);
  if (err != 0) return err;
  err = count_offsets(GM_BOOL, n, chunk, m, cnt, s);
  gm_launch l(nc, s);
#define LAUNCH(U)                                                                                        \
  GM_LAUNCH_RANGE(compact_expand_kernel<U>, l.grid, l.block, l.s, nc, 2 * chunk)(n, chunk, (const bool *)m, cnt, \
                                                                                 (const U *)src, (U *)x)
  if (err == 0) switch (esize) {
      UNITS(SIZE_CASE)
      default: err = (int)cudaErrorInvalidValue;
    }
#undef LAUNCH
  if (err == 0) err = (int)cudaGetLastError();
  gm_scratch_free(lc, cnt);
  return err;
}
