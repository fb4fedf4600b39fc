-- gpumat.blas_env (src/lua/blas_env.c): `require "gpumat"` sets
-- OPENBLAS_THREAD_TIMEOUT to 20 before gpumat.core loads OpenBLAS, so its
-- workers spin half a millisecond after a threaded call rather than a
-- tenth of a second; a value already in the environment is kept.  Each
-- case is a fresh lua5.4, as OpenBLAS reads its environment once.
local function child(env)
  local code = ("package.path, package.cpath = %q, %q\n"):format(package.path, package.cpath) .. [[
    local gm = require "gpumat"
    local m = gm.mat({ 2, 2 }, { initial_element = 1 })
    io.write(tostring(os.getenv("OPENBLAS_THREAD_TIMEOUT")), " ", (m * m):mref(1, 1), "\n")
  ]]
  local p = assert(io.popen(("%s lua5.4 -e %q 2>&1"):format(env, code)))
  local out = p:read("a")
  p:close()
  return out
end

describe("OpenBLAS's worker spin", function()
  it("is set to 2^20 cycles before OpenBLAS loads", function()
    assert.are.equal("20 2\n", child("env -u OPENBLAS_THREAD_TIMEOUT"))
  end)

  it("keeps a value the environment already has", function()
    assert.are.equal("7 2\n", child("env OPENBLAS_THREAD_TIMEOUT=7"))
  end)
end)
