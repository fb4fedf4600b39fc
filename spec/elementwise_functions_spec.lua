-- Elementwise functions out of place (gm.F(m), m:F(), {out = m2}), the
-- unary functions after MGL's twelve (abs sign floor ceil round neg log1p
-- expm1 relu, in place and out of place), clamp / clamp_, and the op
-- table (kernels/elementwise_table.h) agreeing with the Lua module and
-- gm.help.  Values against plain-Lua references with a tolerance per
-- ctype, on the host and on the emulated device.
local gm = require "gpumat"
local core = require "gpumat.core"
local R = require "blas_ref"

local NAN = 0 / 0
local INF = math.huge

local function isnan(v) return v ~= v end

-- relative tolerance per ctype; NaN and infinities must match exactly
local function near(actual, expected, ct, what)
  if isnan(expected) then
    assert(isnan(actual), string.format("%s: expected nan, got %.17g (%s)", what, actual, ct))
  elseif expected == INF or expected == -INF or expected == 0 then
    assert(actual == expected, string.format("%s: expected %.17g, got %.17g (%s)", what, expected, actual, ct))
  else
    local tol = R.tol[ct] * math.abs(expected)
    assert(math.abs(actual - expected) <= tol,
      string.format("%s: expected %.17g, got %.17g (%s)", what, expected, actual, ct))
  end
end

local function near_list(actual, expected, ct, what)
  assert.equal(#expected, #actual, what .. ": length")
  for i = 1, #expected do near(actual[i], expected[i], ct, what .. "[" .. i .. "]") end
end

-- C's round: halves away from zero
local function round(x)
  if x ~= x or x == INF or x == -INF then return x end
  if x >= 0 then return math.floor(x + 0.5) end
  return -math.floor(-x + 0.5)
end

-- log(1 + x) and e^x - 1 without the cancellation near 0 (series there)
local function log1p(x)
  if math.abs(x) < 1e-4 then return x - x * x / 2 + x ^ 3 / 3 - x ^ 4 / 4 end
  return math.log(1 + x)
end
local function expm1(x)
  if math.abs(x) < 1e-4 then return x + x * x / 2 + x ^ 3 / 6 + x ^ 4 / 24 end
  return math.exp(x) - 1
end

-- reference and inputs of the functions after MGL's twelve (the inputs
-- are exact in float, so the float reference is the double one rounded)
local new_ops = {
  abs = { math.abs, { -2.5, -0.25, 0, 1.5, -INF, NAN } },
  sign = { function(x) return x > 0 and 1 or x < 0 and -1 or x end, { -3.5, -0.25, 0, 0.75, INF, NAN } },
  floor = { math.floor, { -2.5, -2, -0.25, 0.25, 2.75, 1e6 + 0.5 } },
  ceil = { math.ceil, { -2.5, -2, -0.25, 0.25, 2.75, 1e6 + 0.5 } },
  round = { round, { -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.25, 0.75, 3 } },
  neg = { function(x) return -x end, { -2.5, 0.25, 3, INF, NAN } },
  log1p = { log1p, { -1, -0.5, 0, 2 ^ -30, 0.75, 3, -2, NAN } },
  expm1 = { expm1, { -20, -0.5, 0, 2 ^ -30, 0.75, 5, INF, NAN } },
  relu = { function(x) return (x < 0) and 0 or x end, { -2.5, -0.25, 0, 0.5, 3, -INF, NAN } },
}
local new_names = { "abs", "sign", "floor", "ceil", "round", "neg", "log1p", "expm1", "relu" }

local function mat(ct, vals, dims)
  return gm.mat(dims or #vals, { ctype = ct, initial_contents = vals })
end

local function expected_of(f, vals, ct)
  local out = {}
  for i, v in ipairs(vals) do out[i] = gm.coerce_to_ctype(f(gm.coerce_to_ctype(v, ct)), ct) end
  return out
end

describe("elementwise functions", function()
  for _, ct in ipairs(R.ctypes) do
    describe(ct, function()
      for _, name in ipairs(new_names) do
        local f, vals = new_ops[name][1], new_ops[name][2]
        it(name .. ": in place, out of place, method, {out}", function()
          R.places(function(place)
            local what = place .. " " .. name
            local expected = expected_of(f, vals, ct)
            local x = mat(ct, vals)
            local y = gm[name](x)
            near_list(y:to_table(), expected, ct, what .. " gm.F")
            near_list(x:to_table(), vals, ct, what .. " input unchanged")
            near_list(x[name](x):to_table(), expected, ct, what .. " m:F()")
            local into = gm.mat(#vals, { ctype = ct, initial_element = 7 })
            assert.equal(into, gm[name](x, { out = into }))
            near_list(into:to_table(), expected, ct, what .. " {out}")
            near_list(x:to_table(), vals, ct, what .. " input unchanged by {out}")
            assert.equal(x, gm[name .. "_"](x))
            near_list(x:to_table(), expected, ct, what .. " gm.F_")
            local z = mat(ct, vals)
            assert.equal(z, z[name .. "_"](z))
            near_list(z:to_table(), expected, ct, what .. " m:F_()")
          end)
        end)
      end

      it("round rounds halves away from zero, not to even", function()
        R.places(function()
          local x = mat(ct, { -2.5, -1.5, -0.5, 0.5, 1.5, 2.5 })
          assert.same({ -3, -2, -1, 1, 2, 3 }, x:round():to_table())
        end)
      end)

      it("log1p and expm1 keep their precision near 0", function()
        R.places(function()
          local x = mat(ct, { 1e-7, -1e-7 })
          near_list(x:log1p():to_table(), expected_of(log1p, { 1e-7, -1e-7 }, ct), ct, "log1p")
          near_list(x:expm1():to_table(), expected_of(expm1, { 1e-7, -1e-7 }, ct), ct, "expm1")
        end)
      end)

      it("every unary op out of place equals the copy made and changed in place", function()
        R.places(function(place)
          local vals = { 0.25, 0.5, 1.25, 2, 3 }
          for _, name in ipairs(core._unary_ops) do
            local x = gm.mat({ 1, 5 }, { ctype = ct, initial_contents = { vals } })
            local y = x[name](x)
            assert.same({ 1, 5 }, y:dims())
            assert.equal(ct, y:ctype())
            assert.equal(x:cuda_enabled(), y:cuda_enabled())
            assert.same({ vals }, x:to_table())
            local c = x:copy()
            gm[name .. "_"](c)
            assert.same(c:to_table(), y:to_table(), place .. " " .. name)
          end
        end)
      end)

      it("{out = x} works in place and a view of a bigger storage is written alone", function()
        R.places(function()
          local x = mat(ct, { -1, 2, -3 })
          assert.equal(x, gm.abs(x, { out = x }))
          assert.same({ 1, 2, 3 }, x:to_table())
          local base = gm.mat(5, { ctype = ct, initial_element = 9 })
          local view = gm.mat(3, { displaced_to = base, displacement = 1 })
          gm.neg(x, { out = view })
          assert.same({ 9, -1, -2, -3, 9 }, base:to_table())
        end)
      end)

      it("clamp and clamp_", function()
        R.places(function(place)
          local vals = { -3, -1.5, -0.25, 0, 0.5, 2, 7.5, NAN, -INF, INF }
          local expected = { -1, -1, -0.25, 0, 0.5, 2, 2, NAN, -1, 2 }
          local x = mat(ct, vals)
          near_list(gm.clamp(x, -1, 2):to_table(), expected, ct, place .. " gm.clamp")
          near_list(x:to_table(), vals, ct, place .. " clamp leaves x")
          near_list(x:clamp(-1, 2):to_table(), expected, ct, place .. " m:clamp")
          local into = gm.mat(#vals, { ctype = ct, initial_element = 5 })
          assert.equal(into, gm.clamp(x, -1, 2, { out = into }))
          near_list(into:to_table(), expected, ct, place .. " clamp {out}")
          assert.equal(x, x:clamp_(-1, 2))
          near_list(x:to_table(), expected, ct, place .. " clamp_")
          local y = mat(ct, { -1, 0, 1 })
          gm.clamp_(y, 0.5, 0.25) -- lo > hi: hi everywhere, as Torch7 and NumPy
          near_list(y:to_table(), { 0.25, 0.25, 0.25 }, ct, place .. " lo > hi")
        end)
      end)
    end)
  end

  describe("bad arguments name the function and leave every mat as it was", function()
    local x = gm.mat(3, { initial_contents = { 1, 2, 3 } })
    local function unchanged(m, vals) assert.same(vals, m:to_table()) end

    it("{out} of the wrong dims or ctype", function()
      local o = gm.mat(4, { initial_element = 5 })
      assert.has_error(function() gm.exp(x, { out = o }) end,
        "bad argument #2 to 'exp' (option 'out' has dims 4 but x has 3)")
      unchanged(o, { 5, 5, 5, 5 })
      local o2 = gm.mat({ 3, 1 }, { initial_element = 5 })
      assert.has_error(function() x:relu({ out = o2 }) end,
        "bad argument #2 to 'relu' (option 'out' has dims 3x1 but x has 3)")
      local f = gm.mat(3, { ctype = "float", initial_element = 5 })
      assert.has_error(function() gm.round(x, { out = f }) end,
        "bad argument #2 to 'round' (option 'out' is float but x is double)")
      unchanged(f, { 5, 5, 5 })
      assert.has_error(function() gm.clamp(x, 0, 1, { out = f }) end,
        "bad argument #4 to 'clamp' (option 'out' is float but x is double)")
      unchanged(x, { 1, 2, 3 })
    end)

    it("{out} that is no mat, a freed mat or another view of x's storage", function()
      assert.has_error(function() gm.abs(x, { out = 3 }) end,
        "bad argument #2 to 'abs' (option 'out' must be a mat, got number)")
      local freed = gm.mat(3)
      freed:free()
      assert.has_error(function() gm.abs(x, { out = freed }) end,
        "bad argument #2 to 'abs' (option 'out' is a freed mat)")
      local base = gm.mat(4, { initial_contents = { 1, 2, 3, 4 } })
      local a = gm.mat(3, { displaced_to = base, displacement = 0 })
      local b = gm.mat(3, { displaced_to = base, displacement = 1 })
      assert.has_error(function() gm.neg(a, { out = b }) end,
        "bad argument #2 to 'neg' (option 'out' shares storage with x)")
      unchanged(base, { 1, 2, 3, 4 })
      assert.has_error(function() gm.floor(x, { oops = 1 }) end, "bad argument #2 to 'floor' (unknown option 'oops')")
    end)

    it("more arguments than the function takes", function()
      assert.has_error(function() gm.abs(x, nil, 1) end, "bad argument #3 to 'abs' (no value expected)")
      assert.has_error(function() x:relu_(nil, 1) end, "bad argument #3 to 'relu_' (no value expected)")
      assert.has_error(function() gm.clamp_(x, 0, 1, {}) end, "bad argument #4 to 'clamp_' (no value expected)")
      assert.has_error(function() x:clamp(0, 1, nil, 5) end, "bad argument #5 to 'clamp' (no value expected)")
      unchanged(x, { 1, 2, 3 })
    end)

    it("clamp bounds", function()
      assert.has_error(function() gm.clamp(x, NAN, 1) end, "bad argument #2 to 'clamp' (lo must not be NaN)")
      assert.has_error(function() x:clamp_(0, NAN) end, "bad argument #3 to 'clamp_' (hi must not be NaN)")
      assert.has_error(function() gm.clamp_(x, "a", 1) end,
        "bad argument #2 to 'clamp_' (lo must be a number, got string)")
      assert.has_error(function() gm.clamp(x, 0) end, "bad argument #3 to 'clamp' (hi must be a number, got no value)")
      unchanged(x, { 1, 2, 3 })
    end)
  end)

  describe("the op table and the module agree #host", function()
    local methods = getmetatable(gm.mat(1)).__methods
    local help = require "gpumat.help_data"

    it("lists MGL's twelve first, in their order, then the new functions", function()
      local mgl = { "square", "sqrt", "log", "exp", "inv", "logistic", "sin", "cos", "tan", "sinh", "cosh", "tanh" }
      assert.same(mgl, { table.unpack(core._unary_ops, 1, 12) })
      assert.same(new_names, { table.unpack(core._unary_ops, 13) })
      assert.equal(21, #core._unary_ops)
    end)

    it("registers and documents every table entry, in place and out of place", function()
      for _, name in ipairs(core._unary_ops) do
        for _, f in ipairs { name, name .. "_" } do
          assert.is_function(gm[f], "gm." .. f)
          assert.is_function(methods[f], "m:" .. f)
          assert.is_table(help[f], "gm.help for " .. f)
        end
      end
      for _, f in ipairs { "clamp", "clamp_" } do
        assert.is_function(gm[f])
        assert.is_function(methods[f])
        assert.is_table(help[f])
      end
    end)
  end)
end)
