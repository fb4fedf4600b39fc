-- gm.linalg on the host against np.linalg on the same machine (LAPACK on
-- both sides: OpenBLAS's for gpumat, numpy's own build for numpy).  The
-- matrices are the harness pattern plus n I (well conditioned); cholesky
-- and eigh take P P^T / n + I.  Every call allocates its results, on both
-- sides.
local gm = require "gpumat"
local U = require "bench_util"

local function inputs(dims, ctype, spd)
  local p = U.pattern_mat(gm, dims, ctype)
  local n = dims[#dims]
  local eye = gm.eye(n, { ctype = ctype })
  if spd then return gm.linalg.matmul(p, gm.linalg.matrix_transpose(p)) * (1 / n) + eye, p end
  return p + eye * n, p
end

local function case(label, op, dims, call, spd, iterations)
  local ctype = "double"
  return {
    name = label .. ", " .. table.concat(dims, "x") .. " " .. ctype, requires = {},
    iterations = iterations, repeats = 5, settle = 0.2,
    prepare = function()
      local a, p = inputs(dims, ctype, spd)
      local bd = {}
      for i = 1, #dims - 1 do bd[i] = dims[i] end
      local b = U.pattern_mat(gm, bd, ctype)
      return function(k) for _ = 1, k or 1 do call(a, b, p) end end, nil, function() U.free(a, b, p) end
    end,
    against = {
      { label = "numpy", numpy = { op = op, dtype = ctype, dims = dims }, iterations = iterations },
    },
  }
end

local L = gm.linalg
return {
  order = 90,
  title = "gm.linalg",
  description = "float64, host; one call per iteration (the batched solve: 1000 systems of 8x8 in one call). " ..
    "Both sides allocate their results.",
  cases = {
    case("linalg.solve(a, b), one right-hand side", "la_solve", { 1024, 1024 }, function(a, b) L.solve(a, b) end, false, 1),
    case("linalg.cholesky(a)", "la_cholesky", { 2048, 2048 }, function(a) L.cholesky(a) end, true, 1),
    case("linalg.qr(a)", "la_qr", { 1024, 1024 }, function(_, _, p) L.qr(p) end, false, 1),
    case("linalg.svd(a)", "la_svd", { 512, 512 }, function(_, _, p) L.svd(p) end, false, 1),
    case("linalg.eigh(a)", "la_eigh", { 1024, 1024 }, function(a) L.eigh(a) end, true, 1),
    case("linalg.det(a)", "la_det", { 1024, 1024 }, function(a) L.det(a) end, false, 1),
    case("linalg.inv(a)", "la_inv", { 1024, 1024 }, function(a) L.inv(a) end, false, 1),
    case("linalg.solve(a, b), stack", "la_bsolve", { 1000, 8, 8 }, function(a, b) L.solve(a, b:view(1000, 8, 1)) end,
      false, 10),
  },
}
