// CUDA kernels of the strided fill and of the two BLAS cases the devices
// do not leave to the BLAS library, and their extern "C" launchers:
//  - scal by 0: x[i*incx] *= 0 as an IEEE product (NaN and Inf give NaN,
//    as on the host), not whatever the library does for alpha == 0;
//  - geam with beta 0: C := alpha op(A), a scaled copy or transpose that
//    never reads B.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "int_ops.h"

template <typename T>
__global__ void gm_fill_kernel(T *x, size_t n, size_t incx, T alpha) {
  GRID_STRIDE(i, n) x[i * incx] = alpha;
}

template <typename T>
__global__ void gm_scal_kernel(T *x, size_t n, size_t incx, T alpha) {
  GRID_STRIDE(i, n) x[i * incx] *= alpha;
}

// Column-major C (m x n, ldc) := alpha op(A): columns j on the 2-d grid's
// rows, elements i of a column along x (stores coalesced; a transposed A
// is read with stride lda: on a GPU only the scaled copy comes here, the
// transpose takes gm_transpose_kernel below).
template <typename T>
__global__ void gm_geam0_kernel(int trans, size_t m, size_t n, T alpha, const T *a, size_t lda, T *c, size_t ldc) {
  ROWS_2D(j, i, n, m) c[j * ldc + i] = alpha * (trans ? a[i * lda + j] : a[j * lda + i]);
}

// Column-major C (m x n, ldc) := alpha A^T with A (n x m, lda), through a
// 32 x 33 tile in shared memory (the pad keeps the column reads of the
// tile free of bank conflicts): a block of 32 x 8 threads reads a tile of
// A with adjacent threads on adjacent elements of A's columns, and writes
// it transposed with adjacent threads on adjacent elements of C's columns,
// so both sides are coalesced (the plain kernel above reads A with a
// stride of lda across a warp).  Tiles over grid x (C's rows) and y (C's
// columns), grid-stride.
#define GM_TILE 32
#define GM_TILE_ROWS 8
template <typename T>
__global__ void gm_transpose_kernel(size_t m, size_t n, T alpha, const T *a, size_t lda, T *c, size_t ldc) {
  __shared__ T tile[GM_TILE][GM_TILE + 1];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  for (size_t j0 = blockIdx.y * (size_t)GM_TILE; j0 < n; j0 += (size_t)gridDim.y * GM_TILE)
    for (size_t i0 = blockIdx.x * (size_t)GM_TILE; i0 < m; i0 += (size_t)gridDim.x * GM_TILE) {
      for (unsigned r = ty; r < GM_TILE; r += GM_TILE_ROWS) // A's column i0 + r, rows j0 + tx
        if (i0 + r < m && j0 + tx < n) tile[r][tx] = a[(i0 + r) * lda + j0 + tx];
      __syncthreads();
      for (unsigned r = ty; r < GM_TILE; r += GM_TILE_ROWS) // C's column j0 + r, rows i0 + tx
        if (i0 + tx < m && j0 + r < n) c[(j0 + r) * ldc + i0 + tx] = alpha * tile[tx][r];
      __syncthreads(); // the tile is refilled for the next pair of tiles
    }
}

// The tiled transpose's geometry: 32 x 8 threads, a block per tile up to
// 65535 tiles a side.  The CPU model takes the plain kernel above 64K
// elements (a fiber per CUDA thread and two barriers per tile cost more
// than the copy there); smaller transposes run the tiles, so the specs'
// shapes check its index math and barriers.
#define GM_TRANSPOSE_CPU_TILES 65536
static int transpose(int ctype, size_t m, size_t n, double alpha, const void *a, size_t lda, void *c, size_t ldc,
                     void *stream) {
  const size_t tm = (m + GM_TILE - 1) / GM_TILE, tn = (n + GM_TILE - 1) / GM_TILE;
  const dim3 grid((unsigned)(tm < GM_MAX_GRID ? tm : GM_MAX_GRID), (unsigned)(tn < GM_MAX_GRID ? tn : GM_MAX_GRID));
  const dim3 block(GM_TILE, GM_TILE_ROWS);
  cudaStream_t s = (cudaStream_t)stream;
#define LAUNCH(T) GM_LAUNCH_SYNC(gm_transpose_kernel<T>, grid, block, 0, s)(m, n, (T)alpha, (const T *)(a), lda, (T *)(c), ldc)
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_fill(int ctype, size_t n, double alpha, void *x, size_t incx, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(n, stream);
// alpha converted as astype does (integers saturate: kernels/int_ops.h)
#define LAUNCH(T) GM_LAUNCH_RANGE(gm_fill_kernel<T>, l.grid, l.block, l.s, n, 1)((T *)(x), n, incx, gm_sat_##T(alpha))
  GM_ANY_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_scal(int ctype, size_t n, double alpha, void *x, size_t incx, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(n, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(gm_scal_kernel<T>, l.grid, l.block, l.s, n, 1)((T *)(x), n, incx, (T)alpha)
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_geam0(int ctype, int trans, size_t m, size_t n, double alpha, const void *a, size_t lda,
                             void *c, size_t ldc, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  if (m == 0 || n == 0) return 0;
  if (trans && (!lc->cpu_model || m * n <= GM_TRANSPOSE_CPU_TILES)) return transpose(ctype, m, n, alpha, a, lda, c, ldc, stream);
  gm_launch_rows l(n, m, stream);
#define LAUNCH(T) GM_LAUNCH_ROWS(gm_geam0_kernel<T>, l.grid, l.block, l.s, n, m)(trans, m, n, (T)alpha, (const T *)(a), lda, (T *)(c), ldc)
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}
