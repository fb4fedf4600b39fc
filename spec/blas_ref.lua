-- Shared helpers of the BLAS / linalg / non-destructive / assembling specs:
-- plain-Lua reference data and tolerant comparisons.  Values are small
-- multiples of 1/4, exactly representable in float, so references computed
-- in Lua doubles differ from float results only by the op's rounding.
local gm = require "gpumat"

local M = {}

M.ctypes = { "float", "double" }
-- the relative tolerance per ctype: the ctype list's column
-- (src/core/model/ctype_list.h, gpumat.core._ctypes)
M.tol = {}
for name, c in pairs(require("gpumat.core")._ctypes) do M.tol[name] = c.tol end

-- n deterministic values in [-2, 2], multiples of 1/4
function M.vals(n, seed)
  local t = {}
  for i = 1, n do t[i] = ((i * 7 + seed * 13) % 17 - 8) / 4 end
  return t
end

-- a 1d storage mat of n elements holding M.vals(n, seed)
function M.storage(ct, n, seed)
  return gm.mat(n, { ctype = ct, initial_contents = M.vals(n, seed) })
end

-- a view of base with dims at displacement d (absolute)
function M.view(base, dims, d)
  return gm.mat(dims, { displaced_to = base, displacement = d - base:displacement() })
end

function M.close(actual, expected, ct, what)
  local tol = M.tol[ct] * math.max(1, math.abs(expected))
  if math.abs(actual - expected) > tol then
    error(string.format("%s: expected %.17g, got %.17g (%s)", what or "value", expected, actual, ct), 2)
  end
end

-- compares two flat lists elementwise
function M.same_list(actual, expected, ct, what)
  assert(#actual == #expected, string.format("%s: length %d vs %d", what or "list", #actual, #expected))
  for i = 1, #expected do
    local tol = M.tol[ct] * math.max(1, math.abs(expected[i]))
    if math.abs(actual[i] - expected[i]) > tol then
      error(string.format("%s[%d]: expected %.17g, got %.17g (%s)", what or "list", i, expected[i], actual[i], ct), 2)
    end
  end
end

-- nested rows of a 2d mat -> flat row-major list; a mat's elements so
M.flatten = require("numpy_ref").flatten
function M.flat(m) return M.flatten(m:to_table()) end

-- rounds like the ctype (for building expected values of float results)
function M.round(ct, x) return gm.coerce_to_ctype(x, ct) end

-- runs fn(tag) on the host and, when available, on the emulated device
function M.places(fn)
  fn("host")
  local ok = pcall(gm.with_cuda, { backend = "emulated" }, function() end)
  if ok then gm.with_cuda({ backend = "emulated" }, function() fn("emulated") end) end
end

return M
