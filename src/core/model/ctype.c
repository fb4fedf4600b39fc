#include "ctype.h"

#include <stdint.h>
#include <string.h>

#include "../../../kernels/complex_ops.h"
#include "../../../kernels/half_ops.h"
#include "../../../kernels/int_ops.h"

/* include/gpumat.h spells the numbers for C callers */
#define GM_PUBLIC_CTYPE_AGREES_(T, E, ...) _Static_assert((int)GM_##E == (int)GM_CTYPE_##E, "gpumat.h's GM_CTYPE_" #E);
GM_CTYPES(GM_PUBLIC_CTYPE_AGREES_)
#undef GM_PUBLIC_CTYPE_AGREES_

const unsigned char gm_ctype_sizes[GM_N_CTYPES] = {
#define X(ct, E, name, kw, ...) [GM_##E] = sizeof(ct),
    GM_CTYPES(X)
#undef X
};

const char *gm_ctype_name(gm_ctype t) {
  switch (t) {
#define X(ct, E, name, kw, ...) \
  case GM_##E:             \
    return name;
    GM_CTYPES(X)
#undef X
    default:
      return "?";
  }
}

const char *gm_ctype_dtype(gm_ctype t) {
  switch (t) {
#define X(ct, E, name, kw, p, P, ET, S, npy, st, dig, mpi, nccl, kind, dtype, ...) \
  case GM_##E:                                                                    \
    return dtype;
    GM_CTYPES(X)
#undef X
    default:
      return "?";
  }
}

double gm_ctype_tolerance(gm_ctype t) {
  switch (t) {
#define X(ct, E, name, kw, p, P, ET, S, npy, st, dig, mpi, nccl, kind, dtype, cname, tol, ...) \
  case GM_##E:                                                                              \
    return tol;
    GM_CTYPES(X)
#undef X
    default:
      return 0;
  }
}

gm_ctype gm_ctype_float_for(gm_ctype t) {
  if (gm_ctype_kind(t) == GM_KIND_FLOAT || gm_ctype_is_complex(t)) return t;
  return gm_ctype_size(t) <= 2 ? GM_FLOAT : GM_DOUBLE;
}

int gm_ctype_kind(gm_ctype t) {
  switch (t) {
#define X(ct, E, name, kw, p, P, ET, S, npy, st, dig, mpi, nccl, kind, ...) \
  case GM_##E:                                                             \
    return kind;
    GM_CTYPES(X)
#undef X
    default:
      return -1;
  }
}

gm_status gm_check_float_ctype(const char *op, int arg, gm_ctype t) {
  if (gm_ctype_is_float(t)) return GM_OK;
  const char *d = gm_ctype_dtype(t);
  return gm_fail(GM_EINVAL, "%s: argument %d is a%s %s mat; this function takes float32/float64 mats (convert with m:as(\"float64\"))",
                 op, arg, d[0] == 'i' ? "n" : "", d);
}

gm_ctype gm_ctype_complex_for(gm_ctype t) {
  if (gm_ctype_is_complex(t)) return t;
  return t == GM_FLOAT || gm_ctype_is_half(t) || t == GM_BOOL || t == GM_INT8 || t == GM_UINT8 || t == GM_INT16 || t == GM_UINT16
             ? GM_COMPLEX64
             : GM_COMPLEX128;
}

gm_status gm_check_real_ctype(const char *op, int arg, gm_ctype t) {
  if (!gm_ctype_is_complex(t)) return GM_OK;
  return gm_fail(GM_EINVAL, "%s: argument %d is a %s mat; this function is not defined for complex numbers", op,
                 arg, gm_ctype_dtype(t));
}

const char *gm_ctype_keyword(gm_ctype t) {
  switch (t) {
#define X(ct, E, name, kw, ...) \
  case GM_##E:             \
    return kw;
    GM_CTYPES(X)
#undef X
    default:
      return "?";
  }
}

int gm_ctype_parse(const char *s, gm_ctype *out) {
#define X(ct, E, name, kw, p, P, ET, S, npy, st, dig, mpi, nccl, kind, dtype, ...) \
  if (strcmp(s, name) == 0 || strcmp(s, dtype) == 0) {                          \
    *out = GM_##E;           \
    return 0;                \
  }
  GM_CTYPES(X)
#undef X
  return -1;
}

double gm_ctype_coerce(gm_ctype t, double x) {
  switch (t) {
#define X(ct, E, name, kw, ...) \
  case GM_##E:             \
    return (double)gm_sat_##ct(x);
    GM_REAL_CTYPES(X)
#undef X
    case GM_COMPLEX64:
      return (double)(float)x;
#define X(ct, E, ...) \
  case GM_##E:        \
    return (double)gm_hload_##ct(gm_sat_##ct(x));
    GM_HALF_CTYPES(X)
#undef X
    default:
      return x;
  }
}

/* A bool element read as its byte: memory from a buffer, a wrapped C
 * array or a retyped view may hold bytes other than 0 and 1, and loading
 * those as C bool is undefined (UBSan's -fsanitize=bool); nonzero is
 * true. */
static bool bool_at(const void *base, size_t i) { return ((const unsigned char *)base)[i] != 0; }

double gm_ctype_get(gm_ctype t, const void *base, size_t i) {
  if (t == GM_BOOL) return bool_at(base, i);
  switch (t) {
#define X(ct, E, name, kw, ...) \
  case GM_##E:             \
    return (double)((const ct *)base)[i];
    GM_REAL_CTYPES(X)
#undef X
#define X(ct, E, name, kw, ...) \
  case GM_##E:                  \
    return (double)((const ct *)base)[i].re;
    GM_COMPLEX_CTYPES(X)
#undef X
#define X(ct, E, ...) \
  case GM_##E:        \
    return (double)gm_hload_##ct(((const ct *)base)[i]);
    GM_HALF_CTYPES(X)
#undef X
    default:
      return 0;
  }
}

void gm_ctype_set(gm_ctype t, void *base, size_t i, double v) {
  switch (t) {
#define X(ct, E, name, kw, ...)   \
  case GM_##E:               \
    ((ct *)base)[i] = gm_sat_##ct(v); \
    break;
    GM_CTYPES(X)
#undef X
    default:
      break;
  }
}

gm_value gm_ctype_read(gm_ctype t, const void *base, size_t i) {
  gm_value v = {true, gm_ctype_kind(t) == GM_KIND_UINT, 0, 0, false, 0};
  if (t == GM_BOOL) {
    v.i = bool_at(base, i);
    return v;
  }
  switch (t) {
    /* uint64 keeps its 64 bits (Lua's unsigned convention); the
     * conversion is GCC's modulo one, never reached for signed values */
#define X(ct, E, name, kw, p, P, ET, S, npy, st, dig, mpi, nccl, kind, ...)                                   \
  case GM_##E: {                                                                                     \
    ct x = ((const ct *)base)[i];                                                                    \
    v.i = (kind) == GM_KIND_UINT ? (long long)(unsigned long long)x : (long long)x;                  \
    return v;                                                                                        \
  }
    GM_BOOL_CTYPES(X)
    GM_INTEGER_CTYPES(X)
#undef X
#define X(ct, E, ...)                  \
  case GM_##E:                         \
    v.is_int = false;                  \
    v.is_unsigned = false;             \
    v.is_complex = true;               \
    v.d = ((const ct *)base)[i].re;    \
    v.im = ((const ct *)base)[i].im;   \
    return v;
    GM_COMPLEX_CTYPES(X)
#undef X
    default:
      v.is_int = false;
      v.is_unsigned = false;
      v.d = gm_ctype_get(t, base, i);
      return v;
  }
}

void gm_ctype_write(gm_ctype t, void *base, size_t i, gm_value v) {
  if (v.is_complex && gm_ctype_is_complex(t)) {
    if (t == GM_COMPLEX64)
      ((gm_complex64 *)base)[i] = gm_cxmake_gm_complex64((float)v.d, (float)v.im);
    else
      ((gm_complex128 *)base)[i] = gm_cxmake_gm_complex128(v.d, v.im);
    return;
  }
  if (!v.is_int) {
    gm_ctype_set(t, base, i, v.d);
    return;
  }
  if (v.is_unsigned && (gm_ctype_is_float(t) || gm_ctype_is_complex(t) || gm_ctype_is_half(t))) { /* a uint64 at or above 2^63 is positive */
    gm_ctype_set(t, base, i, (double)(unsigned long long)v.i);
    return;
  }
  switch (t) {
#define X(ct, E, ...)                         \
  case GM_##E:                                \
    ((ct *)base)[i] = gm_wrap_##ct(v.i);      \
    break;
    GM_CTYPES(X)
#undef X
    default:
      break;
  }
}

/* ---- buffer element types ---- */

size_t gm_etype_size(gm_etype t) {
  switch (t) {
#define X(ct, E, name, cname, isint, issigned) \
  case GM_E_##E:                               \
    return sizeof(ct);
    GM_BUFFER_ETYPES(X)
#undef X
    default:
      return 0;
  }
}

const char *gm_etype_name(gm_etype t) {
  switch (t) {
#define X(ct, E, name, cname, isint, issigned) \
  case GM_E_##E:                               \
    return name;
    GM_BUFFER_ETYPES(X)
#undef X
    default:
      return "?";
  }
}

const char *gm_etype_cname(gm_etype t) {
  switch (t) {
#define X(ct, E, name, cname, isint, issigned) \
  case GM_E_##E:                               \
    return cname;
    GM_BUFFER_ETYPES(X)
#undef X
    default:
      return "?";
  }
}

bool gm_etype_is_integer(gm_etype t) {
  switch (t) {
#define X(ct, E, name, cname, isint, issigned) \
  case GM_E_##E:                               \
    return isint;
    GM_BUFFER_ETYPES(X)
#undef X
    default:
      return false;
  }
}

int gm_etype_parse(const char *s, gm_etype *out) {
#define X(ct, E, name, cname, isint, issigned)           \
  if (s[0] == name[0] && (strcmp(s, name) == 0 || strcmp(s, cname) == 0)) { \
    *out = GM_E_##E;                                    \
    return 0;                                           \
  }
  GM_BUFFER_ETYPES(X)
#undef X
  return -1;
}

gm_etype gm_etype_of_ctype(gm_ctype t) {
  switch (t) {
#define X(ct, E, name, kw, p, P, ET, ...) \
  case GM_##E:                       \
    return GM_E_##ET;
    GM_CTYPES(X)
#undef X
    default:
      return GM_E_F64;
  }
}

int gm_ctype_of_etype(gm_etype e, gm_ctype *out) {
#define X(ct, E, name, kw, p, P, ET, ...) \
  if (e == GM_E_##ET) {              \
    *out = GM_##E;                   \
    return 0;                        \
  }
  GM_CTYPES(X)
#undef X
  return -1;
}

long long gm_etype_get_int(gm_etype t, const void *base, size_t i) {
  if (t == GM_E_BOOL) return bool_at(base, i);
  switch (t) {
#define X(ct, E, name, cname, isint, issigned) \
  case GM_E_##E:                               \
    return (long long)((const ct *)base)[i];
    GM_REAL_CTYPES_WITH(GM_BUFFER_ETYPE_ROW_, X)
#undef X
    case GM_E_C64:
    case GM_E_C128:
    case GM_E_F16:
    case GM_E_BF16:
      return (long long)gm_sat_int64_t(gm_etype_get_real(t, base, i));
    default:
      return 0;
  }
}

double gm_etype_get_real(gm_etype t, const void *base, size_t i) {
  if (t == GM_E_BOOL) return bool_at(base, i);
  switch (t) {
#define X(ct, E, name, cname, isint, issigned) \
  case GM_E_##E:                               \
    return (double)((const ct *)base)[i];
    GM_REAL_CTYPES_WITH(GM_BUFFER_ETYPE_ROW_, X)
#undef X
    case GM_E_C64:
      return ((const gm_complex64 *)base)[i].re;
    case GM_E_C128:
      return ((const gm_complex128 *)base)[i].re;
    case GM_E_F16:
      return gm_hload_gm_float16(((const gm_float16 *)base)[i]);
    case GM_E_BF16:
      return gm_hload_gm_bfloat16(((const gm_bfloat16 *)base)[i]);
    default:
      return 0;
  }
}

void gm_etype_set_int(gm_etype t, void *base, size_t i, long long v) {
  switch (t) {
#define X(ct, E, name, cname, isint, issigned) \
  case GM_E_##E:                               \
    ((ct *)base)[i] = gm_wrap_##ct(v);         \
    break;
    GM_BUFFER_ETYPES(X)
#undef X
    default:
      break;
  }
}

void gm_etype_set_real(gm_etype t, void *base, size_t i, double v) {
  switch (t) {
#define X(ct, E, name, cname, isint, issigned) \
  case GM_E_##E:                               \
    ((ct *)base)[i] = gm_sat_##ct(v);          \
    break;
    GM_BUFFER_ETYPES(X)
#undef X
    default:
      break;
  }
}

bool gm_etype_fits_int(gm_etype t, long long v) {
  switch (t) {
    case GM_E_I8: return v >= INT8_MIN && v <= INT8_MAX;
    case GM_E_U8: return v >= 0 && v <= UINT8_MAX;
    case GM_E_I16: return v >= INT16_MIN && v <= INT16_MAX;
    case GM_E_U16: return v >= 0 && v <= UINT16_MAX;
    case GM_E_I32: return v >= INT32_MIN && v <= INT32_MAX;
    case GM_E_U32: return v >= 0 && v <= (long long)UINT32_MAX;
    case GM_E_U64: return v >= 0;
    case GM_E_BOOL: return v == 0 || v == 1;
    default: return true;
  }
}

bool gm_etype_fits_real(gm_etype t, double x) {
  if (!gm_etype_is_integer(t)) return true;
  /* integers take only integral values in range (no silent truncation) */
  if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return false; /* NaN too */
  if (x != (double)(long long)x) return false;
  return gm_etype_fits_int(t, (long long)x);
}
