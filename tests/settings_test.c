/* The model that the Lua binding reads and pushes but no longer decides:
 * the settings table (src/core/model/settings.c: defaults, kinds, ranges,
 * read-only ones and their messages), the context option rules
 * (context.c: backends, GPUMAT_DEVICE, device ids, random states rounded
 * to warps), the run-time kernel launch parameters (kernel.c: spec and
 * geometry) and the room report's text (room.c; its grouped numbers
 * are format_test.c's). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpumat.h"
#include "core/model/context.h"
#include "core/model/counters.h"
#include "core/exec/kernel.h"
#include "core/mem/runtime.h"
#include "core/io/room.h"
#include "core/model/settings.h"

static gm_setting_value v_bool(bool b) { return (gm_setting_value){.type = GM_VALUE_BOOL, .b = b, .type_name = "boolean"}; }
static gm_setting_value v_int(long long i) { return (gm_setting_value){.type = GM_VALUE_INT, .i = i, .type_name = "number"}; }
static gm_setting_value v_str(const char *s) { return (gm_setting_value){.type = GM_VALUE_STRING, .s = s, .type_name = "string"}; }

/* Sets name to v in s; true when it failed with message msg. */
static bool set_fails(gm_settings *s, const char *name, gm_setting_value v, const char *msg) {
  const gm_setting *d = gm_setting_find(name);
  if (!d) return false;
  gm_status st = gm_setting_set(s, d, &v);
  if (st == GM_OK || strcmp(gm_last_error(), msg) != 0) {
    fprintf(stderr, "%s: status %d, message '%s', expected '%s'\n", name, (int)st, gm_last_error(), msg);
    return false;
  }
  return true;
}

static bool set_ok(gm_settings *s, const char *name, gm_setting_value v) {
  const gm_setting *d = gm_setting_find(name);
  return d && gm_setting_set(s, d, &v) == GM_OK;
}

static gm_setting_value get(const gm_settings *s, const char *name) { return gm_setting_get(s, gm_setting_find(name)); }

static void test_defaults(void) {
  gm_settings s = gm_settings_defaults;
  CHECK(gm_setting_find("no_such_setting") == NULL);
  CHECK(strcmp(get(&s, "default_ctype").s, "double") == 0);
  CHECK(get(&s, "print_max_elements").type == GM_VALUE_INT && get(&s, "print_max_elements").i == 1000);
  CHECK(get(&s, "cuda_default_random_seed").i == 1234);
  CHECK(get(&s, "cuda_default_n_random_states").i == 4096);
  CHECK(get(&s, "cuda_default_device_id").i == 0);
  CHECK(get(&s, "print_mat").type == GM_VALUE_BOOL && get(&s, "print_mat").b);
  CHECK(get(&s, "default_synchronization").type == GM_VALUE_STRING);
  CHECK(strcmp(get(&s, "default_synchronization").s, "maybe") == 0);
  CHECK(strcmp(get(&s, "foreign_array_strategy").s, "static") == 0);
  CHECK(strcmp(get(&s, "version").s, GPUMAT_VERSION) == 0);
  CHECK(gm_setting_find("supported_ctypes")->kind == GM_SETTING_CTYPES);
}

static void test_range_errors(void) {
  gm_settings s = gm_settings_defaults;
  CHECK(set_fails(&s, "print_max_elements", v_int(-1), "gpumat.print_max_elements must be an integer >= 0"));
  CHECK(set_fails(&s, "cuda_default_n_random_states", v_int(0),
                  "gpumat.cuda_default_n_random_states must be an integer >= 1"));
  gm_setting_value half = {.type = GM_VALUE_NUMBER, .type_name = "number"};
  CHECK(set_fails(&s, "cuda_default_random_seed", half, "gpumat.cuda_default_random_seed must be an integer >= 0"));
  CHECK(set_fails(&s, "cuda_default_random_seed", v_str("3"), "gpumat.cuda_default_random_seed must be an integer >= 0"));
  CHECK(set_fails(&s, "cuda_default_device_id", v_int(1024), "gpumat.cuda_default_device_id must be an integer in 0..1023"));
  CHECK(set_fails(&s, "print_mat", v_int(1), "gpumat.print_mat must be a boolean, got number"));
  CHECK(set_fails(&s, "cuda_enabled", v_str("yes"), "gpumat.cuda_enabled must be a boolean, got string"));
  CHECK(set_fails(&s, "default_ctype", v_str("int"), "gpumat.default_ctype must be \"float\" or \"double\""));
  CHECK(set_fails(&s, "default_synchronization", v_str("sometimes"),
                  "gpumat.default_synchronization must be true, false or \"maybe\""));
  CHECK(set_fails(&s, "foreign_array_strategy", v_bool(true),
                  "gpumat.foreign_array_strategy must be \"static\" or \"cuda_host\""));
  CHECK(set_fails(&s, "version", v_str("9"), "gpumat.version is read-only"));
  CHECK(set_fails(&s, "supported_ctypes", v_str("float"), "gpumat.supported_ctypes is read-only"));
  /* a failed set leaves the value */
  CHECK(memcmp(&s, &gm_settings_defaults, sizeof s) == 0);
}

static void test_sets(void) {
  gm_settings s = gm_settings_defaults;
  CHECK(set_ok(&s, "cuda_default_device_id", v_int(1023)) && s.cuda_default_device_id == 1023);
  CHECK(set_ok(&s, "print_max_elements", v_int(0)) && s.print_max_elements == 0);
  CHECK(set_ok(&s, "default_ctype", v_str("float")) && s.default_ctype == GM_FLOAT);
  CHECK(set_ok(&s, "default_synchronization", v_bool(false)) && s.default_synchronization == GM_SYNC_FALSE);
  CHECK(get(&s, "default_synchronization").type == GM_VALUE_BOOL && !get(&s, "default_synchronization").b);
  CHECK(set_ok(&s, "print_mat_facets", v_bool(false)) && !s.print_mat_facets);
  /* two gm_settings are independent */
  CHECK(gm_settings_defaults.default_ctype == GM_DOUBLE && gm_settings_defaults.print_mat_facets);
  /* process-wide flags: the core's atomics, seen through any gm_settings */
  gm_settings other = gm_settings_defaults;
  CHECK(set_ok(&s, "cuda_allow_tf32", v_bool(true)) && gm_cuda_allow_tf32);
  CHECK(get(&other, "cuda_allow_tf32").b);
  CHECK(set_ok(&s, "cuda_allow_tf32", v_bool(false)) && !gm_cuda_allow_tf32);
  CHECK(set_ok(&s, "foreign_array_strategy", v_str("cuda_host")));
  CHECK(strcmp(get(&other, "foreign_array_strategy").s, "cuda_host") == 0);
  CHECK(set_ok(&s, "foreign_array_strategy", v_str("static")));
}

static void test_context_options(void) {
  int n = 0;
  CHECK(gm_context_random_states(33, &n) == GM_OK && n == 64);
  CHECK(gm_context_random_states(1, &n) == GM_OK && n == 32);
  CHECK(gm_context_random_states(4096, &n) == GM_OK && n == 4096);
  CHECK(gm_context_random_states(1 << 24, &n) == GM_OK && n == 1 << 24);
  CHECK(gm_context_random_states(0, &n) == GM_EINVAL);
  CHECK(strcmp(gm_last_error(), "option 'n_random_states' must be in 1..16777216, got 0") == 0);
  CHECK(gm_context_random_states((1 << 24) + 1, &n) == GM_EINVAL);
  CHECK(gm_context_check_device_id(63) == GM_OK);
  CHECK(gm_context_check_device_id(64) == GM_EINVAL);
  CHECK(strcmp(gm_last_error(), "option 'device_id' must be at most 63, got 64") == 0);
  const char *b = NULL;
  bool named = false;
  CHECK(gm_context_parse_backend("emulated", &b) == GM_OK && strcmp(b, "emulated") == 0);
  CHECK(gm_context_parse_backend("gpu", &b) == GM_EINVAL);
  CHECK(strcmp(gm_last_error(), "option 'backend' must be \"cuda\" or \"emulated\", got gpu") == 0);
  unsetenv("GPUMAT_DEVICE");
  CHECK(gm_context_default_backend(&b, &named) == GM_OK && strcmp(b, "cuda") == 0 && !named);
  setenv("GPUMAT_DEVICE", "emulated", 1);
  CHECK(gm_context_default_backend(&b, &named) == GM_OK && strcmp(b, "emulated") == 0 && named);
  setenv("GPUMAT_DEVICE", "tpu", 1);
  CHECK(gm_context_default_backend(&b, &named) == GM_EINVAL);
  CHECK(strcmp(gm_last_error(), "environment variable GPUMAT_DEVICE must be \"cuda\" or \"emulated\", got 'tpu'") == 0);
  unsetenv("GPUMAT_DEVICE");
  gm_settings s = gm_settings_defaults;
  s.cuda_default_device_id = 2;
  s.cuda_default_random_seed = 99;
  gm_context_options o;
  gm_context_options_default(&o, &s);
  CHECK(o.device_id == 2 && o.random_seed == 99 && o.n_random_states == 4096 && o.backend == NULL);
  CHECK(o.n_pool_bytes == 0 && o.gc_hook == NULL && o.enabled == gm_cuda_enabled);
}

static void test_kernel_spec(void) {
  gm_kernel_arg args[GM_KERNEL_MAX_ARGS];
  CHECK(gm_kernel_parse_spec("ionxs", 5, args) == GM_OK);
  CHECK(args[0].kind == GM_KARG_MAT && args[0].dir == GM_INPUT);
  CHECK(args[1].kind == GM_KARG_MAT && args[1].dir == GM_OUTPUT);
  CHECK(args[2].kind == GM_KARG_INT && args[3].kind == GM_KARG_MAT && args[3].dir == GM_IO);
  CHECK(args[4].kind == GM_KARG_SCALAR && args[4].m == NULL);
  CHECK(gm_kernel_parse_spec("iq", 2, args) == GM_EINVAL && strcmp(gm_last_error(), "bad parameter spec") == 0);
  char many[GM_KERNEL_MAX_ARGS + 2];
  memset(many, 's', sizeof many - 1);
  many[sizeof many - 1] = '\0';
  CHECK(gm_kernel_parse_spec(many, GM_KERNEL_MAX_ARGS, args) == GM_OK);
  CHECK(gm_kernel_parse_spec(many, GM_KERNEL_MAX_ARGS + 1, args) == GM_EINVAL);
  CHECK(strcmp(gm_last_error(), "at most 32 parameters") == 0);
  CHECK(gm_kernel_spec_is_mat('x') && !gm_kernel_spec_is_mat('s'));
  long long g[6] = {4, 2, 1, 256, 1, 1};
  unsigned geom[6] = {0};
  CHECK(gm_kernel_check_geometry(g, geom) == GM_OK && geom[0] == 4 && geom[3] == 256);
  g[5] = 0;
  CHECK(gm_kernel_check_geometry(g, geom) == GM_EINVAL && strcmp(gm_last_error(), "bad launch geometry") == 0);
  g[5] = 0x80000000LL;
  CHECK(gm_kernel_check_geometry(g, geom) == GM_EINVAL);
}

static void test_room(void) {
  gm_device *d = NULL;
  CHECK(gm_device_get("emulated", 0, &d) == GM_OK);
  if (!d) return;
  char text[512];
  gm_room_report(d, false, text, sizeof text);
  CHECK(strcmp(text, "d: 0 (0 + 0), h: 0 (0)\nh->d: 0, d->h: 0\n") == 0);
  gm_room_report(d, true, text, sizeof text);
  CHECK(strcmp(text, "CUDA memory usage:\ndevice arrays: 0 (used bytes: 0, pooled bytes: 0)\nhost arrays: 0 (used "
                     "bytes: 0)\nhost->device copies: 0, device->host copies: 0\n") == 0);
  /* the copy counters are grouped by three, as MGL's ~:D prints them */
  atomic_store(&gm_counter.n_memcpy_host_to_device, 1234567);
  gm_room_report(d, false, text, sizeof text);
  CHECK(strcmp(text, "d: 0 (0 + 0), h: 0 (0)\nh->d: 1,234,567, d->h: 0\n") == 0);
  atomic_store(&gm_counter.n_memcpy_host_to_device, 0);
  gm_room_report(d, true, text, 20); /* truncated, still a string */
  CHECK(strlen(text) == 19);
}

int main(void) {
  test_defaults();
  test_range_errors();
  test_sets();
  test_context_options();
  test_kernel_spec();
  test_room();
  if (gm_test_failed) fprintf(stderr, "%d checks failed\n", (int)gm_test_failed);
  return gm_test_failed ? 1 : 0;
}
