/* Buffers in Lua: the makers, refcounts, displacement, element access,
 * bulk copies and raw bytes of the buffer model (core/mem/buffer.h); this
 * file reads arguments and pushes results, and the rules the arguments
 * obey are core/io/buffer_args.c's.  Lua tables as buffers and the
 * with_* helpers are in lua/gpumat/buffer.lua.
 *
 * Binding rule: every function reads all its Lua arguments first; only
 * then does it check the buffer (gm_buffer_check) and touch memory, with
 * no Lua call until the last use. */
#include "l_buffer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/io/buffer_args.h"
#include "../core/model/context.h"
#include "../core/mem/runtime.h"

/* ---- the userdata ---- */

/* #<BUFFER int32 {2, 3} device> (or "released") */
static int buffer_tostring(lua_State *L) {
  gml_buffer *b = gml_checkudata(L, 1, GML_BUFFER_MT, "__tostring");
  char text[GM_BUFFER_DESCRIBE_MAX];
  gm_buffer_describe(b, text, sizeof text);
  lua_pushstring(L, text);
  return 1;
}

static int buffer_gc(lua_State *L) {
  gml_buffer *b = gml_checkudata(L, 1, GML_BUFFER_MT, "__gc");
  gm_buffer_end(b);
  return 0;
}

gml_buffer *gml_newbuffer(lua_State *L) {
  gml_buffer *b = lua_newuserdatauv(L, sizeof *b, 1);
  memset(b, 0, sizeof *b);
  luaL_setmetatable(L, GML_BUFFER_MT);
  return b;
}

gml_buffer *gml_testbuffer(lua_State *L, int idx) { return luaL_testudata(L, idx, GML_BUFFER_MT); }

gml_buffer *gml_checkbuffer(lua_State *L, int idx, const char *fname) {
  gml_buffer *b = gml_testbuffer(L, idx);
  if (!b)
    gml_argerror(L, idx, fname, "gpumat buffer expected, got %s", gml_ismat(L, idx) ? "gpumat.mat" : luaL_typename(L, idx));
  return b;
}

void gml_buffer_check_live(lua_State *L, gml_buffer *b, const char *fname) {
  GML_TRY(L, gm_buffer_check(b), fname);
}

static size_t esize(const gml_buffer *b) { return gm_etype_size(b->et); }

bool gml_opt_etype(lua_State *L, int idx, const char *fname, gm_etype *out) {
  bool e = gml_opt_push(L, idx, "element_type");
  if (e) lua_pop(L, 1);
  bool f = gml_opt_push(L, idx, "foreign_type");
  if (f) lua_pop(L, 1);
  if (e && f) gml_argerror(L, idx, fname, "options 'element_type' and 'foreign_type' are mutually exclusive");
  if (!e && !f) return false;
  const char *key = e ? "element_type" : "foreign_type";
  gml_opt_push(L, idx, key);
  /* a type name is never an element type: the message says what was given */
  const char *given = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
  if (gm_etype_option_parse(key, given, out) != GM_OK) gml_argerror(L, idx, fname, "%s", gm_last_error());
  lua_pop(L, 1);
  return true;
}

/* A Lua value as an element of type et (integers must be integral and in
 * range; no silent truncation). */
typedef union elt {
  long long i;
  double d;
  unsigned char bytes[8];
} elt;

/* The value at idx; errors name argument arg (what: "value" or an
 * option's name). */
static void check_value_arg(lua_State *L, int idx, int arg, const char *what, gm_etype et, const char *fname,
                            elt *out) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    gml_argerror(L, arg, fname, "%s must be a number, got %s", what, luaL_typename(L, idx));
  bool is_int = lua_isinteger(L, idx);
  if (gm_etype_encode(et, is_int, is_int ? (long long)lua_tointeger(L, idx) : 0, lua_tonumber(L, idx), what,
                      out->bytes) != GM_OK)
    gml_argerror(L, arg, fname, "%s", gm_last_error());
}

static void check_value(lua_State *L, int idx, gm_etype et, const char *fname, elt *out) {
  check_value_arg(L, idx, idx, "value", et, fname, out);
}

static void push_value(lua_State *L, gm_etype et, const void *p) {
  if (gm_etype_is_integer(et))
    lua_pushinteger(L, (lua_Integer)gm_etype_get_int(et, p, 0));
  else
    lua_pushnumber(L, gm_etype_get_real(et, p, 0));
}

/* ---- makers ---- */

/* The options a maker reads into C; every check of their values happens
 * after the read (value errors come out the same on both read paths). */
typedef struct maker_args {
  int rank;
  size_t dims[GM_MAX_RANK], size;
  gm_etype et;
  bool has_init;
  elt init;
  size_t pitch_elt_size; /* 0: not pitched */
  bool has_level;
  size_t level;          /* pitch_level as given (default 1), checked by gm_buffer_spec_pitch */
  unsigned flags;
} maker_args;

/* Options the fast read understands (a maker passes the subset it allows). */
enum { OPT_ETYPE = 1u, OPT_FTYPE = 2u, OPT_INIT = 4u, OPT_PITCH = 8u, OPT_LEVEL = 16u };

static unsigned option_bit(const char *k, size_t len) {
  switch (len) {
  case 11: return memcmp(k, "pitch_level", 11) == 0 ? OPT_LEVEL : 0;
  case 12:
    if (memcmp(k, "element_type", 12) == 0) return OPT_ETYPE;
    return memcmp(k, "foreign_type", 12) == 0 ? OPT_FTYPE : 0;
  case 14: return memcmp(k, "pitch_elt_size", 14) == 0 ? OPT_PITCH : 0;
  case 15: return memcmp(k, "initial_element", 15) == 0 ? OPT_INIT : 0;
  default: return 0;
  }
}

/* The values read so far by read_options_fast. */
typedef struct fast_values {
  unsigned seen;
  bool init_int;
  lua_Integer init_i, pitch, level;
  lua_Number init_d;
  gm_etype et;
} fast_values;

/* Checks the value at -1 for the option of `bit` (0: not a fast option:
 * false) and records it in v. */
static bool fast_value(lua_State *L, unsigned bit, fast_values *v) {
  if (bit & (OPT_ETYPE | OPT_FTYPE))
    return lua_type(L, -1) == LUA_TSTRING && gm_etype_parse(lua_tostring(L, -1), &v->et) == 0;
  if (bit & OPT_INIT) {
    v->init_int = lua_isinteger(L, -1);
    if (v->init_int)
      v->init_i = lua_tointeger(L, -1);
    else
      v->init_d = lua_tonumber(L, -1);
    return lua_type(L, -1) == LUA_TNUMBER;
  }
  if (bit & (OPT_PITCH | OPT_LEVEL)) {
    int isnum = 0;
    lua_Integer n = lua_tointegerx(L, -1, &isnum);
    *(bit & OPT_PITCH ? &v->pitch : &v->level) = n;
    return isnum && lua_type(L, -1) == LUA_TNUMBER && n >= 0;
  }
  return bit != 0;
}

/* Stores the fast read's values in a; pushes initial_element if given. */
static void fast_apply(lua_State *L, const fast_values *v, maker_args *a, bool *init_pushed) {
  a->et = v->et;
  a->pitch_elt_size = (size_t)v->pitch;
  a->has_level = v->seen & OPT_LEVEL;
  a->level = (size_t)v->level;
  if (v->seen & OPT_INIT) {
    if (v->init_int)
      lua_pushinteger(L, v->init_i);
    else
      lua_pushnumber(L, v->init_d);
    *init_pushed = true;
  }
}

/* Fast read of the common call (the hit path of an allocation cache or
 * the pool is mostly this parsing): no options, or a plain table (no
 * metatable, so a raw read sees what lua_getfield sees) whose keys are
 * all in `fast` and whose values have their expected types.  One raw
 * pass with lua_next, no string formatting and no allocation.  When
 * anything is unusual it returns false having set nothing the general
 * read does not set again; the general read then raises the precise
 * error.  initial_element is left pushed (checked by the caller). */
static bool read_options_fast(lua_State *L, unsigned fast, maker_args *a, bool *init_pushed) {
  *init_pushed = false;
  if (lua_isnoneornil(L, 2)) return true;
  if (!lua_istable(L, 2)) return false;
  if (lua_getmetatable(L, 2)) {
    lua_pop(L, 1);
    return false;
  }
  fast_values v = {.seen = 0, .level = GM_DEFAULT_PITCH_LEVEL, .et = GM_DEFAULT_ETYPE};
  lua_pushnil(L);
  while (lua_next(L, 2)) {
    /* the key's type first: lua_tolstring on a number key would convert it
       in place and break the traversal */
    unsigned bit = 0;
    if (lua_type(L, -2) == LUA_TSTRING) {
      size_t len;
      const char *k = lua_tolstring(L, -2, &len);
      bit = option_bit(k, len) & fast;
    }
    bool ok = fast_value(L, bit, &v);
    lua_pop(L, 1);
    if (!ok || ((v.seen | bit) & (OPT_ETYPE | OPT_FTYPE)) == (OPT_ETYPE | OPT_FTYPE)) {
      lua_pop(L, 1); /* the key */
      return false;
    }
    v.seen |= bit;
  }
  fast_apply(L, &v, a, init_pushed);
  return true;
}

/* dims at 1, options at 2; `allowed` for the general read's unknown-option
 * check, `fast` the same set as OPT_ bits (0 when the maker has options the
 * fast read does not know: those calls always take the general read). */
static void read_maker_args(lua_State *L, const char *fname, const char *const *allowed, unsigned fast,
                            maker_args *a) {
  memset(a, 0, sizeof *a);
  a->rank = gml_check_dims(L, 1, fname, a->dims);
  a->et = GM_DEFAULT_ETYPE;
  a->level = GM_DEFAULT_PITCH_LEVEL;
  bool init_pushed;
  bool quick = read_options_fast(L, fast, a, &init_pushed);
  if (!quick) {
    gml_check_options(L, 2, fname, allowed);
    a->et = GM_DEFAULT_ETYPE;
    gml_opt_etype(L, 2, fname, &a->et);
  }
  if (gm_buffer_dims_size(a->rank, a->dims, &a->size) != GM_OK) gml_argerror(L, 1, fname, "%s", gm_last_error());
  if (quick ? init_pushed : gml_opt_push(L, 2, "initial_element")) {
    check_value_arg(L, lua_gettop(L), 2, "option 'initial_element'", a->et, fname, &a->init);
    lua_pop(L, 1);
    a->has_init = true;
  }
  if (!quick && (fast & OPT_PITCH)) {
    a->pitch_elt_size = gml_opt_size(L, 2, "pitch_elt_size", 0, fname);
    a->has_level = gml_opt_push(L, 2, "pitch_level");
    if (a->has_level) lua_pop(L, 1);
    a->level = gml_opt_size(L, 2, "pitch_level", GM_DEFAULT_PITCH_LEVEL, fname);
  }
}

/* A maker: its Lua name, the space it allocates in, the options it
 * allows (`allowed` for the general read, `fast` the same set as OPT_
 * bits).  The registered entry comes first: it is the function's upvalue
 * 1, so one C function serves every maker. */
typedef struct maker_reg {
  gml_reg reg;
  gm_space space;
  const char *const *allowed;
  unsigned fast;
} maker_reg;

/* make_cuda_host_array's 'flags' (a list of names) and
 * 'associated_device' (the active context's device). */
static void read_pinned_options(lua_State *L, const char *fn, maker_args *a) {
  if (gml_opt_push(L, 2, "flags")) {
    if (!lua_istable(L, -1)) gml_argerror(L, 2, fn, "option 'flags' must be a list, got %s", luaL_typename(L, -1));
    lua_Integer n = luaL_len(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_geti(L, -1, i);
      /* a type name is never a flag name: the message says what was given */
      const char *f = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
      if (gm_pinned_flag_parse((int)i, f, &a->flags) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  if (gml_opt_push(L, 2, "associated_device")) {
    int isnum;
    lua_Integer id = lua_tointegerx(L, -1, &isnum);
    if (!isnum) gml_argerror(L, 2, fn, "option 'associated_device' must be a device id, got %s", luaL_typename(L, -1));
    if (gm_check_associated_device((long long)id) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
    lua_pop(L, 1);
  }
}

/* gm.make_*_array(dims, opts): the buffer is made into a userdata pushed
 * first (nothing raises between the allocation and the userdata taking
 * it). */
static int l_make(lua_State *L) {
  const maker_reg *mr = lua_touserdata(L, lua_upvalueindex(1));
  const char *fn = mr->reg.name;
  maker_args a;
  read_maker_args(L, fn, mr->allowed, mr->fast, &a);
  gm_buffer_spec s = {.et = a.et, .rank = a.rank, .init = a.has_init ? a.init.bytes : NULL};
  memcpy(s.dims, a.dims, sizeof s.dims);
  if (mr->space == GM_SPACE_DEVICE && gm_buffer_spec_pitch(&s, a.pitch_elt_size, a.has_level, a.level) != GM_OK)
    gml_argerror(L, 2, fn, "%s", gm_last_error());
  if (mr->space == GM_SPACE_PINNED) read_pinned_options(L, fn, &a);
  s.flags = a.flags;
  gm_device *dev = mr->space == GM_SPACE_HOST ? NULL : gm_context_device();
  gml_buffer *b = gml_newbuffer(L);
  GML_TRY(L, gm_buffer_make(mr->space, dev, &s, b), fn);
  return 1;
}

static const char *const plain_opts[] = {"element_type", "foreign_type", "initial_element", NULL};
static const char *const device_opts[] = {"element_type", "foreign_type", "initial_element", "pitch_elt_size",
                                          "pitch_level", NULL};
static const char *const pinned_opts[] = {"element_type", "foreign_type", "initial_element", "flags",
                                          "associated_device", NULL};
static const maker_reg makers[] = {
    {{"make_foreign_array", l_make, 2, NULL}, GM_SPACE_HOST, plain_opts, OPT_ETYPE | OPT_FTYPE | OPT_INIT},
    {{"make_managed_array", l_make, 2, NULL}, GM_SPACE_MANAGED, plain_opts, OPT_ETYPE | OPT_FTYPE | OPT_INIT},
    {{"make_cuda_array", l_make, 2, NULL}, GM_SPACE_DEVICE, device_opts,
     OPT_ETYPE | OPT_FTYPE | OPT_INIT | OPT_PITCH | OPT_LEVEL},
    {{"make_cuda_host_array", l_make, 2, NULL}, GM_SPACE_PINNED, pinned_opts, OPT_ETYPE | OPT_FTYPE | OPT_INIT},
};

/* ---- refcounts ---- */

static int l_ref_buffer(lua_State *L) {
  gml_buffer *b = gml_checkbuffer(L, 1, "ref_buffer");
  gml_buffer_check_live(L, b, "ref_buffer");
  GML_TRY(L, gm_block_ref(b->blk), "ref_buffer");
  lua_settop(L, 1);
  return 1;
}

/* An owning view derefs its block; a non-owning view (ensure) has no
 * count of its own: deref ends the view.  A Lua table (a "lua" buffer,
 * GC-managed) gives true: this is gm.deref_buffer itself, with no Lua
 * wrapper on the allocation hit path.  A table carrying the mat metatable
 * is no Lua buffer (buffer.lua's is_table) and gets the usual error. */
static int l_deref_buffer(lua_State *L) {
  if (lua_isnoneornil(L, 1)) return 0;
  if (lua_type(L, 1) == LUA_TTABLE) {
    bool lua_buffer = true;
    if (lua_getmetatable(L, 1)) {
      luaL_getmetatable(L, GML_MAT_MT);
      lua_buffer = !lua_rawequal(L, -1, -2);
      lua_pop(L, 2);
    }
    if (lua_buffer) {
      lua_pushboolean(L, 1);
      return 1;
    }
  }
  long n = gm_buffer_drop_ref(gml_checkbuffer(L, 1, "deref_buffer"));
  if (n < 0) return 0;
  if (n > 0)
    lua_pushinteger(L, n);
  else
    lua_pushnil(L);
  return 1;
}

/* __close: deref once */
static int buffer_close(lua_State *L) {
  if (!gml_testbuffer(L, 1)) gml_argerror(L, 1, "__close", "gpumat buffer expected, got %s", luaL_typename(L, 1));
  lua_settop(L, 1);
  return l_deref_buffer(L);
}

/* ---- properties ----
 * One C function reads every property: its entry (upvalue 1) says which
 * and under what name errors are reported. */

typedef enum prop { P_ETYPE, P_FTYPE, P_RANK, P_DIMS, P_DIM, P_SIZE, P_PITCH, P_MEM_TYPE, P_OWNING, P_LAYOUT, P_REFCNT } prop;
typedef struct prop_reg {
  gml_reg reg;
  const char *fname;
  prop p;
  bool method; /* also a method of buffers */
} prop_reg;

static void push_buffer_dims(lua_State *L, const gml_buffer *b) {
  int rank = b->rank;
  size_t dims[GM_MAX_RANK];
  memcpy(dims, b->dims, sizeof dims);
  lua_createtable(L, rank, 0);
  for (int i = 0; i < rank; i++) {
    lua_pushinteger(L, (lua_Integer)dims[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

static int l_buffer_prop(lua_State *L) {
  const prop_reg *pr = lua_touserdata(L, lua_upvalueindex(1));
  gml_buffer *b = gml_checkbuffer(L, 1, pr->fname);
  size_t pitch;
  long n;
  switch (pr->p) {
  case P_ETYPE: lua_pushstring(L, gm_buffer_element_type(b)); break;
  case P_FTYPE: lua_pushstring(L, gm_buffer_foreign_type(b)); break;
  case P_RANK: lua_pushinteger(L, gm_buffer_rank(b)); break;
  case P_DIMS: push_buffer_dims(L, b); break;
  case P_DIM: lua_pushinteger(L, (lua_Integer)b->dims[gml_check_axis(L, 2, pr->fname, b->rank)]); break;
  case P_SIZE: lua_pushinteger(L, (lua_Integer)gm_buffer_size(b)); break;
  case P_PITCH:
    GML_TRY(L, gm_buffer_pitch(b, &pitch), pr->fname);
    if (pitch)
      lua_pushinteger(L, (lua_Integer)pitch);
    else
      lua_pushnil(L);
    break;
  case P_MEM_TYPE:
    gml_buffer_check_live(L, b, pr->fname);
    lua_pushstring(L, gm_buffer_mem_type(b));
    break;
  case P_OWNING: lua_pushboolean(L, gm_buffer_is_owning(b)); break;
  case P_LAYOUT: lua_pushstring(L, gm_buffer_layout(b)); break;
  case P_REFCNT:
    n = gm_buffer_refcnt(b);
    if (n >= 0)
      lua_pushinteger(L, (lua_Integer)n);
    else
      lua_pushnil(L);
    break;
  }
  return 1;
}

static const prop_reg props[] = {
    {{"buffer_refcnt_core", l_buffer_prop, 1, "buffer_refcnt"}, "buffer_refcnt", P_REFCNT, false},
    {{"buffer_element_type_core", l_buffer_prop, 1, "buffer_element_type"}, "buffer_element_type", P_ETYPE, false},
    {{"buffer_foreign_type_core", l_buffer_prop, 1, "buffer_foreign_type"}, "buffer_foreign_type", P_FTYPE, false},
    {{"buffer_rank_core", l_buffer_prop, 1, "buffer_rank"}, "buffer_rank", P_RANK, false},
    {{"buffer_dimensions_core", l_buffer_prop, 1, "buffer_dimensions"}, "buffer_dimensions", P_DIMS, false},
    {{"buffer_dimension_core", l_buffer_prop, 2, "buffer_dimension"}, "buffer_dimension", P_DIM, false},
    {{"buffer_size_core", l_buffer_prop, 1, "buffer_size"}, "buffer_size", P_SIZE, false},
    {{"buffer_pitch", l_buffer_prop, 1, NULL}, "buffer_pitch", P_PITCH, false},
    {{"buffer_mem_type", l_buffer_prop, 1, NULL}, "mem_type", P_MEM_TYPE, false},
    {{"buffer_is_owning", l_buffer_prop, 1, NULL}, "is_owning", P_OWNING, false},
    {{"buffer_layout", l_buffer_prop, 1, NULL}, "layout", P_LAYOUT, false},
    {{"mem_type", l_buffer_prop, 1, NULL}, "mem_type", P_MEM_TYPE, true},
    {{"is_owning", l_buffer_prop, 1, NULL}, "is_owning", P_OWNING, true},
    {{"layout", l_buffer_prop, 1, NULL}, "layout", P_LAYOUT, true},
};

/* Subscripts first..first+rank-1 (1-based) -> 0-based row-major index. */
static size_t check_subscripts(lua_State *L, gml_buffer *b, int first, int n, const char *fname) {
  long long subs[GM_MAX_RANK];
  for (int a = 0; n == b->rank && a < n; a++) /* a wrong count is reported first */
    subs[a] = (long long)gml_check_integer(L, first + a, fname);
  size_t k;
  int bad;
  gm_status st = gm_buffer_subscripts_index(b, n, subs, &k, &bad);
  if (st != GM_OK && bad >= 0) gml_argerror(L, first + bad, fname, "%s", gm_last_error());
  GML_TRY(L, st, fname);
  return k;
}

static int l_buffer_row_major_index(lua_State *L) {
  gml_buffer *b = gml_checkbuffer(L, 1, "buffer_row_major_index");
  size_t k = check_subscripts(L, b, 2, lua_gettop(L) - 1, "buffer_row_major_index");
  lua_pushinteger(L, (lua_Integer)k + 1);
  return 1;
}

static size_t check_linear(lua_State *L, gml_buffer *b, int idx, const char *fname) {
  size_t k;
  if (gm_buffer_linear_index(b, (long long)gml_check_integer(L, idx, fname), &k) != GM_OK)
    gml_argerror(L, idx, fname, "%s", gm_last_error());
  return k;
}

static int get_at(lua_State *L, gml_buffer *b, size_t k, const char *fname) {
  elt v;
  GML_TRY(L, gm_buffer_get_element(b, k, v.bytes), fname);
  push_value(L, b->et, v.bytes);
  return 1;
}

static int set_at(lua_State *L, gml_buffer *b, size_t k, const elt *v, const char *fname) {
  GML_TRY(L, gm_buffer_set_element(b, k, v->bytes), fname);
  return 0;
}

static int l_bref(lua_State *L) {
  gml_buffer *b = gml_checkbuffer(L, 1, "bref");
  size_t k = check_subscripts(L, b, 2, lua_gettop(L) - 1, "bref");
  return get_at(L, b, k, "bref");
}

static int l_set_bref(lua_State *L) {
  gml_buffer *b = gml_checkbuffer(L, 1, "set_bref");
  int top = lua_gettop(L);
  if (top < 2) return gml_error(L, "set_bref: value expected");
  elt v;
  check_value(L, top, b->et, "set_bref", &v);
  size_t k = check_subscripts(L, b, 2, top - 2, "set_bref");
  return set_at(L, b, k, &v, "set_bref");
}

static int l_row_major_bref(lua_State *L) {
  gml_buffer *b = gml_checkbuffer(L, 1, "row_major_bref");
  size_t k = check_linear(L, b, 2, "row_major_bref");
  return get_at(L, b, k, "row_major_bref");
}

static int l_set_row_major_bref(lua_State *L) {
  gml_buffer *b = gml_checkbuffer(L, 1, "set_row_major_bref");
  size_t k = check_linear(L, b, 2, "set_row_major_bref");
  elt v;
  check_value(L, 3, b->et, "set_row_major_bref", &v);
  return set_at(L, b, k, &v, "set_row_major_bref");
}

/* gm.buffer_fill(b, v, {start, stop}) (1-based, stop inclusive) */
static int l_buffer_fill(lua_State *L) {
  const char *fn = "buffer_fill";
  static const char *const opts[] = {"start", "stop", NULL};
  gml_buffer *b = gml_checkbuffer(L, 1, fn);
  elt v;
  check_value(L, 2, b->et, fn, &v);
  gml_check_options(L, 3, fn, opts);
  size_t start = gml_opt_size(L, 3, "start", 1, fn), stop = gml_opt_size(L, 3, "stop", b->size, fn), first, n;
  if (gm_buffer_fill_span(b, start, stop, &first, &n) != GM_OK) gml_argerror(L, 3, fn, "%s", gm_last_error());
  gml_buffer_check_live(L, b, fn);
  GML_TRY(L, gm_buffer_fill_range(b, first, n, v.bytes), fn);
  return 0;
}

/* ---- bulk copies ---- */

/* gm.copy_buffer_data(src, si, dst, di, count | true) -> count (1-based) */
static int l_copy_buffer_data(lua_State *L) {
  const char *fn = "copy_buffer_data";
  gml_buffer *src = gml_checkbuffer(L, 1, fn);
  lua_Integer si = gml_check_integer(L, 2, fn);
  gml_buffer *dst = gml_checkbuffer(L, 3, fn);
  lua_Integer di = gml_check_integer(L, 4, fn);
  bool all = lua_isboolean(L, 5) && lua_toboolean(L, 5);
  lua_Integer count = all ? 0 : gml_check_integer(L, 5, fn);
  size_t n;
  int bad;
  if (gm_buffer_copy_span(src, (long long)si, dst, (long long)di, all, (long long)count, &n, &bad) != GM_OK)
    gml_argerror(L, (int[]){2, 4, 5}[bad], fn, "%s", gm_last_error()); /* si, di, count */
  GML_TRY(L, gm_buffer_copy_elements(dst, (size_t)di - 1, src, (size_t)si - 1, n), fn);
  lua_pushinteger(L, (lua_Integer)n);
  return 1;
}

static int l_copy_full_buffer(lua_State *L) {
  const char *fn = "copy_full_buffer";
  gml_buffer *src = gml_checkbuffer(L, 1, fn);
  gml_buffer *dst = gml_checkbuffer(L, 2, fn);
  GML_TRY(L, gm_buffer_copy_whole(dst, src), fn);
  return 0;
}

/* core.buffer_bytes(b) -> string of the visible elements' native bytes */
static int l_buffer_bytes(lua_State *L) {
  const char *fn = "write_buffer";
  gml_buffer *b = gml_checkbuffer(L, 1, fn);
  size_t n = b->size * esize(b);
  luaL_Buffer lb;
  char *p = luaL_buffinitsize(L, &lb, n + 1); /* allocates: before the block is checked */
  GML_TRY(L, gm_buffer_read_bytes(b, p), fn);
  luaL_pushresultsize(&lb, n);
  return 1;
}

/* core.buffer_set_bytes(b, s): s holds exactly the visible bytes */
static int l_buffer_set_bytes(lua_State *L) {
  const char *fn = "read_buffer";
  gml_buffer *b = gml_checkbuffer(L, 1, fn);
  size_t len;
  const char *s = gml_check_string(L, 2, fn, &len);
  GML_TRY(L, gm_buffer_write_bytes(b, s, len), fn);
  return 0;
}

/* core.buffer_to_list(b) -> flat list of the elements in row-major order */
static int l_buffer_to_list(lua_State *L) {
  const char *fn = "buffer_as_array";
  gml_buffer *b = gml_checkbuffer(L, 1, fn);
  size_t n = b->size, es = esize(b);
  if (n > INT32_MAX) return gml_error(L, "%s: buffer too large for a Lua table", fn);
  void *tmp = lua_newuserdatauv(L, n * es + 1, 0);
  lua_createtable(L, (int)n, 0);
  GML_TRY(L, gm_buffer_read_row_major(b, tmp), fn);
  gm_etype et = b->et;
  for (size_t k = 0; k < n; k++) {
    push_value(L, et, (char *)tmp + k * es);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  return 1;
}

/* ---- displacement ---- */

static int l_buffer_displacement(lua_State *L) {
  gml_buffer *b = gml_checkbuffer(L, 1, "buffer_displacement");
  if (!b->displaced) {
    lua_pushnil(L);
    return 1;
  }
  lua_getiuservalue(L, 1, 1);
  gml_buffer *base = gml_testbuffer(L, -1);
  if (!base) return gml_error(L, "buffer_displacement: internal error (no base)");
  size_t whole;
  double d;
  if (gm_buffer_displacement_in(b, base, &whole, &d))
    lua_pushinteger(L, (lua_Integer)whole);
  else
    lua_pushnumber(L, d);
  return 2;
}

/* Whether options table 2 has key (a non-nil value). */
static bool has_option(lua_State *L, const char *key) {
  bool has = gml_opt_push(L, 2, key);
  if (has) lua_pop(L, 1);
  return has;
}

/* buffer_displace's 'dimensions' or 'size' (true: to the end of the
 * block, *fill_rest); returns the rank. */
static int read_displace_shape(lua_State *L, const char *fn, bool has_size, bool has_dims, size_t *dims,
                               bool *fill_rest) {
  int rank = 1;
  if (has_dims) {
    lua_getfield(L, 2, "dimensions");
    rank = gml_check_dims(L, lua_gettop(L), fn, dims);
    lua_pop(L, 1);
  } else if (has_size) {
    lua_getfield(L, 2, "size");
    if (lua_isboolean(L, -1) && lua_toboolean(L, -1))
      *fill_rest = true;
    else if (lua_type(L, -1) == LUA_TNUMBER && lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 0)
      dims[0] = (size_t)lua_tointeger(L, -1);
    else
      gml_argerror(L, 2, fn, "option 'size' must be a non-negative integer or true, got %s", luaL_typename(L, -1));
    lua_pop(L, 1);
  }
  return rank;
}

/* buffer_displace's 'mapping': 0 none, 1 device, 2 host. */
static int read_mapping(lua_State *L, const char *fn) {
  int mapping = 0;
  if (gml_opt_push(L, 2, "mapping")) {
    /* a type name is never a mapping name: the message says what was given */
    const char *m = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
    if (gm_mapping_parse(m, &mapping) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
    lua_pop(L, 1);
  }
  return mapping;
}

/* gm.buffer_displace(b, {offset | byte_offset, element_type | foreign_type,
 * size | dimensions, mapping}) */
static int l_buffer_displace(lua_State *L) {
  const char *fn = "buffer_displace";
  static const char *const opts[] = {"offset", "byte_offset", "element_type", "foreign_type", "size", "dimensions",
                                     "mapping", NULL};
  gml_buffer *b = gml_checkbuffer(L, 1, fn);
  gml_check_options(L, 2, fn, opts);
  bool has_off = has_option(L, "offset"), has_boff = has_option(L, "byte_offset");
  bool has_size = has_option(L, "size"), has_dims = has_option(L, "dimensions");
  if (gm_displace_options_check(has_off, has_boff, has_size, has_dims) != GM_OK)
    gml_argerror(L, 2, fn, "%s", gm_last_error());
  gm_etype et = b->et;
  gml_opt_etype(L, 2, fn, &et);
  size_t rel, n = has_boff ? gml_opt_size(L, 2, "byte_offset", 0, fn) : gml_opt_size(L, 2, "offset", 0, fn);
  if (gm_displace_offset(b, has_off, n, &rel) != GM_OK) gml_argerror(L, 2, fn, "%s", gm_last_error());
  size_t dims[GM_MAX_RANK] = {0};
  bool fill_rest = false;
  int rank = read_displace_shape(L, fn, has_size, has_dims, dims, &fill_rest);
  int mapping = read_mapping(L, fn);
  /* every argument is read: now the view */
  gml_buffer *nb = gml_newbuffer(L); /* allocates before b's block is checked */
  gm_displace_args da = {.rel_bytes = rel, .et = et, .rank = has_dims || (has_size && !fill_rest) ? rank : 0,
                         .rest = fill_rest, .mapping = mapping};
  memcpy(da.dims, dims, sizeof da.dims);
  gm_status st = gm_buffer_displace_view(b, &da, nb);
  if (st == GM_EINVAL) return gml_argerror(L, 2, fn, "%s", gm_last_error());
  GML_TRY(L, st, fn);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* gm.f = core.buffer_dispatch(lua_impl, c_impl): a C closure calling
 * lua_impl when argument 1 is a Lua table (a "lua" buffer), else c_impl;
 * being C, it keeps the C functions' errors free of a position inside
 * buffer.lua. */
static int dispatch_call(lua_State *L) {
  int n = lua_gettop(L);
  bool tab = lua_type(L, 1) == LUA_TTABLE && !gml_ismat(L, 1);
  lua_pushvalue(L, gml_upvalueindex(tab ? 1 : 2));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}

static int l_buffer_dispatch(lua_State *L) {
  for (int i = 1; i <= 2; i++)
    if (lua_type(L, i) != LUA_TFUNCTION)
      gml_argerror(L, i, "buffer_dispatch", "function expected, got %s", luaL_typename(L, i));
  lua_settop(L, 2);
  static const gml_reg dispatch = {"buffer_dispatch", dispatch_call, GML_VARARGS, NULL};
  gml_push_function(L, &dispatch, 2);
  return 1;
}

static int l_bufferp_core(lua_State *L) {
  lua_pushboolean(L, gml_testbuffer(L, 1) != NULL);
  return 1;
}

/* Sets the properties that are (methods) or are not methods into the
 * table at idx. */
static void register_props(lua_State *L, int idx, bool methods) {
  idx = lua_absindex(L, idx);
  for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
    if (props[i].method != methods) continue;
    gml_push_function(L, &props[i].reg, 0);
    lua_setfield(L, idx, props[i].reg.name);
  }
}

void gml_open_buffer(lua_State *L, int module_idx) {
  static const gml_reg meta[] = {
      {"__gc", buffer_gc, 1, NULL}, {"__close", buffer_close, 2, NULL}, {"__tostring", buffer_tostring, 1, NULL}, {NULL, NULL, 0, NULL}};
  luaL_newmetatable(L, GML_BUFFER_MT);
  gml_register(L, -1, meta);
  lua_newtable(L); /* the methods */
  register_props(L, -1, true);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "__index");
  lua_setfield(L, module_idx, "buffer_methods_table");
  lua_pop(L, 1);
  static const gml_reg fns[] = {
      {"is_buffer", l_bufferp_core, 1, NULL},
      {"buffer_dispatch", l_buffer_dispatch, 2, NULL},
      {"ref_buffer_core", l_ref_buffer, 1, "ref_buffer"},
      {"deref_buffer", l_deref_buffer, 1, NULL},
      {"buffer_close", buffer_close, 2, NULL},
      {"buffer_row_major_index_core", l_buffer_row_major_index, GML_VARARGS, "buffer_row_major_index"},
      {"bref_core", l_bref, GML_VARARGS, "bref"},
      {"set_bref_core", l_set_bref, GML_VARARGS, "set_bref"},
      {"row_major_bref_core", l_row_major_bref, 2, "row_major_bref"},
      {"set_row_major_bref_core", l_set_row_major_bref, 3, "set_row_major_bref"},
      {"buffer_fill_core", l_buffer_fill, 3, "buffer_fill"},
      {"copy_buffer_data_core", l_copy_buffer_data, 5, "copy_buffer_data"},
      {"copy_full_buffer_core", l_copy_full_buffer, 2, "copy_full_buffer"},
      {"buffer_bytes", l_buffer_bytes, 1, "write_buffer"},
      {"buffer_set_bytes", l_buffer_set_bytes, 2, "read_buffer"},
      {"buffer_to_list", l_buffer_to_list, 1, "buffer_as_array"},
      {"buffer_displacement_core", l_buffer_displacement, 1, "buffer_displacement"},
      {"buffer_displace", l_buffer_displace, 2, NULL},
      {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
  register_props(L, module_idx, false);
  for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++) {
    gml_push_function(L, &makers[i].reg, 0);
    lua_setfield(L, module_idx, makers[i].reg.name);
  }
}
