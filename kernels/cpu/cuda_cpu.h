// CUDA's execution model on the CPU, for kernels written in CUDA C and
// compiled by the system C++ compiler (g++ -std=c++17).
//
// - Every thread of every block runs.  Blocks are spread over the host's
//   cores (OpenMP, dynamic schedule; or, with GMCPU_PAR_FOR, the library's
//   gm_par_for); the threads of one block run on one OS thread.
// - A kernel that calls __syncthreads() runs each thread of a block as a
//   fiber (ucontext, own stack).  __syncthreads() switches back to the
//   block's scheduler, which resumes every other fiber up to its own
//   barrier before any fiber goes on: a real barrier of the block.  A kernel
//   without __syncthreads() runs the threads of a block as a plain loop (the
//   fast path for grid-stride kernels).
// - __shared__ variables are thread_local statics: one instance per OS
//   thread, so the fibers of a block share it and blocks running in
//   parallel each have their own.  A template kernel's has one per
//   instantiation, all in the library's thread-local block, which each new
//   thread touching a thread-local allocates and zeroes whole: big arrays
//   go at namespace scope, shared by a file's kernels (kernels/radix.cu;
//   spec/emulated_kernels_spec.lua bounds the block).
// - atomicAdd/Sub/Exch/Min/Max/CAS on int, unsigned, unsigned long long,
//   float and double are real atomics (blocks run concurrently).
// - threadIdx/blockIdx/blockDim/gridDim are locals of the kernel function
//   (GMCPU_KERNEL_INDEX below), filled from the launch: cheap to read.
//
// Ideas from ROCm's HIP-CPU (fibers per block) and KernelAbstractions.jl's
// CPU backend (plain loops when there is no synchronization).
#ifndef GPUMAT_CUDA_CPU_H
#define GPUMAT_CUDA_CPU_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include <math.h>
#include <sys/mman.h>
#include <ucontext.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __shared__ static thread_local
#define __constant__ static const

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace gmcpu {

struct index {
  uint3 thread, block;
  dim3 block_dim, grid_dim;
};

typedef void (*body_fn)(void *env, const index &ix);

// ---- fibers for blocks that synchronize ----------------------------------
//
// Two implementations of the switch between the block's scheduler and its
// fibers.  On x86-64 (without AddressSanitizer) a few instructions that
// save and restore the callee-saved registers, MXCSR and the x87 control
// word (what the SysV ABI says a call preserves): glibc's swapcontext and
// getcontext make a sigprocmask system call each, which made a 256-thread
// block with ten barriers cost ~5000 system calls.  Elsewhere, and under
// ASan (which intercepts swapcontext to follow stack switches), ucontext.

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(GMCPU_USE_UCONTEXT)
#define GMCPU_FAST_SWITCH 1
// gmcpu_swap(&save, load): pushes the callee-saved state on the current
// stack, stores the stack pointer in save, switches to the stack `load`
// and pops the state saved there.  A weak symbol in a COMDAT group: every
// translation unit that includes this header emits it, the linker keeps one.
__asm__(".pushsection .text.gmcpu_swap,\"axG\",@progbits,gmcpu_swap,comdat\n"
        ".weak gmcpu_swap\n"
        ".hidden gmcpu_swap\n"
        ".type gmcpu_swap,@function\n"
        "gmcpu_swap:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size gmcpu_swap,.-gmcpu_swap\n"
        ".popsection\n");
extern "C" void gmcpu_swap(void **save, void *load);
#endif

constexpr size_t kFiberStack = 64 * 1024;

struct fiber {
#ifdef GMCPU_FAST_SWITCH
  void *sp;
#else
  ucontext_t ctx;
#endif
  index ix;
  bool done;
};

struct block_sched {
#ifdef GMCPU_FAST_SWITCH
  void *sched_sp = nullptr;
#else
  ucontext_t sched;
#endif
  fiber *cur = nullptr;
  body_fn fn = nullptr;
  void *env = nullptr;
  fiber *fibers = nullptr;
  char *stacks = nullptr;
  size_t n_fibers = 0; // capacity of fibers/stacks
  ~block_sched() {
    if (stacks) munmap(stacks, n_fibers * kFiberStack);
    free(fibers);
  }
  bool reserve(size_t n) {
    if (n <= n_fibers) return true;
    if (stacks) munmap(stacks, n_fibers * kFiberStack);
    free(fibers);
    fibers = (fiber *)calloc(n, sizeof(fiber));
    void *p = mmap(nullptr, n * kFiberStack, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    stacks = p == MAP_FAILED ? nullptr : (char *)p;
    n_fibers = fibers && stacks ? n : 0;
    return n_fibers != 0;
  }
};

inline thread_local block_sched tls_sched;
inline thread_local bool tls_in_fiber = false;

[[noreturn]] inline void die(const char *what) {
  fprintf(stderr, "gpumat cuda_cpu: %s\n", what);
  abort();
}

#ifdef GMCPU_FAST_SWITCH
// First code of a fiber: entered by gmcpu_swap's `ret` with the stack
// aligned as after a call; runs the thread and switches back for good.
[[noreturn]] inline void fiber_entry() {
  block_sched &s = tls_sched;
  fiber *f = s.cur;
  s.fn(s.env, f->ix);
  f->done = true;
  gmcpu_swap(&f->sp, s.sched_sp);
  die("a finished fiber was resumed");
}

// The initial stack of a fiber, as gmcpu_swap leaves it: the control
// words (MXCSR default 0x1F80, x87 0x037F), six registers, and
// fiber_entry as the return address, so that after the `ret` the stack
// pointer is 8 mod 16 as at the entry of a called function.
inline void *fiber_stack_init(char *base, size_t size) {
  uintptr_t top = ((uintptr_t)(base + size)) & ~(uintptr_t)15;
  uint64_t *sp = (uint64_t *)(top - 72);
  sp[0] = 0x1F80u | ((uint64_t)0x037Fu << 32);
  for (int i = 1; i <= 6; i++) sp[i] = 0;
  sp[7] = (uint64_t)(uintptr_t)&fiber_entry;
  return sp;
}

inline void syncthreads() {
  if (!tls_in_fiber) die("__syncthreads() in a kernel launched without fibers");
  block_sched &s = tls_sched;
  gmcpu_swap(&s.cur->sp, s.sched_sp);
}
#else
inline void fiber_entry() {
  block_sched &s = tls_sched;
  fiber *f = s.cur;
  s.fn(s.env, f->ix);
  f->done = true; // returning resumes uc_link = the scheduler
}

inline void syncthreads() {
  if (!tls_in_fiber) die("__syncthreads() in a kernel launched without fibers");
  block_sched &s = tls_sched;
  swapcontext(&s.cur->ctx, &s.sched);
}
#endif

inline void run_block_fibers(const index &base, body_fn fn, void *env) {
  block_sched &s = tls_sched;
  const dim3 b = base.block_dim;
  size_t n = (size_t)b.x * b.y * b.z;
  if (!s.reserve(n)) die("out of memory for fiber stacks");
  s.fn = fn;
  s.env = env;
  for (size_t i = 0; i < n; i++) {
    fiber &f = s.fibers[i];
    f.ix = base;
    f.ix.thread = uint3{(unsigned)(i % b.x), (unsigned)(i / b.x % b.y), (unsigned)(i / ((size_t)b.x * b.y))};
    f.done = false;
#ifdef GMCPU_FAST_SWITCH
    f.sp = fiber_stack_init(s.stacks + i * kFiberStack, kFiberStack);
#else
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = s.stacks + i * kFiberStack;
    f.ctx.uc_stack.ss_size = kFiberStack;
    f.ctx.uc_link = &s.sched;
    makecontext(&f.ctx, fiber_entry, 0);
#endif
  }
  tls_in_fiber = true;
  // Rounds: each live fiber runs up to its next barrier (or its end); a
  // new round starts only when every fiber has had its turn, so no fiber
  // passes barrier k before all have reached it.
  size_t live = n;
  while (live) {
    for (size_t i = 0; i < n; i++) {
      fiber &f = s.fibers[i];
      if (f.done) continue;
      s.cur = &f;
#ifdef GMCPU_FAST_SWITCH
      gmcpu_swap(&s.sched_sp, f.sp);
#else
      swapcontext(&s.sched, &f.ctx);
#endif
      if (f.done) live--;
    }
  }
  tls_in_fiber = false;
  s.cur = nullptr;
}

// The threads of a block without __syncthreads() as a plain loop.  f is
// taken by value: a local copy of the body's captured arguments, which
// stores through the kernel's pointers cannot alias (through a reference
// into the OpenMP region's shared data they are reloaded every
// iteration).  A fresh index per thread with only .x varying in the inner
// loop: with the body inlined, GCC vectorizes the x loop of a body
// without loops of its own (one element per thread, `if (i < n)`).
template <class F> inline void run_block_loop(index ix, F f) {
  const dim3 b = ix.block_dim;
  for (unsigned z = 0; z < b.z; z++)
    for (unsigned y = 0; y < b.y; y++) {
      ix.thread = uint3{0, y, z};
      const index row = ix;
      for (unsigned x = 0; x < b.x; x++) {
        index t = row;
        t.thread.x = x;
        f(t);
      }
    }
}

#ifdef GMCPU_PAR_FOR
// The emulated device's build of kernels/*.cu (no OpenMP in the library):
// the work goes over the library's own parallel-for, src/core/exec/par.c.
extern "C" void gm_par_for(size_t n, size_t align, double cost, void (*fn)(void *arg, size_t begin, size_t end),
                           void *arg);
#endif

// Calls item(k) for k in [0, n), spread over the host's cores once the
// work (n * work_per_item, in CUDA threads or elements) is worth it:
// OpenMP in dynamic chunks big enough that scheduling costs little, small
// enough that both cores get work; gm_par_for in the library (cost 4 per
// unit of work: in parallel from about 64K).
template <class G> inline void for_each_item(long long n, double work_per_item, G &item) {
#ifdef GMCPU_PAR_FOR
  gm_par_for((size_t)n, 1, 4.0 * work_per_item,
             [](void *a, size_t begin, size_t end) {
               G &it = *(G *)a;
               for (size_t k = begin; k < end; k++) it((long long)k);
             },
             &item);
#else
  [[maybe_unused]] long long chunk = n / 64 > 0 ? n / 64 : 1;
#pragma omp parallel for schedule(dynamic, chunk) if (n > 1 && (double)n * work_per_item >= 16384)
  for (long long k = 0; k < n; k++) item(k);
#endif
}

// Runs the whole grid; f(const index &) is one thread.  sync: the kernel
// calls __syncthreads() (fibers); else the threads of a block are a plain
// loop the compiler can inline the body into.  Blocks run in parallel
// over the host's cores (for_each_item), so a kernel whose blocks race
// without atomics shows it here.  block_work: the cost of one block when
// the caller knows it (threads that loop over many items), else 0 (one
// unit per thread).
template <class F> inline void launch(dim3 g, dim3 b, bool sync, F &f, double block_work = 0) {
  long long nblocks = (long long)g.x * g.y * g.z;
  long long threads_per_block = (long long)b.x * b.y * b.z;
  if (nblocks <= 0 || threads_per_block <= 0) return;
  body_fn erased = [](void *env, const index &ix) { (*(F *)env)(ix); };
  auto run_block = [&](long long blk) {
    index ix;
    ix.block = uint3{(unsigned)(blk % g.x), (unsigned)(blk / g.x % g.y), (unsigned)(blk / ((long long)g.x * g.y))};
    ix.block_dim = b;
    ix.grid_dim = g;
    if (sync && threads_per_block > 1)
      run_block_fibers(ix, erased, (void *)&f);
    else
      run_block_loop(ix, f);
  };
  for_each_item(nblocks, block_work > 0 ? block_work : (double)threads_per_block, run_block);
}

// Runs f(lo, hi) over chunks covering [0, n), in parallel: the range form
// of a run-time kernel whose body is a grid-stride loop or one element per
// thread (lua/gpumat/kernel_range.lua says when that is equivalent).  f is
// copied per chunk, like run_block_loop's functor, so its captured
// arguments stay in registers and the loop inside vectorizes.
template <class F> inline void launch_range(long long n, F &f) {
  if (n <= 0) return;
  const long long chunk = n / 64 > 16384 ? n / 64 : 16384;
  const long long nchunks = (n + chunk - 1) / chunk;
  auto run_chunk = [&](long long c) {
    F fl = f;
    fl(c * chunk, (c + 1) * chunk < n ? (c + 1) * chunk : n);
  };
  for_each_item(nchunks, (double)chunk, run_chunk);
}

// ---- atomics --------------------------------------------------------------

template <class T> inline T atomic_update(T *p, T v, T (*op)(T, T)) {
  T old;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  T next = op(old, v);
  while (!__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) next = op(old, v);
  return old;
}
template <class T> inline T op_add(T a, T b) { return a + b; }
template <class T> inline T op_sub(T a, T b) { return a - b; }
template <class T> inline T op_min(T a, T b) { return b < a ? b : a; }
template <class T> inline T op_max(T a, T b) { return b > a ? b : a; }
template <class T> inline T op_exch(T, T b) { return b; }

} // namespace gmcpu

#define __syncthreads() gmcpu::syncthreads()
#define __threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_block() __atomic_thread_fence(__ATOMIC_SEQ_CST)

// CUDA's overloads and no others (CUDA C++ Programming Guide, "Atomic
// Functions"), so a kernel the CPU model runs compiles under nvcc too: a
// float atomicMax ran here and failed to compile on the first GPU run.
#define GMCPU_ATOMIC(name, T, op) \
  inline T name(T *p, T v) { return gmcpu::atomic_update<T>(p, v, gmcpu::op<T>); }
#define GMCPU_ATOMIC_CAS(T)                                                                 \
  inline T atomicCAS(T *p, T compare, T v) {                                                \
    T expected = compare;                                                                   \
    __atomic_compare_exchange(p, &expected, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    return expected;                                                                        \
  }
// add: int, unsigned, unsigned long long, float, double; sub: int,
// unsigned; min/max: the integers (long long too); exch: int, unsigned,
// unsigned long long, float; CAS: int, unsigned, unsigned long long
GMCPU_ATOMIC(atomicAdd, int, op_add)
GMCPU_ATOMIC(atomicAdd, unsigned, op_add)
GMCPU_ATOMIC(atomicAdd, unsigned long long, op_add)
GMCPU_ATOMIC(atomicAdd, float, op_add)
GMCPU_ATOMIC(atomicAdd, double, op_add)
GMCPU_ATOMIC(atomicSub, int, op_sub)
GMCPU_ATOMIC(atomicSub, unsigned, op_sub)
GMCPU_ATOMIC(atomicMin, int, op_min)
GMCPU_ATOMIC(atomicMin, unsigned, op_min)
GMCPU_ATOMIC(atomicMin, unsigned long long, op_min)
GMCPU_ATOMIC(atomicMin, long long, op_min)
GMCPU_ATOMIC(atomicMax, int, op_max)
GMCPU_ATOMIC(atomicMax, unsigned, op_max)
GMCPU_ATOMIC(atomicMax, unsigned long long, op_max)
GMCPU_ATOMIC(atomicMax, long long, op_max)
GMCPU_ATOMIC(atomicExch, int, op_exch)
GMCPU_ATOMIC(atomicExch, unsigned, op_exch)
GMCPU_ATOMIC(atomicExch, unsigned long long, op_exch)
GMCPU_ATOMIC(atomicExch, float, op_exch)
GMCPU_ATOMIC_CAS(int)
GMCPU_ATOMIC_CAS(unsigned)
GMCPU_ATOMIC_CAS(unsigned long long)
#undef GMCPU_ATOMIC
#undef GMCPU_ATOMIC_CAS

// the bit reinterpretations of CUDA's device math API
inline unsigned __float_as_uint(float x) { unsigned u; memcpy(&u, &x, sizeof u); return u; }
inline float __uint_as_float(unsigned u) { float x; memcpy(&x, &u, sizeof x); return x; }
inline int __float_as_int(float x) { int i; memcpy(&i, &x, sizeof i); return i; }
inline float __int_as_float(int i) { float x; memcpy(&x, &i, sizeof x); return x; }
inline long long __double_as_longlong(double x) { long long i; memcpy(&i, &x, sizeof i); return i; }
inline double __longlong_as_double(long long i) { double x; memcpy(&x, &i, sizeof x); return x; }

// ---- device math beyond <math.h> -------------------------------------------

inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline float __saturatef(float x) { return saturatef(x); }
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
inline int __double2int_rn(double x) { return (int)nearbyint(x); }
template <class A, class B> inline auto min(A a, B b) -> decltype(a + b) { return b < a ? b : a; }
template <class A, class B> inline auto max(A a, B b) -> decltype(a + b) { return b > a ? b : a; }

// The per-thread index variables of a kernel function with a
// `const gmcpu::index &gmcpu_ix_` parameter.
#define GMCPU_KERNEL_INDEX                                  \
  [[maybe_unused]] const uint3 threadIdx = gmcpu_ix_.thread; \
  [[maybe_unused]] const uint3 blockIdx = gmcpu_ix_.block;   \
  [[maybe_unused]] const dim3 blockDim = gmcpu_ix_.block_dim; \
  [[maybe_unused]] const dim3 gridDim = gmcpu_ix_.grid_dim;   \
  [[maybe_unused]] const int warpSize = 32;

#endif
