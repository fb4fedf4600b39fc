#include "format_grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peek_grid.h"

/* One number format for every shown value, so the columns line up. */
typedef struct number_format {
  bool integers;
  bool scientific;
  int decimals;
  bool booleans; /* a bool mat: true / false */
} number_format;

static const char *nonfinite(double x) {
  if (isnan(x)) return "nan";
  if (isinf(x)) return x > 0 ? "inf" : "-inf";
  return NULL;
}

/* Digits after the point of a printed number (its mantissa when
 * scientific) without the trailing zeros: "0.5000" needs 1. */
static int decimals_of(const char *s) {
  const char *dot = strchr(s, '.');
  if (!dot) return 0;
  size_t n = strcspn(dot + 1, "e");
  while (n > 0 && dot[n] == '0') n--;
  return (int)n;
}

static number_format choose_format(const double *v, size_t n, int precision) {
  bool integers = true;
  double maxabs = 0, minabs = INFINITY;
  for (size_t i = 0; i < n; i++) {
    if (nonfinite(v[i])) continue;
    double a = fabs(v[i]);
    if (v[i] != floor(v[i]) || a >= 1e16) integers = false;
    if (a > maxabs) maxabs = a;
    if (a > 0 && a < minabs) minabs = a;
  }
  if (integers) return (number_format){.integers = true};
  number_format f = {.scientific = maxabs >= 1e8 || minabs < 1e-4 || maxabs / minabs > 1e3};
  for (size_t i = 0; i < n; i++) {
    if (nonfinite(v[i])) continue;
    char buf[64];
    snprintf(buf, sizeof buf, f.scientific ? "%.*e" : "%.*f", precision, v[i]);
    int d = decimals_of(buf);
    if (d > f.decimals) f.decimals = d;
  }
  if (!f.scientific && f.decimals == 0) f.decimals = 1;
  return f;
}

static void format_value(const number_format *f, double x, char *buf, size_t n) {
  if (f->booleans)
    snprintf(buf, n, "%s", x != 0 ? "true" : "false");
  else if (nonfinite(x))
    snprintf(buf, n, "%s", nonfinite(x));
  else if (f->integers)
    snprintf(buf, n, "%.0f", x);
  else
    snprintf(buf, n, f->scientific ? "%.*e" : "%.*f", f->decimals, x);
}

typedef struct layout {
  gm_strbuf *out;
  const gm_peek_grid *g;
  const double *values;
  number_format nf;
  int width; /* of every cell: the longest number, at least "..." */
} layout;

static void put_cell(layout *l, size_t j, const char *text) {
  gm_strbuf_addf(l->out, j ? "  %*s" : "%*s", l->width, text);
}

/* The rows of the 2-d slice whose first value is values[base]; a gap row
 * is "..." in every column. */
static void put_slice(layout *l, size_t base) {
  const gm_peek_grid *g = l->g;
  int ra = g->rank - 2, ca = g->rank - 1;
  size_t n_rows = ra >= 0 ? gm_peek_grid_axis_length(g, ra) : 1, n_cols = gm_peek_grid_axis_length(g, ca);
  size_t r = 0;
  for (size_t i = 0; i < n_rows; i++) {
    bool gap_row = ra >= 0 && gm_peek_grid_entry(g, ra, i) == GM_PEEK_GRID_GAP;
    gm_strbuf_add(l->out, "\n");
    for (size_t j = 0, c = 0; j < n_cols; j++) {
      char num[64] = "...";
      if (!gap_row && gm_peek_grid_entry(g, ca, j) != GM_PEEK_GRID_GAP)
        format_value(&l->nf, l->values[base + r * g->kept[ca] + c++], num, sizeof num);
      put_cell(l, j, num);
    }
    r += !gap_row;
  }
}

static bool last_line_is_gap(const gm_strbuf *b) {
  return b->len >= 4 && memcmp(b->s + b->len - 4, "\n...", 4) == 0;
}

/* Steps pos (entries of the leading axes) like an odometer; false after
 * the last one. */
static bool next_position(const gm_peek_grid *g, int lead, size_t *pos) {
  for (int a = lead - 1; a >= 0; a--) {
    if (++pos[a] < gm_peek_grid_axis_length(g, a)) return true;
    pos[a] = 0;
  }
  return false;
}

/* Rank >= 3: the 2-d slices in row-major order of the leading axes, each
 * under its label; one "..." line where leading axes are cut. */
static void put_slices(layout *l) {
  const gm_peek_grid *g = l->g;
  int lead = g->rank - 2;
  size_t pos[GM_MAX_RANK] = {0}, k = 0, slice_size = g->kept[lead] * g->kept[lead + 1];
  do {
    bool gap = false;
    for (int a = 0; a < lead; a++) gap = gap || gm_peek_grid_entry(g, a, pos[a]) == GM_PEEK_GRID_GAP;
    if (gap) {
      if (!last_line_is_gap(l->out)) gm_strbuf_add(l->out, "\n...");
      continue;
    }
    gm_strbuf_add(l->out, k > 0 ? "\n\n[" : "\n[");
    for (int a = 0; a < lead; a++) gm_strbuf_addf(l->out, "%zu, ", gm_peek_grid_entry(g, a, pos[a]) + 1);
    gm_strbuf_add(l->out, ":, :]");
    put_slice(l, k++ * slice_size);
  } while (next_position(g, lead, pos));
}

/* Integer and bool mats print without decimals whatever their size (the
 * grid reads them as doubles: exact up to 2^53). */
static void put_values(gm_strbuf *out, const gm_peek_grid *g, gm_ctype t, const double *values, int precision) {
  int kind = gm_ctype_kind(t);
  number_format nf = kind == GM_KIND_FLOAT ? choose_format(values, g->cells, precision)
                                           : (number_format){.integers = true, .booleans = kind == GM_KIND_BOOL};
  layout l = {.out = out, .g = g, .values = values, .nf = nf, .width = 3};
  for (size_t c = 0; c < g->cells; c++) {
    char num[64];
    format_value(&l.nf, values[c], num, sizeof num);
    if ((int)strlen(num) > l.width) l.width = (int)strlen(num);
  }
  if (g->rank == 0) {
    char num[64];
    format_value(&l.nf, values[0], num, sizeof num);
    gm_strbuf_addf(out, "\n%s", num);
  } else if (g->rank <= 2) {
    put_slice(&l, 0);
  } else {
    put_slices(&l);
  }
}

static void put_header(gm_strbuf *out, const gm_mat *m) {
  gm_strbuf_add(out, "#<MAT ");
  if (m->rank == 0) gm_strbuf_add(out, "scalar");
  for (int i = 0; i < m->rank; i++) gm_strbuf_addf(out, i ? "x%zu" : "%zu", m->dims[i]);
  gm_strbuf_addf(out, " %s>", gm_ctype_name(m->ctype));
}

gm_status gm_mat_format_grid(gm_mat *m, const gm_grid_format_options *o, gm_strbuf *out) {
  if (o->precision > 17) return gm_fail(GM_EINVAL, "precision must be between 0 and 17");
  gm_peek_grid g;
  GM_TRY(gm_peek_grid_plan(m, o->max_slices, o->max_rows, o->max_cols, &g));
  put_header(out, m);
  if (m->size == 0) {
    gm_strbuf_add(out, "\n(empty)");
    return gm_strbuf_status(out);
  }
  double *values = malloc(g.cells * sizeof *values);
  if (!values) return gm_fail(GM_ENOMEM, "out of host memory formatting a mat");
  bool initialised = false;
  gm_status st = gm_peek_grid_read(m, &g, values, &initialised);
  if (st == GM_OK && !initialised) gm_strbuf_add(out, "\nuninitialised");
  if (st == GM_OK && initialised) put_values(out, &g, m->ctype, values, (int)o->precision);
  free(values);
  GM_TRY(st);
  return gm_strbuf_status(out);
}
