/* The values are written straight into the mat's host facet (acquired as
 * an output, so nothing is staged or zero-filled first): no scratch array
 * of the result's size, which for gm.range(0, 2^31) was 16 GB of doubles
 * next to the result.  A device mat gets them from the host facet when a
 * device op first reads it, as after any host write.
 *
 * Every ctype takes the double sequence (stored as astype converts:
 * integers saturate, bool is != 0); integer mats also take an exact
 * integer sequence (gm.arange(0, 2^62, 2^40, {dtype = "int64"}) has no
 * double rounding), computed in uint64 arithmetic so it wraps instead of
 * overflowing, as NumPy's int64 arange does. */
#include "sequence.h"

#include "../../../kernels/half_ops.h"
#include "../../../kernels/int_ops.h"
#include "../exec/exec.h"
#include "../exec/par.h"
#include "../model/simd.h"

typedef struct seq_job {
  gm_ctype t;
  void *p;
  double first, step;
  long long ifirst, istep;
} seq_job;

/* first + k * step for k in [b, e): independent elements, so big fills
 * split over the cores (the same values whatever the split). */
#define SEQ_CHUNK(T, E, ...)                                                          \
  static void seq_chunk_##E(void *arg, size_t b, size_t e) {                          \
    const seq_job *j = arg;                                                           \
    T *v = j->p;                                                                      \
    for (size_t k = b; k < e; k++) v[k] = gm_sat_##T(j->first + (double)k * j->step); \
  }                                                                                   \
  /* the running value, not first + k * step: AVX2 has no 64-bit multiply,  \
   * and the loop with one did not vectorize (gm.arange(1000000) took 2x     \
   * numpy's time); uint64 sums wrap as the products did */                   \
  GM_SIMD_CLONES static void seq_int_chunk_##E(void *arg, size_t b, size_t e) {       \
    const seq_job *j = arg;                                                           \
    T *v = j->p;                                                                      \
    unsigned long long s = (unsigned long long)j->istep;                              \
    unsigned long long acc = (unsigned long long)j->ifirst + (unsigned long long)b * s; \
    for (size_t k = b; k < e; k++, acc += s) v[k] = gm_wrap_##T((long long)acc);      \
  }
GM_REAL_CTYPES(SEQ_CHUNK)
GM_HALF_CTYPES(SEQ_CHUNK)
#undef SEQ_CHUNK

/* complex mats: each value through gm_ctype_set (imaginary part 0) */
static void seq_chunk_any(void *arg, size_t b, size_t e) {
  const seq_job *j = arg;
  for (size_t k = b; k < e; k++) gm_ctype_set(j->t, j->p, k, j->first + (double)k * j->step);
}
static void seq_int_chunk_any(void *arg, size_t b, size_t e) {
  const seq_job *j = arg;
  unsigned long long f = (unsigned long long)j->ifirst, s = (unsigned long long)j->istep;
  for (size_t k = b; k < e; k++) gm_ctype_set(j->t, j->p, k, (double)(long long)(f + (unsigned long long)k * s));
}

/* The running sum first, first + step, ...: sequential by definition (each
 * value is the previous one plus step, rounded in double). */
#define SEQ_ACC(T, E, ...)                                                \
  static void seq_acc_##E(void *p, size_t n, double first, double step) { \
    T *v = p;                                                             \
    double acc = first;                                                   \
    for (size_t k = 0; k < n; k++) {                                      \
      v[k] = gm_sat_##T(acc);                                             \
      acc += step;                                                        \
    }                                                                     \
  }
GM_REAL_CTYPES(SEQ_ACC)
GM_HALF_CTYPES(SEQ_ACC)
#undef SEQ_ACC

/* tables by the enum column's name (seq_chunk_BOOL): in C `bool` expands
 * to _Bool on some paths through the X-macros and not on others */
#define SEQ_ENTRY_(NAME, T, E, ...) [GM_##E] = NAME##_##E,
static void (*const seq_chunk[GM_N_CTYPES])(void *, size_t, size_t) = {
    GM_REAL_CTYPES_WITH(SEQ_ENTRY_, seq_chunk) GM_HALF_CTYPES_WITH(SEQ_ENTRY_, seq_chunk)};
static void (*const seq_int_chunk[GM_N_CTYPES])(void *, size_t, size_t) = {
    GM_REAL_CTYPES_WITH(SEQ_ENTRY_, seq_int_chunk) GM_HALF_CTYPES_WITH(SEQ_ENTRY_, seq_int_chunk)};
static void (*const seq_acc[GM_N_CTYPES])(void *, size_t, double, double) = {
    GM_REAL_CTYPES_WITH(SEQ_ENTRY_, seq_acc) GM_HALF_CTYPES_WITH(SEQ_ENTRY_, seq_acc)};
#undef SEQ_ENTRY_

gm_status gm_mat_fill_sequence(gm_mat *m, double first, double step, bool accumulate, bool has_last, double last) {
  size_t n = m->size;
  if ((unsigned)m->ctype >= GM_N_CTYPES) return gm_fail(GM_EINVAL, "fill_sequence: bad ctype");
  if (n == 0) return GM_OK;
  gm_exec e = gm_exec_host();
  gm_operand op = {m, GM_OUTPUT, NULL};
  GM_TRY(gm_acquire(&e, &op, 1));
  if (accumulate && seq_acc[m->ctype]) {
    seq_acc[m->ctype](op.ptr, n, first, step);
  } else if (accumulate) { /* complex: the running sum in double, as seq_acc */
    double acc = first;
    for (size_t k = 0; k < n; k++, acc += step) gm_ctype_set(m->ctype, op.ptr, k, acc);
  } else {
    seq_job j = {m->ctype, op.ptr, first, step, 0, 0};
    gm_par_for(n, 16, 1.0, seq_chunk[m->ctype] ? seq_chunk[m->ctype] : seq_chunk_any, &j);
  }
  if (has_last) gm_ctype_set(m->ctype, op.ptr, n - 1, last);
  return gm_release(&e, &op, 1);
}

gm_status gm_mat_fill_int_sequence(gm_mat *m, long long first, long long step) {
  if ((unsigned)m->ctype >= GM_N_CTYPES) return gm_fail(GM_EINVAL, "fill_sequence: bad ctype");
  if (m->size == 0) return GM_OK;
  gm_exec e = gm_exec_host();
  gm_operand op = {m, GM_OUTPUT, NULL};
  GM_TRY(gm_acquire(&e, &op, 1));
  seq_job j = {m->ctype, op.ptr, 0, 0, first, step};
  gm_par_for(m->size, 16, 1.0, seq_int_chunk[m->ctype] ? seq_int_chunk[m->ctype] : seq_int_chunk_any, &j);
  return gm_release(&e, &op, 1);
}
