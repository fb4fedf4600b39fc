/* Element types of mats: the single source of truth (X-macro).
 * Every switch, name table and per-type instantiation is generated from
 * GM_CTYPES so adding a type is one line here. */
#ifndef GM_CORE_CTYPE_H
#define GM_CORE_CTYPE_H

#include <stddef.h>

/* X(c type, enum suffix, Lua name, MGL header keyword) */
#define GM_CTYPES(X)                         \
  X(float, FLOAT, "float", ":FLOAT")         \
  X(double, DOUBLE, "double", ":DOUBLE")

typedef enum gm_ctype {
#define GM_CTYPE_ENUM(t, E, name, kw) GM_##E,
  GM_CTYPES(GM_CTYPE_ENUM)
#undef GM_CTYPE_ENUM
  GM_N_CTYPES
} gm_ctype;

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

#endif
