/* The op table: one row per elementwise op and axis reduction, the single
 * list behind
 *   - the C enums (gm_unary_op, gm_predicate_op, gm_scalar_op,
 *     gm_bcast_op, the GM_AX_* reductions) and the op names; the public
 *     gm_function numbers (include/gpumat.h spells them out so the
 *     installed header stands alone; src/core/api/api_ops.c checks every
 *     unary row against it),
 *   - the element-function dispatch and the CUDA kernels' switches
 *     (kernels/elementwise.h, elementwise.cu, strided_ew.cu) and the host
 *     loops (src/host/elementwise.c, strided_ew.c), instantiated per ctype
 *     kind from the kinds column,
 *   - the core's ctype checks and result ctypes (src/core/op_table.c:
 *     gm_op_takes, gm_op_result_ctype),
 *   - the Lua registration, the binding's per-kind allow-list
 *     (src/lua/util.c) and gpumat.core._op_table, which the specs check
 *     against their reference functions (spec/op_refs.lua) and gm.help.
 * Macros only, so plain C, nvcc and the emulated device's C++ include it.
 *
 * Adding an elementwise function is one row here (in its family's
 * section; enum numbers follow row order within a family, so new rows go
 * at the end of their family and public numbers never move), its element
 * function gm_<name>_<T> (kernels/elementwise.h; gm_bc_<name>_<T> for the
 * binary ones in kernels/strided_ew.h) for the kinds it runs on, its
 * reference in spec/op_refs.lua and its entry in docs/API.md (gm.help).
 *
 * A row: R(X, a, family, name, ENUM, lua, kinds, result, cost)
 *   family  UNARY (x := f(x), gm.F_(x) and gm.F(x)), PRED (bool y := f(x)),
 *           SCALAR (x := f(x, alpha)), BINARY (broadcasting, out := f(a, b)),
 *           COMPARE (broadcasting, bool out), REDUCE (along an axis or
 *           over the whole mat)
 *   name    the C stem: element function gm_<name>_T (gm_pred_<name>_T,
 *           gm_scalar_<name>_T, gm_bc_<name>_T), the enum's GM_UN_<ENUM>,
 *           GM_PRED_, GM_SC_, GM_BC_, GM_AX_ suffix
 *   lua     the public (Lua) name; a UNARY row also has lua .. "_"
 *   kinds   the ctype kinds the element functions and loops run on:
 *           F (float), B (bool), I and U (signed and unsigned integers),
 *           C (complex: element functions gm_cx<name>_T of
 *           kernels/complex_ops.h); tokens F, B, FIU, FBIU, BIU, IU, FC,
 *           FIUC, FBIUC (GM_OPK_*); a new combination is one more
 *           GM_OPK_*_ line below
 *   result  the result's ctype for an input of ctype t: SAME (t), BOOL,
 *           FLOAT (t for floats; other kinds are taken too, computed on a
 *           float64 copy, float64 result), ACC (t for floats, uint64 for
 *           unsigned, else int64: sums and products), INT64 (indices,
 *           counts).  So an op that should take integer mats by promotion
 *           is its row's result changed from SAME to FLOAT.
 *   cost    the host loop's work per float32 element relative to copying
 *           one (gm_par_for's units; float64 counts twice:
 *           gm_par_elem_cost), measured on one core (bench/RESULTS.md,
 *           "The thread pool: when it pays"): 1 for add, compare, abs;
 *           2 sqrt; 4-6 for the vectorized exp, log, sin, tanh ...; 16-64
 *           where the element function is a scalar C library call (pow,
 *           asin, atan2, log10 ...)
 * The views below pass each row to X as
 *   X(a, name, ENUM, lua, kinds, result, cost, family, ...)
 * and every X ends its parameters with `...`, so a column added at the
 * end breaks no use. */
#ifndef GM_KERNELS_OP_TABLE_H
#define GM_KERNELS_OP_TABLE_H

#define GM_OP_ROWS(R, X, a)                                                           \
  /* unary: the first twelve are MGL-MAT's, in its manual's order */                  \
  R(X, a, UNARY, square, SQUARE, "square", FIUC, SAME, 1)                              \
  R(X, a, UNARY, sqrt, SQRT, "sqrt", FC, SAME, 2)                                     \
  R(X, a, UNARY, log, LOG, "log", FC, SAME, 6)                                        \
  R(X, a, UNARY, exp, EXP, "exp", FC, SAME, 4)                                        \
  R(X, a, UNARY, inv, INV, "inv", FC, SAME, 1)                                         \
  R(X, a, UNARY, logistic, LOGISTIC, "logistic", F, SAME, 5)                         \
  R(X, a, UNARY, sin, SIN, "sin", FC, SAME, 4)                                        \
  R(X, a, UNARY, cos, COS, "cos", FC, SAME, 4)                                        \
  R(X, a, UNARY, tan, TAN, "tan", FC, SAME, 5)                                        \
  R(X, a, UNARY, sinh, SINH, "sinh", FC, SAME, 4)                                     \
  R(X, a, UNARY, cosh, COSH, "cosh", FC, SAME, 4)                                     \
  R(X, a, UNARY, tanh, TANH, "tanh", FC, SAME, 4)                                     \
  R(X, a, UNARY, abs, ABS, "abs", FIU, SAME, 1)                                       \
  R(X, a, UNARY, sign, SIGN, "sign", FIU, SAME, 1)                                    \
  R(X, a, UNARY, floor, FLOOR, "floor", FIU, SAME, 1)                                 \
  R(X, a, UNARY, ceil, CEIL, "ceil", FIU, SAME, 1)                                    \
  R(X, a, UNARY, round, ROUND, "round", FIU, SAME, 1)                                 \
  R(X, a, UNARY, neg, NEG, "neg", FIUC, SAME, 1)                                       \
  R(X, a, UNARY, log1p, LOG1P, "log1p", F, SAME, 5)                                  \
  R(X, a, UNARY, expm1, EXPM1, "expm1", F, SAME, 4)                                  \
  R(X, a, UNARY, relu, RELU, "relu", F, SAME, 1)                                      \
  R(X, a, UNARY, acos, ACOS, "acos", F, SAME, 64)                                     \
  R(X, a, UNARY, acosh, ACOSH, "acosh", F, SAME, 64)                                  \
  R(X, a, UNARY, asin, ASIN, "asin", F, SAME, 64)                                     \
  R(X, a, UNARY, asinh, ASINH, "asinh", F, SAME, 64)                                  \
  R(X, a, UNARY, atan, ATAN, "atan", F, SAME, 64)                                     \
  R(X, a, UNARY, atanh, ATANH, "atanh", F, SAME, 64)                                  \
  R(X, a, UNARY, log2, LOG2, "log2", F, SAME, 32)                                     \
  R(X, a, UNARY, log10, LOG10, "log10", F, SAME, 64)                                  \
  R(X, a, UNARY, trunc, TRUNC, "trunc", FIU, SAME, 1)                                 \
  R(X, a, UNARY, positive, POSITIVE, "positive", FIUC, SAME, 1)                        \
  R(X, a, UNARY, conj, CONJ, "conj", FIUC, SAME, 1)                                    \
  /* predicates: _truth is x != 0 (astype(bool) on the device too), which             \
   * logical_and/or/xor apply to their operands first (lua/gpumat) */                 \
  R(X, a, PRED, isnan, ISNAN, "isnan", FBIUC, BOOL, 1)                                 \
  R(X, a, PRED, isinf, ISINF, "isinf", FBIUC, BOOL, 1)                                 \
  R(X, a, PRED, isfinite, ISFINITE, "isfinite", FBIUC, BOOL, 1)                        \
  R(X, a, PRED, signbit, SIGNBIT, "signbit", FBIU, BOOL, 1)                           \
  R(X, a, PRED, logical_not, LOGICAL_NOT, "logical_not", FBIUC, BOOL, 1)               \
  R(X, a, PRED, _truth, TRUTH, "_truth", FBIUC, BOOL, 1)                               \
  /* one scalar parameter, x := f(x, alpha) */                                        \
  R(X, a, SCALAR, expt, EXPT, "expt_", F, SAME, 32)                                   \
  R(X, a, SCALAR, add, ADD, "add_scalar_", F, SAME, 1)                                \
  R(X, a, SCALAR, min, MIN, "min_", F, SAME, 1)                                       \
  R(X, a, SCALAR, max, MAX, "max_", F, SAME, 1)                                       \
  /* broadcasting binary ops and comparisons, one enum (gm_bcast_op) in               \
   * this order.  Integer add, sub, cmul wrap; cdiv is true division               \
   * (integers give float64); // and % are Lua's on floats too; bool takes           \
   * & | ~ (logical) */                                        \
  R(X, a, BINARY, add, ADD, "add", FIUC, SAME, 1)                                      \
  R(X, a, BINARY, sub, SUB, "sub", FIUC, SAME, 1)                                      \
  R(X, a, BINARY, cmul, CMUL, "cmul", FIUC, SAME, 1)                                   \
  R(X, a, BINARY, cdiv, CDIV, "cdiv", FC, FLOAT, 1)                                    \
  R(X, a, BINARY, pow, POW, "pow", FIU, SAME, 16)                                     \
  R(X, a, BINARY, cmax, CMAX, "cmax", FIU, SAME, 1)                                   \
  R(X, a, BINARY, cmin, CMIN, "cmin", FIU, SAME, 1)                                   \
  R(X, a, COMPARE, gt, GT, "gt", FBIU, BOOL, 1)                                       \
  R(X, a, COMPARE, ge, GE, "ge", FBIU, BOOL, 1)                                       \
  R(X, a, COMPARE, lt, LT, "lt", FBIU, BOOL, 1)                                       \
  R(X, a, COMPARE, le, LE, "le", FBIU, BOOL, 1)                                       \
  R(X, a, COMPARE, eq, EQ, "eq", FBIUC, BOOL, 1)                                       \
  R(X, a, COMPARE, ne, NE, "ne", FBIUC, BOOL, 1)                                       \
  R(X, a, BINARY, ifloordiv, FLOORDIV, "floor_divide", FIU, SAME, 1)                  \
  R(X, a, BINARY, iremainder, REMAINDER, "remainder", FIU, SAME, 1)                   \
  R(X, a, BINARY, iand, BAND, "bitwise_and", BIU, SAME, 1)                            \
  R(X, a, BINARY, ior, BOR, "bitwise_or", BIU, SAME, 1)                               \
  R(X, a, BINARY, ixor, BXOR, "bitwise_xor", BIU, SAME, 1)                            \
  R(X, a, BINARY, ishl, SHL, "bitwise_left_shift", IU, SAME, 1)                       \
  R(X, a, BINARY, ishr, SHR, "bitwise_right_shift", IU, SAME, 1)                      \
  R(X, a, BINARY, atan2, ATAN2, "atan2", F, SAME, 64)                                 \
  R(X, a, BINARY, hypot, HYPOT, "hypot", F, SAME, 32)                                 \
  R(X, a, BINARY, copysign, COPYSIGN, "copysign", F, SAME, 1)                        \
  R(X, a, BINARY, nextafter, NEXTAFTER, "nextafter", F, SAME, 16)                     \
  R(X, a, BINARY, logaddexp, LOGADDEXP, "logaddexp", F, SAME, 64)                     \
  /* reductions (kernels/reduce_axis.h); any, all and count_nonzero fold              \
   * x != 0 as max, min and sum (the core's copy), softmax writes every               \
   * element (exp(x - max) / sum) */                                                  \
  R(X, a, REDUCE, sum, SUM, "sum", FBIU, ACC, 1)                                      \
  R(X, a, REDUCE, prod, PROD, "prod", FBIU, ACC, 1)                                   \
  R(X, a, REDUCE, mean, MEAN, "mean", F, FLOAT, 1)                                    \
  R(X, a, REDUCE, max, MAX, "max", FBIU, SAME, 1)                                     \
  R(X, a, REDUCE, min, MIN, "min", FBIU, SAME, 1)                                     \
  R(X, a, REDUCE, var, VAR, "var", F, FLOAT, 4)                                       \
  R(X, a, REDUCE, std, STD, "std", F, FLOAT, 4)                                       \
  R(X, a, REDUCE, argmax, ARGMAX, "argmax", FBIU, INT64, 1)                           \
  R(X, a, REDUCE, argmin, ARGMIN, "argmin", FBIU, INT64, 1)                           \
  R(X, a, REDUCE, logsumexp, LOGSUMEXP, "logsumexp", F, FLOAT, 16)                    \
  R(X, a, REDUCE, softmax, SOFTMAX, "softmax", F, SAME, 16)                           \
  R(X, a, REDUCE, any, ANY, "any", FBIU, BOOL, 1)                                     \
  R(X, a, REDUCE, all, ALL, "all", FBIU, BOOL, 1)                                     \
  R(X, a, REDUCE, count_nonzero, COUNT_NONZERO, "count_nonzero", FBIU, INT64, 1)

/* ---- the kinds and result columns as values (src/core/op_table.c) ---- */

/* bit k is kind k of ctype_list.h's kind column (GM_KIND_FLOAT 0, BOOL 1,
 * INT 2, UINT 3) */
#define GM_OPK_BITS_(f, b, i, u, c) ((f) | (b) << 1 | (i) << 2 | (u) << 3 | (c) << 4)
#define GM_OPK_MASK(kinds) GM_OP_EXP_(GM_OPK_BITS_ GM_OPK_##kinds##_)
/* the kinds tokens: (float, bool, int, uint, complex) */
#define GM_OPK_F_ (1, 0, 0, 0, 0)
#define GM_OPK_B_ (0, 1, 0, 0, 0)
#define GM_OPK_FIU_ (1, 0, 1, 1, 0)
#define GM_OPK_FBIU_ (1, 1, 1, 1, 0)
#define GM_OPK_BIU_ (0, 1, 1, 1, 0)
#define GM_OPK_IU_ (0, 0, 1, 1, 0)
#define GM_OPK_FC_ (1, 0, 0, 0, 1)
#define GM_OPK_FIUC_ (1, 0, 1, 1, 1)
#define GM_OPK_FBIUC_ (1, 1, 1, 1, 1)

enum { GM_OPR_SAME, GM_OPR_BOOL, GM_OPR_FLOAT, GM_OPR_ACC, GM_OPR_INT64 };
enum { GM_OPF_UNARY, GM_OPF_PRED, GM_OPF_SCALAR, GM_OPF_BINARY, GM_OPF_COMPARE, GM_OPF_REDUCE };

/* ---- views: the rows of some families that run on some kind ----
 * GM_OPS_WITH(set, K, X, a) passes X(a, row...) for each row whose family
 * is in set (a tuple of six 0/1 flags in GM_OPF_* order) and whose kinds
 * include K (FLOAT, BOOL, INT, UINT, COMPLEX, or ANY). */
#define GM_OP_EXP_(...) __VA_ARGS__
#define GM_OP_CAT_(p, q) GM_OP_CAT2_(p, q)
#define GM_OP_CAT2_(p, q) p##q
#define GM_OP_IF_1(...) __VA_ARGS__
#define GM_OP_IF_0(...)
#define GM_OP_AND_11 1
#define GM_OP_AND_10 0
#define GM_OP_AND_01 0
#define GM_OP_AND_00 0
#define GM_OP_K_FLOAT_(f, b, i, u, c) f
#define GM_OP_K_BOOL_(f, b, i, u, c) b
#define GM_OP_K_INT_(f, b, i, u, c) i
#define GM_OP_K_UINT_(f, b, i, u, c) u
#define GM_OP_K_COMPLEX_(f, b, i, u, c) c
#define GM_OP_K_ANY_(f, b, i, u, c) 1
#define GM_OP_F_UNARY_(u, p, s, b, c, r) u
#define GM_OP_F_PRED_(u, p, s, b, c, r) p
#define GM_OP_F_SCALAR_(u, p, s, b, c, r) s
#define GM_OP_F_BINARY_(u, p, s, b, c, r) b
#define GM_OP_F_COMPARE_(u, p, s, b, c, r) c
#define GM_OP_F_REDUCE_(u, p, s, b, c, r) r
#define GM_OP_HAS_(kinds, K) GM_OP_EXP_(GM_OP_K_##K##_ GM_OPK_##kinds##_)
#define GM_OP_IN_(fam, set) GM_OP_EXP_(GM_OP_F_##fam##_ set)
/* (two expanders of their own: GM_OP_PICK2_ runs in the rescan of
 * GM_OP_EXPA_'s result, where GM_OP_EXP_ must still expand) */
#define GM_OP_EXPA_(...) __VA_ARGS__
#define GM_OP_EXPB_(...) __VA_ARGS__
#define GM_OP_PICK_(X, p, ...) GM_OP_EXPA_(GM_OP_PICK2_ GM_OP_EXPB_((X, GM_OP_EXPB_ p, __VA_ARGS__)))
#define GM_OP_PICK2_(X, set, K, a, fam, name, E, lua, kinds, result, cost) \
  GM_OP_CAT_(GM_OP_IF_, GM_OP_CAT_(GM_OP_AND_, GM_OP_CAT_(GM_OP_IN_(fam, set), GM_OP_HAS_(kinds, K))))( \
      X(a, name, E, lua, kinds, result, cost, fam))
#define GM_OPS_WITH(set, K, X, a) GM_OP_ROWS(GM_OP_PICK_, X, (set, K, a))
#define GM_OP_CALL_(X, ...) X(__VA_ARGS__)

/* every row: X(name, ENUM, lua, kinds, result, cost, family) */
#define GM_OP_TABLE(X) GM_OPS_WITH((1, 1, 1, 1, 1, 1), ANY, GM_OP_CALL_, X)

/* Unary ops x := f(x), element function gm_<name>_<T>(x). */
#define GM_UNARY_OPS(X) GM_UNARY_OPS_WITH(GM_OP_CALL_, X)
#define GM_UNARY_OPS_WITH(X, a) GM_OPS_WITH((1, 0, 0, 0, 0, 0), ANY, X, a)
/* The unary rows integer mats take (their kinds include I). */
#define GM_UNARY_INT_OPS(X) GM_UNARY_INT_OPS_WITH(GM_OP_CALL_, X)
#define GM_UNARY_INT_OPS_WITH(X, a) GM_OPS_WITH((1, 0, 0, 0, 0, 0), INT, X, a)
/* The unary rows complex mats take (kinds with C): element functions
 * gm_<name>_<T> of kernels/elementwise.h over complex_ops.h. */
#define GM_UNARY_COMPLEX_OPS_WITH(X, a) GM_OPS_WITH((1, 0, 0, 0, 0, 0), COMPLEX, X, a)
/* Predicates, y := f(x), y bool: element function gm_pred_<name>_<T>(x). */
#define GM_PREDICATE_OPS(X) GM_PREDICATE_OPS_WITH(GM_OP_CALL_, X)
#define GM_PREDICATE_OPS_WITH(X, a) GM_OPS_WITH((0, 1, 0, 0, 0, 0), ANY, X, a)
/* The predicates complex mats take (kinds with C). */
#define GM_PREDICATE_COMPLEX_OPS_WITH(X, a) GM_OPS_WITH((0, 1, 0, 0, 0, 0), COMPLEX, X, a)
/* x := f(x, alpha): element function gm_scalar_<name>_<T>(x, alpha). */
#define GM_SCALAR_OPS(X) GM_SCALAR_OPS_WITH(GM_OP_CALL_, X)
#define GM_SCALAR_OPS_WITH(X, a) GM_OPS_WITH((0, 0, 1, 0, 0, 0), ANY, X, a)
/* The broadcasting ops, binary and comparisons (gm_bcast_op's order):
 * element function gm_bc_<name>_<T>(a, b). */
#define GM_BCAST_OPS(X) GM_BCAST_OPS_WITH(GM_OP_CALL_, X)
#define GM_BCAST_OPS_WITH(X, a) GM_OPS_WITH((0, 0, 0, 1, 1, 0), ANY, X, a)
#define GM_BCAST_CMP_OPS(X) GM_BCAST_CMP_OPS_WITH(GM_OP_CALL_, X)
#define GM_BCAST_CMP_OPS_WITH(X, a) GM_OPS_WITH((0, 0, 0, 0, 1, 0), ANY, X, a)
/* The comparisons that run on kind K (complex: eq and ne only). */
#define GM_BCAST_CMP_OPS_OF_WITH(K, X, a) GM_OPS_WITH((0, 0, 0, 0, 1, 0), K, X, a)
/* The binary (not comparison) rows that run on kind K. */
#define GM_BINARY_OPS_OF(K, X) GM_BINARY_OPS_OF_WITH(K, GM_OP_CALL_, X)
#define GM_BINARY_OPS_OF_WITH(K, X, a) GM_OPS_WITH((0, 0, 0, 1, 0, 0), K, X, a)
/* The reductions (kernels/reduce_axis.h). */
#define GM_REDUCE_OPS(X) GM_OPS_WITH((0, 0, 0, 0, 0, 1), ANY, GM_OP_CALL_, X)

/* ---- the enums ---- */
typedef enum gm_unary_op {
#define GM_OP_ENUM_(name, E, ...) GM_UN_##E,
  GM_UNARY_OPS(GM_OP_ENUM_)
#undef GM_OP_ENUM_
  GM_N_UNARY
} gm_unary_op;

typedef enum gm_predicate_op {
#define GM_OP_ENUM_(name, E, ...) GM_PRED_##E,
  GM_PREDICATE_OPS(GM_OP_ENUM_)
#undef GM_OP_ENUM_
  GM_N_PREDICATE
} gm_predicate_op;

typedef enum gm_scalar_op {
#define GM_OP_ENUM_(name, E, ...) GM_SC_##E,
  GM_SCALAR_OPS(GM_OP_ENUM_)
#undef GM_OP_ENUM_
  GM_N_SCALAR
} gm_scalar_op;

typedef enum gm_bcast_op {
#define GM_OP_ENUM_(name, E, ...) GM_BC_##E,
  GM_BCAST_OPS(GM_OP_ENUM_)
#undef GM_OP_ENUM_
  GM_N_BCAST
} gm_bcast_op;

enum {
#define GM_OP_ENUM_(name, E, ...) GM_AX_##E,
  GM_REDUCE_OPS(GM_OP_ENUM_)
#undef GM_OP_ENUM_
  GM_AX_N_OPS
};

#endif
