#include "util.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/ops/op_table.h"
#include "../core/ops/operands.h"
#include "../core/model/counters.h"
#include "../core/mem/runtime.h"


/* A new box from the mat metatable on the stack top, which it replaces;
 * settings: the state's (gml_box_result reads them from the box). */
static gml_mat *box_from_mt(lua_State *L, const gml_settings *settings) {
  gml_mat *box = lua_newuserdatauv(L, sizeof *box, 0); /* no user value: none is used */
  box->magic = GML_MAT_MAGIC;
  box->m = NULL;
  box->gen = 0;
  box->writable = false;
  box->lookups = 0;
  box->method_cache = false;
  box->settings = settings;
  lua_rotate(L, -2, 1);
  lua_setmetatable(L, -2);
  return box;
}

gm_mat *gml_box_result(lua_State *L, gml_mat *box, int rank, const size_t *dims, gm_ctype t, bool cuda_enabled,
                       const char *fn) {
  gm_sync sync = box->settings->default_synchronization;
  GML_TRY(L, gm_result_new(rank, dims, t, cuda_enabled, sync, &box->m), fn);
  return box->m;
}


/* ---- pacing the collector by what mats cost ----
 *
 * Lua sees a mat as a small userdata; its storage (host pool, device and
 * page-locked blocks) is invisible to the collector, so a loop of
 * temporaries (`local b = a + 1`) piles up garbage mats: gigabytes before
 * Lua's own pacing finds them.  As Torch7 did, the binding tracks the
 * bytes mats allocate (gm_counter.n_bytes_allocated, counted by the host
 * and device pools) and paces the collector by them, in two ways:
 *
 * - A step every STEP_BYTES allocated (lua_gc LUA_GCSTEP).  In Lua's
 *   generational mode, which lua/gpumat/init.lua selects, a step is a
 *   minor collection: its cost is in proportion to the young objects, not
 *   to the heap, and the temporaries of the last few calls die in it, so
 *   their blocks go back to the pools while still in the caches (a loop
 *   of 1K-element `x + y` ran 2x faster than with the full collections
 *   alone, whose blocks came back after 8 MiB of others).  In incremental
 *   mode a step is a slice of the current cycle.
 * - A full collection when the bytes live (gm_mem_live_bytes, read at a
 *   step) have grown since the last one by a threshold that adapts: half
 *   the bytes live after that collection, at least PACE_MIN, and at least
 *   Lua's own heap (so the cost of a collection, which walks the Lua heap,
 *   stays in proportion to the bytes between two).  This bounds garbage
 *   in any mode: mats that lived through minor collections and died old
 *   (in generational mode only a major collection finds them), and every
 *   mat in incremental mode, where a cycle's end is not paced by bytes.
 *   Garbage is thus bounded by about half of what is live (plus PACE_MIN).
 *   PACE_MIN is 8 MiB, not 32: garbage that cycles through 32 MiB between
 *   collections is cold in the caches when its blocks are reused, and a
 *   full collection of a small heap costs little (bench/RESULTS.md). */
#define PACE_MIN ((long)8 << 20)
#define STEP_BYTES ((long)256 << 10)
/* ... and a step waits for STEP_MATS new mats since the last one.  A
 * result is still referenced while the next call runs (`local z = x + y`
 * in a loop: z's register holds the previous result until the call
 * returns), and a mat that lives through two minor collections is old,
 * left to the full ones.  With a step at every call after its result (the
 * first version), every result of STEP_BYTES or more became old: a loop
 * of 100K-float `x + y` kept 20 results in flight, cold in the caches, at
 * 3x numpy's time per call.  Now the result-first calls pace before they
 * make their result (gml_newbox), so the previous one is seen alive by
 * one step, and steps two mats apart also keep young a temporary that the
 * next two calls use. */
#define STEP_MATS 2
/* ... except after a result of STEP_BIG bytes or more: it does not fit in
 * a core's L2 cache, whatever the step, and the step costs little next to
 * its op, so the next one steps at once.  Its block then comes back while
 * the caches still hold it: a loop of 1M-double `x + 1` cycled through
 * four 8 MB blocks with a step every two mats, through three with one at
 * every mat (0.78 ms per call -> 0.54, numpy's 0.44-0.53).  A temporary of
 * that size that the next two calls use grows old and waits for a full
 * collection, which comes after PACE_MIN bytes, a few such mats.  Below
 * it a step per call costs: 100K-float `x + 1` ran 10 % slower with one. */
#define STEP_BIG ((long)1 << 20)
/* ... and that step comes just before the call predicted to make the
 * loop's next big result: its pace follows `period` paces after the last
 * big one (period 1 for `x + 1`, 2 for `x:copy():reshape(n)`, more with
 * small mats between).  A step at the first pace after a big result,
 * whatever came next, saw that result alive (in the caller's variable)
 * and, at the next iteration's step, the one before it: two steps, old,
 * so every big block waited for a full collection, one each two
 * iterations: a loop of `x:copy():reshape(n)` (1M floats) or of `gm.roll`
 * ran at 3-4x a loop of `x:copy()`.  Bounded: a step at the latest after
 * STEP_BIG_MAX bytes. */
#define STEP_BIG_MAX ((long)32 << 20)
/* ... and comes at the latest after STEP_MATS_MAX new mats, however small:
 * a loop of 32-element results stepped every 2048 mats, whose structs
 * (mat, vec, block) then overflowed the thread's spare lists (1024 of
 * each, core/mem/spare.c) back to malloc. */
#define STEP_MATS_MAX 256

/* PACE_MIN, or GPUMAT_GC_PACE_MIN (bytes) from the environment: the
 * fault sweep and the fuzzer set 0, so that every new mat runs a full
 * collection and finalizers run in the middle of every call that makes a
 * mat. */
static long pace_min(void) {
  const char *v = getenv("GPUMAT_GC_PACE_MIN");
  char *end;
  long n = v && *v ? strtol(v, &end, 10) : -1;
  return n >= 0 && v && *end == '\0' ? n : PACE_MIN;
}

typedef struct pace {
  long step_mark; /* n_bytes_allocated at the last step (or collection) */
  long mats;      /* mats made since then */
  long live;      /* bytes live after the last full collection */
  long threshold; /* growth of the live bytes that runs the next one */
  long min;       /* pace_min() */
  bool busy;      /* a collection runs: a finalizer's mats do not start another */
  long seen;      /* n_bytes_allocated at the previous pace */
  long since_big; /* paces since the last one that followed a big allocation */
  long period;    /* paces between the last two such (1: every call makes a big result) */
} pace;

/* What a call that makes a mat needs of its state, found by one registry
 * lookup (each lookup by a light-userdata key cost about 140
 * instructions, and a 1K-element `x + y` made three): the settings, the
 * pace and, as user value 1, the mat metatable (by reference: a lookup by
 * name interns the string on every call). */
typedef struct hot {
  const gml_settings *settings;
  pace P;
} hot;

static const char hot_key = 0;

static long allocated(void) { return (long)atomic_load(&gm_counter.n_bytes_allocated); }

/* Pushes the state's hot data (made on first use) and returns it. */
static hot *push_hot(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &hot_key) == LUA_TUSERDATA) return lua_touserdata(L, -1);
  lua_pop(L, 1);
  hot *H = lua_newuserdatauv(L, sizeof *H, 1);
  H->settings = gml_settings_of(L);
  long min = pace_min();
  H->P = (pace){allocated(), 0, (long)gm_mem_live_bytes(), min, min, false, allocated(), 0, 1};
  if (luaL_getmetatable(L, GML_MAT_MT) == LUA_TTABLE) {
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &hot_key);
  } else {
    lua_pop(L, 1); /* not yet: made again next time */
  }
  return H;
}

/* Pushes the mat metatable (or nil before luaopen registered it); returns
 * the state's hot data. */
static hot *push_mat_mt(lua_State *L) {
  hot *H = push_hot(L);
  lua_getiuservalue(L, -1, 1);
  lua_replace(L, -2);
  return H;
}


/* Runs a full collection (full) or a step with the pace's guards: an
 * explicit free by a finalizer waits for the running call's end (the
 * binding rule, util.h), as in the reclaim cascade's hook. */
static void collect_paced(lua_State *L, pace *P, bool full) {
  P->busy = true;
  gm_deferred_hook_enter();
  lua_gc(L, full ? LUA_GCCOLLECT : LUA_GCSTEP, 0);
  gm_deferred_hook_leave();
  P->step_mark = allocated();
  P->mats = 0;
  if (full) {
    P->live = (long)gm_mem_live_bytes();
    long heap = (long)lua_gc(L, LUA_GCCOUNT) * 1024;
    P->threshold = P->live / 2 > heap ? P->live / 2 : heap;
    if (P->threshold < P->min || P->min == 0) P->threshold = P->min;
  }
  P->busy = false;
}

/* Before a new mat's box is made (gml_newbox, gml_pushmat's new_box): the
 * new mat is not yet a Lua object, so no step ages it; a collection
 * stopped by the user (collectgarbage("stop")) stays stopped. */
static void pace_with(lua_State *L, pace *P) {
  P->mats++;
  long now = allocated(), since = now - P->step_mark;
  if (now - P->seen >= STEP_BIG) { /* the calls since the previous pace made a big block */
    P->period = P->since_big + 1;
    P->since_big = 0;
  } else {
    P->since_big++;
  }
  P->seen = now;
  if (P->busy || (since < STEP_BYTES && P->mats < STEP_MATS_MAX && P->min != 0)) return;
  if (!lua_gc(L, LUA_GCISRUNNING)) {
    P->step_mark = allocated();
    P->mats = 0;
    return;
  }
  if (P->min == 0) {
    collect_paced(L, P, true);
    return;
  }
  if (since < STEP_BIG) {
    if (P->mats < STEP_MATS) return; /* nor a full collection, which the step may make needless */
  } else if (P->since_big + 1 < P->period && P->mats < STEP_MATS_MAX && since < STEP_BIG_MAX) {
    return; /* the loop's next big result is period - since_big - 1 calls away: step just before it */
  }
  collect_paced(L, P, false);
  if ((long)gm_mem_live_bytes() - P->live >= P->threshold) collect_paced(L, P, true);
}

/* The collector is paced first, before the call takes its operands: the
 * previous call's result, still in the caller's register while this one
 * runs, is then seen alive by one step only (the one here), stays young,
 * and its block comes back at the next step, warm; pacing after the new
 * result made every such result live through two steps, old. */
gml_mat *gml_newbox(lua_State *L) {
  hot *H = push_mat_mt(L);
  pace_with(L, &H->P); /* the metatable waits on the stack */
  return box_from_mt(L, H->settings);
}

/* gml_pushmat's box, paced first as gml_newbox's is: m is not yet a Lua
 * object, so a step here cannot age it.  Pacing after the box (the first
 * version) let the step that comes just before a loop's big allocation
 * (STEP_BIG_MAX's comment) see the new mat alive, and the next
 * iteration's step too: a loop of gm.concat (its result made by
 * gml_pushmat) kept every result until a full collection. */
static int new_box(lua_State *L) {
  gml_newbox(L);
  return 1;
}

/* The box is made in a protected call: if Lua cannot allocate it (or a
 * collection the pacing runs fails), m is freed before the error
 * propagates, so the storage never leaks. */
void gml_pushmat(lua_State *L, gm_mat *m) {
  lua_pushcfunction(L, new_box);
  if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
    gm_mat_free(m);
    lua_error(L);
  }
  ((gml_mat *)lua_touserdata(L, -1))->m = m;
}


gm_mat *gml_optmat(lua_State *L, int idx, const char *fname) {
  if (lua_isnoneornil(L, idx)) return NULL;
  return gml_checkmat(L, idx, fname);
}

/* A box is recognized by its size and magic rather than by its metatable
 * (luaL_testudata fetches the metatable by name, hashing and comparing the
 * name on every call): element access is dominated by such fixed costs.
 * Only C code could forge a userdata of this size with this magic. */
static gml_mat *testbox(lua_State *L, int idx) { return gml_testbox(L, idx); }

bool gml_ismat(lua_State *L, int idx) { return testbox(L, idx) != NULL; }

gml_mat *gml_elembox_error(lua_State *L, int idx, const char *fname) {
  if (!gml_testbox(L, idx)) gml_argerror(L, idx, fname, "gpumat.mat expected, got %s", luaL_typename(L, idx));
  gml_argerror(L, idx, fname, "attempt to use a freed mat");
  return NULL;
}

/* Which functions take mats of which element types, checked here in one
 * place before any op table is looked up (the core checks again where it
 * dispatches, for C callers: gm_check_float_mats).  The rows of the op
 * table (kernels/op_table.h) by their columns (table_allows); beyond
 * them, these lists.  Every other function computes in floats, and its
 * mat arguments must be float or double.
 *
 * The functions that take mats of every element type (GM_CTYPES, complex
 * ones too): making, viewing, shaping, copying, filling, element access,
 * printing, files, facets, buffers. */
static const char *const any_ctype_fns[] = {
    "mat", "mat_to_array", "replace_", "row_major_index", "size", "ctype", "dtype", "dims", "dim", "max_size",
    "displacement", "initial_element", "cuda_enabled", "set_cuda_enabled", "copy_mat", "mat_as_scalar", "fill_",
    "astype", "narrow", "select", "t", "permute", "view", "expand", "expand_as", "strides", "is_contiguous",
    "contiguous", "mref", "set", "__pairs", "__index", "__newindex", "reshape_and_displace",
    "reshape_and_displace_", "reshape", "reshape_", "displace", "displace_", "reshape_to_row_matrix_", "adjust_",
    "with_shape_apply", "with_shape_and_displacement", "write_mat", "read_mat", "save_npy", "__tostring",
    "_format_grid", "format_mat", "watch_facet", "watch_facets", "facets", "find_facet", "synchronization",
    "destroy_facet", "destroy", "add_facet_reference", "remove_facet_reference", "use_cuda_p", "free", "__gc",
    "__close", "ensure_core", "ensure", "mat_from_buffer", "syncing_cuda_facets", "with_syncing_cuda_facets",
    "__dlpack", "zeros_like", "ones_like", "full_like", "empty_like" /* core._full_like */,
    "linalg" /* core._linalg: gm_linalg_run checks each job's ctypes */, NULL};

/* Those that take every real type (GM_REAL_CTYPES) but no complex one:
 * scans, indexing and sorting (their engines are instantiated over the
 * real types; sorting and searching order elements, which complex
 * numbers have none of). */
static const char *const real_ctype_fns[] = {
    /* the scans (core/ops/scan.h: exact for bool and integers) */
    "cumulative_sum", "cumulative_prod",
    /* indexing (l_index.c, m[{...}] with index mats and masks) */
    "index", "take", "index_select", "take_along_axis", "gather", "put_along_axis", "scatter_", "scatter_add_",
    "scatter_reduce", "scatter_reduce_", "index_add_", "index_copy_", "index_fill_", "masked_select", "masked_fill_",
    "masked_scatter_", "nonzero", "argwhere",
    /* the sort engine's (l_scan.c: every real ctype, kernels/scan.h) */
    "argsort", "topk", "cummax", "cummin", "mode", "unique", "searchsorted", "isin", NULL};

/* Float-only functions that take complex mats too: the complex parts'
 * mover and gm.linalg's job runner (its gemm job is cgemm/zgemm; the
 * core refuses complex mats for the other jobs). */
static const char *const complex_too_fns[] = {
    "_complex_part", "linalg",
    /* indexing only moves elements (scatter_add_, index_add_ and the sum,
     * prod and mean of scatter_reduce add and multiply them; amax/amin
     * are refused by l_index.c) */
    "index", "take", "index_select", "take_along_axis", "gather", "put_along_axis", "scatter_", "scatter_add_",
    "scatter_reduce", "scatter_reduce_", "index_add_", "index_copy_", "index_fill_", "masked_select", "masked_fill_",
    "masked_scatter_", NULL};

/* The broadcasting functions beyond the op table's rows (l_broadcast.c,
 * l_operators.c): where and the operators, whose mats of every type
 * promote to one compute ctype first, which the binding and the core check
 * against the op (core/ops/broadcast.c), and logical_and/or/xor (bool results
 * of x != 0, lua/gpumat). */
static const char *const promoting_fns[] = {"where", "__add", "__sub", "__div", "__pow", "__unm", "__idiv", "__mod",
                                            "__band", "__bor", "__bxor", "__shl", "__shr", "logical_and",
                                            "logical_or", "logical_xor", NULL};

/* Those that take float16/bfloat16 mats beyond the op table's rows and
 * real_ctype_fns (indexing moves their bits and accumulates in float32,
 * kernels/index.h; sorting, searching and scans run on float32 copies,
 * core/ops/scan.c): the core computes them on float32 copies
 * (core/ops/half.c).  Other functions refuse the half types by name. */
static const char *const half_fns[] = {"gemm_", "matmul", "clamp_", "clamp", "clip", "uniform_random_",
                                       "gaussian_random_", "asum", "nrm2", "dot", "axpy_", "copy_", "scal_", "sort",
                                       "cumulative_logsumexp",
                                       /* gpumat.dist (src/dist/collective.c) */
                                       "allreduce_", "broadcast_", "allgather", "reduce_scatter_", "send", "recv_",
                                       "sendrecv_", NULL};

/* The ones that also take integer mats (not bool): ~ (the core refuses
 * float mats there). */
static const char *const integer_fns[] = {"bitwise_invert", "__bnot", NULL};

/* The ones bool mats take too: ~ (logical not). */
static const char *const bool_fns[] = {"bitwise_invert", "__bnot", NULL};

/* Whether the op table's function fname takes a mat of ctype t: 1 or 0,
 * -1 for a function not in the table.  The broadcasting rows promote
 * their operands to one compute ctype, which l_broadcast.c checks against
 * the row, and the reductions check theirs (l_reduce_axis.c), each with
 * a message naming what the op takes; the other rows by their takes
 * column, gm.F_ (in place) by the kinds the row runs on, gm.F (out of
 * place) as below. */
static int table_allows(const char *fname, gm_ctype t) {
  const gm_op_row *r = gm_op_find(fname);
  if (!r) return -1;
  if (r->family == GM_OPF_BINARY || r->family == GM_OPF_COMPARE || r->family == GM_OPF_REDUCE) return 1;
  if (r->family != GM_OPF_UNARY) return gm_op_takes_ctype(r, t);
  if (strcmp(fname, r->lua) != 0 || gm_ctype_is_complex(t)) return gm_op_runs_on(r, t);
  /* out of place (gm.sqrt(m)): a float-only row computes a bool or integer
   * mat in a float (core: gm_unary_result_ctype); bool mats take none of the
   * integer rows (abs, neg, ...) */
  return !(t == GM_BOOL && gm_op_runs_on(r, GM_INT32));
}

/* The standard's names of unary functions that are not rows: the core
 * checks their ctypes as it does the rows'. */
static const char *const unary_alias_fns[] = {"negative", "reciprocal", NULL};

static bool listed(const char *const *list, const char *fname) {
  for (const char *const *f = list; *f; f++)
    if (strcmp(*f, fname) == 0) return true;
  return false;
}

/* What check_mat_ctype says of a mat of ctype t given to fname. */
typedef enum { CT_OK, CT_NO_COMPLEX, CT_NO_HALF, CT_FLOAT_ONLY } ct_verdict;

static ct_verdict verdict(const char *fname, gm_ctype t) {
  if (gm_ctype_is_float(t)) return CT_OK;
  if (listed(any_ctype_fns, fname)) return CT_OK;
  if (gm_ctype_is_complex(t)) {
    /* the broadcasting functions and rows check their complex kinds */
    if (listed(promoting_fns, fname) || listed(unary_alias_fns, fname) || listed(complex_too_fns, fname) ||
        table_allows(fname, t) == 1)
      return CT_OK;
    return CT_NO_COMPLEX;
  }
  if (gm_ctype_is_half(t)) {
    if (listed(promoting_fns, fname) || listed(unary_alias_fns, fname) || listed(half_fns, fname) ||
        listed(real_ctype_fns, fname) || table_allows(fname, t) == 1)
      return CT_OK;
    return CT_NO_HALF;
  }
  if (listed(real_ctype_fns, fname)) return CT_OK;
  if (listed(promoting_fns, fname)) return CT_OK;
  if (table_allows(fname, t) == 1) return CT_OK;
  int kind = gm_ctype_kind(t);
  if (kind != GM_KIND_BOOL && (listed(unary_alias_fns, fname) || listed(integer_fns, fname))) return CT_OK;
  if (kind == GM_KIND_BOOL && listed(bool_fns, fname)) return CT_OK;
  return CT_FLOAT_ONLY;
}

/* The verdicts of every function some non-float ctype passes, made once:
 * verdict's scans of the lists and of the op table (strcmp by strcmp)
 * cost 9,000 instructions per integer or bool operand, a bool out= mat
 * included (gm.gt(x, 0.5, {out = b}) took 15,700 instructions against
 * x:gt(0.5)'s 7,600).  A name not in the table passes no such ctype. */
typedef struct ct_entry {
  const char *name;
  uint32_t ok; /* bit t: verdict(name, t) == CT_OK */
} ct_entry;

enum { CT_SLOTS = 2048 };
_Static_assert(GM_N_CTYPES <= 32, "ct_entry.ok has a bit per ctype");
static ct_entry ct_table[CT_SLOTS];
static pthread_once_t ct_once = PTHREAD_ONCE_INIT;

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u;
  while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

static void ct_add(const char *name) {
  static int n;
  if (n >= CT_SLOTS / 2) return; /* (not reached) the rest take the scans */
  uint32_t ok = 0;
  for (int t = 0; t < GM_N_CTYPES; t++)
    if (verdict(name, (gm_ctype)t) == CT_OK) ok |= 1u << t;
  for (uint32_t i = name_hash(name) & (CT_SLOTS - 1);; i = (i + 1) & (CT_SLOTS - 1)) {
    if (!ct_table[i].name) {
      ct_table[i] = (ct_entry){name, ok};
      n++;
      return;
    }
    if (strcmp(ct_table[i].name, name) == 0) return;
  }
}

static void ct_add_list(const char *const *list) {
  for (const char *const *f = list; *f; f++) ct_add(*f);
}

static void ct_build(void) {
  const char *const *lists[] = {any_ctype_fns, real_ctype_fns, complex_too_fns, promoting_fns, half_fns,
                                integer_fns,   bool_fns,       unary_alias_fns};
  for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) ct_add_list(lists[k]);
  for (int i = 0; i < gm_n_op_rows; i++) {
    const gm_op_row *r = &gm_op_rows[i];
    ct_add(r->lua);
    if (r->family != GM_OPF_UNARY) continue;
    /* gm_op_find's in-place name, F_ (kept for the process's life) */
    size_t n = strlen(r->lua);
    char *in_place = malloc(n + 2);
    if (!in_place) continue; /* its mats take the scans */
    memcpy(in_place, r->lua, n);
    memcpy(in_place + n, "_", 2);
    ct_add(in_place);
  }
}

/* Bit t set: fname takes ctype t (verdict CT_OK); 0 for a name not in the
 * table. */
static uint32_t ct_ok_mask(const char *fname) {
  pthread_once(&ct_once, ct_build);
  for (uint32_t i = name_hash(fname) & (CT_SLOTS - 1); ct_table[i].name; i = (i + 1) & (CT_SLOTS - 1))
    if (strcmp(ct_table[i].name, fname) == 0) return ct_table[i].ok;
  return 0;
}

static void check_mat_ctype(lua_State *L, int idx, const gm_mat *m, const char *fname) {
  if (gm_ctype_is_float(m->ctype) || (ct_ok_mask(fname) >> m->ctype) & 1) return;
  switch (verdict(fname, m->ctype)) {
    case CT_OK: return;
    case CT_NO_COMPLEX:
      gml_argerror(L, idx, fname, "a %s mat; this function does not take complex mats", gm_ctype_dtype(m->ctype));
      return;
    case CT_NO_HALF:
      gml_argerror(L, idx, fname, "a %s mat; this function does not take float16/bfloat16 mats yet (convert with "
                   "m:astype(\"float32\"))", gm_ctype_dtype(m->ctype));
      return;
    case CT_FLOAT_ONLY: gml_float_only_error(L, idx, fname, m); return;
  }
}

int gml_float_only_error(lua_State *L, int idx, const char *fname, const gm_mat *m) {
  const char *d = gm_ctype_dtype(m->ctype);
  return gml_argerror(L, idx, fname,
                      "a%s %s mat; this function takes float32/float64 mats (convert with m:as(\"float64\"))",
                      d[0] == 'i' ? "n" : "", d);
}

gml_mat *gml_checkbox(lua_State *L, int idx, const char *fname) {
  gml_mat *box = gml_checkelembox(L, idx, fname);
  gm_deferred_poll();
  check_mat_ctype(L, idx, box->m, fname);
  return box;
}

gm_mat *gml_checkmat_in(lua_State *L, int idx, gml_mat *box, const char *fname) {
  if (!box->m) gml_elembox_error(L, idx, fname);
  gm_deferred_poll();
  check_mat_ctype(L, idx, box->m, fname);
  return box->m;
}

gm_mat *gml_checkmat(lua_State *L, int idx, const char *fname) { return gml_checkbox(L, idx, fname)->m; }

/* ---- guards and pins (see util.h) ----
 *
 * The frames, pins and deferred frees are the core's (core/model/deferred.c,
 * per OS thread); a guard is the to-be-closed object that closes its
 * frame.  A frame left open by a coroutine that died with an error is
 * closed by the guard's __gc.  The frame's owner is the lua_State: pins
 * go to the innermost guard of the calling coroutine. */

#define GUARD_MT "gpumat.guard"

typedef struct guard_obj {
  uint64_t id;
  bool open;
} guard_obj;

void gml_release_box(gml_mat *box, bool collected) {
  gm_mat *m = box->m;
  box->m = NULL;
  gm_deferred_release(m, collected);
}

static void close_frame(guard_obj *g) {
  if (!g->open) return;
  g->open = false;
  gm_deferred_frame_close(g->id);
}

static int guard_gc(lua_State *L) {
  close_frame(gml_checkudata(L, 1, GUARD_MT, "__gc"));
  return 0;
}

/* Closed guards are kept for reuse (at most GUARD_CACHE): a fresh
 * userdata with a finalizer per call was a third of the binding's fixed
 * cost on a 1K-element op (allocation, and a __gc call per guard at every
 * collection).  A guard is cached only once closed, when no frame holds
 * it; the cache's array part is preallocated, so caching never allocates
 * inside __close. */
#define GUARD_CACHE 16
static const char guard_cache_key = 0;

static int guard_close(lua_State *L) {
  close_frame(gml_checkudata(L, 1, GUARD_MT, "__close"));
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &guard_cache_key) == LUA_TTABLE) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (n < GUARD_CACHE) {
      lua_pushvalue(L, 1);
      lua_rawseti(L, -2, n + 1);
    }
  }
  return 0;
}

/* Pushes a closed guard: a cached one, or a new one. */
static guard_obj *push_guard(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &guard_cache_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_createtable(L, GUARD_CACHE, 0);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &guard_cache_key);
  }
  lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  if (n > 0) {
    lua_rawgeti(L, -1, n);
    lua_pushnil(L);
    lua_rawseti(L, -3, n);
    lua_remove(L, -2);
    return lua_touserdata(L, -1);
  }
  lua_pop(L, 1);
  guard_obj *g = lua_newuserdatauv(L, sizeof *g, 0);
  g->open = false;
  static const gml_reg meta[] = {{"__close", guard_close, 2, NULL}, {"__gc", guard_gc, 1, NULL},
                                 {NULL, NULL, 0, NULL}};
  if (luaL_newmetatable(L, GUARD_MT)) gml_register(L, -1, meta);
  lua_setmetatable(L, -2);
  return g;
}

void gml_pin(lua_State *L, int idx) {
  gml_mat *box = testbox(L, idx);
  if (!box || !box->m) return;
  gm_status st = gm_deferred_pin(L, box->m);
  if (st == GM_ENOMEM) gml_error(L, "not enough memory");
  if (st != GM_OK) gml_error(L, "gpumat internal error: gml_pin without gml_guard");
}

void gml_guard(lua_State *L, int nargs) {
  if (lua_gettop(L) < nargs) lua_settop(L, nargs);
  int top = lua_gettop(L);
  luaL_checkstack(L, 4, "gml_guard");
  guard_obj *g = push_guard(L);
  if (gm_deferred_frame_open(L, (size_t)top, &g->id) != GM_OK) gml_error(L, "not enough memory");
  g->open = true;
  lua_toclose(L, -1);
  for (int i = 1; i <= top; i++) gml_pin(L, i);
}

gm_mat *gml_checkmat_shapable(lua_State *L, int idx, const char *fname) {
  gm_mat *m = gml_checkmat(L, idx, fname);
  if (gm_deferred_in_use(m)) gml_error(L, "%s: mat is in use by a running gpumat call", fname);
  return m;
}

/* Whether a chunk is one of gpumat's Lua modules: "@.../gpumat/x.lua"
 * (installed or in the source tree) or "@gpumat/x.lua" (embedded). */
static bool internal_source(const char *src) {
  if (src[0] != '@') return false;
  const char *p = strrchr(src, '/');
  if (!p || p - src < 7 || strncmp(p - 6, "gpumat", 6) != 0) return false;
  if (p - 6 != src + 1 && p[-7] != '/') return false;
  size_t n = strlen(p + 1);
  return n > 4 && strcmp(p + 1 + n - 4, ".lua") == 0;
}

/* Pushes "source:line: " of the calling Lua code as luaL_where(L, 1)
 * does, or "" when the caller is gpumat's own Lua code (whose errors
 * carry no position either, see argcheck.lua) or not Lua. */
static void push_where(lua_State *L) {
  lua_Debug ar;
  if (lua_getstack(L, 1, &ar)) {
    lua_getinfo(L, "Sl", &ar);
    if (ar.currentline > 0 && !internal_source(ar.source)) {
      lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
      return;
    }
  }
  lua_pushliteral(L, "");
}

int gml_error(lua_State *L, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  luaL_checkstack(L, 3, "gml_error");
  push_where(L);
  lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  lua_concat(L, 2);
  return lua_error(L);
}

int gml_argerror(lua_State *L, int arg, const char *fname, const char *fmt, ...) {
  char reason[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  return gml_error(L, "bad argument #%d to '%s' (%s)", arg, fname, reason);
}

static bool is_resource_status(gm_status st) {
  return st == GM_ECUDA_OOM || st == GM_ECUDA || st == GM_ECUBLAS || st == GM_ECURAND || st == GM_ENVRTC ||
         st == GM_EMPI || st == GM_ENCCL;
}

static bool is_error_object(lua_State *L, int idx) {
  if (!lua_istable(L, idx) || !lua_getmetatable(L, idx)) return false;
  luaL_getmetatable(L, "gpumat.error");
  bool is = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return is;
}

static int error_tostring(lua_State *L) {
  if (!is_error_object(L, 1))
    gml_argerror(L, 1, "__tostring", "gpumat error object expected, got %s", luaL_typename(L, 1));
  lua_getfield(L, 1, "message");
  return 1;
}

static void push_error_object(lua_State *L, gm_status st, const char *fname) {
  lua_createtable(L, 0, 8);
  lua_pushstring(L, gm_status_name(st));
  lua_setfield(L, -2, "kind");
  lua_pushfstring(L, "%s: %s", fname, gm_last_error());
  lua_setfield(L, -2, "message");
  if (st == GM_ECUDA_OOM) {
    gm_oom_info o = gm_last_oom_info();
    lua_pushinteger(L, (lua_Integer)o.n_bytes);
    lua_setfield(L, -2, "n_bytes");
    lua_pushinteger(L, (lua_Integer)o.limit);
    lua_setfield(L, -2, "limit");
    lua_pushinteger(L, (lua_Integer)o.reserved);
    lua_setfield(L, -2, "reserved");
    lua_pushinteger(L, (lua_Integer)o.in_use);
    lua_setfield(L, -2, "in_use");
  } else {
    gm_lib_error_info e = gm_last_lib_error_info();
    lua_pushstring(L, e.function_name);
    lua_setfield(L, -2, "function_name");
    lua_pushinteger(L, e.status);
    lua_setfield(L, -2, "status");
  }
  static const gml_reg meta[] = {{"__tostring", error_tostring, 1, NULL}, {NULL, NULL, 0, NULL}};
  if (luaL_newmetatable(L, "gpumat.error")) gml_register(L, -1, meta);
  lua_setmetatable(L, -2);
}

int gml_raise(lua_State *L, gm_status st, const char *fname) {
  if (is_resource_status(st)) {
    push_error_object(L, st, fname);
    return lua_error(L);
  }
  return gml_error(L, "%s: %s", fname, gm_last_error());
}

unsigned gml_check_options(lua_State *L, int idx, const char *fname, const char *const *allowed) {
  if (lua_isnoneornil(L, idx)) return 0;
  if (!lua_istable(L, idx))
    gml_argerror(L, idx, fname, "options table expected, got %s", luaL_typename(L, idx));
  idx = lua_absindex(L, idx);
  unsigned present = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    bool ok = false;
    if (lua_type(L, -1) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -1);
      /* "dtype" (the array standard's name) is an alias of "ctype" */
      if (strcmp(k, "dtype") == 0) k = "ctype";
      for (unsigned i = 0; allowed[i] && !ok; i++)
        if (strcmp(allowed[i], k) == 0) {
          ok = true;
          if (i < 32) present |= 1u << i;
        }
    }
    if (!ok) {
      const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
      gml_argerror(L, idx, fname, "unknown option '%s'", k);
    }
  }
  /* an __index may answer keys the raw traversal did not see */
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    return ~0u;
  }
  return present;
}

bool gml_opt_push(lua_State *L, int idx, const char *key) {
  if (lua_isnoneornil(L, idx)) return false;
  if (lua_getfield(L, idx, key) == LUA_TNIL) {
    lua_pop(L, 1);
    return false;
  }
  return true;
}

/* The usual form of the options, {out = m} of a table without a
 * metatable (the caller looked: gml_plain_out; plain_out looks), in one
 * raw traversal (no metamethod can run, so raw reads are the reads): the
 * stack index of m pushed (its key stays below it: the callers index the
 * stack, and a lua_remove costs as much as the key's check), 0 for {}, or
 * -1 (nothing pushed) for any other form, which the general path reads
 * (and refuses with its message). */
int gml_plain_out(lua_State *L, int idx) {
  lua_pushnil(L);
  if (!lua_next(L, idx)) return 0;
  size_t len = 0;
  const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &len) : NULL;
  if (!k || len != 3 || k[0] != 'o' || k[1] != 'u' || k[2] != 't') { /* (memcmp's call was 3 % of a 1K op) */
    lua_pop(L, 2);
    return -1;
  }
  int v = lua_gettop(L);
  lua_pushvalue(L, -2);
  if (lua_next(L, idx)) { /* a second key */
    lua_pop(L, 4);
    return -1;
  }
  return v;
}

static int plain_out(lua_State *L, int idx) {
  if (lua_getmetatable(L, idx)) { /* (idx is a table: the caller looked) */
    lua_pop(L, 1);
    return -1;
  }
  return gml_plain_out(L, idx);
}

int gml_opt_out_ran(lua_State *L, int idx, const char *fname, bool *ran) {
  static const char *const allowed[] = {"out", NULL};
  *ran = false;
  int t = lua_type(L, idx);
  if (t == LUA_TNIL || t == LUA_TNONE) return 0;
  if (idx < 0 && idx > LUA_REGISTRYINDEX) idx = lua_absindex(L, idx);
  int out = t == LUA_TTABLE ? plain_out(L, idx) : -1;
  if (out == 0) return 0;
  if (out < 0) {
    *ran = true;
    gml_check_options(L, idx, fname, allowed);
    if (!gml_opt_push(L, idx, "out")) return 0;
    out = lua_gettop(L);
  }
  if (!gml_ismat(L, out)) gml_argerror(L, idx, fname, "option 'out' must be a mat, got %s", luaL_typename(L, out));
  return out;
}

int gml_opt_out(lua_State *L, int idx, const char *fname) {
  bool ran;
  return gml_opt_out_ran(L, idx, fname, &ran);
}

lua_Integer gml_opt_integer(lua_State *L, int idx, const char *key, lua_Integer def, const char *fname) {
  if (!gml_opt_push(L, idx, key)) return def;
  int isnum;
  lua_Integer v = lua_tointegerx(L, -1, &isnum);
  if (!isnum || lua_type(L, -1) != LUA_TNUMBER)
    gml_argerror(L, idx, fname, "option '%s' must be an integer, got %s", key, luaL_typename(L, -1));
  lua_pop(L, 1);
  return v;
}

lua_Number gml_opt_number(lua_State *L, int idx, const char *key, lua_Number def, const char *fname) {
  if (!gml_opt_push(L, idx, key)) return def;
  if (lua_type(L, -1) != LUA_TNUMBER)
    gml_argerror(L, idx, fname, "option '%s' must be a number, got %s", key, luaL_typename(L, -1));
  lua_Number v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

bool gml_opt_boolean(lua_State *L, int idx, const char *key, bool def, const char *fname) {
  if (!gml_opt_push(L, idx, key)) return def;
  if (!lua_isboolean(L, -1))
    gml_argerror(L, idx, fname, "option '%s' must be a boolean, got %s", key, luaL_typename(L, -1));
  bool v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

size_t gml_opt_size(lua_State *L, int idx, const char *key, size_t def, const char *fname) {
  if (!gml_opt_push(L, idx, key)) return def;
  int isnum;
  lua_Integer v = lua_tointegerx(L, -1, &isnum);
  if (!isnum || lua_type(L, -1) != LUA_TNUMBER)
    gml_argerror(L, idx, fname, "option '%s' must be an integer, got %s", key, luaL_typename(L, -1));
  if (v < 0) gml_argerror(L, idx, fname, "option '%s' must be non-negative, got %lld", key, (long long)v);
  lua_pop(L, 1);
  return (size_t)v;
}

/* The names an element type option or argument takes, for messages. */
#define GML_CTYPE_NAMES                                                                                   \
  "\"float\" (\"float32\"), \"double\" (\"float64\"), \"bool\", \"int8\", \"int16\", \"int32\", \"int64\", " \
  "\"uint8\", \"uint16\", \"uint32\" or \"uint64\""

gm_ctype gml_opt_ctype(lua_State *L, int idx, const char *key, const char *fname) {
  bool is_ctype = strcmp(key, "ctype") == 0;
  bool has = gml_opt_push(L, idx, key);
  if (is_ctype && gml_opt_push(L, idx, "dtype")) { /* the alias */
    if (has) gml_argerror(L, idx, fname, "options 'ctype' and 'dtype' name the same thing: give one");
    key = "dtype";
    has = true;
  }
  if (!has) return gml_settings_of(L)->default_ctype;
  gm_ctype t;
  if (lua_type(L, -1) != LUA_TSTRING || gm_ctype_parse(lua_tostring(L, -1), &t) != 0)
    gml_argerror(L, idx, fname, "option '%s' must be " GML_CTYPE_NAMES ", got %s", key,
                 lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1));
  lua_pop(L, 1);
  return t;
}

size_t gml_check_size(lua_State *L, int idx, const char *fname, const char *what) {
  int isnum;
  lua_Integer v = lua_tointegerx(L, idx, &isnum);
  if (!isnum || lua_type(L, idx) != LUA_TNUMBER)
    gml_argerror(L, idx, fname, "%s must be an integer, got %s", what, luaL_typename(L, idx));
  if (v < 0) gml_argerror(L, idx, fname, "%s must be non-negative, got %lld", what, (long long)v);
  return (size_t)v;
}

gm_ctype gml_check_ctype(lua_State *L, int idx, const char *fname) {
  gm_ctype t;
  if (lua_type(L, idx) != LUA_TSTRING || gm_ctype_parse(lua_tostring(L, idx), &t) != 0)
    gml_argerror(L, idx, fname, "ctype must be " GML_CTYPE_NAMES ", got %s",
                 lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : luaL_typename(L, idx));
  return t;
}

int gml_check_dims(lua_State *L, int idx, const char *fname, size_t dims[GM_MAX_RANK]) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    dims[0] = gml_check_size(L, idx, fname, "dimension");
    return 1;
  }
  if (!lua_istable(L, idx))
    gml_argerror(L, idx, fname, "dimensions must be an integer or a list, got %s", luaL_typename(L, idx));
  lua_Integer n = luaL_len(L, idx);
  if (n > GM_MAX_RANK) gml_argerror(L, idx, fname, "rank %lld exceeds %d", (long long)n, GM_MAX_RANK);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, idx, i);
    int isnum;
    lua_Integer v = lua_tointegerx(L, -1, &isnum);
    if (!isnum || lua_type(L, -1) != LUA_TNUMBER)
      gml_argerror(L, idx, fname, "dimension %d must be an integer, got %s", (int)i, luaL_typename(L, -1));
    if (v < 0) gml_argerror(L, idx, fname, "dimension %d must be non-negative, got %lld", (int)i, (long long)v);
    dims[i - 1] = (size_t)v;
    lua_pop(L, 1);
  }
  return (int)n;
}

void gml_push_dims(lua_State *L, const gm_mat *m) {
  /* copied first: the table's allocation may run a finalizer that frees m */
  int rank = m->rank;
  size_t dims[GM_MAX_RANK];
  for (int i = 0; i < rank; i++) dims[i] = m->dims[i];
  lua_createtable(L, rank, 0);
  for (int i = 0; i < rank; i++) {
    lua_pushinteger(L, (lua_Integer)dims[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

int gml_check_axis(lua_State *L, int idx, const char *fname, int rank) {
  int isnum;
  lua_Integer a = lua_tointegerx(L, idx, &isnum);
  if (!isnum || lua_type(L, idx) != LUA_TNUMBER)
    gml_argerror(L, idx, fname, "axis must be an integer, got %s", luaL_typename(L, idx));
  if (a < 1 || a > rank) gml_argerror(L, idx, fname, "axis %lld is out of range 1..%d", (long long)a, rank);
  return (int)a - 1;
}

/* ---- registration: the argument count rule (see util.h) ---- */

int gml_arity_error(lua_State *L, const gml_reg *r) {
  return gml_argerror(L, r->max_args + 1, r->public_name ? r->public_name : r->name, "no value expected");
}

static int method_at(lua_State *L);

static int strict_call(lua_State *L) {
  const gml_reg *r = lua_touserdata(L, lua_upvalueindex(1));
  gml_check_arity(L, r);
  return r->func(L);
}

void gml_push_function(lua_State *L, const gml_reg *r, int nup) {
  lua_pushlightuserdata(L, (void *)r);
  if (nup) lua_insert(L, -nup - 1);
  lua_pushcclosure(L, strict_call, nup + 1);
}

void gml_push_hot(lua_State *L, const gml_reg *r, int nup) {
  lua_pushlightuserdata(L, (void *)r);
  if (nup) lua_insert(L, -nup - 1);
  lua_pushcclosure(L, r->func, nup + 1);
}

static void register_as(lua_State *L, int idx, const gml_reg *fns, bool own_count) {
  idx = lua_absindex(L, idx);
  for (; fns->name; fns++) {
    (own_count ? gml_push_hot : gml_push_function)(L, fns, 0);
    lua_setfield(L, idx, fns->name);
  }
}

void gml_register(lua_State *L, int idx, const gml_reg *fns) { register_as(L, idx, fns, false); }

void gml_register_hot(lua_State *L, int idx, const gml_reg *fns) { register_as(L, idx, fns, true); }

void gml_register_ops(lua_State *L, int module_idx, const gml_reg *regs, int n, bool own_count) {
  module_idx = lua_absindex(L, module_idx);
  luaL_getmetatable(L, GML_MAT_MT);
  lua_getfield(L, -1, "__methods");
  int methods = lua_gettop(L);
  for (int op = 0; op < n; op++) {
    lua_pushinteger(L, op);
    (own_count ? gml_push_hot : gml_push_function)(L, &regs[op], 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, module_idx, regs[op].name);
    lua_setfield(L, methods, regs[op].name);
  }
  lua_pop(L, 2);
}

/* core._arity(f) -> max_args, name (max_args -1: variadic) of a function
 * registered here (a method's gml_method_at closure and gml_push_hot's
 * too), or nothing: for the specs and the fuzzer, which check every
 * function's count.  A hot function is recognized by its upvalue 1, a
 * light userdata whose entry names the function (no C closure of Lua's
 * libraries has a light userdata upvalue). */
static int l_arity(lua_State *L) {
  lua_CFunction f = lua_tocfunction(L, 1);
  if (!f || !lua_getupvalue(L, 1, 1)) return 0;
  if (lua_type(L, -1) != LUA_TLIGHTUSERDATA) return 0;
  const gml_reg *r = lua_touserdata(L, -1);
  if (f != strict_call && f != method_at && r->func != f) return 0;
  lua_pushinteger(L, r->max_args);
  lua_pushstring(L, r->public_name ? r->public_name : r->name);
  return 2;
}

void gml_open_util(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {{"_arity", l_arity, 1, NULL}, {NULL, NULL, 0, NULL}};
  gml_register(L, module_idx, fns);
}

void gml_newlib(lua_State *L, const gml_reg *fns) {
  lua_newtable(L);
  gml_register(L, -1, fns);
}

/* m:f(...) for a function whose self is argument k: checks the count,
 * moves self to position k and calls the function, so its messages carry
 * the module function's argument numbers. */
static int method_at(lua_State *L) {
  const gml_reg *r = lua_touserdata(L, lua_upvalueindex(1));
  int k = (int)lua_tointeger(L, lua_upvalueindex(2));
  gml_check_arity(L, r);
  if (lua_gettop(L) < k) lua_settop(L, k);
  lua_pushvalue(L, 1);
  lua_remove(L, 1);
  lua_insert(L, k);
  return r->func(L);
}

void gml_method_at(lua_State *L, const gml_reg *r, int k) {
  luaL_getmetatable(L, GML_MAT_MT);
  lua_getfield(L, -1, "__methods");
  lua_pushlightuserdata(L, (void *)r);
  if (k > 1) {
    lua_pushinteger(L, k);
    lua_pushcclosure(L, method_at, 2);
  } else {
    lua_pushcclosure(L, strict_call, 1);
  }
  lua_setfield(L, -2, r->name);
  lua_pop(L, 2);
}

void *gml_checkudata(lua_State *L, int idx, const char *tname, const char *fname) {
  void *p = luaL_testudata(L, idx, tname);
  if (!p) gml_argerror(L, idx, fname, "%s expected, got %s", tname, luaL_typename(L, idx));
  return p;
}

const char *gml_check_string(lua_State *L, int idx, const char *fname, size_t *len) {
  if (lua_type(L, idx) != LUA_TSTRING)
    gml_argerror(L, idx, fname, "string expected, got %s", luaL_typename(L, idx));
  return lua_tolstring(L, idx, len);
}

lua_Integer gml_check_integer(lua_State *L, int idx, const char *fname) {
  int isint;
  lua_Integer v = lua_tointegerx(L, idx, &isint);
  if (!isint || lua_type(L, idx) != LUA_TNUMBER)
    gml_argerror(L, idx, fname, "integer expected, got %s", luaL_typename(L, idx));
  return v;
}
