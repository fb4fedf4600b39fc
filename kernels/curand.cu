// cuRAND XORWOW generators on the device (MGL's curand-xorwow-state): one
// state per thread, seeded with curand_init(seed, subsequence = thread id),
// and grid-stride uniform/gaussian fills.  extern "C" launchers for
// src/device/cuda/random.c.
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <stddef.h>

namespace {

const int kBlock = 256;

int grid_for(int n_states) { return (n_states + kBlock - 1) / kBlock; }

__global__ void init_states(curandStateXORWOW_t *s, int n, unsigned long long seed) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id < n) curand_init(seed, (unsigned long long)id, 0, &s[id]);
}

// (0, 1] from cuRAND -> [0, limit): 1 - u lies in [0, 1); rounding to T
// may reach limit, which is then replaced by the largest T below it.
__device__ float below(curandStateXORWOW_t *s, float limit) {
  float r = (float)((1.0 - (double)curand_uniform(s)) * (double)limit);
  return r < limit ? r : nextafterf(limit, 0.0f);
}

__device__ double below(curandStateXORWOW_t *s, double limit) {
  double r = (1.0 - curand_uniform_double(s)) * limit;
  return r < limit ? r : nextafter(limit, 0.0);
}

__device__ float normal(curandStateXORWOW_t *s, float) { return curand_normal(s); }
__device__ double normal(curandStateXORWOW_t *s, double) { return curand_normal_double(s); }

template <typename T>
__global__ void uniform_fill(curandStateXORWOW_t *states, int n_states, T *x, size_t n, T limit) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= n_states) return;
  curandStateXORWOW_t s = states[id];
  for (size_t i = (size_t)id; i < n; i += (size_t)n_states) x[i] = below(&s, limit);
  states[id] = s;
}

template <typename T>
__global__ void gaussian_fill(curandStateXORWOW_t *states, int n_states, T *x, size_t n, T mean, T stddev) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= n_states) return;
  curandStateXORWOW_t s = states[id];
  for (size_t i = (size_t)id; i < n; i += (size_t)n_states) x[i] = mean + stddev * normal(&s, mean);
  states[id] = s;
}

}  // namespace

extern "C" int gm_curand_alloc_init(void **states, int n_states, unsigned long long seed, void *stream) {
  cudaError_t e = cudaMalloc(states, sizeof(curandStateXORWOW_t) * (size_t)n_states);
  if (e != cudaSuccess) return (int)e;
  init_states<<<grid_for(n_states), kBlock, 0, (cudaStream_t)stream>>>((curandStateXORWOW_t *)*states, n_states,
                                                                        seed);
  e = cudaGetLastError();
  if (e != cudaSuccess) {
    (void)cudaFree(*states);
    *states = NULL;
  }
  return (int)e;
}

extern "C" void gm_curand_free(void *states) { (void)cudaFree(states); }  // release path: nothing to report

extern "C" int gm_curand_uniform(int ctype, void *states, int n_states, size_t n, double limit, void *x,
                                 void *stream) {
  curandStateXORWOW_t *s = (curandStateXORWOW_t *)states;
  cudaStream_t st = (cudaStream_t)stream;
  if (ctype == 0)
    uniform_fill<float><<<grid_for(n_states), kBlock, 0, st>>>(s, n_states, (float *)x, n, (float)limit);
  else
    uniform_fill<double><<<grid_for(n_states), kBlock, 0, st>>>(s, n_states, (double *)x, n, limit);
  return (int)cudaGetLastError();
}

extern "C" int gm_curand_gaussian(int ctype, void *states, int n_states, size_t n, double mean, double stddev,
                                  void *x, void *stream) {
  curandStateXORWOW_t *s = (curandStateXORWOW_t *)states;
  cudaStream_t st = (cudaStream_t)stream;
  if (ctype == 0)
    gaussian_fill<float><<<grid_for(n_states), kBlock, 0, st>>>(s, n_states, (float *)x, n, (float)mean,
                                                                 (float)stddev);
  else
    gaussian_fill<double><<<grid_for(n_states), kBlock, 0, st>>>(s, n_states, (double *)x, n, mean, stddev);
  return (int)cudaGetLastError();
}
