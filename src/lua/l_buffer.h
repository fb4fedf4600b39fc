/* The buffer userdata, shared by l_buffer.c (buffers, makers,
 * copies) and l_memspace.c (ensure, mat_from_buffer, alloc caches). */
#ifndef GM_LUA_L_BUFFER_H
#define GM_LUA_L_BUFFER_H

#include "../core/mem/buffer.h"
#include "util.h"

#define GML_BUFFER_MT "gpumat.buffer"

/* The userdata holds a gm_buffer (core/mem/buffer.h).  Uservalue 1: the
 * buffer it was displaced from. */
typedef gm_buffer gml_buffer;

/* The buffer at idx, or a "bad argument" error (not a buffer, or closed). */
gml_buffer *gml_checkbuffer(lua_State *L, int idx, const char *fname);
gml_buffer *gml_testbuffer(lua_State *L, int idx);
/* Pushes a new buffer userdata (fields zeroed, blk NULL) and returns it;
 * fill it at once, with no Lua call in between. */
gml_buffer *gml_newbuffer(lua_State *L);
/* After all arguments are read: the view's memory must still be there. */
void gml_buffer_check_live(lua_State *L, gml_buffer *b, const char *fname);
/* Element type option pair: element_type | foreign_type (both an error). */
bool gml_opt_etype(lua_State *L, int idx, const char *fname, gm_etype *out);

void gml_open_buffer(lua_State *L, int module_idx);
void gml_open_memspace(lua_State *L, int module_idx);

#endif
