-- NVRTC compile step of run-time kernels on a CUDA device (no GPU needed:
-- NVRTC is a library).  Pending when gpumat is built without the CUDA
-- toolkit (GPUMAT_CUDA=OFF, the ASan passes).
local gm = require "gpumat"

local function nvrtc_available()
  local ok, why = pcall(gm.nvrtc_compile_ptx, 'extern "C" __global__ void gm_probe() {}', "sm_80", "probe")
  return ok, why
end

local function need_nvrtc()
  local ok, why = nvrtc_available()
  if not ok then pending("NVRTC not available: " .. tostring(why)) end
  return ok
end

local axpy = {
  name = "nv_axpy", ctypes = { "float", "double" },
  params = { { "alpha", "scalar" }, { "x", "mat", "input" }, { "y", "mat", "io" }, { "n", "int" } },
  body = [[
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)blockDim.x * gridDim.x)
      y[i] += alpha * x[i];
  ]],
}

describe("run-time kernels compiled by NVRTC", function()
  it("the generated CUDA source compiles for sm_80 to PTX with the kernel's entry", function()
    if not need_nvrtc() then return end
    local k = gm.define_cuda_kernel(axpy)
    local src = k:cuda_source("float")
    assert.truthy(src:find('extern "C" __global__ void nv_axpy(float alpha', 1, true)
      or src:find('extern "C" __global__ void nv_axpy(T alpha', 1, true))
    local ptx = k:ptx("float", "sm_80")
    assert.are.equal("nv_axpy", ptx:match("%.entry%s+([%w_]+)"))
    assert.truthy(ptx:find(".target sm_80", 1, true))
    -- float: single-precision fused multiply-add on the loaded values
    assert.truthy(ptx:find("fma.rn.f32", 1, true))
    local dptx = k:ptx("double", "compute_86")
    assert.are.equal("nv_axpy", dptx:match("%.entry%s+([%w_]+)"))
    assert.truthy(dptx:find(".target sm_86", 1, true))
    assert.truthy(dptx:find("fma.rn.f64", 1, true))
    -- 4 parameters: alpha, x, y, n
    local params = ptx:match("%.entry%s+nv_axpy%s*%((.-)%)")
    local n = 0
    for _ in params:gmatch("%.param") do n = n + 1 end
    assert.are.equal(4, n)
  end)

  it("a body that does not compile raises nvrtc_error with the log naming the body's line", function()
    if not need_nvrtc() then return end
    -- host C++ (fopen) compiles on the CPU model, not for a device
    local k = gm.define_cuda_kernel {
      name = "nv_bad", ctypes = { "double" }, params = { { "x", "mat", "io" } },
      body = "x[0] = 1;\nif (x[0] > 2) fopen(\"/dev/null\", \"r\");\n",
    }
    local ok, e = pcall(k.ptx, k, "double", "sm_80")
    assert.is_false(ok)
    assert.are.equal("table", type(e))
    assert.are.equal("nvrtc_error", e.kind)
    assert.are.equal("nvrtcCompileProgram", e.function_name)
    assert.truthy(e.log:find('nv_bad(2): error: identifier "fopen" is undefined', 1, true), e.log)
    assert.truthy(tostring(e):find("fopen", 1, true))
  end)

  it("the PTX is cached in memory and on disk (a second process hits the disk cache)", function()
    if not need_nvrtc() then return end
    local dir = os.tmpname()
    os.remove(dir)
    assert.is_true(os.execute("mkdir -p '" .. dir .. "'"))
    local build = os.getenv("GPUMAT_BUILD_DIR") or "build"
    local script = dir .. "/run.lua"
    local f = assert(io.open(script, "w"))
    f:write([[
      package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
      package.cpath = ]] .. ("%q"):format(build .. "/?.so") .. [[ .. ";" .. package.cpath
      local gm = require "gpumat"
      local src = 'extern "C" __global__ void nv_cached(float *x) { x[threadIdx.x] *= 2.0f; }'
      local p1 = gm.nvrtc_compile_ptx(src, "sm_80", "nv_cached")
      local p2 = gm.nvrtc_compile_ptx(src, "sm_80", "nv_cached")
      assert(p1 == p2 and p1:find(".entry nv_cached", 1, true))
      local i = gm.kernel_cache_info()
      io.write(i.compiles, " ", i.disk_hits, " ", i.memory_hits, "\n")
    ]])
    f:close()
    local function run()
      local p = assert(io.popen("GPUMAT_CACHE_DIR='" .. dir .. "' lua5.4 '" .. script .. "'", "r"))
      local out = p:read("a")
      assert.is_true(p:close())
      return out
    end
    assert.are.equal("1 0 1\n", run())
    assert.are.equal("0 1 1\n", run())
    -- a corrupted source file under the key is not trusted: recompiled
    for name in io.popen("ls '" .. dir .. "/kernels'"):lines() do
      if name:match("%.cu$") then
        local g = assert(io.open(dir .. "/kernels/" .. name, "w"))
        g:write("other")
        g:close()
      end
    end
    assert.are.equal("1 0 1\n", run())
    os.execute("rm -rf '" .. dir .. "'")
  end)

  it("shared memory, __syncthreads and atomics compile to the device's instructions", function()
    if not need_nvrtc() then return end
    local k = gm.define_cuda_kernel {
      name = "nv_block_sum", ctypes = { "float" },
      params = { { "x", "mat", "input" }, { "out", "mat", "io" }, { "n", "int" } },
      body = [[
        __shared__ T s[256];
        int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
        s[threadIdx.x] = i < n ? x[i] : 0;
        __syncthreads();
        for (int w = blockDim.x / 2; w > 0; w /= 2) {
          if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
          __syncthreads();
        }
        if (threadIdx.x == 0) atomicAdd(&out[0], s[0]);
      ]],
    }
    local ptx = k:ptx("float", 75)
    assert.are.equal("nv_block_sum", ptx:match("%.entry%s+([%w_]+)"))
    assert.truthy(ptx:find(".target sm_75", 1, true))
    assert.truthy(ptx:find(".shared .align 4 .b8", 1, true))
    assert.truthy(ptx:find("bar.sync", 1, true))
    assert.truthy(ptx:find("atom.global.add.f32", 1, true) or ptx:find("red.global.add.f32", 1, true))
    -- the same kernel still runs on the CPU model
    local x = gm.mat(1000, { ctype = "float", initial_element = 1 })
    local out = gm.mat(1, { ctype = "float", initial_element = 0 })
    k(x, out, 1000, { grid_dim = { 4 }, block_dim = { 256 } })
    assert.are.equal(1000, out[1])
  end)

  it("bad arguments name the function and the argument", function()
    assert.has_error(function() gm.nvrtc_compile_ptx(1, "sm_80") end,
      "bad argument #1 to 'nvrtc_compile_ptx' (string expected, got number)")
    assert.has_error(function() gm.nvrtc_compile_ptx("", "gfx90") end,
      "bad argument #2 to 'nvrtc_compile_ptx' (arch must be sm_XY, compute_XY or an integer XY, got gfx90)")
    local k = gm.define_cuda_kernel { name = "nv_args", ctypes = { "double" }, params = {}, body = "" }
    assert.has_error(function() k:ptx("float", "sm_80") end,
      "bad argument #2 to 'ptx' (ctype of the definition expected, got float)")
  end)
end)
