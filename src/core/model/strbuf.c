#include "strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for n more bytes and the NUL; false (and b marked) when it cannot
 * be had. */
static bool reserve(gm_strbuf *b, size_t n) {
  if (b->failed) return false;
  if (b->len + n + 1 <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + n + 1) {
    if (cap > SIZE_MAX / 2) return b->failed = true, false;
    cap *= 2;
  }
  char *s = realloc(b->s, cap);
  if (!s) return b->failed = true, false;
  b->s = s;
  b->cap = cap;
  return true;
}

void gm_strbuf_add(gm_strbuf *b, const char *text) {
  size_t n = strlen(text);
  if (!reserve(b, n)) return;
  memcpy(b->s + b->len, text, n + 1);
  b->len += n;
}

void gm_strbuf_addf(gm_strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->failed = true;
    return;
  }
  if (!reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

gm_status gm_strbuf_status(const gm_strbuf *b) {
  if (b->failed) return gm_fail(GM_ENOMEM, "out of host memory formatting text");
  return GM_OK;
}

void gm_strbuf_free(gm_strbuf *b) {
  free(b->s);
  *b = (gm_strbuf){0};
}
