#include "format.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/counters.h"
#include "peek.h"
#include "../model/view.h"
#include "../mem/hostpool.h"

/* Leading and trailing entries kept per axis when a mat is summarized. */
#define EDGE_ITEMS 3

void gm_format_complex(gm_ctype t, double re, double im, char *buf, size_t n) {
  gm_ctype r = gm_ctype_real_of(t);
  char a[64], b[64];
  gm_format_number(r, re, a, sizeof a);
  /* the imaginary part's sign (a negative zero's too) joins the parts */
  bool neg = signbit(im) && !isnan(im);
  gm_format_number(r, neg ? -im : im, b, sizeof b);
  /* (a part's digits are bounded; a short buf cuts the text, as the
   * other formatters' snprintf do: the result is tested, so -O3's
   * truncation warning knows it is meant) */
  if (snprintf(buf, n, "%s%s%si", a, neg ? "-" : "+", b) >= (int)n && n > 0) buf[n - 1] = '\0';
}

void gm_format_value(gm_ctype t, gm_value v, char *buf, size_t n) {
  if (v.is_complex)
    gm_format_complex(t, v.d, v.im, buf, n);
  else if (!v.is_int)
    gm_format_number(t, v.d, buf, n);
  else if (gm_ctype_kind(t) == GM_KIND_BOOL)
    snprintf(buf, n, "%s", v.i ? "true" : "false");
  else if (gm_ctype_kind(t) == GM_KIND_UINT)
    snprintf(buf, n, "%llu", (unsigned long long)v.i);
  else
    snprintf(buf, n, "%lld", v.i);
}

void gm_format_number(gm_ctype t, double x, char *buf, size_t n) {
  if (gm_ctype_is_complex(t)) { /* a real value of a complex type: imaginary part 0 */
    gm_format_complex(t, x, 0, buf, n);
    return;
  }
  if (gm_ctype_kind(t) != GM_KIND_FLOAT) { /* an integer or bool type's value as a double */
    if (gm_ctype_kind(t) == GM_KIND_BOOL)
      snprintf(buf, n, "%s", x != 0 ? "true" : "false");
    else
      snprintf(buf, n, "%.0f", x);
    return;
  }
  if (isnan(x)) {
    snprintf(buf, n, "0/0");
    return;
  }
  if (isinf(x)) {
    snprintf(buf, n, x > 0 ? "1/0" : "-1/0");
    return;
  }
  if (x == floor(x) && fabs(x) < 1e16) { /* "20", not "2e+01" */
    snprintf(buf, n, "%.0f", x);
    return;
  }
  /* the fewest digits that read back as the same element of ctype t */
#define X(T, E, name, kw, p, P, ET, m, descr, sx, digits, ...) \
  case GM_##E:                                                    \
    for (int prec = 1; prec <= digits; prec++) {                  \
      snprintf(buf, n, "%.*g", prec, x);                          \
      if (strto##sx(buf, NULL) == (T)x) return;                   \
    }                                                             \
    return;
  GM_FLOAT_CTYPE_SWITCH(t, X, break)
#undef X
  /* the 16-bit floats: the fewest digits whose rounding to t is x */
  for (int prec = 1; prec <= 9; prec++) {
    snprintf(buf, n, "%.*g", prec, x);
    if (gm_ctype_coerce(t, strtod(buf, NULL)) == x) return;
  }
}

void gm_format_grouped(long long x, char *out, size_t n) {
  char digits[32];
  snprintf(digits, sizeof digits, "%llu", x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x);
  size_t len = strlen(digits), k = 0;
  if (x < 0 && k + 1 < n) out[k++] = '-';
  for (size_t i = 0; i < len && k + 2 < n; i++) {
    if (i > 0 && (len - i) % 3 == 0) out[k++] = ',';
    out[k++] = digits[i];
  }
  if (n > 0) out[k] = '\0';
}

typedef struct printer {
  gm_strbuf *b;
  const gm_mat *m;
  gm_peek_source source;
  const void *data; /* visible elements for HOST/DEVICE */
  bool summarize;
} printer;

static void put_element(printer *p, size_t k) {
  char num[112]; /* two parts of a complex128 */
  gm_ctype t = p->m->ctype;
  if (p->source == GM_PEEK_INITIAL)
    gm_format_number(t, gm_ctype_coerce(t, p->m->vec->initial_element), num, sizeof num);
  else
    gm_format_value(t, gm_ctype_read(t, p->data, k), num, sizeof num);
  gm_strbuf_add(p->b, num);
}

static void put_axis(printer *p, int axis, size_t offset) {
  if (axis == p->m->rank) {
    put_element(p, offset);
    return;
  }
  size_t n = p->m->dims[axis];
  bool cut = p->summarize && n > 2 * EDGE_ITEMS;
  gm_strbuf_add(p->b, "{");
  for (size_t i = 0; i < n; i++) {
    if (i > 0) gm_strbuf_add(p->b, ", ");
    if (cut && i == EDGE_ITEMS) {
      gm_strbuf_add(p->b, "...");
      i = n - EDGE_ITEMS - 1;
      continue;
    }
    put_axis(p, axis + 1, offset + i * (size_t)p->m->strides[axis]); /* wraps back in range when < 0 */
  }
  gm_strbuf_add(p->b, "}");
}

/* "2x3", or "D+2x3+S" when some of the storage is invisible (MGL's
 * displacement+dims+slack); rank 0 shows as "scalar". */
static void put_shape(gm_strbuf *b, const gm_mat *m) {
  size_t max_size = m->vec->max_size, extent = gm_mat_extent(m), lo = gm_mat_lowest(m);
  bool partial = lo != 0 || lo + extent != max_size;
  if (partial) gm_strbuf_addf(b, "%zu+", lo);
  if (m->rank == 0) gm_strbuf_add(b, "scalar");
  for (int i = 0; i < m->rank; i++) gm_strbuf_addf(b, i ? "x%zu" : "%zu", m->dims[i]);
  if (partial) gm_strbuf_addf(b, "+%zu", max_size - lo - extent);
}

/* Reads the contents through peek.h (a device copy into a temporary
 * buffer, freed before returning) and appends them. */
static gm_status put_contents(gm_strbuf *b, gm_mat *m, long max_elements) {
  printer p = {.b = b, .m = m, .source = gm_mat_peek_source(m)};
  if (p.source == GM_PEEK_NONE) {
    gm_strbuf_add(b, "uninitialised");
    return GM_OK;
  }
  void *scratch = NULL;
  size_t cap = 0;
  if (p.source == GM_PEEK_HOST) p.data = gm_mat_peek_host(m);
  if (p.source == GM_PEEK_DEVICE) { /* mat-sized: from the host pool */
    if (gm_host_scratch(gm_mat_extent(m) * gm_ctype_size(m->ctype) + 1, &scratch, &cap) != GM_OK)
      return gm_fail(GM_ENOMEM, "out of host memory copying a mat to print it");
    gm_status st = gm_mat_peek_device(m, scratch);
    if (st != GM_OK) {
      gm_host_scratch_free(scratch, cap);
      return st;
    }
    p.data = scratch;
  }
  p.summarize = max_elements >= 0 && m->size > (size_t)max_elements;
  put_axis(&p, 0, gm_peek_first(m));
  gm_host_scratch_free(scratch, cap);
  return GM_OK;
}

gm_status gm_mat_format(gm_mat *m, const gm_print_options *o, gm_strbuf *out) {
  static const gm_print_options defaults = {.contents = 1, .facets = 1, .max_elements = 1000};
  if (!o) o = &defaults;
  char letters[8];
  gm_vec_facet_letters(m->vec, letters, sizeof letters); /* before the contents are read */
  gm_strbuf_add(out, "#<MAT ");
  put_shape(out, m);
  gm_strbuf_addf(out, " %s", gm_ctype_name(m->ctype));
  if (o->facets) gm_strbuf_addf(out, " %s", letters);
  if (o->contents) {
    gm_strbuf_add(out, " ");
    GM_TRY(put_contents(out, m, o->max_elements));
  }
  gm_strbuf_add(out, ">");
  return gm_strbuf_status(out);
}

gm_status gm_mat_to_string(gm_mat *m, const gm_print_options *opts, char **out) {
  if (!m || !out) return gm_fail(GM_EINVAL, "gm_mat_to_string: NULL argument");
  gm_strbuf b = {0};
  gm_status st = gm_mat_format(m, opts, &b);
  if (st != GM_OK) {
    gm_strbuf_free(&b);
    return st;
  }
  *out = b.s;
  return GM_OK;
}

void gm_string_free(char *s) { free(s); }

void gm_foreign_room_text(bool verbose, char *buf, size_t n) {
  char count[40], bytes[40];
  gm_format_grouped(atomic_load(&gm_counter.n_host_arrays), count, sizeof count);
  gm_format_grouped(atomic_load(&gm_counter.host_bytes_in_use), bytes, sizeof bytes);
  if (verbose)
    snprintf(buf, n, "Foreign memory usage:\nforeign arrays: %s (used bytes: %s)\n", count, bytes);
  else
    snprintf(buf, n, "f: %s (%s)\n", count, bytes);
}
