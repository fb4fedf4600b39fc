// CUDA kernels of the strided elementwise engine and their extern "C"
// launchers (called through src/device/kernel_tables.h; the emulated
// device runs this file on the CPU model).  The iteration space
// (kernels/strided_ew.h, already coalesced) is walked as rows of its
// innermost axis: rows on y (grid and block), the elements of a row on x
// with adjacent threads on adjacent elements (coalesced when the inner
// stride is 1), a power-of-two bx so that short rows share a warp, and
// the per-operand offsets of a row computed once per row and thread, not
// per element.  A NULL input is a number operand (its value in s.scalar),
// read by value.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "int_ops.h"
#include "strided_ew.h"

namespace {

// The element functions of op OP (resolved at compile time), one per row
// of the op table (kernels/op_table.h) and kind it runs on: bc_fn for the
// float rows (T the inputs' type, R the result's), bc_cmp_fn for the
// comparisons (bool results), bc_int_fn for the integer and bool rows.
template <int OP, typename T> struct bc_fn;
#define GM_BC_FN(f, E, ...)                                                      \
  template <> struct bc_fn<GM_BC_##E, float> {                                   \
    typedef float T;                                                             \
    typedef float R;                                                             \
    __device__ static float apply(float a, float b) { return gm_bc_##f##_float(a, b); } \
  };                                                                             \
  template <> struct bc_fn<GM_BC_##E, double> {                                  \
    typedef double T;                                                            \
    typedef double R;                                                            \
    __device__ static double apply(double a, double b) { return gm_bc_##f##_double(a, b); } \
  };
GM_BINARY_OPS_OF(FLOAT, GM_BC_FN)
#undef GM_BC_FN
// complex: its BINARY rows (add, sub, cmul, cdiv), T the complex type
template <int OP, typename T> struct bc_cx_fn;
#define GM_BC_CX_FN_(f, E, ...)                                                                    \
  template <> struct bc_cx_fn<GM_BC_##E, gm_complex64> {                                           \
    typedef gm_complex64 T;                                                                        \
    typedef gm_complex64 R;                                                                        \
    __device__ static T apply(T a, T b) { return gm_bc_##f##_gm_complex64(a, b); }                 \
  };                                                                                               \
  template <> struct bc_cx_fn<GM_BC_##E, gm_complex128> {                                          \
    typedef gm_complex128 T;                                                                       \
    typedef gm_complex128 R;                                                                       \
    __device__ static T apply(T a, T b) { return gm_bc_##f##_gm_complex128(a, b); }                \
  };
GM_BINARY_OPS_OF(COMPLEX, GM_BC_CX_FN_)
#undef GM_BC_CX_FN_

// Overloads of strided_ew.h's per-type functions, so that a template can
// name them for any U: the comparisons on every ctype, the integer rows
// on the integers, the bool rows on bool.
#define GM_BC_OVL_(T, f, E, ...) \
  __device__ inline T bc_##f(T a, T b) { return gm_bc_##f##_##T(a, b); }
#define GM_BC_CMP_OVL_(T, f, E, ...) \
  __device__ inline bool bc_##f(T a, T b) { return gm_bc_##f##_##T(a, b); }
#define GM_BC_CMP_OVL_ROW_(T, ...) GM_BCAST_CMP_OPS_WITH(GM_BC_CMP_OVL_, T)
#define GM_BC_INT_OVL_ROW_(T, ...) GM_BINARY_OPS_OF_WITH(INT, GM_BC_OVL_, T)
#define GM_BC_BOOL_OVL_ROW_(T, ...) GM_BINARY_OPS_OF_WITH(BOOL, GM_BC_OVL_, T)
#define GM_BC_CX_CMP_OVL_ROW_(T, ...) GM_BCAST_CMP_OPS_OF_WITH(COMPLEX, GM_BC_CMP_OVL_, T)
GM_REAL_CTYPES(GM_BC_CMP_OVL_ROW_)
GM_COMPLEX_CTYPES(GM_BC_CX_CMP_OVL_ROW_)
GM_INTEGER_CTYPES(GM_BC_INT_OVL_ROW_)
GM_BOOL_CTYPES(GM_BC_BOOL_OVL_ROW_)
template <int OP, typename U> struct bc_cmp_fn;
#define GM_BC_CMP_FN_(f, E, ...)                                    \
  template <typename U> struct bc_cmp_fn<GM_BC_##E, U> {             \
    typedef U T;                                                     \
    typedef bool R;                                                  \
    __device__ static bool apply(U a, U b) { return bc_##f(a, b); }  \
  };
GM_BCAST_CMP_OPS(GM_BC_CMP_FN_)
#undef GM_BC_CMP_FN_
// (the bool rows are integer rows too: a bool-only row would need its own)
template <int OP, typename U> struct bc_int_fn;
#define GM_BC_INT_FN_(f, E, ...)                                     \
  template <typename U> struct bc_int_fn<GM_BC_##E, U> {              \
    typedef U T;                                                      \
    typedef U R;                                                      \
    __device__ static U apply(U a, U b) { return bc_##f(a, b); }      \
  };
GM_BINARY_OPS_OF(INT, GM_BC_INT_FN_)
#undef GM_BC_INT_FN_

// Offsets of every operand at the start of row r (the row-major index over
// the outer axes), unrolled over GM_STRIDED_MAX_OPS so that off[] stays in
// registers (constant indices); the outermost axis needs no division (r is
// below its extent there), so a 2-d space divides nothing.
__device__ __forceinline__ void row_offsets(const gm_strided &s, size_t row, int64_t off[GM_STRIDED_MAX_OPS]) {
  int64_t r = (int64_t)row;
#pragma unroll
  for (int k = 0; k < GM_STRIDED_MAX_OPS; k++) off[k] = 0;
  for (int d = s.ndim - 2; d >= 0; d--) {
    const int64_t n = s.dims[d], q = d > 0 ? r / n : 0, rem = r - q * n;
#pragma unroll
    for (int k = 0; k < GM_STRIDED_MAX_OPS; k++)
      if (k < s.nops) off[k] += rem * s.strides[k][d];
    r = q;
  }
}

// The walk of both kernels: rows of the innermost axis (ROWS_2D, a range
// launch: rows x len, len the innermost extent), each row's offsets
// computed when a thread reaches it.  Number operands (NULL inputs) are
// read by value.
#define STRIDED_SPACE(s, rows, len, in)                                                 \
  const int in = (s).ndim - 1;                                                          \
  const size_t len = (size_t)(s).dims[in], rows = (size_t)gm_strided_count(&(s)) / len; \
  int64_t off[GM_STRIDED_MAX_OPS] = {0}

// Fn: a bc_fn (one template argument, so launch sites need no comma)
template <class Fn>
__global__ void binary_kernel(const gm_strided s, typename Fn::R *o, const typename Fn::T *a,
                              const typename Fn::T *b) {
  typedef typename Fn::T T;
  typedef typename Fn::R R;
  // numbers convert into T as astype does (integers saturate: no UB)
  const T av = gm_sat_to<T>(s.scalar[1]), bv = gm_sat_to<T>(s.scalar[2]);
  STRIDED_SPACE(s, rows, len, in);
  const int64_t s0 = s.strides[0][in], s1 = s.strides[1][in], s2 = s.strides[2][in];
  // Unit steps (users' a + b, a * 0.9, a:gt(0) of contiguous mats): loops
  // of their own, chosen once per launch (a branch every thread takes
  // alike), which the emulated build vectorizes.  unit: 3 two mats, 1 a
  // mat and a number b, 0 any other walk (a number a: 1 - x).  Each loop
  // is compiled for every element function and arch clone: the two of
  // them tripled this file's emulated compile time, so no more.
  const int unit = s0 == 1 && a && s1 == 1 && (!b || s2 == 1) ? (b ? 3 : 1) : 0;
  R *orow = o;
  const T *arow = a, *brow = b;
#define STRIDED_ROWS                                                                                  \
  ROWS_2D_EACH_ROW(r, c, rows, len,                                                                   \
                   (row_offsets(s, r, off), orow = o + off[0], arow = a ? a + off[1] : a, brow = b ? b + off[2] : b))
  if (unit == 3) {
    STRIDED_ROWS orow[c] = Fn::apply(arow[c], brow[c]);
  } else if (unit == 1) {
    STRIDED_ROWS orow[c] = Fn::apply(arow[c], bv);
  } else {
    STRIDED_ROWS {
      const int64_t i = (int64_t)c;
      orow[i * s0] = Fn::apply(arow ? arow[i * s1] : av, brow ? brow[i * s2] : bv);
    }
  }
#undef STRIDED_ROWS
}

#define GM_BC_WHERE_OVL_(T, ...) \
  __device__ inline T where_fn(bool c, T a, T b) { return gm_bc_where_##T(c, a, b); }
GM_CTYPES(GM_BC_WHERE_OVL_)
#undef GM_BC_WHERE_OVL_

// cond is bool (the core converts any other cond first)
template <typename T>
__global__ void where_kernel(const gm_strided s, T *o, const bool *cond, const T *a, const T *b) {
  const bool cv = s.scalar[1] != 0;
  const T av = gm_sat_to<T>(s.scalar[2]), bv = gm_sat_to<T>(s.scalar[3]);
  STRIDED_SPACE(s, rows, len, in);
  const int64_t s0 = s.strides[0][in], s1 = s.strides[1][in], s2 = s.strides[2][in], s3 = s.strides[3][in];
  ROWS_2D_EACH_ROW(r, c, rows, len, row_offsets(s, r, off)) {
    const int64_t i = (int64_t)c;
    o[off[0] + i * s0] = where_fn(cond ? cond[off[1] + i * s1] : cv, a ? a[off[2] + i * s2] : av,
                                  b ? b[off[3] + i * s3] : bv);
  }
}

// Rows of the innermost axis on y (gm_launch_rows: a power-of-two bx
// covering a row, so short rows share a warp), a range launch on the CPU
// model (rows x len).
struct strided_geometry : gm_launch_rows {
  size_t rows, len;
  strided_geometry(const gm_strided *s, void *stream)
      : gm_launch_rows((size_t)gm_strided_count(s) / (size_t)s->dims[s->ndim - 1], (size_t)s->dims[s->ndim - 1],
                       stream),
        rows((size_t)gm_strided_count(s) / (size_t)s->dims[s->ndim - 1]),
        len((size_t)s->dims[s->ndim - 1]) {}
};

// One launch of binary_kernel for the element function Fn (a bc_fn,
// bc_int_fn, bc_cmp_fn or bc_cx_fn: its T the inputs', R the result's
// type): the one launcher of every kind's dispatcher below.
template <class Fn>
void launch_fn(const gm_strided *s, void *out, const void *a, const void *b, cudaStream_t st) {
  typedef typename Fn::T T;
  typedef typename Fn::R R;
  strided_geometry g(s, st);
  GM_LAUNCH_ROWS(binary_kernel<Fn>, g.grid, g.block, st, g.rows, g.len)(*s, (R *)out, (const T *)a, (const T *)b);
}

template <typename T>
int launch_binary(int op, const gm_strided *s, void *out, const void *a, const void *b, cudaStream_t st) {
  switch (op) {
#define GM_BC_CASE(f, E, ...) \
  case GM_BC_##E: launch_fn<bc_fn<GM_BC_##E, T> >(s, out, a, b, st); break;
    GM_BINARY_OPS_OF(FLOAT, GM_BC_CASE)
#undef GM_BC_CASE
    default: return 1; /* cudaErrorInvalidValue (the CPU model has no enum) */
  }
  return (int)cudaGetLastError();
}

// Integer mats: the BINARY rows that run on integers (the core refuses the rest)
template <typename T>
int launch_int_binary(int op, const gm_strided *s, void *out, const void *a, const void *b, cudaStream_t st) {
  switch (op) {
#define GM_BC_INT_CASE_(f, E, ...) \
  case GM_BC_##E: launch_fn<bc_int_fn<GM_BC_##E, T> >(s, out, a, b, st); break;
    GM_BINARY_OPS_OF(INT, GM_BC_INT_CASE_)
#undef GM_BC_INT_CASE_
    default: return 1; /* cudaErrorInvalidValue (the CPU model has no enum) */
  }
  return (int)cudaGetLastError();
}

// The comparisons: inputs of T, a bool out
template <typename T>
int launch_cmp(int op, const gm_strided *s, void *out, const void *a, const void *b, cudaStream_t st) {
  switch (op) {
#define GM_BC_CMP_CASE_(f, E, ...) \
  case GM_BC_##E: launch_fn<bc_cmp_fn<GM_BC_##E, T> >(s, out, a, b, st); break;
    GM_BCAST_CMP_OPS(GM_BC_CMP_CASE_)
#undef GM_BC_CMP_CASE_
    default: return 1; /* cudaErrorInvalidValue (the CPU model has no enum) */
  }
  return (int)cudaGetLastError();
}

// bool mats: the BINARY rows that run on bool, & | ~ (the core refuses the rest)
int launch_bool_binary(int op, const gm_strided *s, void *out, const void *a, const void *b, cudaStream_t st) {
  switch (op) {
#define GM_BC_BOOL_CASE_(f, E, ...) \
  case GM_BC_##E: launch_fn<bc_int_fn<GM_BC_##E, bool> >(s, out, a, b, st); break;
    GM_BINARY_OPS_OF(BOOL, GM_BC_BOOL_CASE_)
#undef GM_BC_BOOL_CASE_
    default: return 1; /* cudaErrorInvalidValue (the CPU model has no enum) */
  }
  return (int)cudaGetLastError();
}

// complex mats: the BINARY rows with kind C, and == / != (the core
// refuses the rest)
template <typename T>
int launch_cx_binary(int op, const gm_strided *s, void *out, const void *a, const void *b, cudaStream_t st) {
  switch (op) {
#define GM_BC_CX_CASE_(f, E, ...) \
  case GM_BC_##E: launch_fn<bc_cx_fn<GM_BC_##E, T> >(s, out, a, b, st); break;
    GM_BINARY_OPS_OF(COMPLEX, GM_BC_CX_CASE_)
#undef GM_BC_CX_CASE_
#define GM_BC_CX_CMP_CASE_(T_, f, E, ...) \
  case GM_BC_##E: launch_fn<bc_cmp_fn<GM_BC_##E, T> >(s, out, a, b, st); break;
    GM_BCAST_CMP_OPS_OF_WITH(COMPLEX, GM_BC_CX_CMP_CASE_, T)
#undef GM_BC_CX_CMP_CASE_
    default: return 1; /* cudaErrorInvalidValue (the CPU model has no enum) */
  }
  return (int)cudaGetLastError();
}

}  // namespace

extern "C" int gm_cuda_strided_binary(int ctype, int op, const gm_strided *s, void *out, const void *a,
                                      const void *b, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  cudaStream_t st = (cudaStream_t)stream;
  if (ctype == GM_COMPLEX64) return launch_cx_binary<gm_complex64>(op, s, out, a, b, st);
  if (ctype == GM_COMPLEX128) return launch_cx_binary<gm_complex128>(op, s, out, a, b, st);
  if (gm_bc_is_cmp(op)) {
#define LAUNCH(T) return launch_cmp<T>(op, s, out, a, b, st)
    switch (ctype) {
      GM_REAL_CTYPES_WITH(GM_CTYPE_DO_CASE_, LAUNCH)
      default: break;
    }
#undef LAUNCH
    return (int)cudaErrorInvalidValue;
  }
#define LAUNCH(T) return launch_binary<T>(op, s, out, a, b, st)
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
  switch (ctype) {
#define GM_INT_CASE_(T, E, ...) \
  case GM_##E: return launch_int_binary<T>(op, s, out, a, b, st);
    GM_INTEGER_CTYPES(GM_INT_CASE_)
#undef GM_INT_CASE_
    case GM_BOOL: return launch_bool_binary(op, s, out, a, b, st);
    default: break;
  }
  return (int)cudaErrorInvalidValue;
}

extern "C" int gm_cuda_strided_where(int ctype, const gm_strided *s, void *out, const void *cond, const void *a,
                                     const void *b, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  cudaStream_t st = (cudaStream_t)stream;
  strided_geometry g(s, st);
#define LAUNCH(T) GM_LAUNCH_ROWS(where_kernel<T>, g.grid, g.block, st, g.rows, g.len)(*s, (T *)(out), (const bool *)(cond), (const T *)(a), (const T *)(b))
  GM_ANY_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}
