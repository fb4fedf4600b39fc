/* The texts of mats, built by the core under the arguments and the
 * state's print_* settings:
 *   tostring(m)  "#<MAT 2x3 double CF {{1, 2, 3}, {4, 5, 6}}>" (core/io/format.h)
 *   core._format_grid(m, max_slices, max_rows, max_cols, precision)
 *       gm.format_mat's rows and columns (core/io/format_grid.h; the
 *       options are checked in lua/gpumat/format.lua) */
#include "../core/io/format.h"
#include "../core/io/format_grid.h"
#include "../core/io/peek_grid.h"
#include "util.h"

/* A text is built in C memory owned by a userdata of this type, so a
 * memory error while pushing it cannot leak it. */
#define TEXT_MT "gpumat.text"

static int l_text_gc(lua_State *L) {
  gm_strbuf_free(gml_checkudata(L, 1, TEXT_MT, "__gc"));
  return 0;
}

static gm_strbuf *new_text(lua_State *L) {
  gm_strbuf *text = lua_newuserdatauv(L, sizeof *text, 0);
  *text = (gm_strbuf){0};
  luaL_setmetatable(L, TEXT_MT);
  return text;
}

static int push_text(lua_State *L, gm_strbuf *text) {
  lua_pushlstring(L, text->s, text->len);
  gm_strbuf_free(text);
  return 1;
}

static int l_tostring(lua_State *L) {
  gml_mat *box = gml_testbox(L, 1);
  if (!box) gml_argerror(L, 1, "__tostring", "gpumat.mat expected, got %s", luaL_typename(L, 1));
  gml_guard(L, 1); /* the holder's allocation runs the GC (finalizers) */
  if (!box->m) {
    lua_pushliteral(L, "#<MAT freed>");
    return 1;
  }
  gm_mat *m = box->m;
  const gml_settings *s = gml_settings_of(L);
  gm_print_options o = {s->print_mat, s->print_mat_facets, (long)s->print_max_elements};
  gm_strbuf *text = new_text(L);
  GML_TRY(L, gm_mat_format(m, &o, text), "tostring");
  return push_text(L, text); /* the mat is not used from here on */
}

static int l_format_grid(lua_State *L) {
  const char *fn = "_format_grid";
  gm_grid_format_options o = {gml_check_size(L, 2, fn, "max_slices"), gml_check_size(L, 3, fn, "max_rows"),
                              gml_check_size(L, 4, fn, "max_cols"), gml_check_size(L, 5, fn, "precision")};
  gm_strbuf *text = new_text(L); /* before the mat is taken: it may run finalizers */
  gm_mat *m = gml_checkmat(L, 1, "format_mat");
  gm_peek_grid g; /* a grid too large is an error in the options */
  if (gm_peek_grid_plan(m, o.max_slices, o.max_rows, o.max_cols, &g) != GM_OK)
    gml_argerror(L, 2, "format_mat", "%s", gm_last_error());
  GML_TRY(L, gm_mat_format_grid(m, &o, text), "format_mat");
  return push_text(L, text); /* the mat is not used from here on */
}

void gml_open_format(lua_State *L, int module_idx) {
  static const gml_reg text_meta[] = {{"__gc", l_text_gc, 1, NULL}, {NULL, NULL, 0, NULL}};
  luaL_newmetatable(L, TEXT_MT);
  gml_register(L, -1, text_meta);
  lua_pop(L, 1);
  luaL_newmetatable(L, GML_MAT_MT); /* existing one if gml_open_mat ran */
  static const gml_reg meta[] = {{"__tostring", l_tostring, 1, NULL}, {NULL, NULL, 0, NULL}};
  gml_register(L, -1, meta);
  lua_pop(L, 1);
  static const gml_reg fns[] = {{"_format_grid", l_format_grid, 5, NULL}, {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}
