-- Per-call cost of element access and of creating small
-- mats, against the same loops over plain Lua tables in the same process.
local gm = require "gpumat"
local U = require "bench_util"
local T = require "bench_timing"

local R, C = 8, 8 -- element access sweeps an 8x8 (or 64-element) mat per iteration

local function table2d(v)
  local t = {}
  for i = 1, R do
    t[i] = {}
    for j = 1, C do t[i][j] = v end
  end
  return t
end

local function table1d(v)
  local t = {}
  for k = 1, R * C do t[k] = v end
  return t
end

local lua_baseline = "lua table (same loop)"
-- The goal: element access in <= 40 ns.  The goal is absolute, so its
-- baseline is a budget: a loop that spins 40 ns per access on the clock the
-- harness times with; the plain-table loop stays as the reference.
local access_budget = {
  label = "40 ns budget (spin)",
  prepare = function()
    return function(n)
      local t_end = T.now() + n * R * C * 40e-9
      while T.now() < t_end do end
    end
  end,
  goal = U.time_at_most(1.0, "40 ns"),
}

local cases = {
  {
    name = "m:mref(i, j), 8x8 double", per = R * C, requires = { "mref" },
    prepare = function()
      local m, sink = gm.mat({ R, C }, { initial_element = 1 }), 0
      return function(n)
        local s = 0
        for _ = 1, n do
          for i = 1, R do for j = 1, C do s = s + m:mref(i, j) end end
        end
        sink = s
      end
    end,
    against = { {
      label = lua_baseline .. " t[i][j]",
      prepare = function()
        local t, sink = table2d(1.0), 0
        return function(n)
          local s = 0
          for _ = 1, n do
            for i = 1, R do for j = 1, C do s = s + t[i][j] end end
          end
          sink = s
        end
      end,
    }, access_budget },
  },
  {
    -- the same access without the method lookup: m:mref costs one more
    -- metamethod call (__index "mref"), about 20 ns of Lua's own
    name = "gm.mref(m, i, j), 8x8 double", per = R * C, requires = { "mref" },
    prepare = function()
      local m, sink, mref = gm.mat({ R, C }, { initial_element = 1 }), 0, gm.mref
      return function(n)
        local s = 0
        for _ = 1, n do
          for i = 1, R do for j = 1, C do s = s + mref(m, i, j) end end
        end
        sink = s
      end
    end,
    against = { access_budget },
  },
  {
    name = "m:set(i, j, v), 8x8 double", per = R * C, requires = { "set" },
    prepare = function()
      local m = gm.mat({ R, C })
      return function(n)
        for it = 1, n do
          for i = 1, R do for j = 1, C do m:set(i, j, it) end end
        end
      end
    end,
    against = { {
      label = lua_baseline .. " t[i][j] = v",
      prepare = function()
        local t = table2d(0.0)
        return function(n)
          for it = 1, n do
            for i = 1, R do for j = 1, C do t[i][j] = it end end
          end
        end
      end,
    }, access_budget },
  },
  {
    name = "m[k], 64 double", per = R * C, requires = { "row_major_mref" },
    prepare = function()
      local m, sink = gm.mat(R * C, { initial_element = 1 }), 0
      return function(n)
        local s = 0
        for _ = 1, n do for k = 1, R * C do s = s + m[k] end end
        sink = s
      end
    end,
    against = { {
      label = lua_baseline .. " t[k]",
      prepare = function()
        local t, sink = table1d(1.0), 0
        return function(n)
          local s = 0
          for _ = 1, n do for k = 1, R * C do s = s + t[k] end end
          sink = s
        end
      end,
    }, access_budget },
  },
  {
    -- a mat whose methods were called often has its own method cache
    -- (l_mat.c): m[k] then goes through the cache's __index
    name = "m[k], 64 double, mat with a method cache", per = R * C, requires = { "row_major_mref" },
    prepare = function()
      local m, sink = gm.mat(R * C, { initial_element = 1 }), 0
      for _ = 1, 20 do local _ = m:size() end
      assert(debug.getmetatable(m) ~= getmetatable(m), "no method cache")
      return function(n)
        local s = 0
        for _ = 1, n do for k = 1, R * C do s = s + m[k] end end
        sink = s
      end
    end,
    against = { access_budget },
  },
  {
    name = "m[k] = v, 64 double", per = R * C, requires = { "set_row_major" },
    prepare = function()
      local m = gm.mat(R * C)
      return function(n)
        for it = 1, n do for k = 1, R * C do m[k] = it end end
      end
    end,
    against = { {
      label = lua_baseline .. " t[k] = v",
      prepare = function()
        local t = table1d(0.0)
        return function(n)
          for it = 1, n do for k = 1, R * C do t[k] = it end end
        end
      end,
    }, access_budget },
  },
  {
    name = "m[k], 64 float", per = R * C, requires = { "row_major_mref" },
    prepare = function()
      local m, sink = gm.mat(R * C, { ctype = "float", initial_element = 1 }), 0
      return function(n)
        local s = 0
        for _ = 1, n do for k = 1, R * C do s = s + m[k] end end
        sink = s
      end
    end,
    against = { {
      label = lua_baseline .. " t[k]",
      prepare = function()
        local t, sink = table1d(1.0), 0
        return function(n)
          local s = 0
          for _ = 1, n do for k = 1, R * C do s = s + t[k] end end
          sink = s
        end
      end,
    }, access_budget },
  },
  {
    -- gm.mat allocates no memory until first access: creation only.
    name = "gm.mat(10)", requires = { "mat" },
    prepare = function()
      local mat = gm.mat
      return function(n)
        for _ = 1, n do local _ = mat(10) end
      end
    end,
    against = { {
      label = lua_baseline .. " {} + 10 zeros",
      prepare = function()
        return function(n)
          for _ = 1, n do
            local t = {}
            for k = 1, 10 do t[k] = 0.0 end
          end
        end
      end,
    } },
  },
  {
    -- Creation plus the first write, which allocates and fills the host facet.
    name = "gm.mat(10); m[1] = 1", requires = { "mat", "set_row_major" },
    prepare = function()
      local mat = gm.mat
      return function(n)
        for _ = 1, n do
          local m = mat(10)
          m[1] = 1
        end
      end
    end,
    against = { {
      label = lua_baseline .. " {} + 10 zeros; t[1] = 1",
      prepare = function()
        return function(n)
          for _ = 1, n do
            local t = {}
            for k = 1, 10 do t[k] = 0.0 end
            t[1] = 1
          end
        end
      end,
    } },
  },
}

return {
  order = 10,
  title = "Element access and small mats",
  description = "Per-call cost; the baseline is the same loop over plain Lua tables in the " ..
    "same process, so the time ratio is the price of a mat over a table. Element access " ..
    "has the goal of at most 40 ns per access (the 40 ns budget rows); creation has no goal.",
  notes = {
    "Element access sweeps all 64 elements per iteration; the time is per access. " ..
    "Creation cases include the garbage collection they cause (both sides).",
  },
  cases = cases,
}
