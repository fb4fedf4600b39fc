/* Element types of mats: the single source of truth (X-macro).  Every
 * switch, name table and per-type instantiation is generated from
 * GM_CTYPES, so adding a type is one line here.  Macros and the enum
 * only: ctype.h (the core) and kernels/ (plain C, nvcc, and the emulated
 * device's C++) include it. */
#ifndef GM_CORE_CTYPE_LIST_H
#define GM_CORE_CTYPE_LIST_H

/* X(c type, enum suffix, Lua name, MGL header keyword,
 *   BLAS/LAPACK prefix (cblas_s..., LAPACKE_s...),
 *   cuBLAS/cuSOLVER prefix (cublasS..., cusolverDnS...),
 *   buffer element type suffix (GM_E_F32),
 *   C math function suffix (sqrtf, nextafterf),
 *   NumPy .npy dtype descr,
 *   strto suffix (strtof, strtod),
 *   significant decimal digits that always round-trip (FLT_DECIMAL_DIG),
 *   MPI datatype, NCCL datatype (tokens: only src/dist, which includes
 *   mpi.h and nccl.h, expands these columns))
 * Every X ends its parameters with `...`, so a column added at the end
 * breaks no use:
 *   #define X(T, E, ...) case GM_##E: ... */
#define GM_CTYPES(X) GM_CTYPES_WITH(GM_CTYPE_CALL_, X)

/* The list itself, passing a through first: X(a, T, E, ...) per row.
 * GM_CTYPES is every element type; GM_FLOAT_CTYPES the real floating
 * rows, the ones BLAS/LAPACK, cuBLAS/cuSOLVER and the C math library take:
 * code that only makes sense for those (matrix products, solvers, sqrt,
 * random fills) instantiates over GM_FLOAT_CTYPES, so a row of another
 * kind added to GM_CTYPES breaks none of it. */
#define GM_FLOAT_CTYPES_WITH(X, a)                        \
  X(a, float, FLOAT, "float", ":FLOAT", s, S, F32, f, "<f4", f, 9, MPI_FLOAT, ncclFloat)         \
  X(a, double, DOUBLE, "double", ":DOUBLE", d, D, F64, , "<f8", d, 17, MPI_DOUBLE, ncclDouble)
#define GM_CTYPES_WITH(X, a) GM_FLOAT_CTYPES_WITH(X, a)
#define GM_FLOAT_CTYPES(X) GM_FLOAT_CTYPES_WITH(GM_CTYPE_CALL_, X)
#define GM_CTYPE_CALL_(X, ...) X(__VA_ARGS__)

typedef enum gm_ctype {
#define GM_CTYPE_ENUM(t, E, ...) GM_##E,
  GM_CTYPES(GM_CTYPE_ENUM)
#undef GM_CTYPE_ENUM
  GM_N_CTYPES
} gm_ctype;

#endif
