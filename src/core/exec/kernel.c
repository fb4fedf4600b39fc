#include "kernel.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#include "../../../kernels/launch.h"
#include "../model/context.h"
#include "exec.h"
#include "../mem/runtime.h"
#include "../model/status.h"

static atomic_long n_launches[3];

long gm_kernel_launch_count(gm_kernel_place_kind where) { return atomic_load(&n_launches[where]); }

static int collect_mats(gm_kernel_arg *args, int n, gm_mat **mats) {
  int nm = 0;
  for (int i = 0; i < n && nm < GM_KERNEL_MAX_ARGS; i++)
    if (args[i].kind == GM_KARG_MAT) mats[nm++] = args[i].m;
  return nm;
}

void gm_kernel_place(gm_kernel_arg *args, int n, gm_device **dev, bool *nvrtc) {
  gm_mat *mats[GM_KERNEL_MAX_ARGS];
  gm_exec e = gm_exec_choose(mats, collect_mats(args, n, mats));
  *dev = e.dev;
  *nvrtc = e.dev && e.dev->ops->rtk_launch;
}

/* One argument's value as cudaLaunchKernel reads it. */
typedef union {
  void *p;
  float f;
  double d;
  int64_t i;
} karg_value;

/* The mat arguments of args, in order, into mats and ops (*nm of them):
 * all of the kernel's ctype, none written while sharing storage with
 * another. */
static gm_status check_mat_args(gm_ctype ctype, const gm_kernel_arg *args, int n, gm_mat **mats, gm_operand *ops,
                                int *nm) {
  *nm = 0;
  for (int i = 0; i < n; i++) {
    if (args[i].kind != GM_KARG_MAT) continue;
    gm_mat *m = args[i].m;
    if (m->ctype != ctype)
      return gm_fail(GM_EINVAL, "argument %d is a %s mat, the kernel's mats are %s", i + 1,
                     gm_ctype_name(m->ctype), gm_ctype_name(ctype));
    for (int j = 0; j < *nm; j++)
      if (mats[j]->vec == m->vec && (args[i].dir != GM_INPUT || ops[j].dir != GM_INPUT))
        return gm_fail(GM_EINVAL, "argument %d shares its storage with another mat argument that is written",
                       i + 1);
    mats[*nm] = m;
    ops[*nm] = (gm_operand){m, args[i].dir, NULL};
    (*nm)++;
  }
  return GM_OK;
}

/* g = grid then block dimensions: geom checked, or (geom NULL) a 1-d
 * launch sized by first (NULL: no mat argument, an error). */
static gm_status launch_geometry(const unsigned *geom, const gm_mat *first, unsigned g[6]) {
  if (geom) {
    for (int i = 0; i < 6; i++) {
      if (geom[i] == 0) return gm_fail(GM_EINVAL, "grid and block dimensions must be positive");
      g[i] = geom[i];
    }
    /* CUDA's limits on every backend: a geometry the host and the emulated
     * device run must launch on a GPU too */
    const char *why = gm_launch_config_error(g, 0);
    if (why)
      return gm_fail(GM_EINVAL, "invalid launch configuration: %s (grid %ux%ux%u, block %ux%ux%u)", why, g[0], g[1],
                     g[2], g[3], g[4], g[5]);
    return GM_OK;
  }
  if (!first)
    return gm_fail(GM_EINVAL, "the default launch is sized by the first mat argument; "
                   "with no mat argument give grid_dim and block_dim");
  int block, grid;
  gm_launch_1d(first->size, &block, &grid);
  g[0] = (unsigned)grid, g[1] = g[2] = 1;
  g[3] = (unsigned)block, g[4] = g[5] = 1;
  return GM_OK;
}

/* The NVRTC launch on e's device: arguments as cudaLaunchKernel takes
 * them (scalars in the kernel's ctype), then the operands released. */
static gm_status run_nvrtc(gm_exec *e, gm_ctype ctype, const gm_kernel_code *code, const gm_kernel_arg *args,
                           int n, gm_operand *ops, int nm, const unsigned *g) {
  karg_value vals[GM_KERNEL_MAX_ARGS];
  void *argv[GM_KERNEL_MAX_ARGS];
  for (int i = 0, k = 0; i < n; i++) {
    if (args[i].kind == GM_KARG_MAT)
      vals[i].p = ops[k++].ptr;
    else if (args[i].kind == GM_KARG_SCALAR && ctype == GM_FLOAT)
      vals[i].f = (float)args[i].d;
    else if (args[i].kind == GM_KARG_SCALAR)
      vals[i].d = args[i].d;
    else
      vals[i].i = args[i].i;
    argv[i] = &vals[i];
  }
  gm_status st = e->dev->ops->rtk_launch(e->dev, code->dev_kernel, argv, g);
  gm_release(e, ops, nm);
  if (st == GM_OK) atomic_fetch_add(&n_launches[GM_KPLACE_CUDA], 1);
  return st;
}

gm_status gm_kernel_run(gm_ctype ctype, const gm_kernel_code *code, gm_kernel_arg *args, int n,
                        const unsigned *geom) {
  if (n < 0 || n > GM_KERNEL_MAX_ARGS) return gm_fail(GM_EINVAL, "too many parameters");
  gm_mat *mats[GM_KERNEL_MAX_ARGS];
  gm_operand ops[GM_KERNEL_MAX_ARGS];
  int nm = 0;
  GM_TRY(check_mat_args(ctype, args, n, mats, ops, &nm));
  unsigned g[6];
  GM_TRY(launch_geometry(geom, nm ? mats[0] : NULL, g));
  gm_exec e = gm_exec_choose(mats, nm);
  bool nvrtc = e.dev && e.dev->ops->rtk_launch;
  if (nvrtc && (code->dev != e.dev || !code->dev_kernel))
    return gm_fail(GM_ESTATE, "the kernel is not compiled for device %d (internal error)", e.dev->id);
  if (!nvrtc && !code->cpu) return gm_fail(GM_ESTATE, "the kernel has no CPU code (internal error)");
  GM_TRY(gm_acquire(&e, ops, nm));
  if (nvrtc) return run_nvrtc(&e, ctype, code, args, n, ops, nm, g);
  void *ptrs[GM_KERNEL_MAX_ARGS];
  for (int i = 0, k = 0; i < n; i++) {
    if (args[i].kind == GM_KARG_MAT)
      ptrs[i] = e.dev && e.dev->ops->host_address ? e.dev->ops->host_address(e.dev, ops[k++].ptr) : ops[k++].ptr;
    else if (args[i].kind == GM_KARG_SCALAR)
      ptrs[i] = &args[i].d;
    else
      ptrs[i] = &args[i].i;
  }
  /* The CPU code runs here, on the host thread inside the device call:
   * the device's queued work on these mats (emulated device) lands first. */
  gm_status st = e.dev ? e.dev->ops->stream_sync(e.dev, NULL) : GM_OK;
  if (st != GM_OK) {
    gm_release(&e, ops, nm);
    return st;
  }
  code->cpu(ptrs, g);
  gm_release(&e, ops, nm);
  atomic_fetch_add(&n_launches[e.dev ? GM_KPLACE_EMULATED : GM_KPLACE_HOST], 1);
  return GM_OK;
}

/* ---- launch parameters ---- */

bool gm_kernel_spec_is_mat(char c) { return c == 'i' || c == 'o' || c == 'x'; }

gm_status gm_kernel_parse_spec(const char *spec, size_t n, gm_kernel_arg *args) {
  if (n > GM_KERNEL_MAX_ARGS) return gm_fail(GM_EINVAL, "at most %d parameters", GM_KERNEL_MAX_ARGS);
  for (size_t i = 0; i < n; i++) {
    memset(&args[i], 0, sizeof args[i]);
    if (spec[i] == 's') {
      args[i].kind = GM_KARG_SCALAR;
    } else if (spec[i] == 'n') {
      args[i].kind = GM_KARG_INT;
    } else if (gm_kernel_spec_is_mat(spec[i])) {
      args[i].kind = GM_KARG_MAT;
      args[i].dir = spec[i] == 'i' ? GM_INPUT : spec[i] == 'o' ? GM_OUTPUT : GM_IO;
    } else {
      return gm_fail(GM_EINVAL, "bad parameter spec");
    }
  }
  return GM_OK;
}

gm_status gm_kernel_check_geometry(const long long in[6], unsigned geom[6]) {
  for (int i = 0; i < 6; i++) {
    if (in[i] < 1 || in[i] > 0x7fffffff) return gm_fail(GM_EINVAL, "bad launch geometry");
    geom[i] = (unsigned)in[i];
  }
  const char *why = gm_launch_config_error(geom, 0);
  return why ? gm_fail(GM_EINVAL, "invalid launch configuration: %s", why) : GM_OK;
}

/* A device's properties do not change while the process runs, and asking
 * the driver on every launch costs more than the launch: the answer is
 * cached per device id. */
gm_status gm_kernel_compute_capability(gm_device *dev, int *major, int *minor) {
  enum { CACHED = 64 };
  /* major * 100 + minor + 1; 0: not asked yet (atomic: threads may
   * launch at once) */
  static _Atomic int cc[CACHED];
  bool cacheable = dev->id >= 0 && dev->id < CACHED;
  int v = cacheable ? atomic_load_explicit(&cc[dev->id], memory_order_relaxed) : 0;
  if (v == 0) {
    gm_device_info info;
    GM_TRY(dev->ops->get_info(dev, &info));
    v = info.compute_major * 100 + info.compute_minor + 1;
    if (cacheable) atomic_store_explicit(&cc[dev->id], v, memory_order_relaxed);
  }
  *major = (v - 1) / 100;
  *minor = (v - 1) % 100;
  return GM_OK;
}

/* ---- loading ---- */

gm_status gm_kernel_open(const char *path, void **handle, gm_kernel_code *code) {
  *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!*handle) return gm_fail(GM_EINVAL, "%s", dlerror());
  void *sym = dlsym(*handle, "gpumat_kernel_launch");
  if (!sym) return gm_fail(GM_EINVAL, "%s: no gpumat_kernel_launch", path);
  /* a data pointer to a function pointer: POSIX guarantees dlsym's result
   * converts, ISO C has no cast for it */
  memcpy(&code->cpu, &sym, sizeof sym);
  return GM_OK;
}

void gm_kernel_close(void *handle) {
  if (handle) dlclose(handle);
}

gm_status gm_kernel_load_image(const char *image, const char *name, gm_kernel_code *code) {
  gm_device *dev = gm_current_device();
  if (!dev || !dev->ops->rtk_load) return gm_fail(GM_ESTATE, "no CUDA device in the current context");
  GM_TRY(dev->ops->rtk_load(dev, image, name, &code->dev_kernel));
  code->dev = dev;
  return GM_OK;
}
