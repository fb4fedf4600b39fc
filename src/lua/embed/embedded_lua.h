/* The Lua sources compiled into libgpumat (generated embedded_lua.c). */
#ifndef GM_LUA_EMBEDDED_LUA_H
#define GM_LUA_EMBEDDED_LUA_H

#include <stddef.h>

typedef struct gml_embedded_file {
  const char *module;    /* "gpumat", "gpumat.shaping", ...; NULL ends the list */
  const char *chunkname; /* "@gpumat/shaping.lua" */
  const unsigned char *src;
  size_t len;
} gml_embedded_file;

extern const gml_embedded_file gml_embedded_lua[];

#endif
