-- Run-time kernels on a real GPU (pending without one): NVRTC's CUBIN (PTX
-- when NVRTC makes no machine code for the device) loaded
-- with the runtime's library API and launched on the context's stream
-- (docs/GPU.md).  The compile step is checked without a GPU in
-- spec/kernel_spec.lua.  #outermost: not wrapped by spec/helper.lua.
local gm = require "gpumat"
local need_gpu, CUDA = require("gpu_case")(_ENV)

describe("run-time kernels on a real GPU", function()
  it("a grid-stride axpy compiled by NVRTC agrees with the host #outermost", function()
    if not need_gpu() then return end
    local k = gm.define_cuda_kernel {
      name = "gpu_axpy", ctypes = { "float", "double" },
      params = { { "alpha", "scalar" }, { "x", "mat", "input" }, { "y", "mat", "io" }, { "n", "int" } },
      body = [[
        for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
             i += (int64_t)blockDim.x * gridDim.x)
          y[i] += alpha * x[i];
      ]],
    }
    gm.with_cuda(CUDA, function()
      local x = gm.mat(5000, { ctype = "float", initial_element = 2 })
      local y = gm.mat(5000, { ctype = "float", initial_element = 1 })
      local c0 = gm.kernel_cache_info().cuda_launches
      k(0.5, x, y, 5000)
      assert.are.equal(c0 + 1, gm.kernel_cache_info().cuda_launches)
      assert.are.equal("C", y:facets()) -- written on the device only
      assert.are.equal(2, y[1])
      assert.are.equal(2, y[5000])
    end)
  end)

  it("a kernel with one io mat writes on the device #outermost", function()
    if not need_gpu() then return end
    local k = gm.define_cuda_kernel {
      name = "gpu_ok", ctypes = { "float" }, params = { { "x", "mat", "io" } }, body = "x[0] = 1;",
    }
    gm.with_cuda(CUDA, function()
      local x = gm.mat(1, { ctype = "float", initial_element = 0 })
      k(x)
      assert.are.equal(1, x[1])
    end)
  end)

  it("float and double scalars, int params and an explicit geometry reach the device #outermost", function()
    if not need_gpu() then return end
    local k = gm.define_cuda_kernel {
      name = "gpu_scale_add", ctypes = { "float", "double" },
      params = { { "a", "scalar" }, { "x", "mat", "input" }, { "y", "mat", "output" }, { "n", "int" } },
      body = [[
        int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + (T)i;
      ]],
    }
    for _, ct in ipairs { "float", "double" } do
      local before = gm.kernel_cache_info().cuda_launches
      gm.with_cuda(CUDA, function()
        local n = 1000
        local x = gm.mat(n, { ctype = ct, initial_element = 3 })
        local y = gm.mat(n, { ctype = ct, initial_element = 0 })
        k(0.25, x, y, n, { grid_dim = { 4 }, block_dim = { 256 } })
        for i = 1, n do assert.are.equal(0.75 + (i - 1), y[i]) end
      end)
      assert.are.equal(before + 1, gm.kernel_cache_info().cuda_launches)
    end
  end)

  it("a block with __syncthreads and shared memory reduces on the device #outermost", function()
    if not need_gpu() then return end
    local k = gm.define_cuda_kernel {
      name = "gpu_block_sum", ctypes = { "double" },
      params = { { "x", "mat", "input" }, { "out", "mat", "output" } },
      body = [[
        __shared__ double s[256];
        s[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
        __syncthreads();
        for (int w = 128; w > 0; w /= 2) {
          if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
          __syncthreads();
        }
        if (threadIdx.x == 0) out[blockIdx.x] = s[0];
      ]],
    }
    gm.with_cuda(CUDA, function()
      local x = gm.mat(512, { ctype = "double" })
      for i = 1, 512 do x[i] = i end
      local out = gm.mat(2, { ctype = "double" })
      k(x, out, { grid_dim = { 2 }, block_dim = { 256 } })
      assert.are.equal(256 * 257 / 2, out[1])
      assert.are.equal(512 * 513 / 2 - 256 * 257 / 2, out[2])
    end)
  end)

  it("runs on the device in a process without a C++ compiler #outermost", function()
    if not need_gpu() then return end
    local build = os.getenv("GPUMAT_BUILD_DIR") or "build"
    local script = os.tmpname()
    local f = assert(io.open(script, "w"))
    f:write([[
      package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
      package.cpath = ]] .. ("%q"):format(build .. "/?.so") .. [[ .. ";" .. package.cpath
      local gm = require "gpumat"
      local k = gm.define_cuda_kernel { name = "gpu_nocxx", ctypes = { "float" },
        params = { { "x", "mat", "io" }, { "n", "int" } },
        body = "int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; if (i < n) x[i] *= 2;" }
      gm.with_cuda({ backend = "cuda" }, function()
        local x = gm.mat(1000, { ctype = "float", initial_element = 3 })
        k(x, 1000)
        -- (tostring: io.write prints a float 6.0 as "6")
        io.write(tostring(x[1]), " ", tostring(x[1000]), " ", gm.kernel_cache_info().cuda_launches, "\n")
      end)
    ]])
    f:close()
    local p = assert(io.popen(("GPUMAT_CXX=/nonexistent/c++ %q %q 2>&1"):format("lua5.4", script)))
    local out = p:read("a")
    p:close()
    os.remove(script)
    assert.are.equal("6.0 6.0 1\n", out)
  end)
end)
