-- Runs the C test executables (CMake targets gpumat_c_api_test,
-- gpumat_facet_thread_test and gpumat_embed_api_test) from the build
-- directory the suite uses.
local function run_c_test(name, env)
  local build = os.getenv("GPUMAT_BUILD_DIR") or "build"
  local exe = build .. "/" .. name
  local f = io.open(exe, "rb")
  assert(f, exe .. " is missing: build the " .. name .. " target")
  f:close()
  local ok, how, code = os.execute((env or "") .. exe .. " >/dev/null")
  assert.is_true(ok, ("%s failed (%s %s)"):format(exe, tostring(how), tostring(code)))
  assert.are.equal("exit", how)
  assert.are.equal(0, code)
end

describe("public C API", function()
  it("tests/c_api_test.c passes", function()
    run_c_test("gpumat_c_api_test")
  end)
  it("tests/facet_thread_test.c passes (watchers across threads, per-vec lock)", function()
    run_c_test("gpumat_facet_thread_test")
  end)
  it("tests/context_thread_test.c passes (one host thread per device)", function()
    run_c_test("gpumat_context_thread_test")
  end)
  it("tests/blas_chunk_test.c passes (level-1 BLAS split beyond int counts)", function()
    run_c_test("gpumat_blas_chunk_test")
  end)
  it("tests/block_test.c passes (blocks, pitched copies, alloc caches)", function()
    run_c_test("gpumat_block_test")
  end)
  it("tests/h2d_queue_test.c passes (review #10: H2D from page-locked memory on the copy stream)", function()
    run_c_test("gpumat_h2d_queue_test")
  end)
  it("tests/buffer_api_test.c passes (buffers, views, copies, ensure, alloc caches)", function()
    run_c_test("gpumat_buffer_api_test")
  end)
  it("tests/embed_api_test.c passes (gm_mat_wrap, access, contexts, ops, gpumat_lua.h)", function()
    -- with leak detection: in the ASan build a leaked mat, view or Lua
    -- state fails the test (ignored by the other builds)
    run_c_test("gpumat_embed_api_test", "ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0:abort_on_error=1 ")
  end)
end)
