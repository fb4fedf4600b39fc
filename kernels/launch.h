/* Launch geometry shared by the CUDA launchers (choose-1d-block-and-grid),
 * in C so that the geometry tests (tests/launch_geometry_test.c) check the
 * numbers the launchers use: threads that do work, blocks for 132 SMs. */
#ifndef GM_KERNELS_LAUNCH_H
#define GM_KERNELS_LAUNCH_H

#include <stddef.h>

#define GM_WARP_SIZE 32
#define GM_MAX_BLOCK 256
#define GM_MAX_GRID 65535

/* What a launcher (the extern "C" functions of kernels/NAME.cu) gets from
 * its caller, src/device/{cuda,emulated}/kernels.c: the stream its kernels
 * are queued on, the device's stream-ordered scratch allocator, and which
 * geometry to take.  The kernels never call up into a device or the core,
 * nor search for the device that owns a stream. */
typedef struct gm_launch_ctx {
  /* CUDA: the device's compute stream; emulated: the device, whose compute
   * stream the CPU model's launches are queued on */
  void *stream;
  /* scratch in stream order (cudaMallocAsync/FreeAsync or the emulated
   * device's blocks, with the device's out-of-memory trim and retry):
   * 0, or a cudaError_t-like code left as the launcher's result */
  int (*scratch_alloc)(void *owner, size_t bytes, void **out);
  void (*scratch_free)(void *owner, void *p); /* queued after the kernels that use p */
  void *owner;                                /* the device the scratch comes from */
  int cpu_model; /* 1: the CPU model's geometry where it differs (gm_ax_plan, gm_colsum_plan) */
} gm_launch_ctx;

/* Block of up to 256 threads (whole warps), grid so that a grid-stride
 * loop covers n elements. */
static inline void gm_launch_1d(size_t n, int *block, int *grid) {
  size_t b = n < GM_MAX_BLOCK ? (n + GM_WARP_SIZE - 1) / GM_WARP_SIZE * GM_WARP_SIZE : GM_MAX_BLOCK;
  if (b == 0) b = GM_WARP_SIZE;
  size_t g = n / b + (n % b != 0); /* no n + b - 1: n may be near SIZE_MAX */
  if (g == 0) g = 1;
  if (g > GM_MAX_GRID) g = GM_MAX_GRID;
  *block = (int)b;
  *grid = (int)g;
}

/* CUDA's limits on a launch's configuration (every card of compute
 * capability 3.0 and later, H100 and H200 included): a launch beyond them
 * runs nothing and fails with cudaErrorInvalidConfiguration.  Dynamic
 * shared memory beyond 48 KiB needs cudaFuncSetAttribute's opt-in (up to
 * 227 KiB on an H100), which no launch here uses; static shared memory
 * beyond 48 KiB is refused by nvcc/NVRTC when the kernel compiles. */
#define GM_CUDA_MAX_BLOCK_THREADS 1024
#define GM_CUDA_MAX_BLOCK_XY 1024
#define GM_CUDA_MAX_BLOCK_Z 64
#define GM_CUDA_MAX_GRID_X 2147483647u
#define GM_CUDA_MAX_GRID_YZ 65535
#define GM_CUDA_MAX_SHARED ((size_t)48 * 1024)

/* NULL when grid g[0..2] and block g[3..5] with `shmem` bytes of dynamic
 * shared memory are a configuration CUDA launches; else what is wrong.
 * The emulated device's launches (kernels/cpu/emu_kernels.h) and the
 * run-time kernels on every backend (core/exec/kernel.c) refuse the same. */
static inline const char *gm_launch_config_error(const unsigned g[6], size_t shmem) {
  if (!g[0] || !g[1] || !g[2] || !g[3] || !g[4] || !g[5]) return "a grid or block dimension is 0";
  if (g[0] > GM_CUDA_MAX_GRID_X) return "grid x is over 2147483647";
  if (g[1] > GM_CUDA_MAX_GRID_YZ || g[2] > GM_CUDA_MAX_GRID_YZ) return "grid y and z are at most 65535";
  if (g[3] > GM_CUDA_MAX_BLOCK_XY || g[4] > GM_CUDA_MAX_BLOCK_XY) return "block x and y are at most 1024";
  if (g[5] > GM_CUDA_MAX_BLOCK_Z) return "block z is at most 64";
  if ((unsigned long long)g[3] * g[4] * g[5] > GM_CUDA_MAX_BLOCK_THREADS) return "a block has at most 1024 threads";
  if (shmem > GM_CUDA_MAX_SHARED) return "dynamic shared memory is over 48 KiB per block";
  return NULL;
}

/* Grid size for about `target` blocks in total when another grid dimension
 * already has `other` blocks, at least 1 and at most min(cap, 65535). */
static inline unsigned gm_spread(size_t target, size_t other, size_t cap) {
  size_t g = other >= target ? 1 : (target + other - 1) / other;
  if (g > cap) g = cap;
  if (g > GM_MAX_GRID) g = GM_MAX_GRID;
  return g ? (unsigned)g : 1u;
}

/* Rows of `cols` elements on a 2-d grid (ROWS_2D, gm_launch_rows, the
 * strided engine): blocks of GM_MAX_BLOCK threads, bx the power of two
 * covering a row (at most GM_MAX_BLOCK), by = GM_MAX_BLOCK / bx rows per
 * block, so short rows share a warp (3 columns: 8 rows of 4 lanes, 3 of
 * them live); rows over grid y, a row's columns over grid x, about 1024
 * blocks or more in all. */
typedef struct gm_rows_geom {
  unsigned bx, by, gx, gy;
} gm_rows_geom;

static inline gm_rows_geom gm_rows_plan(size_t rows, size_t cols) {
  gm_rows_geom g;
  unsigned bx = 1;
  while (bx < GM_MAX_BLOCK && bx < cols) bx *= 2;
  g.bx = bx;
  g.by = GM_MAX_BLOCK / bx;
  const size_t nx = (cols + bx - 1) / bx, ny = (rows + g.by - 1) / g.by;
  g.gy = gm_spread(ny, 1, ny);
  g.gx = gm_spread(1024, g.gy, nx);
  return g;
}

/* ---- column sums (kernels/elementwise.cu, sum_(x, y, {axis = 1})) ----
 * Item (slot t, group of GM_COL_GROUP bytes of adjacent columns) sums the
 * rows t * span + k * step (k < count, below rows) of its group:
 *  chunked (span = count = chunk, step 1): a slot walks adjacent rows; the
 *    CPU model's form (long walks, chunks of at least 128 rows, at most
 *    4096 chunks);
 *  interleaved (span 1, step = slots): adjacent threads on adjacent rows,
 *    so a warp reads 32 adjacent rows of a narrow mat in one stretch; the
 *    GPU's form, about GM_COL_THREADS items (4 x 132 SMs x 256), each
 *    slot at least GM_COL_SLOT_ROWS rows; also the CPU model's up to
 *    GM_COL_CPU_GPU_FORM elements, so the specs' small shapes run it.
 * Slot partials are added in levels of 32 (regroup) before the finish. */
#define GM_COL_GROUP 64
#define GM_COL_THREADS (4 * 132 * 256)
#define GM_COL_SLOT_ROWS 16
#define GM_COL_CPU_GPU_FORM 65536

typedef struct gm_colsum_geom {
  size_t slots, span, step, count;
} gm_colsum_geom;

static inline gm_colsum_geom gm_colsum_plan(size_t rows, size_t cols, size_t elem_bytes, int cpu) {
  gm_colsum_geom g;
  const size_t n_groups = (cols + GM_COL_GROUP / elem_bytes - 1) / (GM_COL_GROUP / elem_bytes);
  if (cpu && rows * cols > GM_COL_CPU_GPU_FORM) {
    size_t chunk = 128;
    if (cols < 262144) {
      const size_t want = 262144 / (cols ? cols : 1), c = (rows + want - 1) / want; /* chunks for enough threads */
      if (c > chunk) chunk = c;
    }
    if ((rows + chunk - 1) / chunk > 4096) chunk = (rows + 4095) / 4096;
    g.slots = (rows + chunk - 1) / chunk;
    g.span = g.count = chunk;
    g.step = 1;
    return g;
  }
  const size_t want = (GM_COL_THREADS + n_groups - 1) / n_groups, most = (rows + GM_COL_SLOT_ROWS - 1) / GM_COL_SLOT_ROWS;
  g.slots = want < most ? want : most;
  if (g.slots == 0) g.slots = 1;
  g.span = 1;
  g.step = g.slots;
  g.count = (rows + g.slots - 1) / g.slots;
  return g;
}

/* The smallest power of two >= n (1 for n <= 1). */
static inline size_t gm_pow2_ceil(size_t n) {
  size_t p = 1;
  while (p < n) p *= 2;
  return p;
}

/* ---- axis reductions (kernels/reduce_axis.cu) ----
 * x seen as (outer, len, inner), reduced over len: n_out = outer * inner
 * outputs ("columns" of len elements, inner apart).  Three forms:
 *  ITEMS:  a range launch, item (split p, output q) folds elements
 *          [p*chunk, (p+1)*chunk) of its column serially; with one split
 *          it writes the result.  On a GPU: short rows (inner 1, len <=
 *          GM_AX_ROW_ITEMS: a warp reads 32 adjacent short rows) and many
 *          columns (inner > 1: adjacent threads read adjacent elements).
 *  BLOCKS: reduce_axis_kernel, `lanes` threads per output merged in shared
 *          memory; a long axis with few outputs split over grid.y.  For
 *          inner < 32 a block holds pow2(inner) columns x 256/pow2(inner)
 *          lanes, so at least half its threads are live (N5).
 *  SLOTS:  rows with few outputs and a long axis (reduce_axis_slots).
 *  TILES:  columns (inner > 1) on the CPU model: item (split p, outer o,
 *          GM_AX_TILE adjacent columns) walks the rows of its region, a
 *          row's columns with vector adds for sums (reduce_axis_tiles).
 * The CPU model of the emulated device (cpu != 0) runs the same kernels but
 * takes ITEMS where a GPU takes BLOCKS on reductions of more than
 * GM_AX_CPU_GPU_FORM elements: a fiber per CUDA thread and barriers cost
 * more than the fold itself there, while long serial walks (a cache-sized
 * chunk per item) cost nothing.  Smaller ones keep the GPU's form, so the
 * specs' small shapes run the GPU's thread-index math and barriers.  (At
 * 65536, the column sum of softmax regression's 5000 x 10 gradient ran
 * 19 blocks of 256 fibers with 6 barriers each, a quarter of the
 * program's time in fiber switches.) */
#define GM_AX_THREADS 256
#define GM_AX_ROW_ITEMS 32
#define GM_AX_ITEMS_MIN 65536     /* columns: a thread per output from this many outputs */
#define GM_AX_TARGET_BLOCKS 512   /* about 4 blocks per SM of a 132-SM GPU */
#define GM_AX_LANE_WORK 16        /* a lane folds at least this many elements per split */
#define GM_AX_CPU_ITEMS 1024      /* CPU model: items wanted (both cores busy, short merge) */
#define GM_AX_CPU_CHUNK 8192      /* CPU model: elements of the split region an item walks */
#define GM_AX_CPU_GPU_FORM 8192   /* CPU model: the GPU's form up to this many elements */

enum { GM_AX_FORM_ITEMS, GM_AX_FORM_BLOCKS, GM_AX_FORM_SLOTS, GM_AX_FORM_TILES };
#define GM_AX_TILE 16 /* TILES: adjacent columns an item folds together */

typedef struct gm_ax_geom {
  int form;
  unsigned lanes;           /* BLOCKS: threads per output (a power of two) */
  unsigned grid_x, grid_y;  /* BLOCKS: blocks along the outputs, splits of the axis */
  size_t splits;            /* ITEMS: splits of the axis (1: items write the results) */
} gm_ax_geom;

/* BLOCKS: threads per output.  Rows (inner 1): up to a warp along a row,
 * the whole block for fewer than 8 rows.  Columns: 256 / pow2(inner) lanes
 * for inner < 32 (pow2(inner) adjacent columns per block), else 8 lanes x
 * 32 adjacent columns. */
static inline unsigned gm_ax_lanes(size_t outer, size_t len, size_t inner) {
  if (inner != 1) return inner < 32 ? (unsigned)(GM_AX_THREADS / gm_pow2_ceil(inner)) : GM_AX_THREADS / 32;
  unsigned rows = 1, most = 32, lanes = 1;
  while (rows < outer && rows < 8) rows *= 2;
  if (GM_AX_THREADS / rows > most) most = GM_AX_THREADS / rows;
  while (lanes < most && lanes < len) lanes *= 2;
  return lanes;
}

/* BLOCKS: grid x over groups of outputs, y over splits of the axis, so
 * that few outputs still give about GM_AX_TARGET_BLOCKS blocks, each lane
 * folding at least GM_AX_LANE_WORK elements. */
static inline void gm_ax_grid(size_t outer, size_t len, size_t inner, unsigned lanes, unsigned *gx, unsigned *gy) {
  const size_t cols = GM_AX_THREADS / lanes;
  const size_t tiles = ((inner == 1 ? outer : inner) + cols - 1) / cols;
  const size_t n_groups = inner == 1 ? tiles : outer * tiles;
  *gx = n_groups < GM_MAX_GRID ? (unsigned)n_groups : GM_MAX_GRID;
  *gy = 1;
  if (n_groups >= GM_AX_TARGET_BLOCKS) return;
  const size_t want = (GM_AX_TARGET_BLOCKS + n_groups - 1) / n_groups, most = len / ((size_t)lanes * GM_AX_LANE_WORK);
  const size_t splits = want < most ? want : most;
  *gy = splits < 1 ? 1 : splits > GM_MAX_GRID ? GM_MAX_GRID : (unsigned)splits;
}

/* Softmax of whole rows (kernels/reduce_axis.cu reduce_axis_softmax_rows):
 * rows per item.  One on a GPU, and on the CPU model up to
 * GM_AX_CPU_GPU_FORM elements (the specs' small shapes run the GPU's
 * geometry); above, spans of about GM_AX_SOFTMAX_SPAN elements, so one
 * vector loop exponentiates many short rows. */
#define GM_AX_SOFTMAX_SPAN 1024
static inline size_t gm_ax_softmax_rows(size_t outer, size_t len, int cpu) {
  if (!cpu || outer * len <= GM_AX_CPU_GPU_FORM || len >= GM_AX_SOFTMAX_SPAN) return 1;
  return GM_AX_SOFTMAX_SPAN / len;
}

/* The form and geometry of a reduction of (outer, len, inner), outer *
 * inner > 0; cpu: for the CPU model (ITEMS in place of BLOCKS). */
static inline gm_ax_geom gm_ax_plan(size_t outer, size_t len, size_t inner, int cpu) {
  gm_ax_geom g = {GM_AX_FORM_ITEMS, 0, 1, 1, 1};
  const size_t n_out = outer * inner;
  if (cpu && inner > 1 && n_out * len > GM_AX_CPU_GPU_FORM) { /* regions of whole rows of a tile */
    const size_t items = outer * ((inner + GM_AX_TILE - 1) / GM_AX_TILE), want = (GM_AX_CPU_ITEMS + items - 1) / items;
    const size_t chunk = GM_AX_CPU_CHUNK / inner > 16 ? GM_AX_CPU_CHUNK / inner : 16, most = len / chunk;
    g.form = GM_AX_FORM_TILES;
    g.splits = want < most ? want : most > 1 ? most : 1;
    return g;
  }
  if ((inner == 1 && len <= GM_AX_ROW_ITEMS) || (inner > 1 && n_out >= GM_AX_ITEMS_MIN)) return g;
  g.lanes = gm_ax_lanes(outer, len, inner);
  gm_ax_grid(outer, len, inner, g.lanes, &g.grid_x, &g.grid_y);
  if (g.grid_y > 1 && inner == 1) {
    g.form = GM_AX_FORM_SLOTS;
  } else if (!cpu || n_out * len <= GM_AX_CPU_GPU_FORM) {
    g.form = GM_AX_FORM_BLOCKS;
  } else if (n_out < GM_AX_CPU_ITEMS) { /* few outputs: split the axis in cache-sized regions */
    size_t chunk = GM_AX_CPU_CHUNK / inner, want = (GM_AX_CPU_ITEMS + n_out - 1) / n_out, most;
    most = len / (chunk ? chunk : 1);
    g.splits = want < most ? want : most > 1 ? most : 1;
  }
  return g;
}

#endif
