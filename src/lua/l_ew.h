/* Argument helpers shared by the elementwise and NN bindings
 * (l_elementwise.c, l_nn.c). */
#ifndef GM_LUA_L_EW_H
#define GM_LUA_L_EW_H

#include "util.h"

/* A number argument; raises "bad argument #idx to 'fname' (what must be a
 * number, got T)". */
double gml_ew_number(lua_State *L, int idx, const char *fname, const char *what);
/* A number argument that is not NaN (a bound of clamp). */
double gml_ew_bound(lua_State *L, int idx, const char *fname, const char *what);
/* Raises "bad argument #arg to 'fname' (mixed ctypes: an is T, bn is U)". */
void gml_ew_same_ctype(lua_State *L, int arg, const char *fname, const char *an, const gm_mat *a,
                       const char *bn, const gm_mat *b);
/* Registers r as method r->name of mats; the method's self becomes
 * argument k of r->func (k = 1: the function itself). */
#define gml_ew_method gml_method_at

#endif
