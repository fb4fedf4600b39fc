-- Small op overhead: x:scal_(2) on a 10-element mat against numpy's
-- np.multiply(a, 2, out=a).  Each iteration scales by 2 then by 0.5 (two
-- calls, on both sides) so the values stay put.
local gm = require "gpumat"
local U = require "bench_util"

local function scal_case(ctype)
  return {
    name = "x:scal_(s), 10 " .. ctype, per = 2, requires = { "scal_" },
    prepare = function()
      local x = U.pattern_mat(gm, 10, ctype)
      return function(n)
        for _ = 1, n do
          x:scal_(2)
          x:scal_(0.5)
        end
      end
    end,
    against = { {
      label = "numpy np.multiply(a, s, out=a)",
      numpy = { op = "scal_alt", dtype = ctype, dims = { 10 } },
      goal = U.time_at_most(0.2, "numpy per call"),
    } },
  }
end

return {
  order = 20,
  title = "Small op overhead",
  description = "Per-call cost of a destructive op on a tiny mat: almost all of it is " ..
    "argument checking, facet handling and dispatch.",
  cases = { scal_case("float"), scal_case("double") },
}
