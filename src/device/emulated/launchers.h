/* The launchers of kernels/NAME.cu as built for the emulated device
 * (cmake/EmulatedKernels.cmake, kernels/cpu/emu_kernels.h): the CUDA
 * backend's gm_cuda_* launchers (src/device/cuda/ew_nn.h) renamed gm_emu_*,
 * same arguments; each returns 0 or a cudaError_t-like code. */
#ifndef GM_DEVICE_EMULATED_LAUNCHERS_H
#define GM_DEVICE_EMULATED_LAUNCHERS_H

#include <stddef.h>

#include "../../core/nn_ops.h"

/* The launchers' `stream` is the emulated gm_device (or NULL): scratch
 * arrays come from it through these hooks (device.c; 0 or
 * GM_EMU_ERR_OOM, which also stays in the thread's last-error slot as
 * cudaMallocAsync leaves cudaErrorMemoryAllocation). */
int gm_emu_scratch_alloc(void *device, size_t bytes, void **out);
void gm_emu_scratch_free(void *device, void *p);

int gm_emu_ew_unary(int ctype, int op, size_t n, void *x, void *stream);
/* kind: 0 expt, 1 add_scalar, 2 min, 3 max */
int gm_emu_ew_scalar(int ctype, int kind, size_t n, double alpha, void *x, void *stream);
int gm_emu_ew_geem(int ctype, size_t n, double alpha, const void *a, const void *b, double beta, void *c,
                   void *stream);
int gm_emu_ew_lt(int ctype, size_t n, const void *x, void *y, void *stream);
int gm_emu_ew_add_sign(int ctype, size_t n, double alpha, const void *a, double beta, void *b, void *stream);
int gm_emu_ew_geerv(int ctype, size_t rows, size_t cols, double alpha, const void *a, const void *x, double beta,
                    void *b, void *stream);
/* kind: 0 rows, 1 columns */
int gm_emu_ew_scale(int ctype, int kind, size_t rows, size_t cols, const void *s, const void *a, void *r,
                    void *stream);
int gm_emu_ew_sum(int ctype, int axis, size_t rows, size_t cols, double alpha, const void *x, double beta, void *y,
                  void *stream);

int gm_emu_nn_convolve(int ctype, const gm_nn_geom *g, const void *x, const void *w, void *y, void *stream);
int gm_emu_nn_derive_convolve(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *w, void *wd,
                              const void *yd, void *stream);
int gm_emu_nn_max_pool(int ctype, const gm_nn_geom *g, const void *x, void *y, void *stream);
int gm_emu_nn_derive_max_pool(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *y,
                              const void *yd, void *stream);

int gm_emu_fill(int ctype, size_t n, double alpha, void *x, size_t incx, void *stream);
int gm_emu_uniform(int ctype, unsigned long long key, unsigned long long counter, size_t n, double limit, void *x,
                   void *stream);
int gm_emu_gaussian(int ctype, unsigned long long key, unsigned long long counter, size_t n, double mean,
                    double stddev, void *x, void *stream);
int gm_emu_reduce(int ctype, int op, size_t n, const void *x, double *result, void *stream);

#endif
