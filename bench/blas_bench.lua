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

return {
  order = 40,
  title = "gemm",
  description = "One 2048×2048×2048 product per repeat (17.2 GFLOP), 5 repeats; " ..
    "OpenBLAS threads as configured for the process.",
  cases = { gemm_case("float"), gemm_case("double") },
}
