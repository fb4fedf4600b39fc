-- Integer and bool mats as users write them (issue "Typed mats I", item
-- 8): allocating expressions on 16M elements against numpy's same
-- expressions in the same run, goal time <= 1.0x numpy's: int32 a + b,
-- the whole int64 sum, uint8 -> float32 astype, int32 bitwise_and and
-- floor_divide, and float32 a:gt(0.5) (a bool mat, as numpy's a > 0.5);
-- then issue "Typed mats II"'s rows: float16 add and exp, and complex128
-- gm.multiply of 4M elements.
-- Data: (k * 37) % 251 + 1 (never zero, so // divides by nonzero values),
-- b the same reversed; the comparison reads the float pattern.  The same
-- forms run again on the emulated device (inside gm.with_cuda, waiting
-- for the device at the end of each timed batch) against the host in the
-- same run: goal within 3x of the host, the emulated device's goal
-- (bench/emulated_bench.lua).
local gm = require "gpumat"
local U = require "bench_util"

local N = U.N16M

-- (k * 37) % 251 + 1 for k = 0..n-1 as dtype, and its reverse
local function int_mats(dtype, n)
  local k = gm.arange(n)
  local a = (gm.cmul(k, 37) % 251 + 1):astype(dtype)
  local b = gm.flip(a):copy()
  return a, b
end

-- label, numpy op, input dtype, gm functions needed, make(a, b) -> call
local FORMS = {
  { "int32 a + b", "t_add", "int32", { "add" }, function(a, b) return function() return a + b end end },
  { "int64 a:sum()", "t_sum", "int64", { "sum" }, function(a) return function() return a:sum() end end },
  { "uint8 a:astype(\"float32\")", "t_astype_f32", "uint8", { "astype" },
    function(a) return function() return a:astype("float32") end end },
  { "int32 a & b", "t_band", "int32", { "bitwise_and" }, function(a, b) return function() return a & b end end },
  { "int32 a // b", "t_floordiv", "int32", { "floor_divide" }, function(a, b) return function() return a // b end end },
  { "float32 a:gt(0.5)", "t_gt", "float32", { "gt" }, function(a) return function() return a:gt(0.5) end end },
  -- the half types (goal: within numpy's float16 time): computed in float32, rounded on store
  { "float16 a + b", "t_add", "float16", { "add" }, function(a, b) return function() return a + b end end },
  { "float16 gm.exp(a)", "t_exp", "float16", { "exp" }, function(a) return function() return gm.exp(a) end end },
  -- complex128 multiply of 4M elements (goal: <= 1.0x numpy's)
  { "complex128 gm.multiply(a, b)", "t_mul", "complex128", { "multiply" },
    function(a, b) return function() return gm.multiply(a, b) end end, U.N16M // 4, "4M" },
}

local EMU = { backend = "emulated" }

-- The operands of a form: a, b as dtype (b nil for the float pattern);
-- n elements (default 16M).
local function operands(dtype, np_op, n)
  n = n or N
  if np_op == "t_exp" then return U.pattern_mat(gm, n, "float"):astype(dtype) end -- numpy's side: the pattern too
  if dtype == "float32" then return U.pattern_mat(gm, n, "float") end
  return int_mats(dtype, n)
end

-- The form's timed function, on the host or inside the emulated device
-- (operands made there, moved to the device by a warm-up call).
local function prepare_on(form, emulated)
  local make = form[5]
  if not emulated then
    local a, b = operands(form[3], form[2], form[6])
    local f = make(a, b)
    return U.last_of(f), nil, function() U.free(a, b) end
  end
  local a, b, f
  gm.with_cuda(EMU, function()
    a, b = operands(form[3], form[2], form[6])
    f = make(a, b)
    f()
    gm.synchronize()
  end)
  return function(n)
    gm.with_cuda(EMU, function()
      for _ = 1, n do f() end
      gm.synchronize()
    end)
  end, nil, function() U.free(a, b) end
end

-- Each timed batch is one outermost gm.with_cuda, whose entry uploads the
-- operands again and whose exit brings the result back to the host (MGL's
-- facet barrier: 200-300 MB of copies for 16M int32 operands, 25-30 ms);
-- a program keeps one context around its work.  At the default minimum
-- time a batch held 1-3 calls and that barrier was most of what the row
-- measured (46 ms per call with one call per batch, 17 ms with ten, the
-- host's 17 ms), so these rows time batches of at least 0.5 s: the
-- barrier is then a few percent.
local function emulated_case(form)
  return {
    name = form[1] .. ", " .. (form[7] or "16M") .. ", emulated device",
    group = "typed",
    min_time = 0.5,
    requires = form[4],
    prepare = function() return prepare_on(form, true) end,
    against = { {
      label = "host",
      prepare = function() return prepare_on(form, false) end,
      goal = U.time_at_most(3.0, "host"),
    } },
  }
end

local function case(form)
  local label, np_op, dtype, requires = form[1], form[2], form[3], form[4]
  return {
    name = label .. ", " .. (form[7] or "16M"),
    group = "typed",
    requires = requires,
    prepare = function() return prepare_on(form, false) end,
    against = { {
      label = "numpy",
      numpy = { op = np_op, dtype = dtype, dims = { form[6] or N } },
      goal = U.time_at_most(1.0, "numpy"),
    } },
  }
end

local cases = {}
for _, form in ipairs(FORMS) do cases[#cases + 1] = case(form) end
for _, form in ipairs(FORMS) do cases[#cases + 1] = emulated_case(form) end

return {
  order = 16,
  title = "Integer and bool mats (allocating forms, 16M elements)",
  description = "Each call allocates its result; numpy runs the same expressions on arrays of the same " ..
    "dtype and values ((k * 37) % 251 + 1, b reversed; the comparison on the float pattern).",
  notes = {
    "a:sum() of int64 returns a Lua integer; numpy's a.sum() a numpy int64 scalar.",
  },
  cases = cases,
}
