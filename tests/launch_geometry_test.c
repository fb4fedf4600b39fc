/* The launch geometry of the CUDA launchers (kernels/launch.h), checked
 * against what a GPU needs on narrow shapes (docs/GPU.md, "Kernels on
 * narrow shapes"): at least half of a block's threads have work, and
 * enough blocks for the 132 SMs of an H100 (at least 2 x 132).  Live
 * threads are counted with the kernels' own index mapping, thread by
 * thread.  Then the emulated builds of the launchers run directly with
 * the GPU's geometry and the CPU model's, on shapes where the emulated
 * device itself only takes the CPU model's, against serial references. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../kernels/launch.h"
#include "../kernels/reduce_axis.h"
#include "core/model/ctype_list.h"

#define GM_LAUNCHER(name) gm_emu_##name
#include "device/kernel_launchers.h"

#define SMS 132

/* Threads of block (0, 0) of reduce_axis_kernel (kernels/reduce_axis.cu)
 * that fold at least one element: lane = t / cols, col = t % cols in the
 * columns mapping, col = t / lanes, lane = t % lanes for rows. */
static size_t ax_live_threads(size_t outer, size_t len, size_t inner, gm_ax_geom g) {
  const size_t lanes = g.lanes, cols = GM_AX_THREADS / lanes, chunk = (len + g.grid_y - 1) / g.grid_y;
  size_t live = 0;
  for (size_t t = 0; t < GM_AX_THREADS; t++) {
    const size_t lane = inner == 1 ? t % lanes : t / cols, col = inner == 1 ? t / lanes : t % cols;
    const int has_output = inner == 1 ? col < outer : col < inner;
    if (has_output && lane < chunk) live++;
  }
  return live;
}

static void test_axis_long_narrow(void) {
  /* (1, 1e6, 3): x:sum(1) of a 1e6 x 3 mat */
  gm_ax_geom g = gm_ax_plan(1, 1000000, 3, 0);
  CHECK(g.form == GM_AX_FORM_BLOCKS);
  CHECK((size_t)g.grid_x * g.grid_y >= 2 * SMS);
  CHECK(ax_live_threads(1, 1000000, 3, g) * 2 >= GM_AX_THREADS);
  /* every inner below a warp, long axis: half the threads live, 264 blocks */
  for (size_t inner = 2; inner < 64; inner++) {
    g = gm_ax_plan(1, 1000000, inner, 0);
    CHECK(g.form == GM_AX_FORM_BLOCKS);
    CHECK((size_t)g.grid_x * g.grid_y >= 2 * SMS);
    CHECK(ax_live_threads(1, 1000000, inner, g) * 2 >= GM_AX_THREADS);
  }
  /* a (1000, 10000, 5) slab: 1000 x 1 groups already, no split */
  g = gm_ax_plan(1000, 10000, 5, 0);
  CHECK(g.form == GM_AX_FORM_BLOCKS && g.grid_x == 1000 && g.grid_y == 1);
  CHECK(ax_live_threads(1000, 10000, 5, g) * 2 >= GM_AX_THREADS);
}

static void test_axis_short_rows_and_many_columns(void) {
  /* 60000 x 3, sum(2): a thread per row, every thread live */
  gm_ax_geom g = gm_ax_plan(60000, 3, 1, 0);
  CHECK(g.form == GM_AX_FORM_ITEMS && g.splits == 1);
  /* rows of 1000 (1000 rows): 32 lanes per row, all live */
  g = gm_ax_plan(1000, 1000, 1, 0);
  CHECK(g.form == GM_AX_FORM_BLOCKS && g.lanes == 32 && ax_live_threads(1000, 1000, 1, g) == GM_AX_THREADS);
  /* one long row: slots */
  CHECK(gm_ax_plan(1, 1000000, 1, 0).form == GM_AX_FORM_SLOTS);
  /* (100, 1000, 1000): 1e5 outputs, a thread per output (coalesced columns) */
  g = gm_ax_plan(100, 1000, 1000, 0);
  CHECK(g.form == GM_AX_FORM_ITEMS && g.splits == 1);
}

static void test_axis_cpu_model(void) {
  /* the CPU model splits a long narrow axis into cache-sized regions, no fibers */
  gm_ax_geom g = gm_ax_plan(1, 1000000, 3, 1);
  CHECK(g.form == GM_AX_FORM_TILES && g.splits > 1);
  CHECK((1000000 + g.splits - 1) / g.splits * 3 <= 4 * GM_AX_CPU_CHUNK);
  CHECK(g.splits >= GM_AX_CPU_ITEMS / 4);
  g = gm_ax_plan(1, 60000, 3, 1);
  CHECK(g.form == GM_AX_FORM_TILES && g.splits > 1);
  /* 1024 x 1024 along axis 1: 64 tiles of 16 columns, regions of >= 16 rows */
  g = gm_ax_plan(1, 1024, 1024, 1);
  CHECK(g.form == GM_AX_FORM_TILES && g.splits * 64 >= GM_AX_CPU_ITEMS && 1024 / g.splits >= 16);
  g = gm_ax_plan(60000, 3, 1, 1);
  CHECK(g.form == GM_AX_FORM_ITEMS && g.splits == 1);
  g = gm_ax_plan(1000, 1000, 1, 1);
  CHECK(g.form == GM_AX_FORM_ITEMS && g.splits == 1);
  CHECK(gm_ax_plan(1, 1000000, 1, 1).form == GM_AX_FORM_SLOTS);
  /* small reductions keep the GPU's form (the specs run its index math) */
  gm_ax_geom c = gm_ax_plan(1, 2700, 3, 1);
  g = gm_ax_plan(1, 2700, 3, 0);
  CHECK(c.form == GM_AX_FORM_BLOCKS && g.form == c.form && c.lanes == g.lanes && c.grid_y == g.grid_y && c.grid_y > 1);
  CHECK(gm_ax_plan(128, 64, 1, 1).form == GM_AX_FORM_BLOCKS);
  /* above GM_AX_CPU_GPU_FORM, barrier-free forms (softmax regression's
   * 5000 x 10 column sum ran 19 blocks of fibers) */
  CHECK(gm_ax_plan(1, 5000, 10, 1).form == GM_AX_FORM_TILES);
  CHECK(gm_ax_plan(1, 5000, 10, 0).form == GM_AX_FORM_BLOCKS);
  CHECK(gm_ax_plan(1024, 64, 1, 1).form == GM_AX_FORM_ITEMS);
}

/* ROWS_2D geometry (gm_rows_plan: row sums' neighbours, geerv, scale,
 * the strided engine's broadcasting): of the threads of block (0, 0) that
 * map to rows, the share whose column lies inside the row (thread t: x = t
 * % bx, y = t / bx), over every x tile a row needs. */
static double rows_live_share(size_t rows, size_t cols) {
  const gm_rows_geom g = gm_rows_plan(rows, cols);
  const size_t tiles = (cols + g.bx - 1) / g.bx;
  size_t live = 0, all = 0;
  for (size_t tile = 0; tile < tiles; tile++)
    for (size_t t = 0; t < (size_t)g.bx * g.by; t++) {
      const size_t x = tile * g.bx + t % g.bx;
      all++;
      live += x < cols;
    }
  return (double)live / (double)all;
}

static void test_rows(void) {
  /* (N, 3) + (N, 1): 8 rows of 4 lanes per warp, 3 live */
  gm_rows_geom g = gm_rows_plan(349526, 3);
  CHECK(g.bx == 4 && g.by == 64);
  CHECK(rows_live_share(349526, 3) >= 0.5);
  CHECK((size_t)g.gx * g.gy >= 2 * SMS);
  for (size_t len = 1; len <= 1000; len++) {
    CHECK(rows_live_share(100000, len) >= 0.5);
    g = gm_rows_plan(100000, len);
    CHECK((size_t)g.gx * g.gy >= 2 * SMS);
    CHECK((size_t)g.bx * g.by == GM_MAX_BLOCK);
  }
  /* a few long rows: columns spread over grid x */
  g = gm_rows_plan(4, 262144);
  CHECK(g.bx == 256 && (size_t)g.gx * g.gy >= 2 * SMS);
}

/* Column sums (gm_colsum_plan): threads on a GPU, walks on the CPU model. */
static void test_colsum(void) {
  /* (1e6, 10) float: one 16-float group; rows interleaved over the slots
   * (a warp reads 32 adjacent rows), at least a block per SM's worth of
   * threads, each at least 16 rows (partials cost 1/8 of the reads) */
  gm_colsum_geom g = gm_colsum_plan(1000000, 10, 4, 0);
  CHECK(g.span == 1 && g.step == g.slots && g.slots * g.count >= 1000000);
  CHECK(g.slots >= SMS * GM_MAX_BLOCK && g.count >= GM_COL_SLOT_ROWS);
  /* 8K x 8K float: 512 groups x slots, about 4 x 132 x 256 threads */
  g = gm_colsum_plan(8192, 8192, 4, 0);
  CHECK(g.slots * 512 >= GM_COL_THREADS && g.slots * 512 < 2 * GM_COL_THREADS && g.slots * g.count >= 8192);
  /* a few rows: one slot, no partials */
  CHECK(gm_colsum_plan(10, 3, 8, 0).slots == 1);
  /* the CPU model: chunks of at least 128 adjacent rows, at most 4096 */
  g = gm_colsum_plan(1000000, 10, 4, 1);
  CHECK(g.step == 1 && g.span == g.count && g.count >= 128 && g.slots <= 4096 && g.slots * g.count >= 1000000);
  /* small sums keep the GPU's form there */
  g = gm_colsum_plan(2000, 3, 8, 1);
  CHECK(g.span == 1 && g.step == g.slots && g.slots > 32);
}

/* The emulated build of kernels/reduce_axis.cu run directly (no device:
 * a null stream runs at once, scratch from malloc) with the GPU's
 * geometry and with the CPU model's on shapes above 64K elements, where
 * the device only ever takes the CPU model's: both agree with a serial
 * fold.  The GPU's split forms over hundreds of blocks run here. */
static int scratch_alloc(void *owner, size_t bytes, void **out) {
  (void)owner;
  *out = malloc(bytes);
  return *out ? 0 : 2;
}
static void scratch_free(void *owner, void *p) {
  (void)owner;
  free(p);
}

static void check_axis(size_t outer, size_t len, size_t inner, int op) {
  const size_t n = outer * len * inner, n_out = op == GM_AX_SOFTMAX ? n : outer * inner;
  double *x = malloc(n * sizeof *x), *want = malloc(n_out * sizeof *want), *got = malloc(n_out * sizeof *got);
  if (!x || !want || !got) abort();
  for (size_t i = 0; i < n; i++) x[i] = (double)((i * 37) % 101) / 16.0 - 3.0;
  for (size_t o = 0; o < outer; o++)
    for (size_t j = 0; j < inner; j++) {
      gm_axacc c = gm_ax_init(op);
      for (size_t k = 0; k < len; k++) gm_ax_step(op, &c, x[(o * len + k) * inner + j], (long long)k);
      if (op != GM_AX_SOFTMAX) want[o * inner + j] = gm_ax_result(op, c, (long long)len, 0);
      else
        for (size_t k = 0; k < len; k++) want[(o * len + k) * inner + j] = gm_ax_softmax(c, x[(o * len + k) * inner + j]);
    }
  for (int cpu = 0; cpu < 2; cpu++) {
    gm_launch_ctx lc = {NULL, scratch_alloc, scratch_free, NULL, cpu};
    CHECK(gm_emu_reduce_axis(GM_DOUBLE, op, 0, outer, len, inner, x, got, &lc) == 0);
    double worst = 0;
    for (size_t q = 0; q < n_out; q++) {
      double g = got[q];
      if (gm_ax_is_arg(op)) { /* argmax/argmin write int64 indices */
        long long idx;
        memcpy(&idx, &got[q], sizeof idx);
        g = (double)idx;
      }
      const double d = fabs(g - want[q]) / (fabs(want[q]) > 1 ? fabs(want[q]) : 1);
      worst = d > worst || d != d ? d : worst;
    }
    if (!(worst <= 1e-9)) fprintf(stderr, "(%zu, %zu, %zu) op %d cpu %d: worst %g\n", outer, len, inner, op, cpu, worst);
    CHECK(worst <= 1e-9);
  }
  free(x);
  free(want);
  free(got);
}

static void test_axis_results(void) {
  const int ops[] = {GM_AX_SUM, GM_AX_MEAN, GM_AX_VAR, GM_AX_MAX, GM_AX_ARGMAX, GM_AX_LOGSUMEXP, GM_AX_SOFTMAX};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    check_axis(1, 200000, 3, ops[i]);  /* GPU: 512 blocks of 64 lanes x 4 columns; CPU: tiles */
    check_axis(2, 30000, 21, ops[i]);  /* inner 21: 32 columns x 8 lanes */
    check_axis(40000, 3, 1, ops[i]);   /* short rows: a thread per row */
    check_axis(300, 700, 1, ops[i]);   /* rows: 32 lanes per row, one pass */
    check_axis(3, 100000, 1, ops[i]);  /* long rows, few: slots */
    check_axis(2, 40, 1000, ops[i]);   /* many columns */
  }
}

/* Column and row sums (sum_, kernels/elementwise.cu) and transposes
 * (gm_geam0, kernels/fill.cu) run directly on both geometries as above:
 * the GPU's interleaved column sums with thousands of slots and levels of
 * regroup, and its tiled transpose of a mat with partial tiles. */
static void check_sums(size_t rows, size_t cols, int axis) {
  const size_t n_out = axis == 0 ? cols : rows;
  double *x = malloc(rows * cols * sizeof *x), *want = calloc(n_out, sizeof *want), *got = malloc(n_out * sizeof *got);
  if (!x || !want || !got) abort();
  for (size_t i = 0; i < rows * cols; i++) x[i] = (double)((i * 13) % 29) / 8.0 - 1.5;
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) want[axis == 0 ? c : r] += x[r * cols + c];
  for (int cpu = 0; cpu < 2; cpu++) {
    gm_launch_ctx lc = {NULL, scratch_alloc, scratch_free, NULL, cpu};
    for (size_t q = 0; q < n_out; q++) got[q] = 1.0;
    CHECK(gm_emu_ew_sum(GM_DOUBLE, axis, rows, cols, 0.5, x, 2.0, got, &lc) == 0);
    double worst = 0;
    for (size_t q = 0; q < n_out; q++) {
      const double w = 0.5 * want[q] + 2.0, d = fabs(got[q] - w) / (fabs(w) > 1 ? fabs(w) : 1);
      worst = d > worst || d != d ? d : worst;
    }
    if (!(worst <= 1e-12)) fprintf(stderr, "sum (%zu, %zu) axis %d cpu %d: worst %g\n", rows, cols, axis, cpu, worst);
    CHECK(worst <= 1e-12);
  }
  free(x);
  free(want);
  free(got);
}

static void check_transpose(size_t m, size_t n) {
  /* column-major C (m x n) := 2 A^T, A (n x m, lda = n) */
  float *a = malloc(m * n * sizeof *a), *c = malloc(m * n * sizeof *c);
  if (!a || !c) abort();
  for (size_t i = 0; i < m * n; i++) a[i] = (float)(i % 1013);
  for (int cpu = 0; cpu < 2; cpu++) {
    gm_launch_ctx lc = {NULL, scratch_alloc, scratch_free, NULL, cpu};
    for (size_t i = 0; i < m * n; i++) c[i] = -1.0f;
    CHECK(gm_emu_geam0(GM_FLOAT, 1, m, n, 2.0, a, n, c, m, &lc) == 0);
    size_t bad = 0;
    for (size_t j = 0; j < n; j++)
      for (size_t i = 0; i < m; i++) bad += c[j * m + i] != 2.0f * a[i * n + j];
    if (bad) fprintf(stderr, "transpose %zu x %zu cpu %d: %zu wrong\n", m, n, cpu, bad);
    CHECK(bad == 0);
  }
  free(a);
  free(c);
}

static void test_sums_and_transposes(void) {
  check_sums(300000, 3, 0);  /* GPU: 18750 interleaved slots, two regroup levels */
  check_sums(100000, 20, 0); /* doubles: groups of 8, 8 and a last, narrower 4 */
  check_sums(5000, 300, 0);
  check_sums(20000, 40, 1);  /* row slots */
  check_transpose(300, 270); /* 10 x 9 tiles, partial at both edges */
  check_transpose(1000, 3);
}

int main(void) {
  test_sums_and_transposes();
  test_axis_results();
  test_rows();
  test_colsum();
  test_axis_long_narrow();
  test_axis_short_rows_and_many_columns();
  test_axis_cpu_model();
  if (gm_test_failed) fprintf(stderr, "%d checks failed\n", gm_test_failed);
  return gm_test_failed != 0;
}
