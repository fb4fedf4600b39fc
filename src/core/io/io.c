/* MGL-MAT's binary mat format: header text and little-endian payload.
 * See io.h for the format and the failure guarantees. */
#include "io.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../exec/exec.h"

enum { CHUNK = 4096, MAX_HEADER = 256 };

/* ---- element encoding (explicit little-endian, any host order) ---- */

/* The element's bits as an unsigned integer of its width (1, 2, 4 or 8
 * bytes), so the byte order is explicit. */
static uint64_t load_bits(const unsigned char *p, size_t nb) {
  uint8_t b8;
  uint16_t b16;
  uint32_t b32;
  uint64_t b64 = 0;
  switch (nb) {
    case 1: memcpy(&b8, p, 1); return b8;
    case 2: memcpy(&b16, p, 2); return b16;
    case 4: memcpy(&b32, p, 4); return b32;
    default: memcpy(&b64, p, 8); return b64;
  }
}

static void store_bits(unsigned char *p, size_t nb, uint64_t bits) {
  uint8_t b8 = (uint8_t)bits;
  uint16_t b16 = (uint16_t)bits;
  uint32_t b32 = (uint32_t)bits;
  switch (nb) {
    case 1: memcpy(p, &b8, 1); break;
    case 2: memcpy(p, &b16, 2); break;
    case 4: memcpy(p, &b32, 4); break;
    default: memcpy(p, &bits, 8); break;
  }
}

/* A complex element is two little-endian reals (real part first, as
 * NumPy's '<c8' / '<c16'), each converted as its real type's. */
static void encode(gm_ctype t, const void *src, size_t i, unsigned char *dst) {
  size_t es = gm_ctype_size(t), nb = gm_ctype_size(gm_ctype_real_of(t));
  for (size_t part = 0; part < es; part += nb) {
    uint64_t bits = load_bits((const unsigned char *)src + i * es + part, nb);
    for (size_t k = 0; k < nb; k++) dst[part + k] = (unsigned char)(bits >> (8 * k));
  }
}

static void decode(gm_ctype t, const unsigned char *src, void *dst, size_t i) {
  size_t es = gm_ctype_size(t), nb = gm_ctype_size(gm_ctype_real_of(t));
  for (size_t part = 0; part < es; part += nb) {
    uint64_t bits = 0;
    for (size_t k = 0; k < nb; k++) bits |= (uint64_t)src[part + k] << (8 * k);
    store_bits((unsigned char *)dst + i * es + part, nb, bits);
  }
}

static gm_status write_failed(void) {
  return gm_fail(GM_EIO, "write failed: %s", errno ? strerror(errno) : "short write");
}

static gm_status write_elements(gm_ctype t, const void *p, size_t n, FILE *f) {
  unsigned char buf[CHUNK * 16]; /* complex128's 16 bytes */
  size_t esz = gm_ctype_size(t);
  for (size_t i = 0; i < n; i += CHUNK) {
    size_t cnt = n - i < CHUNK ? n - i : CHUNK;
    for (size_t k = 0; k < cnt; k++) encode(t, p, i + k, buf + k * esz);
    errno = 0;
    if (fwrite(buf, esz, cnt, f) != cnt) return write_failed();
  }
  return GM_OK;
}

gm_status gm_io_write_payload(gm_mat *m, FILE *f) {
  if (m->size == 0) return GM_OK;
  gm_exec e = gm_exec_host();
  gm_operand op = {m, GM_INPUT, NULL};
  GM_TRY(gm_acquire(&e, &op, 1));
  gm_status st = write_elements(m->ctype, op.ptr, m->size, f);
  return gm_finish(&e, &op, 1, st);
}

gm_status gm_io_read_payload(FILE *f, gm_ctype t, size_t n_elems, unsigned char **out) {
  size_t esz = gm_ctype_size(t);
  if (n_elems > SIZE_MAX / esz) return gm_fail(GM_ERANGE, "payload is too large");
  size_t bytes = n_elems * esz;
  unsigned char *buf = malloc(bytes ? bytes : 1);
  if (!buf) return gm_fail(GM_ENOMEM, "out of host memory reading %zu bytes", bytes);
  size_t got = fread(buf, 1, bytes, f);
  if (got != bytes) {
    int err = ferror(f);
    free(buf);
    return gm_fail(GM_EIO, "%s: expected %zu bytes of %s data, got %zu",
                   err ? "read error" : "short read", bytes, gm_ctype_name(t), got);
  }
  *out = buf;
  return GM_OK;
}

gm_status gm_io_store_payload(gm_mat *m, const unsigned char *bytes) {
  if (m->size == 0) return GM_OK;
  gm_exec e = gm_exec_host();
  gm_operand op = {m, GM_OUTPUT, NULL};
  GM_TRY(gm_acquire(&e, &op, 1));
  size_t esz = gm_ctype_size(m->ctype);
  for (size_t i = 0; i < m->size; i++) decode(m->ctype, bytes + i * esz, op.ptr, i);
  return gm_finish(&e, &op, 1, GM_OK);
}

/* ---- header ---- */

int gm_mat_header(char *buf, size_t n, size_t size, gm_ctype t) {
  int len = snprintf(buf, n, "(:MAT :SIZE %zu :CTYPE %s)", size, gm_ctype_keyword(t));
  return len < 0 || (size_t)len >= n ? -1 : len;
}

/* Reads "(...)" after optional whitespace into text (without parens). */
static gm_status read_header_text(FILE *f, char *text) {
  int c;
  while ((c = getc(f)) != EOF && isspace(c)) {
  }
  if (c == EOF && ferror(f)) return gm_fail(GM_EIO, "read error: %s", strerror(errno));
  if (c == EOF) return gm_fail(GM_EIO, "short read: expected a mat header, got end of file");
  if (c != '(') return gm_fail(GM_EIO, "bad mat header: expected '(:MAT ...)', got byte %d", c);
  size_t n = 0;
  while ((c = getc(f)) != EOF && c != ')') {
    if (n + 1 >= MAX_HEADER) return gm_fail(GM_EIO, "bad mat header: no ')' within %d bytes", MAX_HEADER);
    text[n++] = (char)c;
  }
  text[n] = '\0';
  if (c == EOF) return gm_fail(GM_EIO, "short read: the mat header is truncated");
  return GM_OK;
}

static gm_status parse_size(const char *tok, size_t *out) {
  size_t v = 0;
  if (!*tok) return gm_fail(GM_EIO, "bad mat header: empty :SIZE");
  for (const char *p = tok; *p; p++) {
    if (!isdigit((unsigned char)*p) || v > (SIZE_MAX - 9) / 10)
      return gm_fail(GM_EIO, "bad mat header: :SIZE %s is not a size", tok);
    v = v * 10 + (size_t)(*p - '0');
  }
  *out = v;
  return GM_OK;
}

static gm_status parse_ctype(const char *tok, gm_ctype *out) {
  for (int t = 0; t < GM_N_CTYPES; t++)
    if (strcmp(tok, gm_ctype_keyword((gm_ctype)t)) == 0) {
      *out = (gm_ctype)t;
      return GM_OK;
    }
  return gm_fail(GM_EIO, "bad mat header: unknown :CTYPE %s", tok);
}

/* Parses ":MAT :SIZE n :CTYPE :X" (plist, any order, case-insensitive). */
static gm_status parse_header(char *text, size_t *size, gm_ctype *t) {
  for (char *p = text; *p; p++) *p = (char)toupper((unsigned char)*p);
  char *save = NULL, *tok = strtok_r(text, " \t\r\n\f\v", &save);
  if (!tok || strcmp(tok, ":MAT") != 0) return gm_fail(GM_EIO, "bad mat header: expected :MAT first");
  bool have_size = false, have_ctype = false;
  while ((tok = strtok_r(NULL, " \t\r\n\f\v", &save))) {
    char *val = strtok_r(NULL, " \t\r\n\f\v", &save);
    if (!val) return gm_fail(GM_EIO, "bad mat header: %s has no value", tok);
    if (strcmp(tok, ":SIZE") == 0 && !have_size) {
      GM_TRY(parse_size(val, size));
      have_size = true;
    } else if (strcmp(tok, ":CTYPE") == 0 && !have_ctype) {
      GM_TRY(parse_ctype(val, t));
      have_ctype = true;
    } else {
      return gm_fail(GM_EIO, "bad mat header: unexpected %s", tok);
    }
  }
  if (!have_size || !have_ctype) return gm_fail(GM_EIO, "bad mat header: missing :SIZE or :CTYPE");
  return GM_OK;
}

static gm_status check_header(FILE *f, const gm_mat *m) {
  char text[MAX_HEADER];
  size_t size = 0;
  gm_ctype t = m->ctype;
  GM_TRY(read_header_text(f, text));
  GM_TRY(parse_header(text, &size, &t));
  if (t != m->ctype)
    return gm_fail(GM_EINVAL, "header ctype %s does not match the mat's ctype %s",
                   gm_ctype_keyword(t), gm_ctype_keyword(m->ctype));
  if (size != m->size)
    return gm_fail(GM_EINVAL, "header size %zu does not match the mat's size %zu", size, m->size);
  return GM_OK;
}

/* MGL's mat format names float and double only (:CTYPE :FLOAT/:DOUBLE). */
static gm_status check_mgl_ctype(const gm_mat *m) {
  if (gm_ctype_keyword(m->ctype)[0]) return GM_OK;
  return gm_fail(GM_EINVAL, "MGL's mat format holds float and double mats only, not %s (save it with gm.save_npy)",
                 gm_ctype_dtype(m->ctype));
}

gm_status gm_write_mat(gm_mat *m, FILE *f, bool headers) {
  GM_TRY(check_mgl_ctype(m));
  if (headers) {
    char h[MAX_HEADER];
    int len = gm_mat_header(h, sizeof h, m->size, m->ctype);
    errno = 0;
    if (len < 0 || fwrite(h, 1, (size_t)len, f) != (size_t)len) return write_failed();
  }
  return gm_io_write_payload(m, f);
}

gm_status gm_read_mat(gm_mat *m, FILE *f, bool headers) {
  GM_TRY(check_mgl_ctype(m));
  if (headers) GM_TRY(check_header(f, m));
  unsigned char *bytes;
  GM_TRY(gm_io_read_payload(f, m->ctype, m->size, &bytes));
  gm_status st = gm_io_store_payload(m, bytes);
  free(bytes);
  return st;
}
