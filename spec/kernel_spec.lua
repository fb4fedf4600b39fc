-- Run-time kernels (gm.define_cuda_kernel) on the CPU model of CUDA
-- (kernels/cpu/cuda_cpu.h).  In the host pass they run on the host facet;
-- in the GPUMAT_DEVICE=emulated pass (spec/helper.lua wraps every test in
-- with_cuda) on the emulated device's memory: the launch counters say
-- which, and the results are checked against plain Lua either way.
local gm = require "gpumat"

local device = os.getenv("GPUMAT_DEVICE") or ""
-- GPUMAT_EMULATED_GEOMETRY=exact (tools/suite.d/24-exact-geometry.sh):
-- no range form, every launch runs its threads, with the same values
local RANGED = os.getenv("GPUMAT_EMULATED_GEOMETRY") == "exact" and 0 or 1
local tol = require("blas_ref").tol -- the ctype list's tolerance column

-- the launch counter of the device spec/helper.lua wraps the tests in
local counter = ({ cuda = "cuda_launches", emulated = "emulated_launches" })[device] or "host_launches"
local function launches() return gm.kernel_cache_info()[counter] end

local function close(a, b, t) return math.abs(a - b) <= t * math.max(1, math.abs(b)) end

local axpy_body = [[
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)blockDim.x * gridDim.x)
    y[i] += alpha * x[i];
]]
local axpy_params = { { "alpha", "scalar" }, { "x", "mat", "input" }, { "y", "mat", "io" }, { "n", "int" } }

describe("define_cuda_kernel", function()
  local axpy = gm.define_cuda_kernel { name = "spec_axpy", params = axpy_params, body = axpy_body }

  for _, ct in ipairs { "float", "double" } do
    it("runs a grid-stride kernel with the default geometry (" .. ct .. ")", function()
      local n = 100003 -- not a multiple of any block: the loop bound matters
      local xs, ys = {}, {}
      for i = 1, n do xs[i], ys[i] = (i % 17) * 0.25, (i % 5) - 2 end
      local x = gm.array_to_mat(xs, { ctype = ct })
      local y = gm.array_to_mat(ys, { ctype = ct })
      local l0 = launches()
      axpy(1.5, x, y, n)
      assert.are.equal(l0 + 1, launches())
      local out = y:to_table()
      for i = 1, n do
        local want = gm.coerce_to_ctype(ys[i] + gm.coerce_to_ctype(1.5, ct) * gm.coerce_to_ctype(xs[i], ct), ct)
        if not close(out[i], want, tol[ct]) then
          error(("element %d: %s, expected %s"):format(i, out[i], want))
        end
      end
      assert.are.equal(ct, y:ctype())
    end)
  end

  it("the default launch gives every element of the first mat a thread, beyond 65535 blocks", function()
    -- one element per thread (`if (i < n)`), the other CUDA idiom; the
    -- mat is never touched, only its size sets the grid
    local k = gm.define_cuda_kernel {
      name = "spec_cover", ctypes = { "double" },
      params = { { "x", "mat", "input" }, { "out", "mat", "io" }, { "n", "int" } },
      body = [[
        int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
        if (i == n - 1) { out[0] = gridDim.x; out[1] = blockDim.x; out[2] = 1; }
        if (i >= n) atomicAdd(&out[3], 1.0);
      ]],
    }
    local n = 65535 * 256 + 1000
    local x = gm.mat(n, { ctype = "double" })
    local out = gm.mat(4, { ctype = "double", initial_element = 0 })
    k(x, out, n)
    -- ceil(n / 256) blocks of 256: 24 threads past the end, which idle
    assert.are.same({ 65539, 256, 1, 24 }, out:to_table())
  end)

  it("runs grid-stride and per-element bodies as ranges on 1-d launches, thread by thread otherwise #nocuda", function()
    -- the CPU model's range form (lua/gpumat/kernel_range.lua): the same
    -- values as running every thread, which 2-d grids still do
    local elem = gm.define_cuda_kernel {
      name = "spec_elem_axpy", params = axpy_params,
      body = "int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;\nif (i < n) y[i] += alpha * x[i];",
    }
    local n = 1000
    local function run(k, opts, ctype)
      local x = gm.mat(n, { ctype = ctype, initial_element = 1 })
      local y = gm.mat(n, { ctype = ctype, initial_element = 2 })
      local r0 = gm.kernel_cache_info().range_launches
      if opts then k(0.5, x, y, n, opts) else k(0.5, x, y, n) end
      return y:to_table(), gm.kernel_cache_info().range_launches - r0
    end
    local function count(t, v)
      local c = 0
      for i = 1, #t do if t[i] == v then c = c + 1 end end
      return c
    end
    for _, ct in ipairs { "float", "double" } do
      -- default launch: every element once
      local out, ranged = run(axpy, nil, ct)
      assert.are.equal(RANGED, ranged)
      assert.are.equal(n, count(out, 2.5))
      out, ranged = run(elem, nil, ct)
      assert.are.equal(RANGED, ranged)
      assert.are.equal(n, count(out, 2.5))
      -- a small explicit 1-d grid: the grid-stride loop still covers all,
      -- one element per thread covers the first 3 * 32 = 96
      out, ranged = run(axpy, { grid_dim = { 3 }, block_dim = { 32 } }, ct)
      assert.are.equal(RANGED, ranged)
      assert.are.equal(n, count(out, 2.5))
      out, ranged = run(elem, { grid_dim = { 3 }, block_dim = { 32 } }, ct)
      assert.are.equal(RANGED, ranged)
      assert.are.equal(96, count(out, 2.5))
      for i = 1, 96 do assert.are.equal(2.5, out[i]) end
      assert.are.equal(n - 96, count(out, 2))
      -- a 2-d grid runs thread by thread: both rows of blocks update
      -- every element, so each gets alpha * x twice
      out, ranged = run(axpy, { grid_dim = { 2, 2 }, block_dim = { 64 } }, ct)
      assert.are.equal(0, ranged)
      assert.are.equal(n, count(out, 3))
      out, ranged = run(elem, { grid_dim = { 8, 2 }, block_dim = { 128 } }, ct)
      assert.are.equal(0, ranged)
      assert.are.equal(n, count(out, 3))
    end
    -- a body the range form must refuse runs every thread, with its values
    local tid = gm.define_cuda_kernel {
      name = "spec_tid", ctypes = { "double" }, params = { { "y", "mat", "output" }, { "n", "int" } },
      body = "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = threadIdx.x;",
    }
    local y = gm.mat(300, { ctype = "double" })
    local r0 = gm.kernel_cache_info().range_launches
    tid(y, 300, { grid_dim = { 2 }, block_dim = { 64 } })
    assert.are.equal(r0, gm.kernel_cache_info().range_launches)
    local out = y:to_table()
    for i = 1, 300 do assert.are.equal((i - 1) % 64, out[i], i) end
  end)

  it("passes the first visible element of a displaced mat", function()
    local base = gm.mat(10, { initial_element = 0, ctype = "double" })
    local view = base:reshape_and_displace({ 4 }, 3)
    local x = gm.mat(4, { initial_element = 1, ctype = "double" })
    axpy(2, x, view, 4)
    assert.are.same({ 0, 0, 0, 2, 2, 2, 2, 0, 0, 0 }, base:to_table())
  end)

  it("runs every thread of every block with explicit 3-d geometry", function()
    local k = gm.define_cuda_kernel {
      name = "spec_geometry", ctypes = { "double" },
      params = { { "out", "mat", "output" } },
      body = [[
        int64_t b = blockIdx.x + gridDim.x * (blockIdx.y + (int64_t)gridDim.y * blockIdx.z);
        int64_t t = threadIdx.x + blockDim.x * (threadIdx.y + (int64_t)blockDim.y * threadIdx.z);
        int64_t g = b * (blockDim.x * blockDim.y * blockDim.z) + t;
        out[g] = 1000 * b + t + 1;
      ]],
    }
    local grid, block = { 3, 2, 2 }, { 4, 3, 2 }
    local nb, nt = 12, 24
    local out = gm.mat(nb * nt, { initial_element = 0, ctype = "double" })
    k(out, { grid_dim = grid, block_dim = block })
    local t = out:to_table()
    for b = 0, nb - 1 do
      for th = 0, nt - 1 do
        assert.are.equal(1000 * b + th + 1, t[b * nt + th + 1])
      end
    end
  end)

  it("__syncthreads is a barrier of the block (shifted read of __shared__)", function()
    local k2 = gm.define_cuda_kernel {
      name = "spec_rotate2", ctypes = { "float" },
      params = { { "x", "mat", "input" }, { "y", "mat", "output" } },
      body = [[
        __shared__ T s[128];
        int t = threadIdx.x;
        int64_t base = (int64_t)blockIdx.x * blockDim.x;
        s[t] = x[base + t];
        __syncthreads();
        T v = s[(t + 1) % blockDim.x];
        __syncthreads();
        s[t] = v * 2;
        __syncthreads();
        y[base + t] = s[(t + blockDim.x - 1) % blockDim.x];
      ]],
    }
    local nb, bs = 8, 128
    local xs = {}
    for i = 1, nb * bs do xs[i] = i end
    local x = gm.array_to_mat(xs, { ctype = "float" })
    local y = gm.mat(nb * bs, { ctype = "float", initial_element = 0 })
    k2(x, y, { grid_dim = { nb }, block_dim = { bs } })
    local t = y:to_table()
    -- y[t] = 2 * s_old[(t - 1 + 1) % bs] = 2 * x[t]
    for b = 0, nb - 1 do
      for th = 0, bs - 1 do assert.are.equal(2 * xs[b * bs + th + 1], t[b * bs + th + 1]) end
    end
  end)

  for _, ct in ipairs { "float", "double" } do
    it("reduces in blocks with __shared__ and __syncthreads (" .. ct .. ")", function()
      local k = gm.define_cuda_kernel {
        name = "spec_block_sum", ctypes = { ct },
        params = { { "x", "mat", "input" }, { "partial", "mat", "output" }, { "n", "int" } },
        body = [[
          __shared__ T s[256];
          T acc = 0;
          for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
               i += (int64_t)blockDim.x * gridDim.x)
            acc += x[i];
          s[threadIdx.x] = acc;
          __syncthreads();
          for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
            if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
            __syncthreads();
          }
          if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
        ]],
      }
      local n, nb = 50000, 16
      local xs = {}
      for i = 1, n do xs[i] = i % 7 end
      local x = gm.array_to_mat(xs, { ctype = ct })
      local partial = gm.mat(nb, { ctype = ct, initial_element = -1 })
      k(x, partial, n, { grid_dim = { nb }, block_dim = { 256 } })
      local p = partial:to_table()
      local total = 0
      for b = 0, nb - 1 do
        local want = 0
        for i = b * 256, n - 1, nb * 256 do
          for j = i, math.min(i + 255, n - 1) do want = want + xs[j + 1] end
        end
        assert.are.equal(want, p[b + 1])
        total = total + p[b + 1]
      end
      local all = 0
      for i = 1, n do all = all + xs[i] end
      assert.are.equal(all, total)
    end)
  end

  for _, ct in ipairs { "float", "double" } do
    it("atomics from many blocks (" .. ct .. ")", function()
      local k = gm.define_cuda_kernel {
        name = "spec_atomics", ctypes = { ct },
        params = { { "x", "mat", "input" }, { "out", "mat", "io" }, { "n", "int" } },
        body = [[
          __shared__ int count;
          __shared__ unsigned ucount;
          if (threadIdx.x == 0) { count = 0; ucount = 0u; }
          __syncthreads();
          for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
               i += (int64_t)blockDim.x * gridDim.x) {
            atomicAdd(&out[0], x[i]);
            // CUDA has no float or double atomicMax: the bits of a
            // non-negative value order as an unsigned integer's
            if (sizeof(T) == 4) atomicMax((unsigned *)(void *)&out[1], __float_as_uint((float)x[i]));
            else atomicMax((unsigned long long *)(void *)&out[1], (unsigned long long)__double_as_longlong((double)x[i]));
            atomicAdd(&count, 1);
            unsigned old = ucount, seen;
            while ((seen = atomicCAS(&ucount, old, old + 1u)) != old) old = seen;
          }
          __syncthreads();
          if (threadIdx.x == 0) {
            atomicAdd(&out[2], (T)count);
            atomicAdd(&out[3], (T)ucount);
            if (sizeof(T) == 4) atomicMax((unsigned *)(void *)&out[4], __float_as_uint((float)blockIdx.x));
            else atomicMax((unsigned long long *)(void *)&out[4], (unsigned long long)__double_as_longlong((double)blockIdx.x));
          }
        ]],
      }
      local n = 40000
      local xs = {}
      for i = 1, n do xs[i] = (i * 37) % 101 end
      local x = gm.array_to_mat(xs, { ctype = ct })
      local out = gm.mat(5, { ctype = ct, initial_element = 0 })
      k(x, out, n, { grid_dim = { 50 }, block_dim = { 64 } })
      local o = out:to_table()
      local sum, mx = 0, 0
      for i = 1, n do sum, mx = sum + xs[i], math.max(mx, xs[i]) end
      -- integer-valued sums below 2^24 are exact in float whatever the order
      assert.are.equal(sum, o[1])
      assert.are.equal(mx, o[2])
      assert.are.equal(n, o[3])
      assert.are.equal(n, o[4])
      assert.are.equal(49, o[5])
    end)
  end

  -- CUDA's launch limits hold on every backend: a
  -- geometry the host or the emulated device runs must launch on a GPU,
  -- which refuses these with cudaErrorInvalidConfiguration.  Nothing runs.
  it("refuses a geometry beyond CUDA's launch limits on every backend", function()
    local x = gm.mat(4, { ctype = "float", initial_element = 1 })
    local y = gm.mat(4, { ctype = "float", initial_element = 1 })
    local l0 = launches()
    local function refused(opts, msg)
      assert.has_error(function() axpy(1, x, y, 4, opts) end, "bad argument #5 to 'spec_axpy' (" .. msg .. ")")
    end
    refused({ grid_dim = { 1, 65536 }, block_dim = { 32 } },
      "grid_dim[2] is 65536, over CUDA's limit of 65535 (cudaErrorInvalidConfiguration on a GPU)")
    refused({ grid_dim = { 1, 1, 65536 }, block_dim = { 32 } },
      "grid_dim[3] is 65536, over CUDA's limit of 65535 (cudaErrorInvalidConfiguration on a GPU)")
    refused({ grid_dim = { 0x80000000 }, block_dim = { 32 } },
      "grid_dim[1] is 2147483648, over CUDA's limit of 2147483647 (cudaErrorInvalidConfiguration on a GPU)")
    refused({ grid_dim = { 1 }, block_dim = { 1025 } },
      "block_dim[1] is 1025, over CUDA's limit of 1024 (cudaErrorInvalidConfiguration on a GPU)")
    refused({ grid_dim = { 1 }, block_dim = { 1, 1025 } },
      "block_dim[2] is 1025, over CUDA's limit of 1024 (cudaErrorInvalidConfiguration on a GPU)")
    refused({ grid_dim = { 1 }, block_dim = { 1, 1, 65 } },
      "block_dim[3] is 65, over CUDA's limit of 64 (cudaErrorInvalidConfiguration on a GPU)")
    refused({ grid_dim = { 1 }, block_dim = { 16, 16, 8 } }, "a block has at most 1024 threads, block_dim has 2048")
    assert.are.equal(l0, launches())
    assert.are.same({ 1, 1, 1, 1 }, y:to_table())
    -- the limits themselves launch: the last thread of the grid writes
    -- what it sees (grid y of 65535; a block of 1024 threads, z of 64)
    local corner = gm.define_cuda_kernel { name = "spec_corner", params = { { "y", "mat", "output" } }, body = [[
      if (blockIdx.x == gridDim.x - 1 && blockIdx.y == gridDim.y - 1 && blockIdx.z == gridDim.z - 1 &&
          threadIdx.x == blockDim.x - 1 && threadIdx.y == blockDim.y - 1 && threadIdx.z == blockDim.z - 1) {
        y[0] = (T)gridDim.y; y[1] = (T)gridDim.z; y[2] = (T)blockDim.z; y[3] = (T)(blockDim.x * blockDim.y);
      }
    ]] }
    corner(y, { grid_dim = { 1, 65535 }, block_dim = { 4 } })
    assert.are.same({ 65535, 1, 1, 4 }, y:to_table())
    corner(y, { grid_dim = { 1, 1, 3 }, block_dim = { 16, 1, 64 } })
    assert.are.same({ 1, 3, 64, 16 }, y:to_table())
    assert.are.equal(l0 + 2, launches())
  end)

  it("rejects wrong argument counts, kinds and mixed ctypes", function()
    local x = gm.mat(4, { ctype = "float", initial_element = 1 })
    local y = gm.mat(4, { ctype = "float", initial_element = 1 })
    local yd = gm.mat(4, { ctype = "double", initial_element = 1 })
    assert.has_error(function() axpy(1, x, y) end,
      "bad argument #4 to 'spec_axpy' (4 arguments expected, got 3)")
    assert.has_error(function() axpy(1, x, y, 4, 5, 6) end,
      "bad argument #5 to 'spec_axpy' (4 arguments expected, got 6)")
    assert.has_error(function() axpy(1, x, yd, 4) end,
      "bad argument #3 to 'spec_axpy' (y: mixed ctypes (float and double); all mat arguments must have one ctype)")
    assert.has_error(function() axpy("a", x, y, 4) end,
      "bad argument #1 to 'spec_axpy' (alpha: number expected, got string)")
    assert.has_error(function() axpy(1, x, y, 4.5) end,
      "bad argument #4 to 'spec_axpy' (n: integer expected, got float)")
    assert.has_error(function() axpy(1, 2, y, 4) end,
      "bad argument #2 to 'spec_axpy' (x: gpumat.mat expected, got number)")
    assert.has_error(function() axpy(1, x, y, 4, { grid_dim = { 1 } }) end,
      "bad argument #5 to 'spec_axpy' (both grid_dim and block_dim are needed)")
    assert.has_error(function() axpy(1, x, y, 4, { grid_dim = { 1 }, block_dim = { 32, 64 } }) end,
      "bad argument #5 to 'spec_axpy' (a block has at most 1024 threads, block_dim has 2048)")
    assert.has_error(function() axpy(1, x, y, 4, { grid = 1 }) end,
      "bad argument #5 to 'spec_axpy' (unknown option 'grid')")
    assert.has_error(function() axpy(1, x, x, 4) end,
      "spec_axpy: argument 3 shares its storage with another mat argument that is written")
    assert.are.same({ 1, 1, 1, 1 }, y:to_table())
    assert.has_error(function() gm.define_cuda_kernel { name = "1x", params = {}, body = "" } end,
      "bad argument #1 to 'define_cuda_kernel' (name must be a C identifier)")
    assert.has_error(function()
      gm.define_cuda_kernel { name = "k", params = { { "a", "vector" } }, body = "" }
    end, "bad argument #1 to 'define_cuda_kernel' (params[1] (a): kind must be mat, scalar or int)")
    assert.has_error(function()
      gm.define_cuda_kernel { name = "k", params = { { "a", "mat", "inout" } }, body = "" }
    end, "bad argument #1 to 'define_cuda_kernel' (params[1] (a): direction must be input, output or io)")
    assert.has_error(function()
      gm.define_cuda_kernel { name = "k", params = {}, body = "", ctypes = { "int" } }
    end, "bad argument #1 to 'define_cuda_kernel' (ctypes[1] must be float or double)")
  end)

  it("a body that does not compile raises an error object with the compiler's log at its first CPU launch #nocuda", function()
    local k = gm.define_cuda_kernel {
      name = "spec_broken", ctypes = { "float" }, params = { { "x", "mat", "io" } },
      body = "x[0] = undefined_variable_xyz;",
    }
    local x = gm.mat(2, { ctype = "float", initial_element = 3 })
    local ok, e = pcall(k, x)
    assert.are.same({ 3, 3 }, x:to_table())
    assert.is_false(ok)
    assert.are.equal("table", type(e))
    assert.are.equal("compile_error", e.kind)
    assert.truthy(e.log:find("undefined_variable_xyz", 1, true))
    assert.truthy(tostring(e):find("spec_broken: the kernel does not compile for float", 1, true))
  end)

  it("the second definition of the same source is a cache hit #nocuda", function()
    local def = { name = "spec_cached", ctypes = { "double" }, params = axpy_params, body = axpy_body .. "\n" }
    local x = gm.mat(3, { ctype = "double", initial_element = 2 })
    local y = gm.mat(3, { ctype = "double", initial_element = 1 })
    gm.define_cuda_kernel(def)(0.5, x, y, 3)
    local i0 = gm.kernel_cache_info()
    local k = gm.define_cuda_kernel(def)
    k(0.5, x, y, 3)
    local i1 = gm.kernel_cache_info()
    assert.are.equal(i0.compiles, i1.compiles)
    assert.are.equal(i0.disk_hits, i1.disk_hits)
    assert.are.equal(i0.memory_hits + 1, i1.memory_hits)
    assert.are.same({ 3, 3, 3 }, y:to_table())
  end)

  it("is defined without a C++ compiler, which only its first CPU launch needs", function()
    -- GPUMAT_CXX is read when gpumat loads: a fresh process
    local build = os.getenv("GPUMAT_BUILD_DIR") or "build"
    local lua = "lua5.4"
    local script = os.tmpname()
    local f = assert(io.open(script, "w"))
    f:write([[
      package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
      package.cpath = ]] .. ("%q"):format(build .. "/?.so") .. [[ .. ";" .. package.cpath
      local gm = require "gpumat"
      local k = gm.define_cuda_kernel { name = "spec_nocxx", ctypes = { "float", "double" },
        params = { { "x", "mat", "io" } }, body = "x[threadIdx.x] *= 2;" }
      io.write("defined ", tostring(gm.kernel_cache_info().compiles), "\n")
      local x = gm.mat(2, { ctype = "float", initial_element = 3 })
      local ok, e = pcall(k, x)
      io.write(tostring(ok), " ", tostring(e), "\n", table.concat(x:to_table(), ","), "\n")
    ]])
    f:close()
    local p = assert(io.popen(("GPUMAT_CXX=/nonexistent/c++ GPUMAT_CACHE_DIR=%q %q %q 2>&1"):format(
      os.tmpname() .. ".d", lua, script)))
    local out = p:read("a")
    p:close()
    os.remove(script)
    assert.are.equal("defined 0\nfalse spec_nocxx: running a kernel on the CPU (host or emulated device) needs a " ..
      "C++ compiler, and '/nonexistent/c++' (GPUMAT_CXX) does not run\n3.0,3.0\n", out)
  end)

  it("a kernel with no mat argument needs explicit geometry", function()
    local k = gm.define_cuda_kernel { name = "spec_nomat", ctypes = { "double" }, params = { { "n", "int" } }, body = "" }
    assert.has_error(function() k(1) end,
      "bad argument #2 to 'spec_nomat' (no mat argument to size the default launch: give {grid_dim, block_dim})")
    k(1, { grid_dim = { 2 }, block_dim = { 2 } })
  end)
end)

-- NVRTC needs no device: what a CUDA device would load is checked here,
-- in every pass (pending only in a build without the CUDA toolkit).
describe("define_cuda_kernel with NVRTC (compile only)", function()
  local have_nvrtc = select(2, pcall(function()
    local k = gm.define_cuda_kernel { name = "spec_probe", ctypes = { "float" }, params = {}, body = "" }
    return pcall(k.ptx, k, "float", 8, 0)
  end))
  local function need_nvrtc()
    if not have_nvrtc then pending("built without the CUDA toolkit: no NVRTC") end
    return have_nvrtc
  end

  it("compiles the body to PTX for a compute capability, typed per ctype", function()
    if not need_nvrtc() then return end
    local k = gm.define_cuda_kernel { name = "spec_nv_axpy", params = axpy_params, body = axpy_body }
    for _, c in ipairs { { "float", ".f32", 8, 0 }, { "double", ".f64", 9, 0 } } do
      local ptx = k:ptx(c[1], c[3], c[4])
      local entry = ptx:match("%.visible %.entry spec_nv_axpy(%b())")
      assert.truthy(entry, "no .entry spec_nv_axpy in the PTX")
      local params = {}
      for t in entry:gmatch("%.param (%.%w+)") do params[#params + 1] = t end
      assert.are.same({ c[2], ".u64", ".u64", ".u64" }, params) -- alpha, x, y, n
      assert.are.equal(("sm_%d%d"):format(c[3], c[4]), ptx:match("%.target ([%w_]+)"))
    end
  end)

  it("compiles the body to machine code (CUBIN) for a device's architecture, what a launch loads", function()
    if not need_nvrtc() then return end
    local k = gm.define_cuda_kernel { name = "spec_nv_cubin", params = axpy_params, body = axpy_body }
    local a = k:cubin("float", 8, 0)
    assert.are.equal("\127ELF", a:sub(1, 4))
    assert.are.equal(190, string.unpack("<I2", a, 19)) -- e_machine: EM_CUDA
    assert.truthy(a:find("spec_nv_cubin", 1, true), "no kernel symbol in the CUBIN")
    local i0 = gm.kernel_cache_info()
    assert.are.equal(a, k:cubin("float", 8, 0))
    assert.are.equal(i0.disk_hits + 1, gm.kernel_cache_info().disk_hits)
    assert.are_not.equal(a, k:cubin("float", 9, 0))
    assert.are_not.equal(k:cubin("double", 8, 0), a)
    assert.has_error(function() k:cubin("half", 8, 0) end,
      "bad argument #2 to 'cubin' (ctype must be one of the definition's ctypes, got half)")
    local ok, e = pcall(k.cubin, k, "float", 1, 0)
    assert.is_false(ok)
    assert.truthy(tostring(e):find("compute capability 1.0 is not one NVRTC knows", 1, true))
  end)

  it("a second definition of the same source is served from the disk cache", function()
    if not need_nvrtc() then return end
    local def = { name = "spec_nv_cached", ctypes = { "double" }, params = axpy_params, body = axpy_body .. "\n\n" }
    local a = gm.define_cuda_kernel(def):ptx("double", 8, 6)
    local i0 = gm.kernel_cache_info()
    local b = gm.define_cuda_kernel(def):ptx("double", 8, 6)
    local i1 = gm.kernel_cache_info()
    assert.are.equal(a, b)
    assert.are.equal(i0.compiles, i1.compiles)
    assert.are.equal(i0.disk_hits + 1, i1.disk_hits)
  end)

  it("a body NVRTC rejects raises nvrtc_error with the log", function()
    if not need_nvrtc() then return end
    -- valid C++ for the CPU model, an error only for NVRTC
    local k = gm.define_cuda_kernel { name = "spec_nv_broken", ctypes = { "float" }, params = { { "y", "mat", "io" } },
      body = "#ifdef __CUDACC_RTC__\n  y[0] = nvrtc_only_undefined_xyz;\n#endif\n" }
    local ok, e = pcall(k.ptx, k, "float", 8, 0)
    assert.is_false(ok)
    assert.are.equal("table", type(e))
    assert.are.equal("nvrtc_error", e.kind)
    assert.are.equal("compute_80", e.arch)
    assert.truthy(e.log:find("nvrtc_only_undefined_xyz", 1, true))
    assert.truthy(tostring(e):find("spec_nv_broken: spec_nv_broken does not compile for compute_80", 1, true))
  end)

  it("ptx checks its arguments", function()
    if not need_nvrtc() then return end
    local k = gm.define_cuda_kernel { name = "spec_nv_args", ctypes = { "double" }, params = {}, body = "" }
    assert.has_error(function() k:ptx("float", 8, 0) end,
      "bad argument #2 to 'ptx' (ctype must be one of the definition's ctypes, got float)")
    assert.has_error(function() k:ptx("double", "8", 0) end,
      "bad argument #3 to 'ptx' (integer compute capability major expected)")
    local ok, e = pcall(k.ptx, k, "double", 1, 0)
    assert.is_false(ok)
    assert.truthy(tostring(e):find("compute capability 1.0 is not one NVRTC knows", 1, true))
  end)

  it("shared memory, __syncthreads and atomics compile to the device's instructions", function()
    if not need_nvrtc() then return end
    local k = gm.define_cuda_kernel {
      name = "spec_nv_block_sum", ctypes = { "float" },
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
    local ptx = k:ptx("float", 7, 5)
    assert.truthy(ptx:find(".visible .entry spec_nv_block_sum(", 1, true))
    assert.are.equal("sm_75", ptx:match("%.target ([%w_]+)"))
    assert.truthy(ptx:find("%.shared %.align %d+ %.b8 [%w_]+%[1024%]"), "no 1024-byte shared array")
    assert.truthy(ptx:find("bar.sync", 1, true))
    assert.truthy(ptx:find("atom.global.add.f32", 1, true) or ptx:find("red.global.add.f32", 1, true))
    -- the same definition runs on the CPU model (host / emulated device)
    local x = gm.mat(1000, { ctype = "float", initial_element = 1 })
    local out = gm.mat(1, { ctype = "float", initial_element = 0 })
    k(x, out, 1000, { grid_dim = { 4 }, block_dim = { 256 } })
    assert.are.equal(1000, out[1])
  end)

  it("NVRTC's log gives the line in the body", function()
    if not need_nvrtc() then return end
    local k = gm.define_cuda_kernel { name = "spec_nv_line", ctypes = { "double" }, params = { { "y", "mat", "io" } },
      body = "y[0] = 1;\nif (y[0] > 2) fopen(\"/dev/null\", \"r\");\n" } -- host-only call
    local ok, e = pcall(k.ptx, k, "double", 8, 0)
    assert.is_false(ok)
    assert.are.equal("nvrtc_error", e.kind)
    assert.truthy(e.log:find('spec_nv_line(2): error: identifier "fopen" is undefined', 1, true), e.log)
  end)

  it("a new process finds the PTX in the disk cache", function()
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
      local k = gm.define_cuda_kernel { name = "spec_nv_proc", ctypes = { "float" },
        params = { { "x", "mat", "io" } }, body = "x[threadIdx.x] *= 2;" }
      local i0 = gm.kernel_cache_info()
      local ptx = k:ptx("float", 8, 0)
      assert(ptx:find(".entry spec_nv_proc", 1, true))
      local i1 = gm.kernel_cache_info()
      io.write(i1.compiles - i0.compiles, " ", i1.disk_hits - i0.disk_hits, "\n")
    ]])
    f:close()
    local function run()
      local p = assert(io.popen("GPUMAT_CACHE_DIR='" .. dir .. "' lua5.4 '" .. script .. "'", "r"))
      local out = p:read("a")
      assert.is_true(p:close())
      return out
    end
    assert.are.equal("1 0\n", run())
    assert.are.equal("0 1\n", run())
    os.execute("rm -rf '" .. dir .. "'")
  end)
end)
