-- gemm_ 2048x2048 against a direct cblas_?gemm call on the same
-- OpenBLAS (and numpy's matmul for information).  C := A B, beta 0.
local gm = require "gpumat"
local U = require "bench_util"

local N = 2048

local function gemm_case(ctype)
  return {
    name = "gemm_(1, a, b, 0, c), 2048x2048 " .. ctype, requires = { "gemm_", "copy_" },
    iterations = 1, repeats = 9, settle = 0.5,
    prepare = function()
      local a, b = U.pattern_mat(gm, { N, N }, ctype), U.pattern_mat(gm, { N, N }, ctype)
      local c = gm.mat({ N, N }, { ctype = ctype })
      return function() gm.gemm_(1, a, b, 0, c) end, nil, function() U.free(a, b, c) end
    end,
    against = {
      { label = "direct cblas call", c = { op = "gemm", dtype = ctype, dims = { N } },
        iterations = 1, goal = U.speed_at_least(0.95, "cblas") },
      { label = "numpy np.matmul(a, b, out=c)", numpy = { op = "matmul", dtype = ctype, dims = { N, N } },
        iterations = 1 },
    },
  }
end

-- the half types (within 1.5x of float32's sgemm, the goal): sgemm
-- on float32 copies, the result rounded; against gpumat's own float32
-- gemm_ in the same run
local function half_gemm_case(ctype)
  local function prepare_of(ct)
    return function()
      local a = U.pattern_mat(gm, { N, N }, "float"):astype(ct)
      local b = U.pattern_mat(gm, { N, N }, "float"):astype(ct)
      local c = gm.mat({ N, N }, { ctype = ct })
      return function() gm.gemm_(1, a, b, 0, c) end, nil, function() U.free(a, b, c) end
    end
  end
  return {
    name = "gemm_(1, a, b, 0, c), 2048x2048 " .. ctype, requires = { "gemm_", "copy_", "astype" },
    iterations = 1, repeats = 5, settle = 0.5,
    prepare = prepare_of(ctype),
    against = {
      { label = "gpumat float32 gemm_ (sgemm)", prepare = prepare_of("float"), iterations = 1,
        goal = U.time_at_most(1.5, "float32 sgemm") },
    },
  }
end

return {
  order = 40,
  title = "gemm",
  description = "One 2048×2048×2048 product per repeat (17.2 GFLOP), 5 repeats; " ..
    "OpenBLAS threads as configured for the process.",
  cases = { gemm_case("float"), gemm_case("double"), half_gemm_case("float16"), half_gemm_case("bfloat16") },
}
