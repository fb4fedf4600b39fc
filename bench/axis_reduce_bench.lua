-- Reductions along an axis (m:sum(axis), m:max(axis), m:argmax(axis),
-- m:mean(axis), m:var(axis), gm.softmax) of a 4096x4096 mat against
-- numpy's np.sum(a, axis=..., out=y) and friends.  Axis 1 (Lua) reduces
-- down the columns like numpy's axis 0, giving one value per column.
local gm = require "gpumat"
local U = require "bench_util"

local N = 4096

local function reduce_case(fn, ctype, axis, goal)
  return {
    name = string.format("m:%s(%d, {out = y}), 4096x4096 %s", fn, axis, ctype),
    requires = { fn },
    prepare = function()
      local x = U.pattern_mat(gm, { N, N }, ctype)
      local y = gm.mat(N, { ctype = fn == "argmax" and "int64" or ctype })
      local opts = { out = y }
      local f = gm[fn]
      return function(n)
        for _ = 1, n do f(x, axis, opts) end
      end, nil, function() U.free(x, y) end
    end,
    against = { {
      label = string.format("numpy np.%s(a, axis=%d, out=y)", fn, axis - 1),
      numpy = { op = fn .. "_axis" .. axis, dtype = ctype, dims = { N, N } },
      goal = goal and U.speed_at_least(1.0, "numpy") or nil,
    } },
  }
end

local cases = {}
for _, ctype in ipairs({ "float", "double" }) do
  for axis = 1, 2 do cases[#cases + 1] = reduce_case("sum", ctype, axis, true) end
end
for _, fn in ipairs({ "mean", "max", "argmax", "var" }) do
  for axis = 1, 2 do cases[#cases + 1] = reduce_case(fn, "float", axis, false) end
end
-- reductions of a strided view: a transposed 4096x4096 mat
for axis = 1, 2 do
  cases[#cases + 1] = {
    name = string.format("m:t():sum(%d, {out = y}), transposed view, 4096x4096 float", axis),
    requires = { "sum" },
    prepare = function()
      local x = U.pattern_mat(gm, { N, N }, "float")
      local xt, y = x:t(), gm.mat(N, { ctype = "float" })
      local opts = { out = y }
      return function(n)
        for _ = 1, n do gm.sum(xt, axis, opts) end
      end, nil, function() U.free(x, y) end
    end,
    against = { {
      label = string.format("numpy np.sum(a.T, axis=%d, out=y)", axis - 1),
      numpy = { op = "sum_t_axis" .. axis, dtype = "float", dims = { N, N } },
      goal = U.speed_at_least(1.0, "numpy"),
    } },
  }
end
cases[#cases + 1] = {
  name = "gm.softmax(m, 2, {out = s}), 4096x4096 float",
  requires = { "softmax" },
  prepare = function()
    local x = U.pattern_mat(gm, { N, N }, "float")
    local s = gm.mat({ N, N }, { ctype = "float" })
    local opts = { out = s }
    return function(n)
      for _ = 1, n do gm.softmax(x, 2, opts) end
    end, nil, function() U.free(x, s) end
  end,
  against = { {
    label = "numpy stable softmax along axis 1",
    numpy = { op = "softmax_axis2", dtype = "float", dims = { N, N } },
  } },
}

return {
  order = 51,
  title = "Reductions along an axis",
  description = "4096×4096 input, result of 4096 elements into a preallocated `out` (softmax: 4096×4096). " ..
    "Sums carry the goal of at least numpy's speed; the other rows are for information.",
  cases = cases,
}
