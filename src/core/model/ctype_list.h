/* Element types of mats: the single source of truth (X-macro).  Every
 * switch, name table and per-type instantiation is generated from
 * GM_CTYPES, so adding a type is one line here.  Macros and the enum
 * only: ctype.h (the core) and kernels/ (plain C, nvcc, and the emulated
 * device's C++) include it. */
#ifndef GM_CORE_CTYPE_LIST_H
#define GM_CORE_CTYPE_LIST_H

/* The C types the rows name: bool is a keyword in C++ (and CUDA), a macro
 * of <stdbool.h> in C before C23. */
#ifndef __CUDACC_RTC__
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif
#endif

/* The complex element types: plain structs of two reals (real part
 * first, as C99's _Complex, std::complex, cuComplex and NumPy lay them
 * out), not C99 _Complex, which C++ and nvcc do not share with C.  The
 * arithmetic on them is kernels/complex_ops.h's (GM_HD functions). */
#ifndef GM_COMPLEX_TYPES_DEFINED_
#define GM_COMPLEX_TYPES_DEFINED_
typedef struct gm_complex64 {
  float re, im;
} gm_complex64;
typedef struct gm_complex128 {
  double re, im;
} gm_complex128;
#endif

/* The 16-bit floating element types: storage types (IEEE binary16 and
 * bfloat16, the upper half of a float32), plain structs of their bits so
 * that C, C++ and nvcc share them and no arithmetic applies to them by
 * accident.  Every computation on them loads them as float32 and rounds
 * the result to nearest even on store (kernels/half_ops.h). */
#ifndef GM_HALF_TYPES_DEFINED_
#define GM_HALF_TYPES_DEFINED_
typedef struct gm_float16 {
  uint16_t bits;
} gm_float16;
typedef struct gm_bfloat16 {
  uint16_t bits;
} gm_bfloat16;
#endif

/* X(c type, enum suffix, Lua name (m:ctype()), MGL header keyword ("" when
 *   MGL's file format has none: io.c refuses those),
 *   BLAS/LAPACK prefix (cblas_s..., LAPACKE_s...),
 *   cuBLAS/cuSOLVER prefix (cublasS..., cusolverDnS...),
 *   buffer element type suffix (GM_E_F32),
 *   C math function suffix (sqrtf, nextafterf),
 *   NumPy .npy dtype descr,
 *   strto suffix (strtof, strtod),
 *   significant decimal digits that always round-trip (FLT_DECIMAL_DIG;
 *   0 for integers: printed exactly),
 *   MPI datatype, NCCL datatype (tokens: only src/dist, which includes
 *   mpi.h and nccl.h, expands these columns; ncclNumTypes where NCCL has
 *   none, which NCCL rejects),
 *   kind (GM_KIND_FLOAT, GM_KIND_BOOL, GM_KIND_INT, GM_KIND_UINT,
 *   GM_KIND_COMPLEX),
 *   the array standard's dtype name (m:dtype()),
 *   the C type's name as a string (buffers accept it: "int32_t", 0),
 *   the relative tolerance of this type's computed float results (of a
 *   complex type: of each part, relative to the modulus) against
 *   the exact value (0: exact types): what the specs compare with (Lua
 *   reads it as gpumat.core._ctypes[name].tol) and the core's "equal
 *   within rounding" (gm_ctype_tolerance))
 * Every X ends its parameters with `...`, so a column added at the end
 * breaks no use:
 *   #define X(T, E, ...) case GM_##E: ... */
#define GM_CTYPES(X) GM_CTYPES_WITH(GM_CTYPE_CALL_, X)

/* The list itself, passing a through first: X(a, T, E, ...) per row, in
 * sublists by kind.  GM_CTYPES is every element type; GM_REAL_CTYPES
 * every one but the complex ones (GM_COMPLEX_CTYPES, last, so a table
 * indexed by ctype and initialized from GM_REAL_CTYPES in order leaves
 * the complex entries NULL): code that orders, compares or computes on
 * reals (sorts, radix keys, reductions, where's and the comparisons'
 * loops) instantiates over GM_REAL_CTYPES and the core refuses complex
 * ctypes before it dispatches (gm_op_takes, gm_check_real_ctype);
 * GM_FLOAT_CTYPES the
 * real floating rows, the ones BLAS/LAPACK, cuBLAS/cuSOLVER and the C math
 * library take: code that only makes sense for those (matrix products,
 * solvers, sqrt, random fills) instantiates over GM_FLOAT_CTYPES, and the
 * core refuses other ctypes before it dispatches (gm_ctype_is_float).
 * GM_INTEGER_CTYPES are the signed and unsigned integers, GM_BOOL_CTYPES
 * bool.  float and double come first: include/gpumat.h spells their
 * numbers (0, 1).  bool is C's bool (one byte, 0 or 1 on every ABI this
 * builds for): a distinct C type, so per-type names (fill_bool) do not
 * clash with uint8_t's, and converting to it is x != 0 in C, C++ and
 * CUDA alike, which is NumPy's astype(bool). */
#define GM_FLOAT_CTYPES_WITH(X, a)                                                                     \
  X(a, float, FLOAT, "float", ":FLOAT", s, S, F32, f, "<f4", f, 9, MPI_FLOAT, ncclFloat, GM_KIND_FLOAT, \
    "float32", "float", 1e-5)                                                                                \
  X(a, double, DOUBLE, "double", ":DOUBLE", d, D, F64, , "<f8", d, 17, MPI_DOUBLE, ncclDouble,         \
    GM_KIND_FLOAT, "float64", "double", 1e-12)
#define GM_BOOL_CTYPES_WITH(X, a) \
  X(a, bool, BOOL, "bool", "", x, x, BOOL, , "|b1", x, 0, MPI_C_BOOL, ncclUint8, GM_KIND_BOOL, "bool", "bool", 0)
#define GM_INTEGER_CTYPES_WITH(X, a)                                                                         \
  X(a, int8_t, INT8, "int8", "", x, x, I8, , "|i1", x, 0, MPI_INT8_T, ncclInt8, GM_KIND_INT, "int8", "int8_t", 0)      \
  X(a, int16_t, INT16, "int16", "", x, x, I16, , "<i2", x, 0, MPI_INT16_T, ncclNumTypes, GM_KIND_INT, "int16",      \
    "int16_t", 0)                                                                                               \
  X(a, int32_t, INT32, "int32", "", x, x, I32, , "<i4", x, 0, MPI_INT32_T, ncclInt32, GM_KIND_INT, "int32",         \
    "int32_t", 0)                                                                                               \
  X(a, int64_t, INT64, "int64", "", x, x, I64, , "<i8", x, 0, MPI_INT64_T, ncclInt64, GM_KIND_INT, "int64",         \
    "int64_t", 0)                                                                                               \
  X(a, uint8_t, UINT8, "uint8", "", x, x, U8, , "|u1", x, 0, MPI_UINT8_T, ncclUint8, GM_KIND_UINT, "uint8",         \
    "uint8_t", 0)                                                                                               \
  X(a, uint16_t, UINT16, "uint16", "", x, x, U16, , "<u2", x, 0, MPI_UINT16_T, ncclNumTypes, GM_KIND_UINT,         \
    "uint16", "uint16_t", 0)                                                                                    \
  X(a, uint32_t, UINT32, "uint32", "", x, x, U32, , "<u4", x, 0, MPI_UINT32_T, ncclUint32, GM_KIND_UINT,           \
    "uint32", "uint32_t", 0)                                                                                    \
  X(a, uint64_t, UINT64, "uint64", "", x, x, U64, , "<u8", x, 0, MPI_UINT64_T, ncclUint64, GM_KIND_UINT,           \
    "uint64", "uint64_t", 0)
/* complex64 is BLAS's c, cuBLAS's C (cgemm, cublasCgemm), complex128
 * z/Z; the tolerance is the real type's; no MPI/NCCL type in the columns
 * gpumat.dist uses (it refuses them: MPI_DATATYPE_NULL, ncclNumTypes) */
#define GM_COMPLEX_CTYPES_WITH(X, a)                                                                            \
  X(a, gm_complex64, COMPLEX64, "complex64", "", c, C, C64, f, "<c8", f, 9, MPI_DATATYPE_NULL, ncclNumTypes,       \
    GM_KIND_COMPLEX, "complex64", "gm_complex64", 1e-5)                                                          \
  X(a, gm_complex128, COMPLEX128, "complex128", "", z, Z, C128, , "<c16", d, 17, MPI_DATATYPE_NULL, ncclNumTypes, \
    GM_KIND_COMPLEX, "complex128", "gm_complex128", 1e-12)
/* float16 and bfloat16 (after the complex rows, so every number above
 * stays): kind FLOAT (the standard's real floating), but outside
 * GM_REAL_CTYPES and GM_FLOAT_CTYPES, whose code computes in the C type:
 * the core computes on them in float32 (gm_ctype_compute) and converts on
 * load and store.  BLAS prefix x (none: products convert to float32);
 * bfloat16 has no NumPy dtype: its .npy descr is "" (io/npy.c refuses to
 * save it; float32 holds it exactly). */
#define GM_HALF_CTYPES_WITH(X, a)                                                                           \
  X(a, gm_float16, FLOAT16, "float16", "", x, x, F16, f, "<f2", f, 5, MPI_DATATYPE_NULL, ncclNumTypes,         \
    GM_KIND_FLOAT, "float16", "gm_float16", 1e-3)                                                             \
  X(a, gm_bfloat16, BFLOAT16, "bfloat16", "", x, x, BF16, f, "", f, 4, MPI_DATATYPE_NULL, ncclNumTypes,     \
    GM_KIND_FLOAT, "bfloat16", "gm_bfloat16", 8e-3)
#define GM_REAL_CTYPES_WITH(X, a) GM_FLOAT_CTYPES_WITH(X, a) GM_BOOL_CTYPES_WITH(X, a) GM_INTEGER_CTYPES_WITH(X, a)
#define GM_CTYPES_WITH(X, a) GM_REAL_CTYPES_WITH(X, a) GM_COMPLEX_CTYPES_WITH(X, a) GM_HALF_CTYPES_WITH(X, a)
#define GM_HALF_CTYPES(X) GM_HALF_CTYPES_WITH(GM_CTYPE_CALL_, X)
#define GM_REAL_CTYPES(X) GM_REAL_CTYPES_WITH(GM_CTYPE_CALL_, X)
#define GM_COMPLEX_CTYPES(X) GM_COMPLEX_CTYPES_WITH(GM_CTYPE_CALL_, X)
#define GM_FLOAT_CTYPES(X) GM_FLOAT_CTYPES_WITH(GM_CTYPE_CALL_, X)
#define GM_BOOL_CTYPES(X) GM_BOOL_CTYPES_WITH(GM_CTYPE_CALL_, X)
#define GM_INTEGER_CTYPES(X) GM_INTEGER_CTYPES_WITH(GM_CTYPE_CALL_, X)
#define GM_CTYPE_CALL_(X, ...) X(__VA_ARGS__)

/* The kinds of the kind column. */
#define GM_KIND_FLOAT 0
#define GM_KIND_BOOL 1
#define GM_KIND_INT 2
#define GM_KIND_UINT 3
#define GM_KIND_COMPLEX 4

typedef enum gm_ctype {
#define GM_CTYPE_ENUM(t, E, ...) GM_##E,
  GM_CTYPES(GM_CTYPE_ENUM)
#undef GM_CTYPE_ENUM
  GM_N_CTYPES
} gm_ctype;

#endif
