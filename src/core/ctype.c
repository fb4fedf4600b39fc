#include "ctype.h"

#include <string.h>

size_t gm_ctype_size(gm_ctype t) {
  switch (t) {
#define X(ct, E, name, kw) \
  case GM_##E:             \
    return sizeof(ct);
    GM_CTYPES(X)
#undef X
    default:
      return 0;
  }
}

const char *gm_ctype_name(gm_ctype t) {
  switch (t) {
#define X(ct, E, name, kw) \
  case GM_##E:             \
    return name;
    GM_CTYPES(X)
#undef X
    default:
      return "?";
  }
}

const char *gm_ctype_keyword(gm_ctype t) {
  switch (t) {
#define X(ct, E, name, kw) \
  case GM_##E:             \
    return kw;
    GM_CTYPES(X)
#undef X
    default:
      return "?";
  }
}

int gm_ctype_parse(const char *s, gm_ctype *out) {
#define X(ct, E, name, kw)   \
  if (strcmp(s, name) == 0) { \
    *out = GM_##E;           \
    return 0;                \
  }
  GM_CTYPES(X)
#undef X
  return -1;
}

double gm_ctype_coerce(gm_ctype t, double x) {
  switch (t) {
#define X(ct, E, name, kw) \
  case GM_##E:             \
    return (double)(ct)x;
    GM_CTYPES(X)
#undef X
    default:
      return x;
  }
}

double gm_ctype_get(gm_ctype t, const void *base, size_t i) {
  switch (t) {
#define X(ct, E, name, kw) \
  case GM_##E:             \
    return (double)((const ct *)base)[i];
    GM_CTYPES(X)
#undef X
    default:
      return 0;
  }
}

void gm_ctype_set(gm_ctype t, void *base, size_t i, double v) {
  switch (t) {
#define X(ct, E, name, kw)   \
  case GM_##E:               \
    ((ct *)base)[i] = (ct)v; \
    break;
    GM_CTYPES(X)
#undef X
    default:
      break;
  }
}
