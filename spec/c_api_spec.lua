-- Runs the C API test executable (tests/c_api_test.c, CMake target
-- gpumat_c_api_test) from the build directory the suite uses.
describe("public C API", function()
  it("tests/c_api_test.c passes", function()
    local build = os.getenv("GPUMAT_BUILD_DIR") or "build"
    local exe = build .. "/gpumat_c_api_test"
    local f = io.open(exe, "rb")
    assert(f, exe .. " is missing: build the gpumat_c_api_test target")
    f:close()
    local ok, how, code = os.execute(exe .. " >/dev/null")
    assert.is_true(ok, ("%s failed (%s %s)"):format(exe, tostring(how), tostring(code)))
    assert.are.equal("exit", how)
    assert.are.equal(0, code)
  end)
end)
