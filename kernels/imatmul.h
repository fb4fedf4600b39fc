/* Matrix products of integer and bool mats (NumPy's matmul of those
 * types, which BLAS does not have): the integer sum wraps in the element
 * type, a bool product is the or of ands.  The element function below is
 * shared by the CUDA kernel (kernels/imatmul.cu, also run by the emulated
 * device); the host loop (src/host/imatmul.c) accumulates whole rows with
 * the same working types, so every backend gives the same bits.
 *
 * Operands are contiguous row-major stacks: x (batch, p, q), y (batch, q,
 * r), c (batch, p, r).  Products and sums are computed in W, an unsigned
 * type at least as wide as unsigned int (as kernels/int_ops.h does: a
 * narrower operand would be promoted to int, where products overflow),
 * whose wrapping reduced to the element width is the two's complement
 * result; a bool product counts the true terms in 64 bits and stores
 * count != 0 (bool storage is read as bytes: nonzero is true). */
#ifndef GM_KERNELS_IMATMUL_H
#define GM_KERNELS_IMATMUL_H

#include <stdint.h>

#include "../src/core/model/ctype_list.h"
#include "hd.h"

/* X(suffix, element storage type, ctype enum suffix, W, is bool) */
#define GM_IMM_ROWS(X)                        \
  X(int8, int8_t, INT8, uint32_t, 0)          \
  X(int16, int16_t, INT16, uint32_t, 0)       \
  X(int32, int32_t, INT32, uint32_t, 0)       \
  X(int64, int64_t, INT64, uint64_t, 0)       \
  X(uint8, uint8_t, UINT8, uint32_t, 0)       \
  X(uint16, uint16_t, UINT16, uint32_t, 0)    \
  X(uint32, uint32_t, UINT32, uint32_t, 0)    \
  X(uint64, uint64_t, UINT64, uint64_t, 0)    \
  X(bool, unsigned char, BOOL, uint64_t, 1)

/* gm_imm_term_N(v): v as a term of W; gm_imm_store_N(acc): the sum as an
 * element; gm_imm_dot_N: sum over l < q of x[l*sx] * y[l*sy]. */
#define GM_IMM_DEFINE_(N, L, E, W, B)                                                    \
  GM_HD W gm_imm_term_##N(L v) { return B ? (W)(v != 0) : (W)v; }                        \
  GM_HD L gm_imm_store_##N(W acc) { return B ? (L)(acc != 0) : (L)acc; }                 \
  GM_HD L gm_imm_dot_##N(const L *x, int64_t sx, const L *y, int64_t sy, int64_t q) {     \
    W acc = 0;                                                                           \
    for (int64_t l = 0; l < q; l++) acc += gm_imm_term_##N(x[l * sx]) * gm_imm_term_##N(y[l * sy]); \
    return gm_imm_store_##N(acc);                                                        \
  }
GM_IMM_ROWS(GM_IMM_DEFINE_)
#undef GM_IMM_DEFINE_

#endif
