// CUDA kernels of the strided elementwise engine and their extern "C"
// launchers (called through src/device/kernel_tables.h; the emulated
// device runs this file on the CPU model).  The iteration space
// (kernels/strided_ew.h, already coalesced) is walked as rows of its
// innermost axis: rows on y (grid and block), the elements of a row on x
// with adjacent threads on adjacent elements (coalesced when the inner
// stride is 1), so the per-operand offsets of a row are computed once per
// row and thread, not per element.  A NULL input is a number operand (its value in
// s.scalar), read through a register with stride 0.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "strided_ew.h"

namespace {

// the element function of op OP (resolved at compile time)
template <int OP, typename T> struct bc_fn;
#define GM_BC_FN(E, f, name)                                                     \
  template <> struct bc_fn<GM_BC_##E, float> {                                   \
    typedef float T;                                                             \
    __device__ static float apply(float a, float b) { return gm_bc_##f##_float(a, b); } \
  };                                                                             \
  template <> struct bc_fn<GM_BC_##E, double> {                                  \
    typedef double T;                                                            \
    __device__ static double apply(double a, double b) { return gm_bc_##f##_double(a, b); } \
  };
GM_BCAST_OPS(GM_BC_FN)
#undef GM_BC_FN

#define STRIDED_ROWS(r, c, s, last, rows, len)                              \
  const int last = (s).ndim - 1;                                            \
  const int64_t len = (s).dims[last], rows = gm_strided_count(&(s)) / len; \
  for (int64_t r = blockIdx.y * (int64_t)blockDim.y + threadIdx.y; r < rows; r += (int64_t)gridDim.y * blockDim.y) \
    for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < len; c += (int64_t)blockDim.x * gridDim.x)

// Fn: a bc_fn (one template argument, so launch sites need no comma)
template <class Fn>
__global__ void binary_kernel(const gm_strided s, typename Fn::T *o, const typename Fn::T *a,
                              const typename Fn::T *b) {
  typedef typename Fn::T T;
  const T av = (T)s.scalar[1], bv = (T)s.scalar[2];
  const T *pa = a ? a : &av, *pb = b ? b : &bv;
  int64_t off[GM_STRIDED_MAX_OPS];
  int64_t row = -1;
  STRIDED_ROWS(r, c, s, last, rows, len) {
    if (r != row) {
      gm_strided_ew_offsets(&s, r * len, off);
      row = r;
    }
    o[off[0] + c * s.strides[0][last]] =
        Fn::apply(pa[off[1] + c * s.strides[1][last]], pb[off[2] + c * s.strides[2][last]]);
  }
}

__device__ inline float where_fn(float c, float a, float b) { return gm_bc_where_float(c, a, b); }
__device__ inline double where_fn(double c, double a, double b) { return gm_bc_where_double(c, a, b); }

template <typename T>
__global__ void where_kernel(const gm_strided s, T *o, const T *cond, const T *a, const T *b) {
  const T cv = (T)s.scalar[1], av = (T)s.scalar[2], bv = (T)s.scalar[3];
  const T *pc = cond ? cond : &cv, *pa = a ? a : &av, *pb = b ? b : &bv;
  int64_t off[GM_STRIDED_MAX_OPS];
  int64_t row = -1;
  STRIDED_ROWS(r, c, s, last, rows, len) {
    if (r != row) {
      gm_strided_ew_offsets(&s, r * len, off);
      row = r;
    }
    o[off[0] + c * s.strides[0][last]] = where_fn(pc[off[1] + c * s.strides[1][last]],
                                                  pa[off[2] + c * s.strides[2][last]],
                                                  pb[off[3] + c * s.strides[3][last]]);
  }
}

// Rows of the innermost axis on y, about 1024 blocks in all.  A short
// innermost axis gets whole warps of x (not 256 threads for 3 elements)
// and several rows per block on y.
struct strided_geometry {
  dim3 grid, block;
  strided_geometry(const gm_strided *s) {
    const size_t len = (size_t)s->dims[s->ndim - 1], rows = (size_t)gm_strided_count(s) / len;
    const size_t tx = len >= GM_MAX_BLOCK ? GM_MAX_BLOCK : (len + GM_WARP_SIZE - 1) / GM_WARP_SIZE * GM_WARP_SIZE;
    const size_t ty = GM_MAX_BLOCK / tx;
    block = dim3((unsigned)tx, (unsigned)ty);
    const size_t by = (rows + ty - 1) / ty, bx = (len + tx - 1) / tx;
    grid.y = gm_spread(by, 1, by);
    grid.x = gm_spread(1024, grid.y, bx);
  }
};

template <int OP, typename T>
void launch_op(const gm_strided *s, void *out, const void *a, const void *b, cudaStream_t st) {
  typedef bc_fn<OP, T> Fn;
  strided_geometry g(s);
  GM_LAUNCH(binary_kernel<Fn>, g.grid, g.block, 0, st)(*s, (T *)out, (const T *)a, (const T *)b);
}

template <typename T>
int launch_binary(int op, const gm_strided *s, void *out, const void *a, const void *b, cudaStream_t st) {
  switch (op) {
#define GM_BC_CASE(E, f, name) \
  case GM_BC_##E: launch_op<GM_BC_##E, T>(s, out, a, b, st); break;
    GM_BCAST_OPS(GM_BC_CASE)
#undef GM_BC_CASE
    default: return 1; /* cudaErrorInvalidValue (the CPU model has no enum) */
  }
  return (int)cudaGetLastError();
}

}  // namespace

extern "C" int gm_cuda_strided_binary(int ctype, int op, const gm_strided *s, void *out, const void *a,
                                      const void *b, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
#define LAUNCH(T) return launch_binary<T>(op, s, out, a, b, st)
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
  return (int)cudaErrorInvalidValue;
}

extern "C" int gm_cuda_strided_where(int ctype, const gm_strided *s, void *out, const void *cond, const void *a,
                                     const void *b, void *stream) {
  strided_geometry g(s);
  cudaStream_t st = (cudaStream_t)stream;
#define LAUNCH(T) GM_LAUNCH(where_kernel<T>, g.grid, g.block, 0, st)(*s, (T *)(out), (const T *)(cond), (const T *)(a), (const T *)(b))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}
