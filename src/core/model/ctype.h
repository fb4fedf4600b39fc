/* Element types of mats: the enum, its helpers and the generators of
 * per-ctype switches and tables, all from the list in ctype_list.h. */
#ifndef GM_CORE_CTYPE_H
#define GM_CORE_CTYPE_H

#include <stdbool.h>
#include <stddef.h>

/* GM_CTYPES, GM_CTYPES_WITH and the gm_ctype enum: the list itself
 * (ctype_list.h, which kernels/ include too). */
#include "ctype_list.h"
#include "status.h"

/* The initializer of an array indexed by ctype whose entries are
 * NAME_<c type> (functions instantiated per ctype):
 *   static void (*const f[GM_N_CTYPES])(...) = {GM_CTYPE_TABLE(f)}; */
#define GM_CTYPE_TABLE(NAME) GM_CTYPES_WITH(GM_CTYPE_ENTRY_, NAME)
#define GM_CTYPE_ENTRY_(NAME, T, E, ...) [GM_##E] = NAME##_##T,

/* The same over the floating rows only (GM_FLOAT_CTYPES): entries of
 * other ctypes stay NULL, so callers check before they call. */
#define GM_FLOAT_CTYPE_TABLE(NAME) GM_FLOAT_CTYPES_WITH(GM_CTYPE_ENTRY_, NAME)

/* A switch on ctype t with one case per GM_CTYPES row: CASE(T, E, ...)
 * writes `case GM_##E:` and its statements (ending in break or return);
 * DEFAULT is the statement for a value outside the list. */
#define GM_CTYPE_SWITCH(t, CASE, DEFAULT) \
  switch (t) {                            \
    GM_CTYPES(CASE)                       \
    default:                              \
      DEFAULT;                            \
  }

/* The same over the real rows (GM_REAL_CTYPES: every ctype but the
 * complex ones, which take DEFAULT). */
#define GM_REAL_CTYPE_SWITCH(t, CASE, DEFAULT) \
  switch (t) {                                 \
    GM_REAL_CTYPES(CASE)                       \
    default:                                   \
      DEFAULT;                                 \
  }

/* The same over the floating rows only. */
#define GM_FLOAT_CTYPE_SWITCH(t, CASE, DEFAULT) \
  switch (t) {                                  \
    GM_FLOAT_CTYPES(CASE)                       \
    default:                                    \
      DEFAULT;                                  \
  }

/* Size in bytes of one element (0 for an unknown ctype).  Inline: every
 * op's operand pointers are scaled by it, and the call was a tenth of a
 * small op's operand handling. */
extern const unsigned char gm_ctype_sizes[GM_N_CTYPES];
static inline size_t gm_ctype_size(gm_ctype t) { return (unsigned)t < GM_N_CTYPES ? gm_ctype_sizes[t] : 0; }
/* "float" / "double" / "int32" ... (m:ctype()). */
const char *gm_ctype_name(gm_ctype t);
/* The array standard's name: "float32" / "float64" / "int32" ... */
const char *gm_ctype_dtype(gm_ctype t);
/* ":FLOAT" / ":DOUBLE" (MGL-MAT file header keyword); "" for the types
 * MGL's format does not define. */
const char *gm_ctype_keyword(gm_ctype t);
/* GM_KIND_FLOAT / BOOL / INT / UINT (ctype_list.h); -1 if unknown. */
int gm_ctype_kind(gm_ctype t);
/* The relative tolerance of a computed result of float ctype t against its
 * exact value (the ctype list's column: what the specs compare with, and
 * "equal within rounding" for checks of inputs such as a symmetric
 * matrix); 0 for exact types. */
double gm_ctype_tolerance(gm_ctype t);
/* A GM_COMPLEX_CTYPES row. */
static inline bool gm_ctype_is_complex(gm_ctype t) {
  return t == GM_COMPLEX64 || t == GM_COMPLEX128;
}
/* A GM_HALF_CTYPES row (float16, bfloat16): storage types the core
 * computes on in float32 (gm_ctype_compute). */
static inline bool gm_ctype_is_half(gm_ctype t) { return t == GM_FLOAT16 || t == GM_BFLOAT16; }
/* The type computations on a mat of type t run in: float32 for the half
 * types (loaded exactly, results rounded to nearest even on store), t
 * itself otherwise. */
static inline gm_ctype gm_ctype_compute(gm_ctype t) { return gm_ctype_is_half(t) ? GM_FLOAT : t; }
/* The real type of a complex one's parts (float for complex64, double for
 * complex128); t itself otherwise: abs, real, imag's result, finfo. */
static inline gm_ctype gm_ctype_real_of(gm_ctype t) {
  return t == GM_COMPLEX64 ? GM_FLOAT : t == GM_COMPLEX128 ? GM_DOUBLE : t;
}
/* The complex type with t's precision: complex64 for float32 and the
 * types float32 holds, complex128 otherwise (NumPy's promotion). */
gm_ctype gm_ctype_complex_for(gm_ctype t);
/* GM_EINVAL "OP: argument ARG is a complex64 mat; this function is not
 * defined for complex numbers" when t is complex: the check of the
 * ordering functions (max, sort, lt, ...) and the other real-only ones. */
gm_status gm_check_real_ctype(const char *op, int arg, gm_ctype t);
/* A GM_FLOAT_CTYPES row: what BLAS, the math functions, random fills
 * and the other float-only ops take.  Inline: element access asks it. */
static inline bool gm_ctype_is_float(gm_ctype t) {
  switch (t) {
#define GM_IS_FLOAT_CASE_(T, E, ...) case GM_##E:
    GM_FLOAT_CTYPES(GM_IS_FLOAT_CASE_)
#undef GM_IS_FLOAT_CASE_
    return true;
    default:
      return false;
  }
}
/* The floating type a float-only function (sqrt, atan2, ...) computes a
 * mat of type t in (t itself when floating): NumPy's, the first float
 * loop t casts to safely (float64 for 32- and 64-bit integers, float32
 * for 16-bit ones), but float32 where NumPy gives float16 (bool and 8-bit
 * integers: kept from before float16 mats existed).  docs/API.md "Promotion". */
gm_ctype gm_ctype_float_for(gm_ctype t);
/* GM_EINVAL "OP: argument ARG is an int32 mat; this function takes
 * float32/float64 mats (convert with m:as("float64"))" unless t is
 * floating: the one check every float-only op's dispatch makes. */
gm_status gm_check_float_ctype(const char *op, int arg, gm_ctype t);
/* Parses a Lua name or a standard dtype name ("float32"); returns 0 and
 * sets *out, or -1 if unknown. */
int gm_ctype_parse(const char *name, gm_ctype *out);
/* Rounds x through the C type (float rounding for GM_FLOAT; integers
 * saturate, NaN -> 0; bool is x != 0). */
double gm_ctype_coerce(gm_ctype t, double x);
/* Reads/writes element i of a typed array as double (writes convert as
 * astype does: kernels/int_ops.h; a complex element reads as its real
 * part and is written with imaginary part 0). */
double gm_ctype_get(gm_ctype t, const void *base, size_t i);
void gm_ctype_set(gm_ctype t, void *base, size_t i, double v);

/* An element's value as Lua sees it: integers and bool exactly (is_int:
 * i holds the value, a uint64 at or above 2^63 as the same 64 bits),
 * floats as d, complex values as d (real part) and im (is_complex). */
typedef struct gm_value {
  bool is_int;
  bool is_unsigned; /* i came from an unsigned type: to a float it is i's bits as unsigned */
  long long i;
  double d;
  bool is_complex; /* d + im i; written to a real type, the real part (NumPy's astype) */
  double im;
} gm_value;
gm_value gm_ctype_read(gm_ctype t, const void *base, size_t i);
/* Writes v converted as astype does: an integer wraps into an integer
 * type, a float saturates into it (NaN -> 0); bool takes v != 0; a
 * complex type takes v with imaginary part 0 (or v's own). */
void gm_ctype_write(gm_ctype t, void *base, size_t i, gm_value v);

/* Element types of buffers: the same list as mats (GM_CTYPES), each
 * row's buffer suffix naming its gm_etype (GM_E_F32 ...), with the same
 * numbers as gm_ctype.  X(c type, enum suffix, Lua name, C type name, is
 * integer, is signed); bool counts as an unsigned integer (0 or 1). */
#define GM_BUFFER_ETYPE_ROW_(X, T, E, name, kw, p, P, ET, S, npy, st, dig, mpi, nccl, kind, dtype, cname, ...) \
  X(T, ET, name, cname, (kind) != GM_KIND_FLOAT && (kind) != GM_KIND_COMPLEX,                                  \
    (kind) == GM_KIND_INT || (kind) == GM_KIND_FLOAT || (kind) == GM_KIND_COMPLEX)
#define GM_BUFFER_ETYPES(X) GM_CTYPES_WITH(GM_BUFFER_ETYPE_ROW_, X)

typedef enum gm_etype {
#define GM_ETYPE_ENUM(t, E, name, cname, isint, issigned) GM_E_##E,
  GM_BUFFER_ETYPES(GM_ETYPE_ENUM)
#undef GM_ETYPE_ENUM
  GM_N_ETYPES
} gm_etype;

size_t gm_etype_size(gm_etype t);
const char *gm_etype_name(gm_etype t);
/* C type name ("int32_t", "float") */
const char *gm_etype_cname(gm_etype t);
bool gm_etype_is_integer(gm_etype t);
/* Parses a Lua name or a C type name; 0 on success, -1 if unknown. */
int gm_etype_parse(const char *name, gm_etype *out);
/* The buffer element type of a mat ctype. */
gm_etype gm_etype_of_ctype(gm_ctype t);
/* The mat ctype of a buffer element type; 0 and *out set, or -1 when no
 * mat has that element type. */
int gm_ctype_of_etype(gm_etype e, gm_ctype *out);
/* Element i of a typed array: integers as int64 (exact), reals as double
 * (a complex element: its real part). */
long long gm_etype_get_int(gm_etype t, const void *base, size_t i);
double gm_etype_get_real(gm_etype t, const void *base, size_t i);
/* Writes element i, converting (integers wrap as C casts do; callers
 * check ranges first when they must). */
void gm_etype_set_int(gm_etype t, void *base, size_t i, long long v);
void gm_etype_set_real(gm_etype t, void *base, size_t i, double v);
/* Whether integer v / real x is representable in t (range check). */
bool gm_etype_fits_int(gm_etype t, long long v);
bool gm_etype_fits_real(gm_etype t, double x);

#endif
