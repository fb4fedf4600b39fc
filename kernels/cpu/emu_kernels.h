// Prelude of the emulated device's build of kernels/*.cu (CMake generates
// one C++ file per kernels/NAME.cu: this header, then the .cu included
// inside namespace gm_emu_NAME, compiled by the system g++; see
// docs/ARCHITECTURE.md "Emulated kernels").  The .cu sources are the ones
// nvcc compiles for the CUDA backend, unchanged:
// - CUDA's execution model comes from cuda_cpu.h (every thread of every
//   block runs; fibers and a real barrier for kernels that synchronize).
// - threadIdx/blockIdx/blockDim/gridDim are read through a thread_local
//   pointer to the running thread's index, so __device__ functions
//   (gm_block_sum) see them too; __syncthreads() restores it after the
//   switch, since the fibers of a block share the OS thread.
// - Launch sites are GM_LAUNCH(kernel, grid, block, shmem, stream)(args)
//   or GM_LAUNCH_SYNC(...) for kernels that call __syncthreads()
//   (kernels/launch_cuda.cuh; under nvcc both are kernel<<<...>>>).  The
//   flag is static, per launch site: plain loops for the others.  A
//   __syncthreads() in a kernel launched without the flag aborts
//   (cuda_cpu.h), so a wrong flag fails every test that runs the kernel.
// - extern "C" launchers are renamed gm_cuda_* -> gm_emu_* (the CUDA
//   backend's objects may be linked into the same library).
// - Every launch site counts its launches (kernel name, source file,
//   barrier flag) and those whose blocks ran on more than one OS thread
//   (cuda_cpu.h spreads big grids over the cores with gm_par_for):
//   gm_emu_kernel_stats, gm.emulated_kernel_launches().
#ifndef GPUMAT_EMU_KERNELS_H
#define GPUMAT_EMU_KERNELS_H

#define GM_EMU_KERNELS 1 // kernels/hd.h: helpers always inline into the clones

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tuple>

#include "mvec.h" // libmvec's SIMD double exp/tanh/... for the kernels' vector loops, as the host's

#include "emu/cuda_runtime.h"
#include "emu_kernel_stats.h"
#include "launch.h"

// Kernels are compiled for AVX-512 and AVX2+FMA besides the baseline and
// picked at load time (target_clones, as the host loops: src/host/simd.h),
// so a range launch's loop vectorizes as wide as the host's.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(GPUMAT_SANITIZE) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#undef __global__
#define __global__ __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif

inline thread_local const gmcpu::index *gm_emu_ix = nullptr;

inline void gm_emu_syncthreads() {
  const gmcpu::index *me = gm_emu_ix; // on this fiber's stack
  gmcpu::syncthreads();
  gm_emu_ix = me;
}

#undef __syncthreads
#define __syncthreads() gm_emu_syncthreads()
#define threadIdx (gm_emu_ix->thread)
#define blockIdx (gm_emu_ix->block)
#define blockDim (gm_emu_ix->block_dim)
#define gridDim (gm_emu_ix->grid_dim)

// One launch site: registers its counter at the first launch.
struct gm_emu_site {
  gm_emu_kernel_counter c;
  gm_emu_site(const char *name, const char *file, bool sync) : c() {
    c.name = name;
    c.file = file;
    c.sync = sync;
    gm_emu_kernel_register(&c);
  }
};

// kernel(args) on every thread of the grid; args convert to the kernel's
// parameter types once per thread, as each CUDA thread gets its own copy.
// Thread (0,0,0) of every block notes the OS thread running it (the
// address of a thread_local names the thread): *multi when a second one
// shows up, so the launch counts as one whose blocks ran in parallel.
inline void gm_emu_note_thread(const void **first, bool *multi) {
  const void *me = &gm_emu_ix;
  const void *expected = nullptr;
  if (!__atomic_compare_exchange_n(first, &expected, me, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED) &&
      expected != me)
    __atomic_store_n(multi, true, __ATOMIC_RELAXED);
}

// A queued launch's arguments as the worker sees them: pointers into
// device blocks become their read-write aliases (src/device/emulated/alias.h),
// everything else passes unchanged.
template <class T> inline T *gm_emu_worker_arg(T *p) { return (T *)gm_emu_alias(p); }
template <class T> inline const T &gm_emu_worker_arg(const T &x) { return x; }

// Whether the launch configuration is one CUDA launches (kernels/launch.h):
// else nothing runs and cudaErrorInvalidConfiguration is left for the
// launcher's cudaGetLastError, as on a GPU.
inline bool gm_emu_config_ok(dim3 grid, dim3 block, size_t shmem) {
  const unsigned g[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
  if (!gm_launch_config_error(g, shmem)) return true;
  gm_emu_last_launch_error = cudaErrorInvalidConfiguration;
  return false;
}

// Queues a launch on its stream like a CUDA launch: the arguments are
// copied into the closure (as cudaLaunchKernel copies them), device
// pointers aliased for the worker, and the grid runs later on the
// stream's worker thread; without a stream it runs at once.  Shared by
// both launchers (L: gm_emu_launcher or gm_emu_range_launcher).
template <class L, class... A> inline void gm_emu_submit(const L &l, const A &...a) {
  if (!gm_emu_config_ok(l.grid, l.block, l.shmem)) return;
  __atomic_fetch_add(&l.site->c.launches, 1ull, __ATOMIC_RELAXED); // counted when launched
  if (!l.stream) {
    l.run(a...);
    return;
  }
  struct task {
    L l;
    std::tuple<A...> args;
    static int go(void *p) {
      task *t = (task *)p;
      std::apply([t](const A &...x) { t->l.run(gm_emu_worker_arg(x)...); }, t->args);
      delete t;
      return 0;
    }
  };
  gm_emu_device_hooks.enqueue(l.stream, task::go, new task{l, std::tuple<A...>(a...)});
}

template <class... P> struct gm_emu_launcher {
  void (*kernel)(P...);
  dim3 grid, block;
  size_t shmem; // dynamic shared memory (checked, unused: our kernels have none)
  gm_emu_site *site;
  void *stream; // the emulated device (its compute stream), or null
  double block_work = 0; // GM_LAUNCH_SYNC_WORK's cost of a block (0: one unit per thread)
  // queued on the stream like a CUDA launch (gm_emu_submit)
  template <class... A> void operator()(const A &...a) const { gm_emu_submit(*this, a...); }
  template <class... A> void run(const A &...a) const { run_blocks(block_work, a...); }
  // block_work: gmcpu::launch's cost of one block (0: one unit per thread)
  template <class... A> void run_blocks(double block_work, const A &...a) const {
    void (*k)(P...) = kernel;
    const void *first = nullptr;
    bool multi = false;
    auto body = [&](const gmcpu::index &ix) {
      gm_emu_ix = &ix;
      if ((ix.thread.x | ix.thread.y | ix.thread.z) == 0) gm_emu_note_thread(&first, &multi);
      k(a...);
    };
    gmcpu::launch(grid, block, site->c.sync, body, block_work);
    gm_emu_ix = nullptr;
    if (multi) __atomic_fetch_add(&site->c.parallel_launches, 1ull, __ATOMIC_RELAXED);
  }
};

template <class... P>
inline gm_emu_launcher<P...> gm_emu_launch(void (*kernel)(P...), dim3 grid, dim3 block, size_t shmem,
                                           gm_emu_site &site, void *stream, double block_work = 0) {
  return gm_emu_launcher<P...>{kernel, grid, block, shmem, &site, stream, block_work};
}

inline dim3 gm_emu_dim3(dim3 d) { return d; }
inline dim3 gm_emu_dim3(int n) { return dim3((unsigned)n); }
inline dim3 gm_emu_dim3(unsigned n) { return dim3(n); }

#define GM_EMU_SITE(k, sync)                                                   \
  ([]() -> gm_emu_site & {                                                     \
    static gm_emu_site site_(#k, __FILE__, sync);                              \
    return site_;                                                              \
  }())
// (the stream is the emulated device, whose compute stream the launch is
// queued on)
#define GM_LAUNCH(k, grid, block, shmem, stream) \
  gm_emu_launch(k, gm_emu_dim3(grid), gm_emu_dim3(block), (size_t)(shmem), GM_EMU_SITE(k, false), (void *)(stream))
#define GM_LAUNCH_SYNC(k, grid, block, shmem, stream) \
  gm_emu_launch(k, gm_emu_dim3(grid), gm_emu_dim3(block), (size_t)(shmem), GM_EMU_SITE(k, true), (void *)(stream))
#define GM_LAUNCH_SYNC_WORK(k, grid, block, stream, work) \
  gm_emu_launch(k, gm_emu_dim3(grid), gm_emu_dim3(block), 0, GM_EMU_SITE(k, true), (void *)(stream), (double)(work))

// Range launches (GM_LAUNCH_RANGE, GM_LAUNCH_ROWS, launch_cuda.cuh):
// kernels whose body is one GRID_STRIDE or ROWS_2D loop over independent
// items run once per chunk of [0, count), the chunks spread over the
// cores by gm_par_for (cost `work` per item); the loops are counted loops
// over the chunk (gm_emu_range, this OS thread's): GRID_STRIDE's index, or
// ROWS_2D's rows x cols elements (a chunk may cut a row).  No thread index exists there: such a kernel must not read
// threadIdx/blockIdx (they are null here, so it would crash in the tests).
//
// With GPUMAT_EMULATED_GEOMETRY=exact a range launch runs as every other
// launch: its real grid of blocks of threads, each thread running the
// loops with CUDA's own index math (start blockIdx * blockDim + threadIdx,
// stride blockDim * gridDim), so a geometry that leaves items uncovered,
// or covers one twice, shows in the results.  Slower; the
// suite runs the emulated kernel specs once that way (tools/suite.d).
inline bool gm_emu_exact_geometry() {
  static const bool exact = [] {
    const char *v = getenv("GPUMAT_EMULATED_GEOMETRY");
    return v && strcmp(v, "exact") == 0;
  }();
  return exact;
}

struct gm_emu_span {
  size_t lo, hi;
};
inline thread_local gm_emu_span gm_emu_range = {0, 0};
inline size_t gm_emu_end(size_t n) { return gm_emu_range.hi < n ? gm_emu_range.hi : n; }

// The loops below go over segments [lo, hi) of their index, each a plain
// counted loop (what vectorizes): in a range launch (no thread index) one
// segment, this chunk's (or, for a ROWS_2D column, the whole row); in a
// launch with threads, CUDA's grid-stride walk, one item per segment.
struct gm_emu_seg {
  size_t lo, hi, step; // step 0: the only segment
};
// axis 0: x (GRID_STRIDE, ROWS_2D columns), 1: y (ROWS_2D rows)
inline gm_emu_seg gm_emu_seg_first(size_t n, int axis, size_t lo, size_t hi) {
  const gmcpu::index *ix = gm_emu_ix;
  if (!ix) return gm_emu_seg{lo, hi < n ? hi : n, 0};
  size_t start = axis ? (size_t)ix->block.y * ix->block_dim.y + ix->thread.y
                      : (size_t)ix->block.x * ix->block_dim.x + ix->thread.x;
  size_t step = axis ? (size_t)ix->block_dim.y * ix->grid_dim.y : (size_t)ix->block_dim.x * ix->grid_dim.x;
  return gm_emu_seg{start, start < n ? start + 1 : start, step};
}
// ROWS_2D's rows.  In a range launch (GM_LAUNCH_ROWS) the chunk [lo, hi)
// counts the elements of the rows x cols space in row-major order, not
// rows: one long row (a 16M-element a + b is one row of the strided
// engine) splits over the cores as well as many short rows do, and a
// chunk may start and end inside a row.  Else CUDA's walk over y.
inline gm_emu_seg gm_emu_seg_rows(size_t rows, size_t cols) {
  if (gm_emu_ix) return gm_emu_seg_first(rows, 1, 0, 0);
  const size_t n = rows * cols, hi = gm_emu_range.hi < n ? gm_emu_range.hi : n;
  if (gm_emu_range.lo >= hi) return gm_emu_seg{0, 0, 0};
  return gm_emu_seg{gm_emu_range.lo / cols, (hi - 1) / cols + 1, 0};
}
// A ROWS_2D row's columns: in a range launch (its rows' segment has step
// 0; no thread-local read per row) the part of row r inside the chunk,
// else CUDA's walk over x.
inline gm_emu_seg gm_emu_seg_cols(size_t cols, size_t row_step, size_t r) {
  if (row_step) return gm_emu_seg_first(cols, 0, 0, cols);
  const size_t first = r * cols, lo = gm_emu_range.lo > first ? gm_emu_range.lo - first : 0,
               end = gm_emu_range.hi - first;
  return gm_emu_seg{lo, end < cols ? end : cols, 0};
}
inline void gm_emu_seg_next(gm_emu_seg &s, size_t n) {
  s.lo = s.step ? s.lo + s.step : s.hi;
  s.hi = s.step && s.lo < n ? s.lo + 1 : s.lo;
}

#define GRID_STRIDE(i, n)                                                                             \
  for (gm_emu_seg i##_seg_ = gm_emu_seg_first((n), 0, gm_emu_range.lo, gm_emu_range.hi);             \
       i##_seg_.lo < i##_seg_.hi; gm_emu_seg_next(i##_seg_, (n)))                                     \
    for (size_t i = i##_seg_.lo, i##_end_ = i##_seg_.hi; i < i##_end_; i++)
#define ROWS_2D(r, c, rows, cols) ROWS_2D_EACH_ROW(r, c, rows, cols, (void)0)
#define ROWS_2D_EACH_ROW(r, c, rows, cols, row_setup)                                                 \
  for (gm_emu_seg r##_seg_ = gm_emu_seg_rows((rows), (cols)); r##_seg_.lo < r##_seg_.hi;              \
       gm_emu_seg_next(r##_seg_, (rows)))                                                             \
    for (size_t r = r##_seg_.lo, r##_end_ = r##_seg_.hi; r < r##_end_; r++)                           \
      if (row_setup, false) {                                                                         \
      } else                                                                                          \
        for (gm_emu_seg c##_seg_ = gm_emu_seg_cols((cols), r##_seg_.step, r); c##_seg_.lo < c##_seg_.hi; \
           gm_emu_seg_next(c##_seg_, (cols)))                                                         \
        for (size_t c = c##_seg_.lo, c##_end_ = c##_seg_.hi; c < c##_end_; c++)

template <class... P> struct gm_emu_range_launcher {
  void (*kernel)(P...);
  dim3 grid, block; // CUDA's geometry: checked, and run in the exact mode
  size_t shmem;
  size_t count;
  double work;
  gm_emu_site *site;
  void *stream; // the emulated device (its compute stream), or null
  // queued on the stream like every launch (gm_emu_submit)
  template <class... A> void operator()(const A &...a) const { gm_emu_submit(*this, a...); }
  template <class... A> void run(const A &...a) const {
    if (gm_emu_exact_geometry()) { // the launch's work spread over its blocks, for gm_par_for's choice
      const double blocks = (double)grid.x * grid.y * grid.z;
      gm_emu_launcher<P...>{kernel, grid, block, shmem, site, nullptr}.run_blocks(
          (double)count * (work > 1 ? work : 1.0) / blocks, a...);
      return;
    }
    struct job {
      void (*k)(P...);
      std::tuple<const A &...> args;
      const void *first;
      bool multi;
    } j{kernel, std::tuple<const A &...>(a...), nullptr, false};
    gmcpu::gm_par_for(count, 1, work > 1 ? work : 1.0,
                      [](void *arg, size_t lo, size_t hi) {
                        job &jb = *(job *)arg;
                        gm_emu_note_thread(&jb.first, &jb.multi);
                        gm_emu_ix = nullptr; // a pool thread may keep a block's index: range loops here
                        gm_emu_range = gm_emu_span{lo, hi};
                        std::apply(jb.k, jb.args);
                        gm_emu_range = gm_emu_span{0, 0};
                      },
                      &j);
    if (j.multi) __atomic_fetch_add(&site->c.parallel_launches, 1ull, __ATOMIC_RELAXED);
  }
};

template <class... P>
inline gm_emu_range_launcher<P...> gm_emu_launch_range(void (*kernel)(P...), dim3 grid, dim3 block, size_t count,
                                                       double work, gm_emu_site &site, void *stream) {
  return gm_emu_range_launcher<P...>{kernel, grid, block, 0, count, work, &site, stream};
}

#define GM_LAUNCH_RANGE(k, grid, block, stream, count, work)                                             \
  gm_emu_launch_range(k, gm_emu_dim3(grid), gm_emu_dim3(block), (size_t)(count), (double)(work),        \
                      GM_EMU_SITE(k, false), (void *)(stream))
// A kernel that walks ROWS_2D: its range is the rows x cols elements
// (gm_emu_seg_rows), each of unit work.
#define GM_LAUNCH_ROWS(k, grid, block, stream, rows, cols) \
  GM_LAUNCH_RANGE(k, grid, block, stream, (size_t)(rows) * (size_t)(cols), 1)

// The .cu files' own includes, here outside the namespace they are
// compiled in (include guards keep them from opening again inside).
#include "compact.h"
#include "elementwise.h"
#include "fill.h"
#include "imatmul.h"
#include "index.h"
#include "launch.h"
#include "launch_cuda.cuh"
#include "nn.h"
#include "radix.h"
#include "random.h"
#include "reduce_axis.h"
#include "int_ops.h"
#include "scan.h"
#include "select.h"
#include "strided.h"
#include "strided_ew.h"

#define gm_cuda_ew_unary gm_emu_ew_unary
#define gm_cuda_ew_predicate gm_emu_ew_predicate
#define gm_cuda_ew_scalar gm_emu_ew_scalar
#define gm_cuda_ew_geem gm_emu_ew_geem
#define gm_cuda_ew_lt gm_emu_ew_lt
#define gm_cuda_ew_add_sign gm_emu_ew_add_sign
#define gm_cuda_ew_geerv gm_emu_ew_geerv
#define gm_cuda_ew_scale gm_emu_ew_scale
#define gm_cuda_ew_sum gm_emu_ew_sum
#define gm_cuda_nn_convolve gm_emu_nn_convolve
#define gm_cuda_nn_derive_convolve gm_emu_nn_derive_convolve
#define gm_cuda_nn_max_pool gm_emu_nn_max_pool
#define gm_cuda_nn_derive_max_pool gm_emu_nn_derive_max_pool
#define gm_cuda_fill gm_emu_fill
#define gm_cuda_scal gm_emu_scal
#define gm_cuda_geam0 gm_emu_geam0
#define gm_cuda_uniform gm_emu_uniform
#define gm_cuda_gaussian gm_emu_gaussian
#define gm_cuda_reduce gm_emu_reduce
#define gm_cuda_reduce_axis gm_emu_reduce_axis
#define gm_cuda_scan_axis gm_emu_scan_axis
#define gm_cuda_sort_axis gm_emu_sort_axis
#define gm_cuda_lines_axis gm_emu_lines_axis
#define gm_cuda_search gm_emu_search
#define gm_cuda_radix_lines gm_emu_radix_lines
#define gm_cuda_radix_select gm_emu_radix_select
#define gm_cuda_strided_binary gm_emu_strided_binary
#define gm_cuda_strided_where gm_emu_strided_where
#define gm_cuda_strided_copy gm_emu_strided_copy
#define gm_cuda_convert gm_emu_convert
#define gm_cuda_imatmul gm_emu_imatmul
#define gm_cuda_index_gather gm_emu_index_gather
#define gm_cuda_index_scatter gm_emu_index_scatter
#define gm_cuda_index_compact gm_emu_index_compact
#define gm_cuda_index_expand gm_emu_index_expand

#endif
