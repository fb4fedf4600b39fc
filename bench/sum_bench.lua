-- sum_ along each axis of a 4096x4096 mat against numpy's
-- np.sum(a, axis=..., out=y).  Axis 1 (Lua) sums down the columns like
-- numpy's axis 0, giving one value per column.
local gm = require "gpumat"
local U = require "bench_util"

local N = 4096

local function sum_case(ctype, axis)
  return {
    name = string.format("sum_(x, y, {axis = %d}), 4096x4096 %s", axis, ctype),
    requires = { "sum_", "copy_" },
    prepare = function()
      local x = U.pattern_mat(gm, { N, N }, ctype)
      local y = gm.mat(N, { ctype = ctype })
      local opts = { axis = axis }
      return function(n)
        for _ = 1, n do gm.sum_(x, y, opts) end
      end, nil, function() U.free(x, y) end
    end,
    against = { {
      label = string.format("numpy np.sum(a, axis=%d, out=y)", axis - 1),
      numpy = { op = "sum_axis" .. axis, dtype = ctype, dims = { N, N } },
      goal = U.speed_at_least(1.0, "numpy"),
    } },
  }
end

local cases = {}
for _, ctype in ipairs({ "float", "double" }) do
  for axis = 1, 2 do cases[#cases + 1] = sum_case(ctype, axis) end
end

return {
  order = 50,
  title = "sum_ along an axis",
  description = "4096×4096 input, result of 4096 elements, alpha 1, beta 0.",
  cases = cases,
}
