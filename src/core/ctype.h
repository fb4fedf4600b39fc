/* Element types of mats: the enum, its helpers and the generators of
 * per-ctype switches and tables, all from the list in ctype_list.h. */
#ifndef GM_CORE_CTYPE_H
#define GM_CORE_CTYPE_H

#include <stdbool.h>
#include <stddef.h>

/* GM_CTYPES, GM_CTYPES_WITH and the gm_ctype enum: the list itself
 * (ctype_list.h, which kernels/ include too). */
#include "ctype_list.h"

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

/* Size in bytes of one element. */
size_t gm_ctype_size(gm_ctype t);
/* "float" / "double". */
const char *gm_ctype_name(gm_ctype t);
/* ":FLOAT" / ":DOUBLE" (MGL-MAT file header keyword). */
const char *gm_ctype_keyword(gm_ctype t);
/* Parses a Lua name; returns 0 and sets *out, or -1 if unknown. */
int gm_ctype_parse(const char *name, gm_ctype *out);
/* Rounds x through the C type (float rounding for GM_FLOAT). */
double gm_ctype_coerce(gm_ctype t, double x);
/* Reads/writes element i of a typed array as double. */
double gm_ctype_get(gm_ctype t, const void *base, size_t i);
void gm_ctype_set(gm_ctype t, void *base, size_t i, double v);

/* Element types of buffers: a separate list, mats stay
 * float/double.  X(c type, enum suffix, Lua name, C type name, is integer,
 * is signed) */
#define GM_BUFFER_ETYPES(X)                            \
  X(int8_t, I8, "int8", "int8_t", 1, 1)               \
  X(uint8_t, U8, "uint8", "uint8_t", 1, 0)            \
  X(int16_t, I16, "int16", "int16_t", 1, 1)           \
  X(uint16_t, U16, "uint16", "uint16_t", 1, 0)        \
  X(int32_t, I32, "int32", "int32_t", 1, 1)           \
  X(uint32_t, U32, "uint32", "uint32_t", 1, 0)        \
  X(int64_t, I64, "int64", "int64_t", 1, 1)           \
  X(float, F32, "float", "float", 0, 1)               \
  X(double, F64, "double", "double", 0, 1)

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
/* Element i of a typed array: integers as int64 (exact), reals as double. */
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
