#include "kernel.h"

#include <stdatomic.h>
#include <string.h>

#include "../../kernels/launch.h"
#include "exec.h"
#include "mem/runtime.h"
#include "status.h"

static atomic_long n_host_launches, n_emulated_launches, n_cuda_launches;

long gm_kernel_cuda_launch_count(void) { return atomic_load(&n_cuda_launches); }

long gm_kernel_launch_count(bool emulated) {
  return atomic_load(emulated ? &n_emulated_launches : &n_host_launches);
}

/* A CUDA device: kernel parameters are passed by address, scalars as the
 * kernel's T (float or double) and mats as their device pointers. */
static gm_status run_on_cuda(gm_exec *e, gm_ctype ctype, gm_device_kernel *dk, gm_kernel_arg *args, int n,
                             gm_operand *ops, int nm, const unsigned *g) {
  if (!dk || !e->dev->ops->rt_launch)
    return gm_fail(GM_EUNSUPPORTED, "run-time kernels on this device need the kernel's NVRTC build");
  GM_TRY(gm_acquire(e, ops, nm));
  void *ptrs[GM_KERNEL_MAX_ARGS];
  void *params[GM_KERNEL_MAX_ARGS];
  float fs[GM_KERNEL_MAX_ARGS];
  for (int i = 0, k = 0; i < n; i++) {
    if (args[i].kind == GM_KARG_MAT) {
      ptrs[i] = ops[k++].ptr;
      params[i] = &ptrs[i];
    } else if (args[i].kind == GM_KARG_SCALAR) {
      fs[i] = (float)args[i].d;
      params[i] = ctype == GM_FLOAT ? (void *)&fs[i] : (void *)&args[i].d;
    } else {
      params[i] = &args[i].i;
    }
  }
  gm_status st = e->dev->ops->rt_launch(e->dev, dk->ptx, dk->name, &dk->slot, params, g);
  gm_release(e, ops, nm);
  if (st == GM_OK) atomic_fetch_add(&n_cuda_launches, 1);
  return st;
}

gm_status gm_kernel_run(gm_ctype ctype, gm_cpu_kernel_fn fn, gm_device_kernel *dk, gm_kernel_arg *args, int n,
                        const unsigned *geom) {
  if (n < 0 || n > GM_KERNEL_MAX_ARGS) return gm_fail(GM_EINVAL, "too many parameters");
  gm_mat *mats[GM_KERNEL_MAX_ARGS];
  gm_operand ops[GM_KERNEL_MAX_ARGS];
  int nm = 0;
  for (int i = 0; i < n; i++) {
    if (args[i].kind != GM_KARG_MAT) continue;
    gm_mat *m = args[i].m;
    if (m->ctype != ctype)
      return gm_fail(GM_EINVAL, "argument %d is a %s mat, the kernel's mats are %s", i + 1,
                     gm_ctype_name(m->ctype), gm_ctype_name(ctype));
    for (int j = 0; j < nm; j++)
      if (mats[j]->vec == m->vec && (args[i].dir != GM_INPUT || ops[j].dir != GM_INPUT))
        return gm_fail(GM_EINVAL, "argument %d shares its storage with another mat argument that is written",
                       i + 1);
    mats[nm] = m;
    ops[nm] = (gm_operand){m, args[i].dir, NULL};
    nm++;
  }
  unsigned g[6];
  if (geom) {
    for (int i = 0; i < 6; i++) {
      if (geom[i] == 0) return gm_fail(GM_EINVAL, "grid and block dimensions must be positive");
      g[i] = geom[i];
    }
    if ((unsigned long long)g[3] * g[4] * g[5] > 1024)
      return gm_fail(GM_EINVAL, "a block has at most 1024 threads, got %u", g[3] * g[4] * g[5]);
  } else {
    if (nm == 0)
      return gm_fail(GM_EINVAL, "the default launch is sized by the first mat argument; "
                     "with no mat argument give grid_dim and block_dim");
    int block, grid;
    gm_launch_1d(mats[0]->size, &block, &grid);
    g[0] = (unsigned)grid, g[1] = g[2] = 1;
    g[3] = (unsigned)block, g[4] = g[5] = 1;
  }
  gm_exec e = gm_exec_choose(mats, nm);
  bool emulated = e.dev && strcmp(e.dev->ops->name, "emulated") == 0;
  if (e.dev && !emulated) return run_on_cuda(&e, ctype, dk, args, n, ops, nm, g);
  GM_TRY(gm_acquire(&e, ops, nm));
  void *ptrs[GM_KERNEL_MAX_ARGS];
  for (int i = 0, k = 0; i < n; i++) {
    if (args[i].kind == GM_KARG_MAT)
      ptrs[i] = ops[k++].ptr;
    else if (args[i].kind == GM_KARG_SCALAR)
      ptrs[i] = &args[i].d;
    else
      ptrs[i] = &args[i].i;
  }
  fn(ptrs, g);
  gm_release(&e, ops, nm);
  atomic_fetch_add(emulated ? &n_emulated_launches : &n_host_launches, 1);
  return GM_OK;
}
