/* tostring(m): "#<MAT 2x3 double CF {{1, 2, 3}, {4, 5, 6}}>".
 *
 * Printing is a debugging view and must not disturb what it shows: it
 * never creates facets, never changes up-to-date bits or watcher counts
 * (so it reads through core/peek.h, not gm_mat_watch), and the facet
 * letters are taken before the contents are read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/peek.h"
#include "../core/view.h"
#include "util.h"

/* Leading and trailing entries kept per axis when a mat is summarized. */
#define EDGE_ITEMS 3

/* Shortest "%.*g" text that reads back to the same value of the ctype, so
 * 1 prints as "1" and 0.1f as "0.1" (not 0.10000000149011612). */
static void format_number(gm_ctype t, double x, char *buf, size_t n) {
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
  GM_CTYPE_SWITCH(t, X, return)
#undef X
}

typedef struct printer {
  luaL_Buffer *b;
  const gm_mat *m;
  gm_peek_source source;
  const void *data; /* visible elements for HOST/DEVICE */
  bool summarize;
  size_t strides[GM_MAX_RANK];
} printer;

static void put_element(printer *p, size_t k) {
  char num[64];
  double x = p->source == GM_PEEK_INITIAL ? p->m->vec->initial_element
                                          : gm_ctype_get(p->m->ctype, p->data, k);
  format_number(p->m->ctype, x, num, sizeof num);
  luaL_addstring(p->b, num);
}

static void put_axis(printer *p, int axis, size_t offset) {
  if (axis == p->m->rank) {
    put_element(p, offset);
    return;
  }
  size_t n = p->m->dims[axis];
  bool cut = p->summarize && n > 2 * EDGE_ITEMS;
  luaL_addchar(p->b, '{');
  for (size_t i = 0; i < n; i++) {
    if (i > 0) luaL_addstring(p->b, ", ");
    if (cut && i == EDGE_ITEMS) {
      luaL_addstring(p->b, "...");
      i = n - EDGE_ITEMS - 1;
      continue;
    }
    put_axis(p, axis + 1, offset + i * p->strides[axis]);
  }
  luaL_addchar(p->b, '}');
}

/* "2x3", or "D+2x3+S" when some of the storage is invisible (MGL's
 * displacement+dims+slack); rank 0 shows as "scalar". */
static void put_shape(luaL_Buffer *b, const gm_mat *m) {
  size_t max_size = m->vec->max_size, extent = gm_mat_extent(m);
  bool partial = m->displacement != 0 || m->displacement + extent != max_size;
  if (partial) {
    lua_pushfstring(b->L, "%I+", (lua_Integer)m->displacement);
    luaL_addvalue(b);
  }
  if (m->rank == 0) luaL_addstring(b, "scalar");
  for (int i = 0; i < m->rank; i++) {
    lua_pushfstring(b->L, i ? "x%I" : "%I", (lua_Integer)m->dims[i]);
    luaL_addvalue(b);
  }
  if (partial) {
    lua_pushfstring(b->L, "+%I", (lua_Integer)(max_size - m->displacement - extent));
    luaL_addvalue(b);
  }
}

/* Reads the contents (a device copy goes into a userdata so a Lua error
 * while formatting cannot leak it) and appends them. */
static void put_contents(lua_State *L, luaL_Buffer *b, gm_mat *m, gm_peek_source source,
                         int scratch_idx) {
  printer p = {.b = b, .m = m, .source = source};
  if (p.source == GM_PEEK_NONE) {
    luaL_addstring(b, "uninitialised");
    return;
  }
  if (p.source == GM_PEEK_HOST) p.data = gm_mat_peek_host(m);
  if (p.source == GM_PEEK_DEVICE) {
    p.data = lua_touserdata(L, scratch_idx);
    GML_TRY(L, gm_mat_peek_device(m, (void *)p.data), "tostring");
  }
  lua_Integer max_elements = gml_settings_of(L)->print_max_elements;
  p.summarize = max_elements >= 0 && m->size > (size_t)max_elements;
  for (int i = 0; i < m->rank; i++) p.strides[i] = (size_t)m->strides[i];
  put_axis(&p, 0, 0);
}

static int l_tostring(lua_State *L) {
  gml_mat *box = gml_testbox(L, 1);
  if (!box) gml_argerror(L, 1, "__tostring", "gpumat.mat expected, got %s", luaL_typename(L, 1));
  gml_guard(L, 1); /* the buffer's growth runs the GC (finalizers) */
  if (!box->m) {
    lua_pushliteral(L, "#<MAT freed>");
    return 1;
  }
  gm_mat *m = box->m;
  char letters[8];
  gm_vec_facet_letters(m->vec, letters, sizeof letters);
  bool contents = gml_settings_of(L)->print_mat;
  /* scratch for a device copy, allocated before the buffer is opened */
  gm_peek_source source = gm_mat_peek_source(m);
  bool device = contents && source == GM_PEEK_DEVICE;
  lua_newuserdatauv(L, device ? gm_mat_extent(m) * gm_ctype_size(m->ctype) : 0, 0);
  int scratch = lua_gettop(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "#<MAT ");
  put_shape(&b, m);
  luaL_addchar(&b, ' ');
  luaL_addstring(&b, gm_ctype_name(m->ctype));
  if (gml_settings_of(L)->print_mat_facets) {
    luaL_addchar(&b, ' ');
    luaL_addstring(&b, letters);
  }
  if (contents) {
    luaL_addchar(&b, ' ');
    put_contents(L, &b, m, source, scratch);
  }
  luaL_addchar(&b, '>');
  luaL_pushresult(&b);
  return 1;
}

void gml_open_print(lua_State *L, int module_idx) {
  (void)module_idx;
  luaL_newmetatable(L, GML_MAT_MT); /* existing one if gml_open_mat ran */
  static const gml_reg meta[] = {{"__tostring", l_tostring, 1, NULL}, {NULL, NULL, 0, NULL}};
  gml_register(L, -1, meta);
  lua_pop(L, 1);
}
