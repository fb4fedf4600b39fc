/* .npy files (numpy.lib.format): save exactly what numpy.save writes for
 * a C-ordered '<f4'/'<f8' array (version 1.0), load versions 1.0-3.0 of
 * such arrays.  Anything else is rejected with a message naming it. */
#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

enum { MAGIC_LEN = 8, ALIGN = 64, GROWTH_DIGITS = 21, MAX_NPY_HEADER = 65536 };
static const char magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* Python's repr of the shape tuple: (), (6,), (2, 3). */
static size_t shape_repr(char *s, size_t n, int rank, const size_t *dims) {
  size_t len = (size_t)snprintf(s, n, "(");
  for (int i = 0; i < rank && len < n; i++)
    len += (size_t)snprintf(s + len, n - len, i ? ", %zu" : "%zu", dims[i]);
  if (len < n) len += (size_t)snprintf(s + len, n - len, rank == 1 ? ",)" : ")");
  return len;
}

/* The .npy dtype of ctype t (GM_CTYPES). */
static const char *npy_descr(gm_ctype t) {
#define X(T, E, name, kw, p, P, ET, m, descr, ...) \
  case GM_##E:                                \
    return descr;
  GM_CTYPE_SWITCH(t, X, return "?")
#undef X
}

long gm_npy_header(char *buf, size_t n, int rank, const size_t *dims, gm_ctype t) {
  char shape[GM_MAX_RANK * 24 + 8], dict[GM_MAX_RANK * 24 + 128];
  shape_repr(shape, sizeof shape, rank, dims);
  int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     npy_descr(t), shape);
  if (rank > 0) { /* numpy leaves room to grow the first axis in place */
    char first[24];
    int digits = snprintf(first, sizeof first, "%zu", dims[0]);
    for (int i = digits; i < GROWTH_DIGITS; i++) dict[len++] = ' ';
  }
  size_t hlen = (size_t)len + 1, pad = ALIGN - (MAGIC_LEN + 2 + hlen) % ALIGN;
  size_t total = MAGIC_LEN + 2 + hlen + pad;
  if (total > n || hlen + pad > 65535) return -1;
  memcpy(buf, magic, 6);
  buf[6] = 1;
  buf[7] = 0;
  buf[8] = (char)((hlen + pad) & 0xff);
  buf[9] = (char)((hlen + pad) >> 8);
  memcpy(buf + 10, dict, (size_t)len);
  memset(buf + 10 + len, ' ', pad);
  buf[total - 1] = '\n';
  return (long)total;
}

gm_status gm_npy_save(gm_mat *m, const char *path) {
  char h[1024];
  long len = gm_npy_header(h, sizeof h, m->rank, m->dims, m->ctype);
  if (npy_descr(m->ctype)[0] == '\0') /* bfloat16: NumPy has no such dtype */
    return gm_fail(GM_EINVAL, "a %s mat has no .npy dtype; save m:astype(\"float32\") (exact) instead",
                   gm_ctype_dtype(m->ctype));
  if (len < 0) return gm_fail(GM_EINVAL, "the .npy header does not fit version 1.0");
  FILE *f = fopen(path, "wb");
  if (!f) return gm_fail(GM_EIO, "cannot open '%s' for writing: %s", path, strerror(errno));
  gm_status st = GM_OK;
  if (fwrite(h, 1, (size_t)len, f) != (size_t)len)
    st = gm_fail(GM_EIO, "cannot write '%s': %s", path, strerror(errno));
  if (st == GM_OK) st = gm_io_write_payload(m, f);
  if (fclose(f) != 0 && st == GM_OK) st = gm_fail(GM_EIO, "cannot write '%s': %s", path, strerror(errno));
  return st;
}

/* ---- header parsing: a Python dict literal with three known keys ---- */

typedef struct npy_info {
  gm_ctype t;
  int rank;
  size_t dims[GM_MAX_RANK];
  bool have_descr, have_order, have_shape;
} npy_info;

static gm_status bad(const char *what) { return gm_fail(GM_EIO, "bad .npy header: %s", what); }

static const char *skip_ws(const char *p) {
  while (*p && isspace((unsigned char)*p)) p++;
  return p;
}

/* A quoted string ('x' or "x") into out (at most n-1 chars). */
static gm_status parse_str(const char **pp, char *out, size_t n) {
  const char *p = *pp;
  char q = *p;
  if (q != '\'' && q != '"') return bad("expected a string");
  size_t len = 0;
  for (p++; *p && *p != q; p++)
    if (len + 1 < n) out[len++] = *p;
  if (*p != q) return bad("unterminated string");
  out[len] = '\0';
  *pp = p + 1;
  return GM_OK;
}

static gm_status parse_descr(const char **pp, npy_info *info) {
  char d[32];
  GM_TRY(parse_str(pp, d, sizeof d));
#define X(T, E, name, kw, p, P, ET, m, descr, ...) \
  if (descr[0] && strcmp(d, descr) == 0) {    \
    info->t = GM_##E;                         \
    info->have_descr = true;                  \
    return GM_OK;                             \
  }
  GM_CTYPES(X)
#undef X
  return gm_fail(GM_EIO, "unsupported .npy dtype '%s' (gpumat reads '|b1', '|i1', '<i2', '<i4', '<i8', '|u1', '<u2', '<u4', '<u8', '<f2', '<f4', '<f8', '<c8' and '<c16')", d);
}

static gm_status parse_order(const char **pp, npy_info *info) {
  if (strncmp(*pp, "False", 5) == 0) {
    *pp += 5;
  } else if (strncmp(*pp, "True", 4) == 0) {
    return gm_fail(GM_EIO, "fortran_order .npy arrays are not supported (save in C order)");
  } else {
    return bad("fortran_order must be True or False");
  }
  info->have_order = true;
  return GM_OK;
}

static gm_status parse_dim(const char **pp, size_t *out) {
  const char *p = *pp;
  size_t v = 0;
  if (!isdigit((unsigned char)*p)) return bad("shape must hold non-negative integers");
  for (; isdigit((unsigned char)*p); p++) {
    if (v > (SIZE_MAX - 9) / 10) return bad("dimension too large");
    v = v * 10 + (size_t)(*p - '0');
  }
  if (*p == 'L') p++; /* Python 2 longs */
  *out = v;
  *pp = p;
  return GM_OK;
}

static gm_status parse_shape(const char **pp, npy_info *info) {
  const char *p = *pp;
  if (*p != '(') return bad("shape must be a tuple");
  p = skip_ws(p + 1);
  info->rank = 0;
  while (*p != ')') {
    if (info->rank == GM_MAX_RANK)
      return gm_fail(GM_EIO, ".npy rank exceeds the maximum %d", GM_MAX_RANK);
    GM_TRY(parse_dim(&p, &info->dims[info->rank++]));
    p = skip_ws(p);
    if (*p == ',') p = skip_ws(p + 1);
    else if (*p != ')') return bad("malformed shape tuple");
  }
  *pp = p + 1;
  info->have_shape = true;
  return GM_OK;
}

static gm_status parse_entry(const char **pp, npy_info *info) {
  char key[32];
  GM_TRY(parse_str(pp, key, sizeof key));
  const char *p = skip_ws(*pp);
  if (*p != ':') return bad("expected ':'");
  p = skip_ws(p + 1);
  gm_status st;
  if (strcmp(key, "descr") == 0 && !info->have_descr) st = parse_descr(&p, info);
  else if (strcmp(key, "fortran_order") == 0 && !info->have_order) st = parse_order(&p, info);
  else if (strcmp(key, "shape") == 0 && !info->have_shape) st = parse_shape(&p, info);
  else return gm_fail(GM_EIO, "bad .npy header: unexpected key '%s'", key);
  *pp = p;
  return st;
}

static gm_status parse_dict(const char *p, npy_info *info) {
  p = skip_ws(p);
  if (*p != '{') return bad("expected '{'");
  p = skip_ws(p + 1);
  while (*p != '}') {
    GM_TRY(parse_entry(&p, info));
    p = skip_ws(p);
    if (*p == ',') p = skip_ws(p + 1);
    else if (*p != '}') return bad("expected ',' or '}'");
  }
  if (!info->have_descr || !info->have_order || !info->have_shape)
    return bad("missing descr, fortran_order or shape");
  return GM_OK;
}

/* ---- loading ---- */

static gm_status read_exact(FILE *f, void *buf, size_t n, const char *what) {
  size_t got = fread(buf, 1, n, f);
  if (got != n) return gm_fail(GM_EIO, "truncated .npy file: expected %zu bytes of %s, got %zu", n, what, got);
  return GM_OK;
}

/* Magic, version and header dict -> info. */
static gm_status read_npy_header(FILE *f, npy_info *info) {
  unsigned char pre[MAGIC_LEN];
  GM_TRY(read_exact(f, pre, MAGIC_LEN, "magic"));
  if (memcmp(pre, magic, 6) != 0) return gm_fail(GM_EIO, "not a .npy file (bad magic)");
  if (pre[6] < 1 || pre[6] > 3 || pre[7] != 0)
    return gm_fail(GM_EIO, "unsupported .npy version %d.%d", pre[6], pre[7]);
  unsigned char lb[4] = {0, 0, 0, 0};
  size_t nl = pre[6] == 1 ? 2 : 4;
  GM_TRY(read_exact(f, lb, nl, "header length"));
  size_t hlen = lb[0] | (size_t)lb[1] << 8 | (size_t)lb[2] << 16 | (size_t)lb[3] << 24;
  if (hlen > MAX_NPY_HEADER) return gm_fail(GM_EIO, "bad .npy header: length %zu is too large", hlen);
  char *h = malloc(hlen + 1);
  if (!h) return gm_fail(GM_ENOMEM, "out of host memory");
  gm_status st = read_exact(f, h, hlen, "header");
  if (st == GM_OK) {
    h[hlen] = '\0';
    st = strlen(h) == hlen ? parse_dict(h, info) : bad("NUL byte in header");
  }
  free(h);
  return st;
}

static gm_status load_from(FILE *f, const gm_mat_options *o, gm_mat **out) {
  npy_info info = {0};
  GM_TRY(read_npy_header(f, &info));
  size_t size;
  GM_TRY(gm_dims_size(info.rank, info.dims, &size));
  /* the file must hold what the header claims before anything that size
   * is allocated (a 128-byte file must not ask for terabytes) */
  long here = ftell(f);
  struct stat sb;
  if (here >= 0 && fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode)) {
    size_t have = sb.st_size > here ? (size_t)(sb.st_size - here) : 0;
    size_t esz = gm_ctype_size(info.t);
    if (size > have / esz)
      return gm_fail(GM_EIO, "truncated .npy file: the header claims %zu elements (%zu bytes), the file holds %zu bytes of data",
                     size, size <= SIZE_MAX / esz ? size * esz : SIZE_MAX, have);
  }
  unsigned char *bytes;
  GM_TRY(gm_io_read_payload(f, info.t, size, &bytes));
  /* a bool byte other than 0 or 1 would be an invalid C bool (UBSan's
   * -fsanitize=bool): nonzero reads as true */
  if (info.t == GM_BOOL)
    for (size_t i = 0; i < size; i++) bytes[i] = bytes[i] != 0;
  gm_mat_options mo = *o;
  mo.ctype = (int)info.t;
  mo.displacement = 0;
  mo.max_size = 0;
  mo.has_initial_element = 0;
  gm_mat *m = NULL;
  gm_status st = gm_mat_new(info.rank, info.dims, &mo, &m);
  if (st == GM_OK) st = gm_io_store_payload(m, bytes);
  free(bytes);
  if (st != GM_OK) {
    gm_mat_free(m);
    return st;
  }
  *out = m;
  return GM_OK;
}

gm_status gm_npy_load(const char *path, const gm_mat_options *o, gm_mat **out) {
  FILE *f = fopen(path, "rb");
  if (!f) return gm_fail(GM_EIO, "cannot open '%s': %s", path, strerror(errno));
  struct stat sb; /* fopen succeeds on a directory on Linux; reads then fail with EISDIR */
  if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
    fclose(f);
    return gm_fail(GM_EIO, "cannot read '%s': %s", path, strerror(EISDIR));
  }
  gm_status st = load_from(f, o, out);
  fclose(f);
  return st;
}
