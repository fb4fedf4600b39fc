-- The strided elementwise engine.  Broadcasting binary ops on a
-- 4096x4096 mat (a row vector of 4096, a 4096x1 column) and ops on a
-- transposed (strided) view, each written into a preallocated result
-- ({out = c}), against numpy's np.add(a, b, out=c) on the same shapes and
-- strides; the contiguous same-shape case for reference.
local gm = require "gpumat"
local U = require "bench_util"

local N = 4096

local function case(ctype, label, np_op, make)
  return {
    name = label .. ", 4096x4096 " .. ctype,
    requires = { "add", "cmul" },
    prepare = function()
      local f, free = make(ctype)
      return function(n)
        for _ = 1, n do f() end
      end, nil, free
    end,
    against = { {
      label = "numpy " .. np_op,
      numpy = { op = np_op, dtype = ctype, dims = { N, N } },
      goal = U.speed_at_least(1.0, "numpy"),
    } },
  }
end

-- gm[fn](a, b, {out = c}) with b of dims bdims (nil: same as a), a
-- transposed when `t`
local function binary(fn, bdims, t)
  return function(ctype)
    local a = U.pattern_mat(gm, { N, N }, ctype)
    local b = U.pattern_mat(gm, bdims or { N, N }, ctype)
    local c = gm.mat({ N, N }, { ctype = ctype })
    local x = t and a:t() or a
    local opts = { out = c }
    local op = gm[fn]
    return function() op(x, b, opts) end, function() U.free(a, b, c) end
  end
end

local cases = {}
for _, ctype in ipairs({ "float", "double" }) do
  cases[#cases + 1] = case(ctype, "add(a, b, {out = c}), same dims", "add_same", binary("add", nil))
  cases[#cases + 1] = case(ctype, "add(a, row, {out = c}), row of 4096", "add_row", binary("add", { N }))
  cases[#cases + 1] = case(ctype, "add(a, col, {out = c}), col 4096x1", "add_col", binary("add", { N, 1 }))
  cases[#cases + 1] = case(ctype, "cmul(a:t(), b, {out = c}), transposed view", "mul_t", binary("cmul", nil, true))
end

return {
  order = 35,
  title = "Broadcasting and strided elementwise ops",
  description = "4096×4096 results written into a preallocated mat; inputs as named.",
  notes = {
    "numpy: np.add(a, b, out=c) with b of shape (4096,) or (4096, 1), and " ..
    "np.multiply(a.T, b, out=c) for the transposed view; one thread, as numpy's ufuncs run.",
    "gpumat's host loops use all CPUs (GPUMAT_NUM_THREADS overrides).",
  },
  cases = cases,
}
