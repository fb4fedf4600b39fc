/* A C application that hosts Lua 5.4 and lets a script work on its data
 * with gpumat, without copies:
 *   1. the application owns a float buffer (2 x 3, row-major);
 *   2. gm_mat_wrap makes it a mat (zero copy; our release callback runs
 *      when gpumat drops the last view of it);
 *   3. gpumat_pushmat hands it to the script as the global `x`, which the
 *      script transforms in place (on a device inside with_cuda when one
 *      is there; the data comes back into our buffer when it ends);
 *   4. we read the mat the script left in the global `result` with
 *      gpumat_testmat: print it (gm_mat_to_string) and read it through
 *      a host buffer of doubles (gm_mat_ensure);
 *   5. DLPack, as with PyTorch, CuPy or JAX: we hand `result` out as a
 *      DLManagedTensorVersioned (gm_mat_to_dlpack, no copy) that outlives
 *      the Lua state (gpumat's side freed first, the consumer's deleter
 *      last), and take a tensor of ours in (gm_mat_from_dlpack, no copy):
 *      gpumat calls our deleter when its mat goes (consumer first).
 * Build: cc main.c $(pkg-config --cflags --libs gpumat) -o embed
 * Run:   ./embed transform.lua */
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

#include <gpumat.h>
#include <gpumat_lua.h>

static int n_released;

static void release_buffer(void *ud) {
  n_released++;
  free(ud); /* the buffer is ours: gpumat tells us when it is done */
}

/* 5: a tensor we produce, as another library would: its deleter frees it */
typedef struct our_tensor {
  DLManagedTensorVersioned t;
  int64_t shape[1];
  double data[4];
} our_tensor;
static int n_deleted;
static void delete_tensor(DLManagedTensorVersioned *t) {
  n_deleted++;
  free(t->manager_ctx);
}

static int dlpack_in(void) {
  our_tensor *o = calloc(1, sizeof *o);
  if (!o) return 1;
  for (int i = 0; i < 4; i++) o->data[i] = i + 1.5;
  o->shape[0] = 4;
  o->t = (DLManagedTensorVersioned){{1, 0}, o, delete_tensor, 0,
                                    {o->data, {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, o->shape, NULL, 0}};
  gm_mat *m = NULL;
  if (gm_mat_from_dlpack(&o->t, &m) != GM_OK) { /* still ours on failure */
    fprintf(stderr, "embed: gm_mat_from_dlpack: %s\n", gm_last_error());
    delete_tensor(&o->t);
    return 1;
  }
  double sum = 0;
  gm_status st = gm_sum(m, &sum);
  gm_mat_free(m); /* the last view: gpumat calls our deleter */
  printf("dlpack in: sum %g, our deleter called %d time(s)\n", sum, n_deleted);
  return st != GM_OK || n_deleted != 1;
}

static int fail(lua_State *L, const char *what) {
  fprintf(stderr, "embed: %s: %s\n", what, lua_tostring(L, -1));
  lua_close(L);
  return 1;
}

int main(int argc, char **argv) {
  const char *script = argc > 1 ? argv[1] : "transform.lua";
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "gpumat", luaopen_gpumat, 1); /* no package.path needed */
  lua_pop(L, 1);

  /* 1-2: the application's buffer as a mat */
  float *data = malloc(6 * sizeof *data);
  if (!data) return 1;
  for (int i = 0; i < 6; i++) data[i] = (float)(i + 1);
  size_t dims[2] = {2, 3};
  gm_mat *x = NULL;
  if (gm_mat_wrap(data, GM_CTYPE_FLOAT, 2, dims, release_buffer, data, &x) != GM_OK) {
    fprintf(stderr, "embed: gm_mat_wrap: %s\n", gm_last_error());
    free(data);
    return 1;
  }

  /* 3: the script transforms it in place */
  gpumat_pushmat(L, x); /* Lua holds its own reference... */
  lua_setglobal(L, "x");
  gm_mat_free(x);       /* ...so ours can go now */
  if (luaL_dofile(L, script) != LUA_OK) return fail(L, script);

  printf("buffer after the script:");
  for (int i = 0; i < 6; i++) printf(" %g", data[i]);
  printf("\n");

  /* 4: a mat the script created */
  lua_getglobal(L, "result");
  gm_mat *r = gpumat_testmat(L, -1); /* borrowed while `result` lives */
  if (!r) {
    fprintf(stderr, "embed: the script left no mat in `result`\n");
    lua_close(L);
    return 1;
  }
  char *text = NULL; /* the mat as Lua's tostring shows it */
  if (gm_mat_to_string(r, NULL, &text) == GM_OK) printf("result: %s\n", text);
  gm_string_free(text);
  /* its elements as a host buffer of doubles: a view of the mat's host
   * facet when nothing needs converting, a converted copy otherwise */
  gm_buffer *b = NULL;
  if (gm_mat_ensure(r, GM_MEM_HOST, "double", &b) != GM_OK) {
    fprintf(stderr, "embed: gm_mat_ensure: %s\n", gm_last_error());
    return 1;
  }
  size_t n = gm_buffer_size(b);
  double sums[16];
  if (n > 16 || gm_buffer_read(b, 0, n, sums) != GM_OK) {
    fprintf(stderr, "embed: gm_buffer_read: %s\n", gm_last_error());
    return 1;
  }
  gm_buffer_free(b);
  printf("result from the script (%zu):", n);
  for (size_t k = 0; k < n; k++) printf(" %g", sums[k]);
  printf("\n");
  /* 5: result handed out with DLPack; it outlives the Lua state */
  DLManagedTensorVersioned *out = NULL;
  if (gm_mat_to_dlpack(r, NULL, &out) != GM_OK) {
    fprintf(stderr, "embed: gm_mat_to_dlpack: %s\n", gm_last_error());
    return 1;
  }
  lua_pop(L, 1);

  lua_close(L); /* the last view of the buffer goes with the Lua state */
  printf("buffer released by gpumat: %d time(s)\n", n_released);
  const float *f = out->dl_tensor.data; /* float32, kDLCPU, one axis of 3 */
  printf("dlpack out: %lld elements after lua_close: %g %g %g\n", (long long)out->dl_tensor.shape[0], f[0], f[1],
         f[2]);
  out->deleter(out); /* the consumer lets go last */
  return n_released == 1 && dlpack_in() == 0 ? 0 : 1;
}
