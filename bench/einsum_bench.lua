-- gm.einsum on the host against np.einsum on the same machine: a plain
-- and a batched matrix product, as users write them (every call allocates
-- its result, on both sides).  numpy's default einsum runs its own C
-- loops; with optimize=True it goes through tensordot/matmul (BLAS), the
-- fairer reference for gpumat's gemm-based contraction.
local gm = require "gpumat"
local U = require "bench_util"

local function case(spec, dims, iterations)
  local ctype = "double"
  local function ref(op, label)
    return { label = label, numpy = { op = op, dtype = ctype, dims = dims }, iterations = iterations }
  end
  return {
    name = "einsum('" .. spec .. "'), " .. table.concat(dims, "x") .. " " .. ctype, requires = {},
    iterations = iterations, repeats = 5, settle = 0.2,
    prepare = function()
      local a, b = U.pattern_mat(gm, dims, ctype), U.pattern_mat(gm, dims, ctype)
      return function(k) for _ = 1, k or 1 do gm.einsum(spec, a, b) end end, nil, function() U.free(a, b) end
    end,
    against = { ref("es_mm", "numpy"), ref("es_mm_opt", "numpy optimize") },
  }
end

return {
  order = 91,
  title = "gm.einsum",
  description = "float64, host; one call per iteration, both sides allocate their results.",
  cases = {
    case("ij,jk->ik", { 512, 512 }, 2),
    case("bij,bjk->bik", { 64, 64, 64 }, 5),
    case("bij,bjk->bik", { 1000, 8, 8 }, 10),
  },
}
