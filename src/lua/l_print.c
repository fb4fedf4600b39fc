/* tostring(m): "#<MAT 2x3 double CF {{1, 2, 3}, {4, 5, 6}}>", formatted
 * by core/format.c under the state's print_* settings. */
#include "../core/format.h"
#include "util.h"

/* The text is built in C memory owned by a userdata of this type, so a
 * memory error while pushing it cannot leak it. */
#define TEXT_MT "gpumat.text"

static int l_text_gc(lua_State *L) {
  gm_strbuf_free(gml_checkudata(L, 1, TEXT_MT, "__gc"));
  return 0;
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
  gm_strbuf *text = lua_newuserdatauv(L, sizeof *text, 0);
  *text = (gm_strbuf){0};
  luaL_setmetatable(L, TEXT_MT);
  GML_TRY(L, gm_mat_format(m, &o, text), "tostring");
  /* the mat is not used from here on */
  lua_pushlstring(L, text->s, text->len);
  gm_strbuf_free(text);
  return 1;
}

void gml_open_print(lua_State *L, int module_idx) {
  (void)module_idx;
  static const gml_reg text_meta[] = {{"__gc", l_text_gc, 1, NULL}, {NULL, NULL, 0, NULL}};
  luaL_newmetatable(L, TEXT_MT);
  gml_register(L, -1, text_meta);
  lua_pop(L, 1);
  luaL_newmetatable(L, GML_MAT_MT); /* existing one if gml_open_mat ran */
  static const gml_reg meta[] = {{"__tostring", l_tostring, 1, NULL}, {NULL, NULL, 0, NULL}};
  gml_register(L, -1, meta);
  lua_pop(L, 1);
}
