/* The op table's rows as data (kernels/op_table.h). */
#include "op_table.h"

#include <pthread.h>
#include <string.h>

/* The integer loops are instantiated once for signed and unsigned
 * ctypes (GM_INTEGER_CTYPES): a row runs on both or on neither. */
#define X(name, E, lua, kinds, ...)                                                            \
  _Static_assert(((GM_OPK_MASK(kinds) >> GM_KIND_INT) & 1) == ((GM_OPK_MASK(kinds) >> GM_KIND_UINT) & 1), \
                 "op " lua ": kinds I and U differ");
GM_OP_TABLE(X)
#undef X
_Static_assert(GM_OPK_MASK(FBIUC) == (1u << GM_KIND_FLOAT | 1u << GM_KIND_BOOL | 1u << GM_KIND_INT | 1u << GM_KIND_UINT |
                                       1u << GM_KIND_COMPLEX),
               "kinds bits follow ctype_list.h's kind column");

#define UNARY_N_ GM_UN_
#define PRED_N_ GM_PRED_
#define SCALAR_N_ GM_SC_
#define BINARY_N_ GM_BC_
#define COMPARE_N_ GM_BC_
#define REDUCE_N_ GM_AX_
#define ENUM_OF_(fam, E) GM_OP_CAT_(fam##_N_, E)
const gm_op_row gm_op_rows[] = {
#define X(name, E, lua, kinds, result, cost, fam, ...) \
  {#name, lua, GM_OPF_##fam, ENUM_OF_(fam, E), GM_OPK_MASK(kinds), GM_OPR_##result, cost},
    GM_OP_TABLE(X)
#undef X
};
const int gm_n_op_rows = (int)(sizeof gm_op_rows / sizeof gm_op_rows[0]);
_Static_assert(sizeof gm_op_rows / sizeof gm_op_rows[0] < 32767, "row numbers fit row_index's shorts");

/* The rows by (family, op), built once: the broadcasting ops look their
 * row up several times per call, and the linear search of the table was
 * about 40 instructions a row, 800 per 1K-element `x + y`. */
#define N_FAMILIES (GM_OPF_REDUCE + 1)
#define MAX_OP 256
_Static_assert(GM_N_UNARY <= MAX_OP && GM_N_PREDICATE <= MAX_OP && GM_N_SCALAR <= MAX_OP && GM_N_BCAST <= MAX_OP &&
                   GM_AX_N_OPS <= MAX_OP,
               "every family's op numbers index row_index");
static short row_index[N_FAMILIES][MAX_OP]; /* row + 1, 0 for none */
static pthread_once_t row_index_once = PTHREAD_ONCE_INIT;

static void build_row_index(void) {
  for (int i = 0; i < gm_n_op_rows; i++) {
    const gm_op_row *r = &gm_op_rows[i];
    if (r->family >= 0 && r->family < N_FAMILIES && r->op >= 0 && r->op < MAX_OP && !row_index[r->family][r->op])
      row_index[r->family][r->op] = (short)(i + 1);
  }
}

const gm_op_row *gm_op_row_of(int family, int op) {
  if (family < 0 || family >= N_FAMILIES || op < 0 || op >= MAX_OP) return NULL;
  pthread_once(&row_index_once, build_row_index);
  int i = row_index[family][op];
  return i ? &gm_op_rows[i - 1] : NULL;
}

const gm_op_row *gm_op_find(const char *lua) {
  size_t n = strlen(lua);
  for (int i = 0; i < gm_n_op_rows; i++) {
    const gm_op_row *r = &gm_op_rows[i];
    if (strcmp(r->lua, lua) == 0) return r;
    if (r->family == GM_OPF_UNARY && n > 1 && lua[n - 1] == '_' && strlen(r->lua) == n - 1 &&
        memcmp(r->lua, lua, n - 1) == 0)
      return r;
  }
  return NULL;
}

unsigned gm_op_takes(const gm_op_row *r) { return r->result == GM_OPR_FLOAT ? GM_OPK_MASK(FBIU) : r->kinds; }

bool gm_op_runs_on(const gm_op_row *r, gm_ctype t) { return (r->kinds >> gm_ctype_kind(t)) & 1; }

bool gm_op_takes_ctype(const gm_op_row *r, gm_ctype t) { return (gm_op_takes(r) >> gm_ctype_kind(t)) & 1; }

gm_ctype gm_op_result_ctype(int result, gm_ctype t) {
  switch (result) {
    case GM_OPR_BOOL: return GM_BOOL;
    case GM_OPR_INT64: return GM_INT64;
    case GM_OPR_FLOAT: return gm_ctype_kind(t) == GM_KIND_FLOAT || gm_ctype_is_complex(t) ? t : GM_DOUBLE;
    case GM_OPR_ACC: /* (the 16-bit floats too: they sum in float32, rounded once) */
      if (gm_ctype_kind(t) == GM_KIND_FLOAT || gm_ctype_is_complex(t)) return t;
      return gm_ctype_kind(t) == GM_KIND_UINT ? GM_UINT64 : GM_INT64;
    default: return t;
  }
}

const char *gm_op_family_name(int family) {
  static const char *const names[] = {"unary", "predicate", "scalar", "binary", "comparison", "reduction"};
  return family >= 0 && family <= GM_OPF_REDUCE ? names[family] : "unknown";
}

const char *gm_op_result_name(int result) {
  static const char *const names[] = {"same", "bool", "float", "accumulator", "int64"};
  return result >= 0 && result <= GM_OPR_INT64 ? names[result] : "unknown";
}

const char *gm_op_kind_name(int kind) {
  static const char *const names[] = {[GM_KIND_FLOAT] = "float", [GM_KIND_BOOL] = "bool", [GM_KIND_INT] = "int",
                                      [GM_KIND_UINT] = "uint", [GM_KIND_COMPLEX] = "complex"};
  return kind >= 0 && kind <= GM_KIND_COMPLEX ? names[kind] : "unknown";
}
