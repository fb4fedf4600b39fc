/* DLPack capsules (l_dlpack.c), shared with the embedding API
 * (embed/embed.c: gpumat_pushdlpack). */
#ifndef GM_LUA_DLPACK_H
#define GM_LUA_DLPACK_H

#include <lua.h>

#include "../../include/gpumat.h"

#define GML_DLPACK_MT "gpumat.dlpack"

/* Pushes a capsule owning t: consumed by gm.from_dlpack, else its
 * deleter runs when the capsule is collected (t NULL: an empty one). */
void gml_push_capsule(lua_State *L, DLManagedTensorVersioned *t);
void gml_open_dlpack(lua_State *L, int module_idx);

#endif
