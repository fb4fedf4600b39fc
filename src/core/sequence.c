/* The values are written straight into the mat's host facet (acquired as
 * an output, so nothing is staged or zero-filled first): no scratch array
 * of the result's size, which for gm.range(0, 2^31) was 16 GB of doubles
 * next to the result.  A device mat gets them from the host facet when a
 * device op first reads it, as after any host write. */
#include "sequence.h"

#include "exec.h"
#include "par.h"

typedef struct seq_job {
  void *p;
  double first, step;
} seq_job;

/* first + k * step for k in [b, e): independent elements, so big fills
 * split over the cores (the same values whatever the split). */
#define SEQ_CHUNK(T, E, ...)                                        \
  static void seq_chunk_##T(void *arg, size_t b, size_t e) {        \
    const seq_job *j = arg;                                         \
    T *v = j->p;                                                    \
    for (size_t k = b; k < e; k++) v[k] = (T)(j->first + (double)k * j->step); \
  }
GM_FLOAT_CTYPES(SEQ_CHUNK)
#undef SEQ_CHUNK

/* The running sum first, first + step, ...: sequential by definition (each
 * value is the previous one plus step, rounded in double). */
#define SEQ_ACC(T, E, ...)                                              \
  static void seq_acc_##T(void *p, size_t n, double first, double step) { \
    T *v = p;                                                           \
    double acc = first;                                                 \
    for (size_t k = 0; k < n; k++) {                                    \
      v[k] = (T)acc;                                                    \
      acc += step;                                                      \
    }                                                                   \
  }
GM_FLOAT_CTYPES(SEQ_ACC)
#undef SEQ_ACC

static void (*const seq_chunk[GM_N_CTYPES])(void *, size_t, size_t) = {GM_FLOAT_CTYPE_TABLE(seq_chunk)};
static void (*const seq_acc[GM_N_CTYPES])(void *, size_t, double, double) = {GM_FLOAT_CTYPE_TABLE(seq_acc)};

gm_status gm_mat_fill_sequence(gm_mat *m, double first, double step, bool accumulate, bool has_last, double last) {
  GM_TRY(gm_check_float_ctype("range", 1, m->ctype)); /* the loops are instantiated for floats */
  size_t n = m->size;
  if (n == 0) return GM_OK;
  if ((unsigned)m->ctype >= GM_N_CTYPES) return gm_fail(GM_EINVAL, "fill_sequence: bad ctype");
  gm_exec e = gm_exec_host();
  gm_operand op = {m, GM_OUTPUT, NULL};
  GM_TRY(gm_acquire(&e, &op, 1));
  if (accumulate) {
    seq_acc[m->ctype](op.ptr, n, first, step);
  } else {
    seq_job j = {op.ptr, first, step};
    gm_par_for(n, 16, 1.0, seq_chunk[m->ctype], &j);
  }
  if (has_last) gm_ctype_set(m->ctype, op.ptr, n - 1, last);
  return gm_release(&e, &op, 1);
}
