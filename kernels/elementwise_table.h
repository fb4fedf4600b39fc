/* The elementwise op table: one row per op, the single list behind
 *   - the core's enums and names (src/core/ops/elementwise_ops.h,
 *     src/core/ops/elementwise.c) and the public gm_function numbers
 *     (include/gpumat.h spells them out so the installed header stands
 *     alone; src/core/api/api_ops.c checks every row against it),
 *   - the element-function dispatch of elementwise.h (host and CUDA),
 *   - the host loops (src/host/elementwise.c),
 *   - the Lua registration (src/lua/l_elementwise.c) and the op lists the
 *     Lua side and the specs read (gpumat.core._unary_ops).
 * Macros and enums only, so plain C and nvcc both include it.  New rows go
 * at the end: enum numbers follow row order and the public numbers must
 * not move.  (The broadcasting binary ops keep their own list next to
 * their strided kernels.) */
#ifndef GM_KERNELS_ELEMENTWISE_TABLE_H
#define GM_KERNELS_ELEMENTWISE_TABLE_H

/* Each list is written once in its _WITH form, X(a, row...), passing a
 * through (so a per-type macro body can expand it with its type);
 * LIST(X) calls X(row...).  Every X ends its parameters with `...`, so a
 * column added at the end breaks no use. */
#define GM_EW_TABLE_CALL_(X, ...) X(__VA_ARGS__)

/* Unary ops x := f(x), element function gm_<name>_<T>(x):
 * X(name, ENUM, cost), cost the host loop's work per element relative to
 * a copy (its parallel threshold).  The first twelve are MGL-MAT's, in
 * its manual's order. */
#define GM_UNARY_OPS(X) GM_UNARY_OPS_WITH(GM_EW_TABLE_CALL_, X)
#define GM_UNARY_OPS_WITH(X, a) \
  X(a, square, SQUARE, 1)       \
  X(a, sqrt, SQRT, 16)          \
  X(a, log, LOG, 16)            \
  X(a, exp, EXP, 16)            \
  X(a, inv, INV, 1)             \
  X(a, logistic, LOGISTIC, 16)  \
  X(a, sin, SIN, 16)            \
  X(a, cos, COS, 16)            \
  X(a, tan, TAN, 16)            \
  X(a, sinh, SINH, 16)          \
  X(a, cosh, COSH, 16)          \
  X(a, tanh, TANH, 16)          \
  X(a, abs, ABS, 1)             \
  X(a, sign, SIGN, 1)           \
  X(a, floor, FLOOR, 1)         \
  X(a, ceil, CEIL, 1)           \
  X(a, round, ROUND, 1)         \
  X(a, neg, NEG, 1)             \
  X(a, log1p, LOG1P, 16)        \
  X(a, expm1, EXPM1, 16)        \
  X(a, relu, RELU, 1)           \
  X(a, acos, ACOS, 16)          \
  X(a, acosh, ACOSH, 16)        \
  X(a, asin, ASIN, 16)          \
  X(a, asinh, ASINH, 16)        \
  X(a, atan, ATAN, 16)          \
  X(a, atanh, ATANH, 16)        \
  X(a, log2, LOG2, 16)          \
  X(a, log10, LOG10, 16)        \
  X(a, trunc, TRUNC, 1)         \
  X(a, positive, POSITIVE, 1)

/* The GM_UNARY_OPS rows integer mats take too (the array standard's
 * integer-capable unary functions): X(name, ENUM).  Element functions
 * gm_<name>_<T> for the integer T are in elementwise.h; every other row
 * refuses integer mats (core/ops/elementwise.c). */
#define GM_UNARY_INT_OPS(X) GM_UNARY_INT_OPS_WITH(GM_EW_TABLE_CALL_, X)
#define GM_UNARY_INT_OPS_WITH(X, a) \
  X(a, square, SQUARE)              \
  X(a, abs, ABS)                    \
  X(a, sign, SIGN)                  \
  X(a, floor, FLOOR)                \
  X(a, ceil, CEIL)                  \
  X(a, round, ROUND)                \
  X(a, neg, NEG)                    \
  X(a, trunc, TRUNC)                \
  X(a, positive, POSITIVE)

/* Predicates, y := f(x) with y a bool mat and x of any element type:
 * X(name, ENUM), element function gm_pred_<name>_<T>(x) (elementwise.h).
 * _truth is x != 0 (astype(bool) on the device too), which
 * logical_and/or/xor apply to their operands first (lua/gpumat). */
#define GM_PREDICATE_OPS(X) GM_PREDICATE_OPS_WITH(GM_EW_TABLE_CALL_, X)
#define GM_PREDICATE_OPS_WITH(X, a)  \
  X(a, isnan, ISNAN)                 \
  X(a, isinf, ISINF)                 \
  X(a, isfinite, ISFINITE)           \
  X(a, signbit, SIGNBIT)             \
  X(a, logical_not, LOGICAL_NOT)     \
  X(a, _truth, TRUTH)

/* Ops with one scalar parameter x := f(x, alpha), element function
 * gm_scalar_<name>_<T>(x, alpha): X(name, ENUM, Lua function, cost). */
#define GM_SCALAR_OPS(X) GM_SCALAR_OPS_WITH(GM_EW_TABLE_CALL_, X)
#define GM_SCALAR_OPS_WITH(X, a)      \
  X(a, expt, EXPT, "expt_", 16)       \
  X(a, add, ADD, "add_scalar_", 1)    \
  X(a, min, MIN, "min_", 1)           \
  X(a, max, MAX, "max_", 1)

typedef enum gm_unary_op {
#define GM_EW_ENUM_(name, E, ...) GM_UN_##E,
  GM_UNARY_OPS(GM_EW_ENUM_)
#undef GM_EW_ENUM_
  GM_N_UNARY
} gm_unary_op;

typedef enum gm_predicate_op {
#define GM_EW_ENUM_(name, E, ...) GM_PRED_##E,
  GM_PREDICATE_OPS(GM_EW_ENUM_)
#undef GM_EW_ENUM_
  GM_N_PREDICATE
} gm_predicate_op;

typedef enum gm_scalar_op {
#define GM_EW_ENUM_(name, E, ...) GM_SC_##E,
  GM_SCALAR_OPS(GM_EW_ENUM_)
#undef GM_EW_ENUM_
  GM_N_SCALAR
} gm_scalar_op;

#endif
