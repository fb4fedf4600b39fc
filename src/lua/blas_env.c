/* gpumat.blas_env: loaded by lua/gpumat/init.lua before gpumat.core, so
 * before OpenBLAS, whose constructor reads its environment once.
 *
 * OpenBLAS's pthreads workers spin (sched_yield) for 2^28 cycles, about
 * a tenth of a second, after it starts and after every threaded call,
 * before they sleep.  Meanwhile they take the cores from the caller and
 * from gpumat's own host threads: on the 2-core CI VMs every small op ran
 * at half speed for 0.15 s after `require "gpumat"` and after every large
 * gemm, and the MLP program burnt 2.4-3.0 s of CPU for 1.2-1.5 s of wall
 * time.  OpenBLAS has no call that shortens the spin once it is loaded,
 * only OPENBLAS_THREAD_TIMEOUT (a spin of 2^value cycles, 4..30), so
 * gpumat sets it to 20 (about half a millisecond) unless the environment
 * already has it: back-to-back BLAS calls still find the workers awake,
 * and a few hundred microseconds after the last one they sleep.  The MLP
 * then takes 1.1-1.2 s and 2.0-2.2 s of CPU; with 4 (sleep at once)
 * every threaded call paid the wake-up, 1.4-1.5 s (bench/RESULTS.md,
 * "OpenBLAS's spinning workers").  A process that loaded OpenBLAS before
 * gpumat keeps its own setting.  No BLAS is linked here. */
#include <lua.h>
#include <stdlib.h>

int luaopen_gpumat_blas_env(lua_State *L);

int luaopen_gpumat_blas_env(lua_State *L) {
  /* overwrite 0: a value the user set wins */
  lua_pushboolean(L, setenv("OPENBLAS_THREAD_TIMEOUT", "20", 0) == 0);
  return 1;
}
