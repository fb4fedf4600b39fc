/* Direct C baselines for bench/run.lua: memcpy of the same bytes and direct
 * CBLAS gemm calls, timed the same way as the Lua and numpy sides
 * (calibrate iterations to a minimum time per repeat, report the median).
 *
 * Runs as a coprocess of the harness (protocol as in numpy_ops.py), one
 * answer line per command:
 *   info                                  -> info lines, "end info"
 *   prepare KEY MIN_TIME FIXED OP DTYPE N -> "ready KEY ITERATIONS NOTE" | "error KEY MSG"
 *   run KEY                               -> "time KEY SECONDS_PER_ITERATION"
 *   free KEY                              -> "freed KEY"
 *   quit                                  -> exit (no answer)
 * Ops: memcpy float|double N   copy N elements between two touched buffers
 *      gemm   float|double N   C := A B, N x N row-major, alpha 1, beta 0 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *openblas_get_config(void);
char *openblas_get_corename(void);
int openblas_get_num_threads(void);

/* Called through a volatile pointer so the compiler cannot drop copies into
 * buffers that are never read. */
static void *(*volatile memcpy_fn)(void *, const void *, size_t) = memcpy;

struct job {
  char op[32];
  size_t esize, n;
  int is_float;
  void *a, *b, *c;
};

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run(struct job *j, long iterations)
{
  int n = (int)j->n;
  for (long i = 0; i < iterations; i++) {
    if (strcmp(j->op, "memcpy") == 0)
      memcpy_fn(j->b, j->a, j->n * j->esize);
    else if (j->is_float)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                  j->a, n, j->b, n, 0.0f, j->c, n);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0,
                  j->a, n, j->b, n, 0.0, j->c, n);
  }
}

static double timed(struct job *j, long iterations)
{
  double t0 = now();
  run(j, iterations);
  return now() - t0;
}

/* Same scheme as bench/lib/bench_timing.lua: warm up, then grow the
 * iteration count until one repeat takes min_time. */
static long calibrate(struct job *j, long fixed, double min_time)
{
  double t = 0;
  long n = 1;
  run(j, 1); /* warm-up: page faults, thread pool start */
  if (fixed > 0) return fixed;
  for (;;) {
    t = timed(j, n);
    if (t >= min_time / 4 || n >= 1000000000L) break;
    double grow = t > 0 ? min_time / 4 / t * 1.5 : 100;
    n *= grow < 2 ? 2 : grow > 100 ? 100 : (long)grow;
  }
  long want = (long)((double)n * min_time / (t > 0 ? t : min_time) + 0.5);
  return want < 1 ? 1 : want;
}

static void *filled(size_t count, size_t esize, int is_float)
{
  size_t bytes = (count * esize + 63) / 64 * 64;
  void *p = aligned_alloc(64, bytes);
  if (!p) return NULL;
  for (size_t k = 0; k < count; k++) {
    double v = 0.25 + 0.5 * (double)((k * 37) % 4096) / 4096.0;
    if (is_float) ((float *)p)[k] = (float)v;
    else ((double *)p)[k] = v;
  }
  return p;
}

static int setup(struct job *j, const char *dtype)
{
  j->is_float = strcmp(dtype, "float") == 0;
  if (!j->is_float && strcmp(dtype, "double") != 0) return -1;
  j->esize = j->is_float ? sizeof(float) : sizeof(double);
  size_t count = strcmp(j->op, "gemm") == 0 ? j->n * j->n : j->n;
  if (strcmp(j->op, "memcpy") != 0 && strcmp(j->op, "gemm") != 0) return -1;
  j->a = filled(count, j->esize, j->is_float);
  j->b = filled(count, j->esize, j->is_float);
  j->c = filled(count, j->esize, j->is_float);
  return j->a && j->b && j->c ? 0 : -2;
}

#define MAX_JOBS 16

struct slot {
  char key[64];
  long iterations;
  struct job job;
};

static struct slot *find(struct slot *slots, const char *key)
{
  for (int i = 0; i < MAX_JOBS; i++)
    if (strcmp(slots[i].key, key) == 0) return &slots[i];
  return NULL;
}

static void release(struct slot *s)
{
  free(s->job.a); free(s->job.b); free(s->job.c);
  memset(s, 0, sizeof *s);
}

static void prepare(struct slot *slots, const char *key, const char *args)
{
  char dtype[32];
  double min_time;
  long fixed;
  struct slot *s = find(slots, "");
  if (!s) { printf("error %s too many jobs\n", key); return; }
  if (sscanf(args, "%lf %ld %31s %31s %zu", &min_time, &fixed, s->job.op, dtype, &s->job.n) != 5) {
    printf("error %s bad prepare line\n", key);
    memset(s, 0, sizeof *s);
    return;
  }
  int st = setup(&s->job, dtype);
  if (st != 0) {
    printf("error %s %s\n", key, st == -1 ? "unknown op or dtype" : "out of memory");
    release(s);
    return;
  }
  snprintf(s->key, sizeof s->key, "%s", key);
  s->iterations = calibrate(&s->job, fixed, min_time);
  printf("ready %s %ld %s\n", key, s->iterations,
         strcmp(s->job.op, "memcpy") == 0 ? "memcpy(dst, src, n * sizeof)" :
         s->job.is_float ? "cblas_sgemm" : "cblas_dgemm");
}

int main(void)
{
  static struct slot slots[MAX_JOBS];
  char line[512], cmd[32], key[64];
  while (fgets(line, sizeof line, stdin)) {
    int used = 0;
    key[0] = 0;
    if (sscanf(line, "%31s %63s %n", cmd, key, &used) < 1) continue;
    if (strcmp(cmd, "quit") == 0) break;
    struct slot *s = key[0] ? find(slots, key) : NULL;
    if (strcmp(cmd, "info") == 0) {
      printf("info openblas_config %s\n", openblas_get_config());
      printf("info openblas_corename %s\n", openblas_get_corename());
      printf("info openblas_threads %d\n", openblas_get_num_threads());
      printf("end info\n");
    } else if (strcmp(cmd, "prepare") == 0) {
      if (s) release(s);
      prepare(slots, key, line + used);
    } else if (strcmp(cmd, "run") == 0 && s) {
      printf("time %s %.9e\n", key, timed(&s->job, s->iterations) / (double)s->iterations);
    } else if (strcmp(cmd, "free") == 0) {
      if (s) release(s);
      printf("freed %s\n", key);
    } else {
      printf("error %s unknown command or key\n", key[0] ? key : "-");
    }
    fflush(stdout);
  }
  return 0;
}
