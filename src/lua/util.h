/* Shared helpers of the Lua binding: the mat userdata, argument and
 * option checking, and turning a core status into one Lua error.
 *
 * Rules: every Lua-facing function checks all arguments
 * before touching memory; messages are lowercase and name the function
 * and the argument: "bad argument #2 to 'gemm_' (inner dimensions
 * differ: 3 vs 4)".  Argument numbers are those of the module function
 * (gm.f(a, b, ...)); methods are thin Lua wrappers over them. */
#ifndef GM_LUA_UTIL_H
#define GM_LUA_UTIL_H

#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>

#include "../core/model/deferred.h"
#include "../core/model/mat.h"
#include "../core/model/settings.h"

#define GML_MAT_MT "gpumat.mat"

/* The mat userdata: a box holding one owned view; m == NULL once freed. */
#define GML_MAT_MAGIC 0x676d2e6d61742121ULL /* "gm.mat!!" */
typedef struct gml_mat {
  unsigned long long magic; /* GML_MAT_MAGIC: see testbox in util.c */
  gm_mat *m;
  /* Direct element access (l_mat.c, gm_vec_direct_open): the generation
   * of m->vec that certifies reads (0: none) and whether it certifies
   * writes.  Gens are process-wide unique, so a different vec behind m
   * (adjust_, a new box) can never match. */
  unsigned long long gen;
  bool writable;
  /* method lookups through the shared __index, and whether the mat has
   * its own method cache (l_mat.c: a mat looked up often gets one) */
  unsigned lookups;
  bool method_cache;
  /* the state's settings (gml_box_result reads them without a lookup) */
  const struct gm_settings *settings;
} gml_mat;

/* Paces the collector (as gml_newbox), then pushes a new userdata owning
 * m (on an allocation error m is freed and a Lua error raised). */
void gml_pushmat(lua_State *L, gm_mat *m);
/* The result first (the binding rule's zero-cost form, below): paces
 * the collector (a step or a full collection by the bytes mats allocated,
 * util.c: finalizers may run) and pushes a box without a mat (m NULL: a
 * "freed mat" to any use) before the operands are taken, since both may
 * run finalizers; the result mat goes into box->m as soon as it is made
 * (no Lua code runs in between, so an error later still frees it with
 * the box). */
gml_mat *gml_newbox(lua_State *L);
/* The new mat (gm_result_new: dims, ctype t, the state's default
 * synchronization) made into box; raises fn's error. */
gm_mat *gml_box_result(lua_State *L, gml_mat *box, int rank, const size_t *dims, gm_ctype t, bool cuda_enabled,
                       const char *fn);
/* The mat at idx; raises "bad argument #idx to 'fname' (gpumat.mat expected,
 * got T)" or "... (attempt to use a freed mat)". */
gm_mat *gml_checkmat(lua_State *L, int idx, const char *fname);
/* gml_checkmat's box (element access keeps its direct-access state there). */
gml_mat *gml_checkbox(lua_State *L, int idx, const char *fname);
/* gml_checkmat of the box at idx that gml_testbox found (not looked up
 * again: a mat operand of every binary op). */
gm_mat *gml_checkmat_in(lua_State *L, int idx, gml_mat *box, const char *fname);
/* The mat box at idx, or NULL (recognized by size and magic, not by its
 * metatable: a mat used often has its own, see l_mat.c).  Inline: it
 * is on the path of every element access. */
static inline gml_mat *gml_testbox(lua_State *L, int idx) {
  gml_mat *b = (gml_mat *)lua_touserdata(L, idx);
  if (b && lua_rawlen(L, idx) == sizeof *b && b->magic == GML_MAT_MAGIC) return b;
  return NULL;
}

gml_mat *gml_elembox_error(lua_State *L, int idx, const char *fname);
/* gml_checkbox without draining deferred frees, for element access: they
 * wait for the next other call (a few ns saved on the hottest path).
 * Inline, with the errors out of line. */
static inline gml_mat *gml_checkelembox(lua_State *L, int idx, const char *fname) {
  gml_mat *box = gml_testbox(L, idx);
  if (box && box->m) return box;
  return gml_elembox_error(L, idx, fname);
}
/* Like gml_checkmat but nil/none gives NULL. */
gm_mat *gml_optmat(lua_State *L, int idx, const char *fname);
bool gml_ismat(lua_State *L, int idx);


/* ---- Binding rule: guards and pins (docs/ARCHITECTURE.md "Binding rule") ----
 *
 * A binding must not use a gm_mat* after Lua code ran that could free or
 * reshape it.  Lua code runs at any lua_getfield/lua_geti/luaL_len/lua_next
 * on a user table (metamethods), luaL_tolstring (__tostring), lua_call, and
 * at any allocation (lua_newtable, lua_pushstring, lua_newuserdatauv,
 * luaL_Buffer growth, gml_pushmat: a GC step runs finalizers).
 *
 * Preferred (zero cost): read and check every Lua argument into C values
 * first, then take the mats, make no such call until their last use, and
 * push results after it; or push the result's box first (gml_newbox,
 * which also paces the collector), then take the mats and compute.
 *
 * When that is impractical, open a guard as the FIRST statement:
 *
 *     gml_guard(L, 3);                   // nargs: the function's argument count;
 *                                        // pins every mat argument on the stack
 *     gm_mat *m = gml_checkmat(L, 1, fn);
 *     ... read options, push tables ...  // m stays valid and keeps its shape
 *     gml_pin(L, idx);                   // a mat found later (in a table) at idx
 *
 * The guard is a to-be-closed slot pushed above the arguments (the stack
 * is first extended with nils to nargs, so optional arguments stay nil;
 * do not lua_remove,
 * lua_insert or lua_replace across it; lua_settop below it closes it); it
 * closes when the function returns or raises.  While a mat is pinned,
 * m:free(), __gc and __close mark its box freed at once (later use raises
 * "attempt to use a freed mat") and free it when the pin drops; destructive
 * shaping (reshape_, displace_, adjust_, destroy, ...; they take their mat
 * with gml_checkmat_shapable) raises "<fn>: mat is in use by a running
 * gpumat call".  The same holds for every mat while the GC hook of the
 * reclaim cascade / GC nudge runs finalizers (gm_deferred_hook_enter/leave).
 * The frames, pins and the queue are the core's: core/model/deferred.h. */
void gml_guard(lua_State *L, int nargs);
/* Pins the mat at idx (if it is a live mat) into the innermost guard of L. */
void gml_pin(lua_State *L, int idx);
/* gml_checkmat for destructive shaping or facet destruction: also raises
 * "<fname>: mat is in use by a running gpumat call" when pinned. */
gm_mat *gml_checkmat_shapable(lua_State *L, int idx, const char *fname);
/* Marks the box freed and frees its mat now, or defers the free while the
 * mat is pinned or (unless collected: __gc) the GC hook runs
 * (gm_deferred_release).  The GC hook brackets its lua_gc calls with
 * gm_deferred_hook_enter/leave; gm.collect, a guard's close and the next
 * gml_checkmat drain the queue (gm_deferred_drain). */
void gml_release_box(gml_mat *box, bool collected);

/* Raises the message (lua_pushfstring formats) like luaL_error, except
 * that a call from gpumat's own Lua modules (lua/gpumat/NAME.lua) gets no
 * position: a message never points inside the library (use it, not
 * luaL_error). */
int gml_error(lua_State *L, const char *fmt, ...);
/* Raises "bad argument #arg to 'fname' (formatted reason)" (C formats)
 * like gml_error. */
int gml_argerror(lua_State *L, int arg, const char *fname, const char *fmt, ...);
/* The one refusal of a non-float mat by a float-only function (argument
 * idx of fname): "bad argument #idx to 'fname' (an int32 mat; this
 * function takes float32/float64 mats ...)".  Does not return. */
int gml_float_only_error(lua_State *L, int idx, const char *fname, const gm_mat *m);
/* Raises the error for a failed core call: a plain message "fname: msg"
 * or, for resource conditions (cuda_out_of_memory, cuda_error,
 * cublas_error, curand_error, nvrtc_error, mpi_error, nccl_error), an error object table with
 * kind, message and details (see gpumat.errors in init.lua). */
int gml_raise(lua_State *L, gm_status st, const char *fname);
#define GML_TRY(L, expr, fname)                  \
  do {                                           \
    gm_status gml_st_ = (expr);                  \
    if (gml_st_ != GM_OK) gml_raise(L, gml_st_, fname); \
  } while (0)

/* Option tables: idx may be none/nil (no options).  Unknown keys and
 * non-table values are errors naming the argument.  Returns which of the
 * allowed keys the table holds (bit i: allowed[i]; "dtype" counts as
 * "ctype"), all bits when it has a metatable (an __index may answer any),
 * so that a caller with many options reads only those: each read is a
 * lua_getfield, about 180 instructions, and gm.mat made ten. */
unsigned gml_check_options(lua_State *L, int idx, const char *fname, const char *const *allowed);
/* Pushes opts[key] and returns true when present and non-nil (else pushes
 * nothing). */
bool gml_opt_push(lua_State *L, int idx, const char *key);
/* The options {out = m} at idx (no other key): pushes m and returns its
 * stack index (raises unless it is a mat; a freed one is the caller's to
 * refuse), or 0 without out.  Reading it may run metamethods: call it
 * before taking any mat, or under a guard. */
int gml_opt_out(lua_State *L, int idx, const char *fname);
/* gml_opt_out, and *ran says whether reading the options may have run
 * Lua (they had a metatable or an unusual form): when false, mats taken
 * before the call are still valid (the plain {out = m} makes raw reads
 * only, and allocates nothing). */
int gml_opt_out_ran(lua_State *L, int idx, const char *fname, bool *ran);
/* The options at idx, a table the caller saw has no metatable, when they
 * are {out = v} and nothing else: pushes the key and v and returns v's
 * stack index (v unchecked); 0 (nothing pushed) for {}; -1 (nothing
 * pushed) for any other form, which gml_opt_out reads and words.  Raw
 * reads only: no Lua runs. */
int gml_plain_out(lua_State *L, int idx);
lua_Integer gml_opt_integer(lua_State *L, int idx, const char *key, lua_Integer def, const char *fname);
lua_Number gml_opt_number(lua_State *L, int idx, const char *key, lua_Number def, const char *fname);
bool gml_opt_boolean(lua_State *L, int idx, const char *key, bool def, const char *fname);
/* Non-negative integer option (sizes, counts, offsets). */
size_t gml_opt_size(lua_State *L, int idx, const char *key, size_t def, const char *fname);
/* ctype option, default gm.default_ctype. */
gm_ctype gml_opt_ctype(lua_State *L, int idx, const char *key, const char *fname);

/* Checks a non-negative integer argument. */
size_t gml_check_size(lua_State *L, int idx, const char *fname, const char *what);
/* Checks a ctype name argument. */
gm_ctype gml_check_ctype(lua_State *L, int idx, const char *fname);
/* Dimensions: an integer or a list of non-negative integers; returns rank. */
int gml_check_dims(lua_State *L, int idx, const char *fname, size_t dims[GM_MAX_RANK]);
/* Pushes dims as a Lua list. */
void gml_push_dims(lua_State *L, const gm_mat *m);
/* 1-based Lua axis argument -> 0-based axis, checked against rank. */
int gml_check_axis(lua_State *L, int idx, const char *fname, int rank);

/* The binding's settings (gm.default_ctype etc.), one set per Lua state:
 * two lua_States of one application configure gpumat independently, and
 * a coroutine shares its state's settings (one registry).  The model
 * (fields, defaults, rules) and the process-wide flags are the core's:
 * src/core/model/settings.h. */
typedef gm_settings gml_settings;
/* L's settings: a userdata in the registry, made by luaopen_gpumat_core
 * (gml_open_settings) with the defaults; a registry lookup, so callers on
 * a hot path fetch it once. */
gml_settings *gml_settings_of(lua_State *L);

/* ---- Binding rule: arguments (docs/ARCHITECTURE.md "Binding rule") ----
 *
 * Every Lua-facing C function (module functions, methods, metamethods,
 * the functions of every userdata type's metatable) is registered from a
 * table of gml_reg that declares the most arguments it takes; the one
 * registration routine below enforces it, so a call with more raises
 * "bad argument #N to 'name' (no value expected)" before the function
 * runs.  Methods called with ':' count self as #1.  Optional trailing
 * arguments (an options table) count: a function f(x, opts) declares 2.
 * GML_VARARGS declares a variadic function (subscripts, pass-through).
 * public_name, when set, names the function in that message (for C
 * functions that Lua code wraps, e.g. "ensure_core" behind gm.ensure).
 *
 * Registered functions are C closures whose upvalue 1 is the gml_reg
 * (static storage); a function with its own upvalues reads them at
 * gml_upvalueindex(i). */
#define GML_VARARGS (-1)
typedef struct gml_reg {
  const char *name;
  lua_CFunction func;
  int max_args;
  const char *public_name;
} gml_reg;
#define gml_upvalueindex(i) lua_upvalueindex((i) + 1)

/* Sets the functions of fns (ending with {NULL}) into the table at idx. */
void gml_register(lua_State *L, int idx, const gml_reg *fns);
/* Pushes one registered function; nup values on the stack become its
 * upvalues gml_upvalueindex(1..nup) (popped). */
void gml_push_function(lua_State *L, const gml_reg *r, int nup);
/* The functions of an op table: regs[op] (n of them, static storage) is
 * pushed with the op number as upvalue gml_upvalueindex(1) and set both
 * as module function and as mat method of its name (self is argument 1,
 * so the method is the function itself); own_count: as gml_push_hot. */
void gml_register_ops(lua_State *L, int module_idx, const gml_reg *regs, int n, bool own_count);
/* The element access functions (m[k], m[k] = v, #m, m:mref, m:set, ...)
 * are the hottest calls: the wrapper's extra C call would cost them ~5 ns
 * of ~40.  Each checks its own count as its first statement,
 * gml_check_arity(L, &its_reg) or gml_check_arity_n (the count a
 * compile-time constant), and is pushed without the wrapper, its entry
 * still as upvalue 1 (so core._arity, and the spec checking every
 * declared count, see it).  Only for those, the operators and the
 * elementwise functions of the op tables (a 1K-element `x + y` or
 * gm.sqrt(x, {out = y}) spent 2-4 % in the wrapper): everything else goes
 * through gml_register. */
void gml_push_hot(lua_State *L, const gml_reg *r, int nup);
/* gml_register with gml_push_hot (every function checks its own count). */
void gml_register_hot(lua_State *L, int idx, const gml_reg *fns);
/* Pushes a new table holding fns (luaL_newlib for gml_reg). */
void gml_newlib(lua_State *L, const gml_reg *fns);
/* Raises "bad argument #n to 'name' (no value expected)" when the
 * running function got more arguments than r declares. */
int gml_arity_error(lua_State *L, const gml_reg *r);
static inline void gml_check_arity(lua_State *L, const gml_reg *r) {
  if (r->max_args >= 0 && lua_gettop(L) > r->max_args) gml_arity_error(L, r);
}
/* A hot function's check where its entry is its upvalue 1 (read only on
 * the error path): n, its declared count. */
static inline void gml_check_arity_n(lua_State *L, int n) {
  if (lua_gettop(L) > n) gml_arity_error(L, (const gml_reg *)lua_touserdata(L, lua_upvalueindex(1)));
}
/* The method m:f(...) of a module function whose self goes to argument
 * position k (k > 1: the written mat is not the first argument); the
 * arity is r's.  Sets it into the shared method table. */
void gml_method_at(lua_State *L, const gml_reg *r, int k);
/* The userdata at idx when it has metatable tname, else raises "bad
 * argument #idx to 'fname' (tname expected, got T)" (luaL_checkudata with
 * the module's own function name). */
void *gml_checkudata(lua_State *L, int idx, const char *tname, const char *fname);
/* A string / integer argument, or that error naming fname. */
const char *gml_check_string(lua_State *L, int idx, const char *fname, size_t *len);
lua_Integer gml_check_integer(lua_State *L, int idx, const char *fname);

/* Area registration functions, called by luaopen_gpumat_core. */
void gml_open_util(lua_State *L, int module_idx);
/* Complex element values (l_complex.c): push a gm.complex table; whether
 * idx is one; read one (false if idx is not one or its fields are not
 * numbers). */
void gml_open_complex(lua_State *L, int module_idx);
void gml_pushcomplex(lua_State *L, double re, double im);
bool gml_iscomplex(lua_State *L, int idx);
bool gml_tocomplex(lua_State *L, int idx, double *re, double *im);
void gml_open_settings(lua_State *L, int module_idx);
void gml_open_mat(lua_State *L, int module_idx);
void gml_open_elementwise(lua_State *L, int module_idx);
void gml_open_scan(lua_State *L, int module_idx);
void gml_open_nn(lua_State *L, int module_idx);
void gml_open_random(lua_State *L, int module_idx);
void gml_open_io(lua_State *L, int module_idx);
void gml_open_format(lua_State *L, int module_idx);
void gml_open_shaping(lua_State *L, int module_idx);
void gml_open_view(lua_State *L, int module_idx);
/* l_view.c: m[{...}] and m[{...}] = x when the subscripts (at 3.. for a
 * read, 4.. for a write with the value at 3) are not one element. */
int gml_index_view(lua_State *L, int n);
/* The index mats and bool masks of m[{...}] (l_view.c reads them,
 * l_index.c applies them): n mats at stack indices idx[0..n) (integer
 * mats and masks, a mask standing for its nonzero() coordinates, all
 * broadcast together), which became the k placeholder subscripts at raw
 * positions at[0..k) (a mask one per axis it consumes); mask, one of them
 * is a mask; axis, where their axes start in the pushed view; front,
 * NumPy's rule moved them first. */
typedef struct gml_adv {
  int n, k, axis;
  int idx[GM_MAX_RANK], at[GM_MAX_RANK];
  bool mask, front;
} gml_adv;
/* Reads (value_idx 0: pushes the copy) or assigns the value at value_idx
 * through adv on the view at vidx. */
int gml_adv_apply(lua_State *L, int vidx, const gml_adv *adv, int value_idx, const char *fn);
void gml_open_index(lua_State *L, int module_idx);
int gml_assign_view(lua_State *L, int n);
/* A Lua value to write into elements of ctype t (l_mat.c): a number, a
 * boolean (integer and bool types) or a gm.complex, exactly (gm_value);
 * raises naming fn and arg otherwise. */
gm_value gml_check_elem(lua_State *L, int arg, gm_ctype t, const char *fn);
/* Every element of x := v exactly, on x's device (l_elementwise.c): a
 * 1-element mat broadcast by the where engine, for the values a double
 * cannot carry (complex, int64 beyond 2^53). */
void gml_fill_value(lua_State *L, gm_mat *x, gm_value v, const char *fn);
/* l_view.c: reshape's dims forms (a list or integers, one -1) and its
 * view of a non-contiguous mat (or with -1). */
int gml_check_reshape_dims(lua_State *L, int idx, const char *fn, size_t *dims, int *infer);
int gml_reshape_view(lua_State *L, gm_mat *m, int rank, size_t *dims, int infer, const char *fn);
void gml_open_facet(lua_State *L, int module_idx);
void gml_open_matdebug(lua_State *L, int module_idx);
void gml_open_emukern(lua_State *L, int module_idx);
void gml_open_repl(lua_State *L, int module_idx);
void gml_open_blas(lua_State *L, int module_idx);
void gml_open_nondestructive(lua_State *L, int module_idx);
void gml_open_context(lua_State *L, int module_idx);
void gml_open_syncing(lua_State *L, int module_idx);
void gml_open_operators(lua_State *L, int module_idx);
void gml_open_broadcast(lua_State *L, int module_idx);
void gml_open_reduce_axis(lua_State *L, int module_idx);
void gml_open_constructors(lua_State *L, int module_idx);
/* l_fft.c: core._fft for lua/gpumat/fft.lua */
void gml_open_fft(lua_State *L, int module_idx);
void gml_open_kernel(lua_State *L, int module_idx);

#endif
