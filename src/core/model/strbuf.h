/* A growable text buffer in C memory, for the core's text forms (mat
 * printing, reports).  Appending never fails loudly: the first allocation
 * failure marks the buffer, later appends do nothing, and
 * gm_strbuf_status turns the mark into GM_ENOMEM with a message, so a
 * formatter checks once at its end instead of after every piece. */
#ifndef GM_CORE_STRBUF_H
#define GM_CORE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "status.h"

/* Zero-initialise; s is NUL-terminated once anything was appended. */
typedef struct gm_strbuf {
  char *s;
  size_t len, cap;
  bool failed;
} gm_strbuf;

void gm_strbuf_add(gm_strbuf *b, const char *text);
void gm_strbuf_addf(gm_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* GM_OK, or GM_ENOMEM (message recorded) when an append failed. */
gm_status gm_strbuf_status(const gm_strbuf *b);
/* Frees the text and zeroes b (reusable). */
void gm_strbuf_free(gm_strbuf *b);

#endif
