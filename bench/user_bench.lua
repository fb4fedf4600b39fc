-- Ops as users write them: every call allocates its
-- result (`x + y`, `gm.tanh(x)`, `x * 0.9`, `x:gt(0.5)`, `X + row`,
-- `x:sum()`, `X:sum(1)`, `A * B`), against numpy's allocating forms
-- (`a + b`, `np.tanh(a)`, ...) at 1K..16M elements, float and double.  No
-- preallocated out= buffers and no collectgarbage() inside the timed loop:
-- the result of each call is garbage by the next one, as in a user's loop
-- (the harness collects garbage only between repeats, on both sides alike).
-- A second group compares gm.F(x, {out = y}) with y:F_() (goal: the
-- out-of-place form within 1.2x of the in-place one) and with numpy's
-- np.F(a, out=b) (goal 1.0x).
local gm = require "gpumat"
local U = require "bench_util"

-- element counts and the 2-d shapes used for them (rows x cols)
local SIZES = {
  { label = "1K", dims = { 32, 32 } },
  { label = "10K", dims = { 100, 100 } },
  { label = "100K", dims = { 320, 320 } },
  { label = "1M", dims = { 1024, 1024 } },
  { label = "16M", dims = { 4096, 4096 } },
}

-- name, numpy op, gm functions it needs, make(x, y, row) -> the call
local FORMS = {
  { "x + y", "u_add", { "add" }, function(x, y) return function() return x + y end end },
  { "gm.tanh(x)", "u_tanh", { "tanh" }, function(x) return function() return gm.tanh(x) end end },
  { "x + 1", "u_add_s", { "add" }, function(x) return function() return x + 1 end end },
  { "x * 0.9", "u_mul_s", { "scal_" }, function(x) return function() return x * 0.9 end end },
  { "x:gt(0.5)", "u_gt", { "gt" }, function(x) return function() return x:gt(0.5) end end },
  { "x:copy()", "u_copy", { "copy_mat" }, function(x) return function() return x:copy() end end },
  { "X + row", "u_add_row", { "add" }, function(x, _, row) return function() return x + row end end },
  { "x:sum()", "u_sum", { "sum" }, function(x) return function() return x:sum() end end },
  { "X:sum(1)", "u_sum_axis1", { "sum" }, function(x) return function() return x:sum(1) end end },
  { "X:sum(2)", "u_sum_axis2", { "sum" }, function(x) return function() return x:sum(2) end end },
  { "A * B", "u_matmul", { "m_mul" }, function(x, y) return function() return x * y end, 2 end },
}

local function user_case(form, size, ctype)
  local name, np_op, requires, make = form[1], form[2], form[3], form[4]
  return {
    name = string.format("%s, %s %s", name, size.label, ctype),
    group = "allocating",
    requires = requires,
    prepare = function()
      local x = U.pattern_mat(gm, size.dims, ctype)
      local y = U.pattern_mat(gm, size.dims, ctype)
      local row = U.pattern_mat(gm, { size.dims[2] }, ctype)
      local f = make(x, y, row)
      return U.last_of(f), nil, function() U.free(x, y, row) end
    end,
    against = { {
      label = "numpy",
      numpy = { op = np_op, dtype = ctype, dims = size.dims },
      goal = U.time_at_most(1.0, "numpy"),
    } },
  }
end

-- gm.F(x, {out = y}) against y:F_() on the same mats.  The in-place form
-- feeds each call the previous result, so only functions whose time does
-- not depend on the values are compared: float tanh (a branch-free
-- polynomial; double tanh is the C library's, faster on the small values
-- that repeated tanh_ produces), sqrt, and adding 1.
local OUT_FORMS = {
  { "gm.tanh(x, {out = y})", "y:tanh_()", { "float" }, "uo_tanh", function(x, y)
    local o = { out = y }
    return function() gm.tanh(x, o) end, function() y:tanh_() end
  end },
  { "gm.sqrt(x, {out = y})", "y:sqrt_()", { "float", "double" }, "uo_sqrt", function(x, y)
    local o = { out = y }
    return function() gm.sqrt(x, o) end, function() y:sqrt_() end
  end },
  { "gm.add(x, 1, {out = y})", "y:add_scalar_(1)", { "float", "double" }, "uo_add_s", function(x, y)
    local o = { out = y }
    return function() gm.add(x, 1, o) end, function() y:add_scalar_(1) end
  end },
}

-- Scalar and comparison forms against x + y (they should cost what x + y does),
-- all allocating.
local VS_ADD = {
  { "x * 0.9", function(x) return function() return x * 0.9 end end },
  { "x + 1", function(x) return function() return x + 1 end end },
  { "x:gt(0.5)", function(x) return function() return x:gt(0.5) end end },
}

local function vs_add_case(form, n, ctype)
  local function loop(f)
    return function(k)
      local r
      for _ = 1, k do r = f() end
      return r
    end
  end
  return {
    name = string.format("%s, %d %s", form[1], n, ctype),
    group = "scalar forms vs x + y",
    requires = { "add", "gt" },
    prepare = function()
      local x = U.pattern_mat(gm, n, ctype)
      return loop(form[2](x)), nil, function() U.free(x) end
    end,
    against = { {
      label = "x + y",
      prepare = function()
        local x, y = U.pattern_mat(gm, n, ctype), U.pattern_mat(gm, n, ctype)
        return loop(function() return x + y end), nil, function() U.free(x, y) end
      end,
      goal = U.time_at_most(1.0, "x + y"),
    } },
  }
end

local function out_case(form, n, ctype)
  local name, iname, np_op, make = form[1], form[2], form[4], form[5]
  local function mats()
    local x = U.pattern_mat(gm, n, ctype)
    local y = U.pattern_mat(gm, n, ctype)
    return x, y
  end
  local function loop(f)
    return function(k) for _ = 1, k do f() end end
  end
  return {
    name = string.format("%s, %d %s", name, n, ctype),
    group = "out vs in place",
    requires = { "tanh", "sqrt", "add" },
    prepare = function()
      local x, y = mats()
      local out = make(x, y)
      return loop(out), nil, function() U.free(x, y) end
    end,
    against = { {
      label = iname,
      prepare = function()
        local x, y = mats()
        local _, inplace = make(x, y)
        return loop(inplace), nil, function() U.free(x, y) end
      end,
      goal = U.time_at_most(1.2, iname),
    }, {
      -- numpy's out form, whose in-place form is the same path: where the
      -- op is bound by memory traffic, an out form costs more than the
      -- in-place one on both sides (two arrays streamed, not one)
      label = "numpy",
      numpy = { op = np_op, dtype = ctype, dims = { n } },
      goal = U.time_at_most(1.0, "numpy"),
    } },
  }
end

-- A slice assignment one element along, `y[{{2, n}}] = x` (numpy's
-- `b[1:] = a[:-1]`): the copy's destination runs a few bytes ahead of its
-- source, where glibc's `rep movsb` ran 10-30x slower on AMD Zen 3
-- (core/mem/move.h).
local function assign_case(n, ctype)
  return {
    name = string.format("y[{{2, n}}] = x, %d %s", n, ctype),
    group = "slice assignment",
    requires = { "copy_" },
    prepare = function()
      local x = U.pattern_mat(gm, n, ctype)
      local y = U.pattern_mat(gm, n, ctype)
      local src = x:narrow(1, 1, n - 1)
      local rows = { { 2, n } }
      return function(k) for _ = 1, k do y[rows] = src end end, nil, function() U.free(x, y) end
    end,
    against = { {
      label = "numpy",
      numpy = { op = "uo_assign_shift", dtype = ctype, dims = { n } },
      goal = U.time_at_most(1.0, "numpy"),
    } },
  }
end

local cases = {}
for _, form in ipairs(FORMS) do
  for _, size in ipairs(SIZES) do
    -- a 4096^3 gemm takes seconds per call: A * B stops at 1024x1024
    if not (form[2] == "u_matmul" and size.label == "16M") then
      for _, ctype in ipairs({ "float", "double" }) do
        cases[#cases + 1] = user_case(form, size, ctype)
      end
    end
  end
end
for _, form in ipairs(OUT_FORMS) do
  for _, n in ipairs({ 1000, 83000, 2 ^ 20 }) do
    for _, ctype in ipairs(form[3]) do
      cases[#cases + 1] = out_case(form, math.floor(n), ctype)
    end
  end
end
for _, n in ipairs({ 1000, 83000, 2 ^ 20 }) do
  for _, ctype in ipairs({ "float", "double" }) do
    cases[#cases + 1] = assign_case(math.floor(n), ctype)
  end
end
for _, form in ipairs(VS_ADD) do
  for _, n in ipairs({ 1000, 100000, 2 ^ 20 }) do
    for _, ctype in ipairs({ "float", "double" }) do
      cases[#cases + 1] = vs_add_case(form, math.floor(n), ctype)
    end
  end
end

return {
  order = 15,
  title = "Ops as users write them (allocating forms)",
  description = "Each call allocates its result, as `x + y` does in a user's program; " ..
    "numpy runs the same expressions (`a + b`, `np.tanh(a)`, `a.sum(axis=0)`, `a @ b`). " ..
    "Shapes: 1K = 32x32, 10K = 100x100, 100K = 320x320, 1M = 1024x1024, 16M = 4096x4096.",
  notes = {
    "numpy's `a > 0.5` and gpumat's x:gt(0.5) both return a bool array (1 byte per element).",
    "X:sum(1) is numpy's a.sum(axis=0) (gpumat's axes are 1-based).",
    "Garbage: neither side preallocates; gpumat's dead results wait for Lua's collector, " ..
    "numpy's are freed by reference counting.",
    "The out-vs-in-place group compares two gpumat forms on the same mats (goal 1.2x), " ..
    "and the out form with numpy's np.F(a, out=b) (goal 1.0x): numpy's out and in-place forms " ..
    "are one path, so its own out/in-place ratio is the memory traffic's; " ..
    "the scalar-forms group compares x * 0.9, x + 1 and x:gt(0.5) with x + y (goal 1.0x); " ..
    "the slice-assignment group y[{{2, n}}] = x[{{1, n - 1}}] with numpy's b[1:] = a[:-1] (goal 1.0x).",
  },
  cases = cases,
}
