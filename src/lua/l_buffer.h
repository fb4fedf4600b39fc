/* The buffer userdata (seed 000), shared by l_buffer.c (buffers, makers,
 * copies) and l_memspace.c (ensure, mat_from_buffer, alloc caches). */
#ifndef GM_LUA_L_BUFFER_H
#define GM_LUA_L_BUFFER_H

#include "../core/mem/block.h"
#include "util.h"

#define GML_BUFFER_MT "gpumat.buffer"

/* A view of one block: element type, dims, logical byte offset.  blk is
 * held (one hold) until the userdata is collected or, for a non-owning
 * view, closed.  An ensure view of a mat also holds the vec and one
 * facet reference.  Uservalue 1: the buffer it was displaced from. */
typedef struct gml_buffer {
  gm_block *blk;
  gm_etype et;
  int rank;
  size_t dims[GM_MAX_RANK];
  size_t size;
  size_t offset;     /* bytes from the block's start (logical) */
  bool device_view;  /* a mapped pinned block seen at its device address */
  bool owning;
  bool col_major;
  bool displaced;
  gm_vec *vec;       /* ensure view of a mat, else NULL */
  gm_facet_name facet;
} gml_buffer;

/* The buffer at idx, or a "bad argument" error (not a buffer, or closed). */
gml_buffer *gml_checkbuffer(lua_State *L, int idx, const char *fname);
gml_buffer *gml_testbuffer(lua_State *L, int idx);
/* Pushes a new buffer userdata (fields zeroed, blk NULL) and returns it;
 * fill it at once, with no Lua call in between. */
gml_buffer *gml_newbuffer(lua_State *L);
/* "host", "pinned", "device", "managed" as seen through this view. */
const char *gml_buffer_mem_type(const gml_buffer *b);
/* Element size and the physical element index of row-major element k
 * (col_major buffers store columns first). */
size_t gml_buffer_phys_index(const gml_buffer *b, size_t k);
/* Reads/writes n elements starting at physical element index p through
 * any memory space (device memory with one counted copy). */
gm_status gml_buffer_read(gml_buffer *b, size_t p, size_t n, void *out);
gm_status gml_buffer_write(gml_buffer *b, size_t p, size_t n, const void *in);
/* Element type option pair: element_type | foreign_type (both an error). */
bool gml_opt_etype(lua_State *L, int idx, const char *fname, gm_etype *out);

void gml_open_buffer(lua_State *L, int module_idx);
void gml_open_memspace(lua_State *L, int module_idx);

#endif
