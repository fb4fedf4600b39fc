-- Elementwise functions out of place (gm.F(m), m:F(), {out = m2}), the
-- unary functions after MGL's twelve (abs sign floor ceil round neg log1p
-- expm1 relu and the array standard's acos .. positive, in place and out
-- of place), clamp / clamp_, the unary functions on integer mats, the
-- predicates and logical functions (bool results), the float-only binary
-- functions (atan2 hypot copysign nextafter logaddexp), the standard's
-- names, and the op table (kernels/op_table.h) agreeing with the
-- Lua module and gm.help.  Values against plain-Lua references (NumPy
-- for nextafter and logaddexp) with a tolerance per ctype, on the host
-- and on the emulated device.
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

-- the references: one table keyed by op name (spec/op_refs.lua)
local refs = require "op_refs"

-- reference and inputs of the functions after MGL's twelve (the inputs
-- are exact in float, so the float reference is the double one rounded)
local new_ops = {
  abs = { refs.abs, { -2.5, -0.25, 0, 1.5, -INF, NAN } },
  sign = { refs.sign, { -3.5, -0.25, 0, 0.75, INF, NAN } },
  floor = { refs.floor, { -2.5, -2, -0.25, 0.25, 2.75, 1e6 + 0.5 } },
  ceil = { refs.ceil, { -2.5, -2, -0.25, 0.25, 2.75, 1e6 + 0.5 } },
  round = { refs.round, { -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.25, 0.75, 3 } },
  neg = { refs.neg, { -2.5, 0.25, 3, INF, NAN } },
  log1p = { refs.log1p, { -1, -0.5, 0, 2 ^ -30, 0.75, 3, -2, NAN } },
  expm1 = { refs.expm1, { -20, -0.5, 0, 2 ^ -30, 0.75, 5, INF, NAN } },
  relu = { refs.relu, { -2.5, -0.25, 0, 0.5, 3, -INF, NAN } },
  acos = { refs.acos, { -1, -0.5, 0, 0.75, 1, 1.5, NAN } },
  acosh = { refs.acosh, { 0.5, 1, 1.5, 10, INF, NAN } },
  asin = { refs.asin, { -1, -0.5, 0, 0.75, 1, -1.5, NAN } },
  asinh = { refs.asinh, { -10, -0.5, 0, 0.75, 3, INF, NAN } },
  atan = { refs.atan, { -10, -0.5, 0, 0.75, 3, INF, -INF, NAN } },
  atanh = { refs.atanh, { -1, -0.5, 0, 0.75, 1, 2, NAN } },
  log2 = { refs.log2, { 0, 0.125, 1, 3, 1024, -1, INF, NAN } },
  log10 = { refs.log10, { 0, 0.5, 1, 7, 1000, -1, INF, NAN } },
  trunc = { refs.trunc, { -2.5, -2, -0.75, 0.25, 2.75, 1e6 + 0.5, INF, NAN } },
  positive = { refs.positive, { -2.5, 0, 3, INF, NAN } },
  conj = { refs.conj, { -2.5, 0, 3, INF, NAN } },
}
local new_names = { "abs", "sign", "floor", "ceil", "round", "neg", "log1p", "expm1", "relu", "acos", "acosh",
  "asin", "asinh", "atan", "atanh", "log2", "log10", "trunc", "positive", "conj" }

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

      it("round rounds halves to even (rint), keeps the sign of zero", function()
        R.places(function()
          local x = mat(ct, { -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -0.25 })
          local y = x:round():to_table()
          assert.same({ -2, -2, 0, 0, 2, 2, 4, 0 }, y)
          assert.equal(-INF, 1 / y[3])
          assert.equal(-INF, 1 / y[8])
        end)
      end)

      it("log1p and expm1 keep their precision near 0", function()
        R.places(function()
          local x = mat(ct, { 1e-7, -1e-7 })
          near_list(x:log1p():to_table(), expected_of(refs.log1p, { 1e-7, -1e-7 }, ct), ct, "log1p")
          near_list(x:expm1():to_table(), expected_of(refs.expm1, { 1e-7, -1e-7 }, ct), ct, "expm1")
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
            near_list(c:to_table()[1], y:to_table()[1], "double", place .. " " .. name) -- NaN = NaN here
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

  describe("unary functions on integer mats", function()
    local limits = { int8 = { -128, 127 }, int16 = { -32768, 32767 }, int32 = { -2147483648, 2147483647 },
      int64 = { math.mininteger, math.maxinteger }, uint8 = { 0, 255 }, uint16 = { 0, 65535 },
      uint32 = { 0, 4294967295 }, uint64 = { 0, 1 << 62 } }
    -- v wrapped into ct (two's complement), from Lua's wrapping 64-bit integers
    local function wrap(v, ct)
      local bits = tonumber(ct:match("%d+"))
      if bits == 64 then return v end
      v = v & ((1 << bits) - 1)
      if ct:sub(1, 1) == "i" and v >= 1 << (bits - 1) then v = v - (1 << bits) end
      return v
    end
    -- the rows integer mats take (their kinds column), refs on integers
    local int_rows = {}
    for _, row in ipairs(core._op_table) do
      if row.family == "unary" and row.kinds.int then int_rows[#int_rows + 1] = row.name end
    end
    for _, ct in ipairs { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64" } do
      it(ct .. ": abs/neg of MIN wrap, square wraps, rounding is the identity", function()
        local lo, hi = limits[ct][1], limits[ct][2]
        local vals = lo < 0 and { lo, lo + 1, -3, 0, 5, hi } or { 0, 3, 200 % (hi + 1), hi }
        R.places(function(place)
          local x = gm.mat(#vals, { ctype = ct, initial_contents = vals })
          for _, name in ipairs(int_rows) do
            local f, t = refs[name], { kind = ct:sub(1, 1) == "u" and "uint" or "int" }
            local expected = {}
            for i, v in ipairs(vals) do expected[i] = wrap(f(v, t), ct) end
            local y = gm[name](x)
            assert.equal(ct, y:ctype())
            assert.same(expected, y:to_table(), place .. " " .. ct .. " " .. name)
            local z = x:copy()
            assert.equal(z, z[name .. "_"](z))
            assert.same(expected, z:to_table(), place .. " " .. ct .. " " .. name .. "_")
          end
          assert.same(vals, x:to_table())
        end)
      end)
    end

    it("in-place float functions refuse integer mats (spec/typed_mats_spec.lua: gm.sqrt(i) is float); bool mats take no integer row", function()
      local i = gm.mat(2, { ctype = "int32", initial_contents = { 1, 2 } })
      assert.has_error(function() gm.sqrt_(i) end,
        "bad argument #1 to 'sqrt_' (an int32 mat; this function takes float32/float64 mats (convert with m:as(\"float64\")))")
      assert.has_error(function() i:exp_() end,
        "bad argument #1 to 'exp_' (an int32 mat; this function takes float32/float64 mats (convert with m:as(\"float64\")))")
      local b = gm.mat(2, { ctype = "bool", initial_contents = { 1, 0 } })
      assert.has_error(function() gm.abs(b) end,
        "bad argument #1 to 'abs' (a bool mat; this function takes float32/float64 mats (convert with m:as(\"float64\")))")
      local f = gm.mat(2, { ctype = "float", initial_element = 1 })
      assert.has_error(function() gm.abs(i, { out = f }) end)
      assert.same({ 1, 1 }, f:to_table())
    end)
  end)

  describe("predicates and logical functions give bool mats", function()
    local vals = { NAN, INF, -INF, -0.0, 0, 1.5, -2 }
    local want = {
      isnan = { true, false, false, false, false, false, false },
      isinf = { false, true, true, false, false, false, false },
      isfinite = { false, false, false, true, true, true, true },
      logical_not = { false, false, false, true, true, false, false },
    }
    for _, ct in ipairs(R.ctypes) do
      it(ct .. ": isnan isinf isfinite signbit logical_not", function()
        R.places(function(place)
          local x = gm.mat({ 1, #vals }, { ctype = ct, initial_contents = { vals } })
          for name, w in pairs(want) do
            local y = gm[name](x)
            assert.equal("bool", y:ctype())
            assert.same({ 1, #vals }, y:dims())
            assert.equal(x:cuda_enabled(), y:cuda_enabled())
            assert.same({ w }, y:to_table(), place .. " " .. name)
          end
          -- the sign bit of -0.0 and -inf, not of +0.0 (NaN's is left out: 0/0's sign varies)
          local s = gm.mat(6, { ctype = ct, initial_contents = { -0.0, 0, -INF, INF, -2, 3 } })
          assert.same({ true, false, true, false, true, false }, s:signbit():to_table(), place .. " signbit")
          -- a transposed view is read in its own order
          local m = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { NAN, 1 }, { 2, INF } } })
          assert.same({ { true, false }, { false, false } }, gm.isnan(m:t()):to_table(), place .. " view")
        end)
      end)
    end

    it("integer and bool mats: nothing is NaN or infinite", function()
      R.places(function(place)
        for _, ct in ipairs { "int8", "uint16", "int64", "bool" } do
          local vals = ct == "bool" and { 1, 0, 1 } or { ct == "uint16" and 7 or -7, 0, 3 }
          local x = gm.mat(3, { ctype = ct, initial_contents = vals })
          assert.same({ false, false, false }, gm.isnan(x):to_table(), place .. ct)
          assert.same({ false, false, false }, gm.isinf(x):to_table(), place .. ct)
          assert.same({ true, true, true }, gm.isfinite(x):to_table(), place .. ct)
          local neg = ct == "int8" or ct == "int64"
          assert.same({ neg, false, false }, gm.signbit(x):to_table(), place .. ct)
          assert.same({ false, true, false }, x:logical_not():to_table(), place .. ct)
        end
      end)
    end)

    it("logical_and, or, xor: nonzero (NaN too) is true, operands broadcast, numbers allowed", function()
      R.places(function(place)
        local a = gm.mat({ 3, 1 }, { initial_contents = { { 0 }, { NAN }, { -2 } } })
        local b = gm.mat({ 1, 2 }, { ctype = "int16", initial_contents = { { 0, 5 } } })
        local F, T = false, true
        assert.same({ { F, F }, { F, T }, { F, T } }, gm.logical_and(a, b):to_table(), place .. " and")
        assert.same({ { F, T }, { T, T }, { T, T } }, gm.logical_or(a, b):to_table(), place .. " or")
        assert.same({ { F, T }, { T, F }, { T, F } }, gm.logical_xor(a, b):to_table(), place .. " xor")
        assert.same({ { F }, { T }, { T } }, gm.logical_and(a, NAN):to_table(), place .. " and NaN")
        assert.same({ { F, T } }, gm.logical_and(0.5, b):to_table(), place .. " number and")
        assert.same({ { F, F } }, gm.logical_and(0, b):to_table(), place .. " 0 and")
        -- Lua booleans are weak bools here as in every broadcasting op (they raised)
        assert.same({ { F, T } }, gm.logical_and(true, b):to_table(), place .. " true and")
        assert.same({ { T, F } }, gm.logical_xor(b, true):to_table(), place .. " xor true")
        local out = gm.mat({ 3, 2 }, { ctype = "bool" })
        assert.equal(out, gm.logical_or(a, b, { out = out }))
        assert.same({ { F, T }, { T, T }, { T, T } }, out:to_table())
        assert.equal("bool", gm.logical_xor(a, a):ctype())
        -- bool operands are their own truth (no copy): broadcast, mixed
        -- with others, and an operand that is also out (the engine's overlap)
        local p = gm.mat({ 3, 1 }, { ctype = "bool", initial_contents = { { 0 }, { 1 }, { 1 } } })
        local q = gm.mat({ 1, 2 }, { ctype = "bool", initial_contents = { { 0, 1 } } })
        assert.same({ { F, F }, { F, T }, { F, T } }, gm.logical_and(p, q):to_table(), place .. " bool and")
        assert.same({ { F, T }, { T, T }, { T, T } }, gm.logical_or(p, q):to_table(), place .. " bool or")
        assert.same({ { F, T }, { T, F }, { T, F } }, gm.logical_xor(p, b):to_table(), place .. " bool xor int16")
        assert.same({ { F }, { T }, { T } }, gm.logical_or(p, p):to_table(), place .. " bool or itself")
        assert.same({ { F }, { F }, { F } }, gm.logical_xor(p, p):to_table(), place .. " bool xor itself")
        local r = gm.mat({ 4 }, { ctype = "bool", initial_contents = { 1, 0, 1, 0 } })
        local s = gm.mat({ 4 }, { ctype = "bool", initial_contents = { 1, 1, 0, 0 } })
        assert.equal(r, gm.logical_xor(r, s, { out = r }))
        assert.same({ F, T, T, F }, r:to_table(), place .. " xor into an operand")
        gm.logical_and(r, s, { out = s })
        assert.same({ F, T, F, F }, s:to_table(), place .. " and into an operand")
      end)
      assert.has_error(function() gm.logical_and(1, 2) end,
        "bad argument #2 to 'logical_and' (mat expected, got number (one operand must be a mat))")
      assert.has_error(function() gm.logical_or({}, 2) end,
        "bad argument #1 to 'logical_or' (mat or number expected, got table)")
    end)
  end)

  describe("binary float functions (broadcasting)", function()
    local a_vals = { 0, -0.0, 1, -1.5, 3, INF, -INF, NAN, 2.5, -4, 0.75, 100 }
    local b_vals = { -0.0, 2, -3 }
    local nref = require "numpy_ref"
    local lua_refs = { atan2 = refs.atan2, hypot = refs.hypot, copysign = refs.copysign }
    for _, ct in ipairs(R.ctypes) do
      it(ct .. ": atan2 hypot copysign (Lua), nextafter logaddexp (NumPy)", function()
        local np = ct == "float" and "np.float32" or "np.float64"
        local exprs = {}
        for _, f in ipairs { "nextafter", "logaddexp" } do
          -- errstate: NumPy's warning for inf - inf inside logaddexp is not wanted on stderr
          exprs[#exprs + 1] = string.format("(np.seterr(all='ignore'), np.%s(a.astype(%s), b.astype(%s)))[1]", f, np, np)
        end
        local ref = nref.python and nref.numpy({ a = { { 4, 3 }, a_vals }, b = { { 1, 3 }, b_vals } }, exprs)
        R.places(function(place)
          local a, b = nref.mk(ct, { 4, 3 }, a_vals), nref.mk(ct, { 1, 3 }, b_vals)
          for name, f in pairs(lua_refs) do
            local expected = {}
            for i, v in ipairs(a_vals) do
              expected[i] = gm.coerce_to_ctype(f(gm.coerce_to_ctype(v, ct), b_vals[(i - 1) % 3 + 1]), ct)
            end
            local y = gm[name](a, b)
            assert.same({ 4, 3 }, y:dims())
            near_list(nref.flat(y), expected, ct, place .. " " .. name)
          end
          assert.equal(-1, gm.copysign(a, -0.0):to_table()[1][3]) -- copysign(1, -0) = -1
          assert.equal(gm.coerce_to_ctype(math.pi, ct), gm.atan2(gm.mat(1, { ctype = ct, initial_element = 0 }), -0.0):to_table()[1])
          if ref then
            for k, f in ipairs { "nextafter", "logaddexp" } do
              local got = nref.flat(gm[f](a, b))
              if f == "nextafter" then
                for i = 1, #got do
                  local e, g = ref[k][2][i], got[i]
                  assert(e == g or (e ~= e and g ~= g), string.format("%s %s nextafter[%d]: %.17g vs numpy %.17g", place, ct, i, g, e))
                end
              else
                near_list(got, ref[k][2], ct, place .. " logaddexp")
              end
            end
          end
        end)
      end)
    end

    it("compute integer and bool mats in floats (NumPy's types; float32 for its float16)", function()
      local i = gm.mat(2, { ctype = "int32", initial_contents = { 1, 2 } })
      local h = gm.hypot(i, i)
      assert.equal("double", h:ctype())
      assert.near(math.sqrt(2), h[1], 1e-15)
      assert.near(math.atan(1, 1), gm.atan2(i, 1)[1], 1e-15)
      local b = gm.mat(2, { ctype = "bool", initial_contents = { 1, 0 } })
      local l = gm.logaddexp(b, b)
      assert.equal("float", l:ctype())
      assert.near(1 + math.log(2), l[1], 1e-6)
      -- a float mat with an integer one: promoted to the float type first
      local f = gm.mat(2, { initial_contents = { 1, 1 } })
      local y = gm.atan2(f, i)
      assert.equal("double", y:ctype())
      near_list(y:to_table(), { math.atan(1, 1), math.atan(1, 2) }, "double", "atan2(float64, int32)")
    end)
  end)

  describe("the array standard's names #host", function()
    local methods = getmetatable(gm.mat(1)).__methods
    it("are the same functions as gpumat's", function()
      local names = { multiply = "cmul", divide = "cdiv", maximum = "cmax", minimum = "cmin", subtract = "sub",
        negative = "neg", reciprocal = "inv" }
      for std, own in pairs(names) do
        assert.equal(gm[own], gm[std], std)
        assert.equal(methods[own], methods[std], "m:" .. std)
      end
      local x = gm.mat(2, { ctype = "int8", initial_contents = { -128, 3 } })
      assert.same({ -128, -3 }, gm.negative(x):to_table())
      assert.same({ 0, 9 }, gm.multiply(x, x):to_table())
    end)
  end)

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

    -- The binding reads a raw {out = y} in one traversal (src/lua/util.c,
    -- plain_out); a metatable changes nothing there, and an empty table
    -- whose __index answers "out" takes the general path, which asks it.
    it("{out} behind a metatable: raw, through __index, with an unknown raw key", function()
      local y = gm.mat(3, { initial_element = 0 })
      assert.equal(y, gm.sqrt(x, setmetatable({ out = y }, { __index = function() error("not asked") end })))
      assert.same({ 1, math.sqrt(2), math.sqrt(3) }, y:to_table())
      local z = gm.mat(3, { initial_element = 0 })
      assert.equal(z, gm.abs(x, setmetatable({}, { __index = { out = z } })))
      assert.same({ 1, 2, 3 }, z:to_table())
      local w = gm.mat(3, { initial_element = 7 })
      assert.has_error(function() gm.exp(x, setmetatable({ out = w, oops = 1 }, {})) end,
        "bad argument #2 to 'exp' (unknown option 'oops')")
      assert.has_error(function() gm.exp(x, setmetatable({}, { __index = { out = 3 } })) end,
        "bad argument #2 to 'exp' (option 'out' must be a mat, got number)")
      unchanged(w, { 7, 7, 7 })
      unchanged(x, { 1, 2, 3 })
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
      assert.equal(32, #core._unary_ops)
    end)

    -- every row of kernels/op_table.h against its reference in
    -- spec/op_refs.lua, on every ctype its kinds column says it runs on,
    -- with the result ctype its result column says (host and emulated)
    local refs = require "op_refs"
    local inputs = {
      float = { { -2.5, -1, -0.5, 0, 0.5, 1, 2, 3 }, { 0.5, -1.5, 2, 0.25, -3, 4, 1, -0.75 } },
      int = { { -3, -1, 0, 1, 2, 5, -2, 7 }, { 2, -1, 3, 0, 1, 7, -3, 1 } },
      uint = { { 0, 1, 2, 3, 5, 7, 6, 4 }, { 2, 1, 3, 0, 1, 7, 2, 1 } },
      bool = { { 0, 1, 1, 0, 1, 0, 0, 1 }, { 1, 1, 0, 0, 1, 0, 1, 1 } },
    }
    local function info(ct)
      local c = core._ctypes[ct]
      return { name = ct, kind = c.kind, tol = c.tol, bits = tonumber(c.dtype:match("%d+")), signed = c.kind == "int" }
    end
    local function wrap(v, t)
      if t.kind ~= "int" and t.kind ~= "uint" then return v end
      v = math.tointeger(v) or v
      if math.type(v) ~= "integer" or t.bits == 64 then return v end
      v = v & ((1 << t.bits) - 1)
      if t.signed and v >= 1 << (t.bits - 1) then v = v - (1 << t.bits) end
      return v
    end
    local function result_ctype(row, t)
      local r = row.result
      if r == "bool" or r == "int64" then return r end
      if t.kind == "float" or r == "same" then return t.name end
      if r == "float" then return "double" end
      return t.kind == "uint" and "uint64" or "int64" -- accumulator
    end
    local function num(v) return v == true and 1 or v == false and 0 or v end
    local function check(got, want, t, rt, what)
      got, want = num(got), num(want)
      if rt.kind == "float" and type(want) == "number" then
        want = gm.coerce_to_ctype(want, rt.name)
        local ok = (want ~= want and got ~= got) or got == want
          or math.abs(got - want) <= rt.tol * math.max(1, math.abs(want))
        assert(ok, string.format("%s: expected %.17g, got %.17g", what, want, got))
      else
        assert(got == wrap(want, rt), string.format("%s: expected %s, got %s", what, tostring(want), tostring(got)))
      end
    end
    -- the row's function on the first input (and the second) of kind t
    local function run(row, x, y, t)
      local f, n = row.family, row.name
      if f == "unary" or f == "predicate" then return (gm[n] or core[n])(x) end -- core._truth
      if f == "scalar" then return x[n](x, 1.5) end
      if f == "binary" or f == "comparison" then return gm[n](x, y) end
      if n == "softmax" then return gm.softmax(x, 1) end
      if n == "logsumexp" then return gm.mat_as_scalar(gm.logsumexp(x, 1)) end -- an axis is required
      return gm[n](x)
    end
    local function expected(row, a, b, t)
      local f, ref = row.family, refs[row.name]
      if f == "reduction" then return ref(a, t) end
      local out = {}
      for i = 1, #a do
        if f == "unary" or f == "predicate" then out[i] = ref(a[i], t)
        elseif f == "scalar" then out[i] = ref(a[i], 1.5, t)
        else out[i] = ref(a[i], b[i], t) end
      end
      return out
    end

    it("has a reference for every row, and every row computes it on the ctypes it runs on", function()
      local missing = {}
      for _, row in ipairs(core._op_table) do
        if not refs[row.name] then missing[#missing + 1] = row.name end
      end
      assert.are.same({}, missing, "add these rows' references to spec/op_refs.lua")
      -- the complex ctypes' rows (kinds C) are checked against NumPy in
      -- spec/complex_spec.lua (op_refs' references compute on Lua reals)
      local cts = {}
      for ct, c in pairs(core._ctypes) do
        if c.kind ~= "complex" then cts[#cts + 1] = ct end
      end
      table.sort(cts)
      R.places(function(place)
        for _, row in ipairs(core._op_table) do
          for _, ct in ipairs(cts) do
            local t = info(ct)
            if row.kinds[t.kind] then
              local a, b = inputs[t.kind][1], inputs[t.kind][2]
              local what = string.format("%s %s %s", place, row.name, ct)
              local got = run(row, mat(ct, a), mat(ct, b), t)
              local want = expected(row, a, b, t)
              if type(want) ~= "table" then
                check(got, want, t, info(row.result == "bool" and "bool" or ct), what)
              else
                local rt = info(result_ctype(row, t))
                assert.equal(rt.name, got:ctype(), what .. ": result ctype")
                local g = got:to_table()
                for i = 1, #want do check(g[i], want[i], t, rt, what .. "[" .. i .. "]") end
              end
            end
          end
        end
      end)
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
