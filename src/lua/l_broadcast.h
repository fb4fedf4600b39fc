/* Broadcasting elementwise ops in Lua (l_broadcast.c), shared with the
 * operators (l_operators.c). */
#ifndef GM_LUA_L_BROADCAST_H
#define GM_LUA_L_BROADCAST_H

#include "../core/ops/broadcast.h"
#include "util.h"

/* Pushes op applied to the n operands at stack indices idx[] (mats,
 * numbers or booleans, at least one mat; n = 2 for a gm_bcast_op, 3 for
 * where when op < 0), written into the mat at out_idx (0: a new mat of the
 * broadcast dims, of the promoted ctype (docs/API.md "Promotion"; bool for
 * comparisons), cuda-enabled when they all are).  Argument
 * errors name argfn and the operand's index; shape errors are "NAME:
 * cannot broadcast 2x3 with 3x2" with the op's public name.  The caller
 * holds a guard (gml_guard) over its arguments: the result is allocated
 * while the operands are in use. */
int gml_broadcast(lua_State *L, int op, const int *idx, int n, int out_idx, const char *argfn);
/* gml_broadcast computing in ctype (a gm_ctype), not the promoted one */
int gml_broadcast_as(lua_State *L, int op, const int *idx, int n, int out_idx, const char *argfn, int ctype);

#endif
