/* The op table (kernels/op_table.h) as data: one gm_op_row per row, for
 * the checks that read its columns at run time (the binding's per-kind
 * allow-list, the broadcasting ops' and reductions' ctype rules, the
 * result ctypes) and for gpumat.core._op_table. */
#ifndef GM_CORE_OP_TABLE_H
#define GM_CORE_OP_TABLE_H

#include "../../../kernels/op_table.h"
#include "../model/ctype.h"

typedef struct gm_op_row {
  const char *name;  /* the C stem (gm_<name>_T) */
  const char *lua;   /* the public name */
  int family;        /* GM_OPF_* */
  int op;            /* its number in the family's enum */
  unsigned kinds;    /* bit k: runs on kind k (GM_KIND_*) */
  int result;        /* GM_OPR_* */
  double cost;       /* host work per element relative to a copy */
} gm_op_row;

extern const gm_op_row gm_op_rows[];
extern const int gm_n_op_rows;

/* The row of family's op number op, or NULL. */
const gm_op_row *gm_op_row_of(int family, int op);
/* The row whose public name is lua (a UNARY row also by lua .. "_"), or NULL. */
const gm_op_row *gm_op_find(const char *lua);
/* The kinds the op takes (bit k: kind k): those it runs on, and every
 * kind for a FLOAT result (the others computed on a float64 copy). */
unsigned gm_op_takes(const gm_op_row *r);
/* Whether the op runs on (or takes) mats of ctype t. */
bool gm_op_runs_on(const gm_op_row *r, gm_ctype t);
bool gm_op_takes_ctype(const gm_op_row *r, gm_ctype t);
/* The result's ctype for an input of ctype t (the result column). */
gm_ctype gm_op_result_ctype(int result, gm_ctype t);
/* The column values' names ("unary", "float", "same", ...), for Lua. */
const char *gm_op_family_name(int family);
const char *gm_op_result_name(int result);
const char *gm_op_kind_name(int kind);

#endif
