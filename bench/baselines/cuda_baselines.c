/* Direct CUDA runtime and cuBLAS calls: the baselines of bench/gpu_bench.lua
 * (which builds this into bench/out/ with the toolkit's cc flags).  Each
 * command prints one line of numbers; times are the median of `reps`
 * repeats, each synchronized, in seconds per call.
 *
 *   cuda_baselines peak                      theoretical and D2D-copy bandwidth (GB/s)
 *   cuda_baselines gemm s|d N reps           cublasSgemm/Dgemm N x N x N
 *   cuda_baselines malloc BYTES reps         cudaMalloc + cudaFree
 *   cuda_baselines h2d BYTES pinned|pageable reps   one host -> device copy
 *
 * Exit status 2 when no device is usable (the caller skips). */
#define _POSIX_C_SOURCE 200809L
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(call)                                                                  \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                 \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp);
  return t[n / 2];
}

static int peak(void) {
  int dev = 0, khz = 0, bits = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev));
  CK(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, dev));
  double theory = 2.0 * khz * 1e3 * (bits / 8.0) / 1e9; /* double data rate */
  size_t bytes = (size_t)1 << 30;
  void *a, *b;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
  double t[5];
  for (int r = 0; r < 5; r++) {
    CK(cudaDeviceSynchronize());
    double t0 = now();
    CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaDeviceSynchronize());
    t[r] = now() - t0;
  }
  printf("%.1f %.1f\n", theory, 2.0 * (double)bytes / median(t, 5) / 1e9);
  return 0;
}

static int gemm(char ct, int n, int reps) {
  size_t es = ct == 'd' ? sizeof(double) : sizeof(float), bytes = (size_t)n * (size_t)n * es;
  void *a, *b, *c;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMalloc(&c, bytes));
  CK(cudaMemset(a, 0, bytes));
  CK(cudaMemset(b, 0, bytes));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return fprintf(stderr, "cublasCreate failed\n"), 1;
  double ad = 1, bd = 0, *t = malloc(sizeof(double) * (size_t)reps);
  float af = 1, bf = 0;
  for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
    CK(cudaDeviceSynchronize());
    double t0 = now();
    cublasStatus_t s = ct == 'd' ? cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &ad, a, n, b, n, &bd, c, n)
                                : cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &af, a, n, b, n, &bf, c, n);
    if (s != CUBLAS_STATUS_SUCCESS) return fprintf(stderr, "gemm failed: %d\n", (int)s), 1;
    CK(cudaDeviceSynchronize());
    if (r >= 0) t[r] = now() - t0;
  }
  printf("%.9f\n", median(t, reps));
  return 0;
}

static int malloc_free(size_t bytes, int reps) {
  double *t = malloc(sizeof(double) * (size_t)reps);
  for (int r = -1; r < reps; r++) {
    void *p;
    double t0 = now();
    CK(cudaMalloc(&p, bytes));
    CK(cudaFree(p));
    if (r >= 0) t[r] = now() - t0;
  }
  printf("%.9f\n", median(t, reps));
  return 0;
}

static int h2d(size_t bytes, int pinned, int reps) {
  void *h, *d;
  if (pinned)
    CK(cudaMallocHost(&h, bytes));
  else if (!(h = malloc(bytes)))
    return 1;
  memset(h, 1, bytes);
  CK(cudaMalloc(&d, bytes));
  double *t = malloc(sizeof(double) * (size_t)reps);
  for (int r = -1; r < reps; r++) {
    double t0 = now();
    CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    if (r >= 0) t[r] = now() - t0;
  }
  printf("%.9f\n", median(t, reps));
  return 0;
}

int main(int argc, char **argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    fprintf(stderr, "no CUDA device\n");
    return 2;
  }
  if (argc >= 2 && strcmp(argv[1], "peak") == 0) return peak();
  if (argc >= 5 && strcmp(argv[1], "gemm") == 0) return gemm(argv[2][0], atoi(argv[3]), atoi(argv[4]));
  if (argc >= 4 && strcmp(argv[1], "malloc") == 0) return malloc_free((size_t)atoll(argv[2]), atoi(argv[3]));
  if (argc >= 5 && strcmp(argv[1], "h2d") == 0)
    return h2d((size_t)atoll(argv[2]), strcmp(argv[3], "pinned") == 0, atoi(argv[4]));
  fprintf(stderr, "usage: see the header of bench/baselines/cuda_baselines.c\n");
  return 1;
}
