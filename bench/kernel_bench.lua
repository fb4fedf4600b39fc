-- Run-time kernels (gm.define_cuda_kernel) on the CPU model of
-- CUDA against the built-in ops on the host.
--   * a user-defined grid-stride axpy on 16M floats vs the built-in axpy_
--     (goal: at most 2x its time);
--   * the cached-call overhead of a launch on a 32-element mat, against a
--     5 us budget (a baseline that spins 5 us per call on the wall clock);
--   * first-call compile time (a definition with a fresh source, in the
--     notes: it is printed once, not timed by the harness).
local gm = require "gpumat"
local U = require "bench_util"
local T = require "bench_timing"

local axpy_body = [[
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)blockDim.x * gridDim.x)
    y[i] += alpha * x[i];
]]
-- the other CUDA idiom: one element per thread (the default launch gives
-- every element of the first mat a thread); its thread loop vectorizes
local axpy_elem_body = [[
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] += alpha * x[i];
]]
local params = { { "alpha", "scalar" }, { "x", "mat", "input" }, { "y", "mat", "io" }, { "n", "int" } }

local function define(body)
  return gm.define_cuda_kernel { name = body and "bench_axpy_elem" or "bench_axpy", ctypes = { "float" },
    params = params, body = body or axpy_body }
end

-- y += 1e-3 x on 16M floats through the kernel k
local function user_axpy(k)
  local x = U.pattern_mat(gm, U.N16M, "float")
  local y = U.pattern_mat(gm, U.N16M, "float")
  local n = U.N16M
  return function(it) for _ = 1, it do k(1e-3, x, y, n) end end, nil, function() U.free(x, y) end
end

local function builtin_axpy()
  return { {
    label = "built-in y:axpy_(a, x)",
    prepare = function()
      local x = U.pattern_mat(gm, U.N16M, "float")
      local y = U.pattern_mat(gm, U.N16M, "float")
      return function(it) for _ = 1, it do y:axpy_(1e-3, x) end end, nil, function() U.free(x, y) end
    end,
    goal = U.time_at_most(2.0, "built-in axpy_"),
  } }
end

local notes = {}
-- first-call compile: a source nobody compiled before (a unique comment);
-- measured in the first case's prepare (the clock starts with the harness)
-- (the CPU version compiles at its first CPU launch: a launch on one element)
local function time_first_compile()
  local x, y = gm.mat(1, { ctype = "float" }), gm.mat(1, { ctype = "float" })
  local t0 = T.now()
  gm.define_cuda_kernel { name = "bench_fresh", ctypes = { "float" }, params = params,
    body = axpy_body .. ("// %d %s\n"):format(os.time(), tostring({})) }(1, x, y, 1)
  local s = T.now() - t0
  notes[#notes + 1] = ("first-call compile (c++ -O3, one ctype): %.2f s; a second definition of the " ..
    "same source is a memory-cache hit; a new process loads the cached .so from disk"):format(s)
  io.stderr:write(notes[#notes], "\n")
end

return {
  order = 70,
  title = "Run-time kernels on the CPU model",
  description = "gm.define_cuda_kernel compiled by the system C++ compiler with kernels/cpu/cuda_cpu.h, " ..
    "default 1-d launch (choose_1d_block_and_grid), blocks over the host cores.",
  notes = notes,
  cases = {
    {
      name = "user axpy kernel, 16M float", requires = { "define_cuda_kernel", "copy_" }, per = 1,
      prepare = function()
        time_first_compile()
        return user_axpy(define())
      end,
      against = builtin_axpy(),
    },
    {
      name = "user axpy kernel, one element per thread, 16M float", requires = { "define_cuda_kernel", "copy_" },
      per = 1,
      prepare = function() return user_axpy(define(axpy_elem_body)) end,
      against = builtin_axpy(),
    },
    {
      name = "cached launch, 32 float", requires = { "define_cuda_kernel" }, per = 1,
      prepare = function()
        local k = define()
        local x = gm.mat(32, { ctype = "float", initial_element = 0 })
        local y = gm.mat(32, { ctype = "float", initial_element = 0 })
        return function(it) for _ = 1, it do k(1, x, y, 32) end end
      end,
      against = { {
        label = "5 us budget (spin)",
        prepare = function()
          return function(it)
            local t_end = T.now() + it * 5e-6
            while T.now() < t_end do end
          end
        end,
        goal = U.time_at_most(1.0, "5 us"),
      } },
    },
  },
}
