// kernels/int_ops.h under nvcc: one kernel calls every function of every
// integer type on the device, so tools/suite.d/26-ptxas.sh (which compiles
// tests/*.cu with kernels/*.cu) fails when the header stops compiling as
// CUDA or spills.  The results are tested on the host by
// tests/int_ops_test.c (the same source, GM_HD functions).
#include <stdint.h>

#include "int_ops.h"

#define GM_INT_OPS_CALL_ALL(T, ...)                                                   \
  __global__ void int_ops_##T(const T *a, const T *b, const float *f, const double *d, \
                              T *out, bool *flags, int n) {                          \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                   \
    if (i >= n) return;                                                              \
    T x = a[i], y = b[i];                                                            \
    T r = gm_iadd_##T(x, y) ^ gm_isub_##T(x, y) ^ gm_imul_##T(x, y) ^ gm_ineg_##T(x); \
    r ^= gm_ifloordiv_##T(x, y) ^ gm_iremainder_##T(x, y) ^ gm_ipow_##T(x, y);        \
    r ^= gm_iand_##T(x, y) ^ gm_ior_##T(x, y) ^ gm_ixor_##T(x, y) ^ gm_iinvert_##T(x); \
    r ^= gm_ishl_##T(x, y) ^ gm_ishr_##T(x, y);                                      \
    out[i] = r ^ gm_cast_float_##T(f[i]) ^ gm_cast_double_##T(d[i]);                 \
    flags[i] = gm_cast_##T##_bool(x) != gm_cast_float_bool(f[i]) || gm_cast_double_bool(d[i]); \
  }
GM_SINT_ROWS(GM_INT_OPS_CALL_ALL)
GM_UINT_ROWS(GM_INT_OPS_CALL_ALL)
