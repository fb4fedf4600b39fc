/* Accumulators of the reductions along an axis (m:sum(axis), m:argmax(axis),
 * gm.softmax, ...), shared by the host loops (src/host/reduce_axis.c) and
 * the CUDA kernels (kernels/reduce_axis.cu), so the host specs test the
 * arithmetic the device runs.
 *
 * An array is seen as (outer, len, inner), row-major, reduced over the
 * middle index: one output per (outer, inner) pair, a "column" of len
 * elements `inner` apart.  Every op folds a column into one gm_axacc with
 * gm_ax_step (element k of the column) and combines partial accumulators
 * of disjoint parts with gm_ax_merge; merge is order-independent (ties go
 * to the smaller index), so any split of a column — host tiles, device
 * lanes — gives the same argmax.  Accumulation is in double for the
 * float ctypes; bool and integer columns fold exactly (gm_axint, below).
 *
 * NaN rules (NumPy's): any NaN in a column makes sum/prod/mean/var/std,
 * max/min and logsumexp NaN, and argmax/argmin give the first NaN's index.
 * Empty columns: sum 0, prod 1, mean/var/std NaN, logsumexp -inf, any
 * false, all true, count_nonzero 0 (max,
 * min, argmax and argmin of an empty axis are refused by the core). */
#ifndef GM_KERNELS_REDUCE_AXIS_H
#define GM_KERNELS_REDUCE_AXIS_H

#include <math.h>

#include "../src/core/model/ctype_list.h"
#include "hd.h"

/* Ops (core/ops/reduce_axis_ops.h names them for the core). */
enum {
  GM_AX_SUM = 0,
  GM_AX_PROD,
  GM_AX_MEAN,
  GM_AX_MAX,
  GM_AX_MIN,
  GM_AX_VAR,
  GM_AX_STD,
  GM_AX_ARGMAX,
  GM_AX_ARGMIN,
  GM_AX_LOGSUMEXP,
  GM_AX_SOFTMAX, /* writes every element: exp(x - max) / sum */
  /* x != 0 (NaN counts), then max, min or sum of that bool mat: the core
   * maps these to GM_AX_MAX, MIN and SUM, so no loop or kernel sees them */
  GM_AX_ANY,
  GM_AX_ALL,
  GM_AX_COUNT_NONZERO,
  GM_AX_N_OPS
};

/* a, b: the op's running values; n: elements folded (sum, prod, var,
 * logsumexp) or the 0-based index of the best element, -1 for none yet
 * (max, min, argmax, argmin).
 *   sum/mean: a = sum            prod: a = product
 *   var/std:  a = mean, b = sum of squared deviations (Welford; merged
 *             with Chan's formula)
 *   max/min/argmax/argmin: a = best value (NaN once a NaN was seen)
 *   logsumexp/softmax: a = running max, b = sum of exp(x - a) */
typedef struct gm_axacc {
  double a, b;
  long long n;
} gm_axacc;

GM_HD int gm_ax_is_extreme(int op) { return op == GM_AX_MAX || op == GM_AX_MIN || op == GM_AX_ARGMAX || op == GM_AX_ARGMIN; }
GM_HD int gm_ax_is_lse(int op) { return op == GM_AX_LOGSUMEXP || op == GM_AX_SOFTMAX; }
GM_HD int gm_ax_wants_max(int op) { return op == GM_AX_MAX || op == GM_AX_ARGMAX; }
/* Whether the result is a 1-based index (an int64 mat), not a value. */
GM_HD int gm_ax_is_arg(int op) { return op == GM_AX_ARGMAX || op == GM_AX_ARGMIN; }
GM_HD int gm_ax_is_logical(int op) { return op == GM_AX_ANY || op == GM_AX_ALL || op == GM_AX_COUNT_NONZERO; }

GM_HD gm_axacc gm_ax_init(int op) {
  gm_axacc c;
  c.a = op == GM_AX_PROD || op == GM_AX_ALL ? 1.0 : gm_ax_is_lse(op) ? -INFINITY : 0.0;
  c.b = 0.0;
  c.n = gm_ax_is_extreme(op) ? -1 : 0;
  return c;
}

/* Whether candidate value v at index k beats the best (a at index n):
 * NaN first (the first NaN wins), then strictly better, then the smaller
 * index on a tie. */
GM_HD int gm_ax_better(int op, double v, long long k, double a, long long n) {
  if (n < 0) return 1;
  int vnan = v != v, anan = a != a;
  if (vnan || anan) return vnan && (!anan || k < n);
  if (v == a) return k < n;
  return gm_ax_wants_max(op) ? v > a : v < a;
}

/* Folds element x (index k along the axis) into c. */
GM_HD void gm_ax_step(int op, gm_axacc *c, double x, long long k) {
  if (op == GM_AX_SUM || op == GM_AX_MEAN) {
    c->a += x;
  } else if (op == GM_AX_PROD) {
    c->a *= x;
  } else if (op == GM_AX_VAR || op == GM_AX_STD) {
    c->n++;
    double d = x - c->a;
    c->a += d / (double)c->n;
    c->b += d * (x - c->a);
  } else if (gm_ax_is_extreme(op)) {
    if (gm_ax_better(op, x, k, c->a, c->n)) {
      c->a = x;
      c->n = k;
    }
  } else if (x > c->a) { /* logsumexp: a new max rescales the sum */
    c->b = c->b * exp(c->a - x) + 1.0;
    c->a = x;
  } else if (x != -INFINITY) { /* -inf adds exp(-inf) = 0; NaN makes b NaN */
    c->b += x == c->a ? 1.0 : exp(x - c->a);
  }
}

/* c := c combined with d (d folded elements disjoint from c's). */
GM_HD void gm_ax_merge(int op, gm_axacc *c, gm_axacc d) {
  if (op == GM_AX_SUM || op == GM_AX_MEAN) {
    c->a += d.a;
  } else if (op == GM_AX_PROD) {
    c->a *= d.a;
  } else if (op == GM_AX_VAR || op == GM_AX_STD) {
    if (d.n == 0) return;
    if (c->n == 0) {
      *c = d;
      return;
    }
    double n = (double)(c->n + d.n), delta = d.a - c->a;
    c->a += delta * (double)d.n / n;
    c->b += d.b + delta * delta * (double)c->n * (double)d.n / n;
    c->n += d.n;
  } else if (gm_ax_is_extreme(op)) {
    if (d.n >= 0 && gm_ax_better(op, d.a, d.n, c->a, c->n)) *c = d;
  } else if (d.a != -INFINITY || d.b != d.b) {
    if (c->a == -INFINITY && c->b == c->b) {
      *c = d;
      return;
    }
    double m = d.a > c->a ? d.a : c->a;
    c->b = c->b * (c->a == m ? 1.0 : exp(c->a - m)) + d.b * (d.a == m ? 1.0 : exp(d.a - m));
    c->a = m;
  }
}

/* The reduction's value for a column of len elements; ddof: 1 for the
 * unbiased variance, else 0. */
GM_HD double gm_ax_result(int op, gm_axacc c, long long len, int ddof) {
  switch (op) {
    case GM_AX_SUM:
    case GM_AX_PROD: return c.a;
    case GM_AX_MEAN: return len > 0 ? c.a / (double)len : NAN;
    case GM_AX_VAR:
    case GM_AX_STD: {
      double v = len - ddof > 0 ? c.b / (double)(len - ddof) : NAN;
      return op == GM_AX_STD ? sqrt(v) : v;
    }
    case GM_AX_ARGMAX:
    case GM_AX_ARGMIN: return (double)(c.n + 1);
    case GM_AX_LOGSUMEXP: return c.b != c.b ? c.b : c.a == -INFINITY ? c.a : c.a + log(c.b);
    default: return c.a; /* max, min */
  }
}

/* Softmax of element x of a column whose accumulator is c. */
GM_HD double gm_ax_softmax(gm_axacc c, double x) { return exp(x - c.a) / c.b; }

/* ---- bool and integer columns ----
 * sum, prod, max, min, argmax and argmin of bool and integer mats fold
 * exactly, on the element's value widened to 64 bits ((unsigned long
 * long)v: a signed value's two's-complement bits, bool 0 or 1): sum and
 * prod wrap modulo 2^64 in unsigned arithmetic (NumPy's int64/uint64
 * results, no signed overflow), max/min/argmax/argmin compare in the
 * type, signed ones through their bits with the sign bit flipped, and
 * keep the first of ties.  (mean/var/std of these go through a double
 * copy in the core; logsumexp and softmax take float mats only.) */
typedef struct gm_axint {
  unsigned long long v; /* sum, product, or the best value's bits */
  long long n;          /* 0-based index of the best element; -1: none yet */
} gm_axint;

GM_HD gm_axint gm_axi_init(int op) {
  gm_axint c;
  c.v = op == GM_AX_PROD ? 1ull : 0ull;
  c.n = -1;
  return c;
}

/* Folds v (index k) into c; uns: the type is unsigned (else signed or
 * bool, where the flip is harmless: 0 and 1 keep their order). */
GM_HD void gm_axi_step(int op, int uns, gm_axint *c, unsigned long long v, long long k) {
  if (op == GM_AX_SUM) {
    c->v += v;
  } else if (op == GM_AX_PROD) {
    c->v *= v;
  } else {
    const unsigned long long flip = uns ? 0ull : 1ull << 63;
    unsigned long long a = v ^ flip, b = c->v ^ flip;
    int better = gm_ax_wants_max(op) ? a > b : a < b;
    if (c->n < 0 || better || (a == b && k < c->n)) {
      c->v = v;
      c->n = k;
    }
  }
}

/* c := c combined with d (disjoint elements). */
GM_HD void gm_axi_merge(int op, int uns, gm_axint *c, gm_axint d) {
  if (op == GM_AX_SUM || op == GM_AX_PROD || d.n >= 0) gm_axi_step(op, uns, c, d.v, d.n);
}

/* The result's bits: the sum or product (an int64/uint64 element), the
 * best value (converted back to the element type by the writer) or the
 * 1-based index (int64). */
GM_HD unsigned long long gm_axi_result(int op, gm_axint c) {
  return gm_ax_is_arg(op) ? (unsigned long long)(c.n + 1) : c.v;
}

#endif
