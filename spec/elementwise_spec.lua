-- Destructive elementwise ops (MGL-MAT §12): every op on float and double,
-- against plain-Lua references, on displaced views (invisible elements
-- unchanged), with the n option, the NaN rules and bad inputs.
local gm = require "gpumat"
local R = require "blas_ref"

local NAN = 0 / 0
local INF = math.huge

local function isnan(v) return v ~= v end

-- tolerance: relative per ctype (float results are rounded to float)
local function near(actual, expected, ct, what, rel)
  if isnan(expected) then
    assert(isnan(actual), string.format("%s: expected nan, got %.17g (%s)", what, actual, ct))
    return
  end
  if expected == INF or expected == -INF then
    assert(actual == expected, string.format("%s: expected %s, got %.17g (%s)", what, expected, actual, ct))
    return
  end
  local tol = (rel or R.tol[ct]) * math.max(1e-30, math.abs(expected))
  if ct == "float" then tol = math.max(tol, 1e-37) else tol = math.max(tol, 1e-300) end
  if not (math.abs(actual - expected) <= tol) then
    error(string.format("%s: expected %.17g, got %.17g (%s)", what, expected, actual, ct), 2)
  end
end

local function near_list(actual, expected, ct, what, rel)
  assert.equal(#expected, #actual)
  for i = 1, #expected do near(actual[i], expected[i], ct, (what or "value") .. "[" .. i .. "]", rel) end
end

-- A view of `vals` (dims given) displaced by 2 inside storage padded with
-- 2 sentinels (-7.25) on each side; check_pad asserts they are unchanged.
local function padded(ct, vals, dims)
  local t = { -7.25, -7.25 }
  for _, v in ipairs(vals) do t[#t + 1] = v end
  t[#t + 1] = -7.25
  t[#t + 1] = -7.25
  local base = gm.mat(#t, { ctype = ct, initial_contents = t })
  local v = gm.mat(dims or #vals, { displaced_to = base, displacement = 2 })
  local function check_pad()
    local all = base:to_table()
    assert.same({ -7.25, -7.25 }, { all[1], all[2] })
    assert.same({ -7.25, -7.25 }, { all[#all - 1], all[#all] })
  end
  return v, check_pad
end

local function rnd(ct, list)
  local out = {}
  for i, v in ipairs(list) do out[i] = gm.coerce_to_ctype(v, ct) end
  return out
end

-- the references: one table keyed by op name (spec/op_refs.lua)
local refs = require "op_refs"
local unary = {
  square = { refs.square, { -2.5, -1, 0, 0.5, 3 } },
  sqrt = { refs.sqrt, { 0, 0.25, 2, 9, 1e6 } },
  log = { refs.log, { 1e-30, 0.5, 1, 2.75, 1e20 } },
  exp = { refs.exp, { -80, -1.5, 0, 0.75, 60 } },
  inv = { refs.inv, { -4, -0.5, 0.25, 3, 1e10 } },
  logistic = { refs.logistic, { -30, -2, 0, 1.5, 40 } },
  sin = { refs.sin, { -3, -0.5, 0, 1, 2.5 } },
  cos = { refs.cos, { -3, -0.5, 0, 1, 2.5 } },
  tan = { refs.tan, { -1.5, -0.5, 0, 1, 1.25 } },
  sinh = { refs.sinh, { -5, -0.5, 0, 1, 3 } },
  cosh = { refs.cosh, { -5, -0.5, 0, 1, 3 } },
  tanh = { refs.tanh, { -12, -0.3, 0, 0.7, 4 } },
}
local unary_names = { "square", "sqrt", "log", "exp", "inv", "logistic", "sin", "cos", "tan",
                      "sinh", "cosh", "tanh" }

describe("elementwise", function()
  for _, ct in ipairs(R.ctypes) do
    describe(ct, function()
      for _, name in ipairs(unary_names) do
        local f, vals = unary[name][1], unary[name][2]
        it(name .. "_ on a displaced view, module function and method", function()
          R.places(function(place)
            local x, check_pad = padded(ct, vals)
            local input = rnd(ct, vals)
            local expected = {}
            for i, v in ipairs(input) do expected[i] = f(v) end
            assert.equal(x, gm[name .. "_"](x))
            near_list(x:to_table(), expected, ct, place .. " " .. name)
            check_pad()
            local y = gm.mat(#vals, { ctype = ct, initial_contents = vals })
            assert.equal(y, y[name .. "_"](y))
            near_list(y:to_table(), expected, ct, place .. " method " .. name)
          end)
        end)
      end

      it("unary ops honour n (only the first n visible elements change)", function()
        R.places(function()
          local x, check_pad = padded(ct, { 1, 2, 3, 4 })
          gm.square_(x, { n = 2 })
          assert.same({ 1, 4, 3, 4 }, x:to_table())
          x:exp_({ n = 0 })
          assert.same({ 1, 4, 3, 4 }, x:to_table())
          x:inv_({ n = 4 })
          near_list(x:to_table(), { 1, 0.25, 1 / 3, 0.25 }, ct, "inv")
          check_pad()
        end)
      end)

      it("NaN and infinity rules", function()
        R.places(function(place)
          local function run(name, vals, expected)
            local x = gm.mat(#vals, { ctype = ct, initial_contents = vals })
            gm[name .. "_"](x)
            near_list(x:to_table(), expected, ct, place .. " " .. name)
          end
          run("sqrt", { -1, -INF, NAN, INF, 0 }, { NAN, NAN, NAN, INF, 0 })
          run("log", { -1, 0, NAN, INF, -INF }, { NAN, -INF, NAN, INF, NAN })
          run("exp", { -INF, INF, NAN, 1000, -1000 }, { 0, INF, NAN, INF, 0 })
          run("tanh", { -INF, INF, NAN, 30, -30 }, { -1, 1, NAN, 1, -1 })
          run("logistic", { -INF, INF, NAN, -1000, 1000 }, { 0, 1, NAN, 0, 1 })
          run("inv", { 0, INF, NAN, -INF, 2 }, { INF, 0, NAN, 0, 0.5 })
          run("square", { NAN, -INF, INF, 1, 2 }, { NAN, INF, INF, 1, 4 })
        end)
      end)

      it("expt_ raises to a power; a negative base with a non-integer power is NaN", function()
        R.places(function()
          local x, check_pad = padded(ct, { -2, -8, 0.25, 3, 0 })
          assert.equal(x, gm.expt_(x, 3))
          near_list(x:to_table(), { -8, -512, 1 / 64, 27, 0 }, ct, "expt 3")
          local y = gm.mat(4, { ctype = ct, initial_contents = { -8, 4, 2.25, 0 } })
          y:expt_(0.5)
          near_list(y:to_table(), { NAN, 2, 1.5, 0 }, ct, "expt 0.5")
          check_pad()
        end)
      end)

      it("add_scalar_ and mul_", function()
        R.places(function()
          local x, check_pad = padded(ct, { 1, -2, 3.5 })
          assert.equal(x, gm.add_scalar_(1.25, x))
          assert.same({ 2.25, -0.75, 4.75 }, x:to_table())
          x:add_scalar_(-0.25)
          assert.same({ 2, -1, 4.5 }, x:to_table())
          local a = gm.mat(3, { ctype = ct, initial_contents = { 2, 0.5, -4 } })
          assert.equal(x, gm.mul_(a, x))
          assert.same({ 4, -0.5, -18 }, x:to_table())
          assert.same({ 2, 0.5, -4 }, a:to_table())
          x:mul_(a)
          assert.same({ 8, -0.25, 72 }, x:to_table())
          a:mul_(a)
          assert.same({ 4, 0.25, 16 }, a:to_table())
          check_pad()
        end)
      end)

      it("geem_ computes alpha a .* b + beta c on views of any shape", function()
        R.places(function()
          local a = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 1, 2 }, { 3, 4 } } })
          local b = padded(ct, { 0.5, -1, 2, 0.25 })
          local c, check_pad = padded(ct, { 1, 1, 1, 1 }, { 4, 1 })
          assert.equal(c, gm.geem_(2, a, b, 0.5, c))
          assert.same({ { 1.5 }, { -3.5 }, { 12.5 }, { 2.5 } }, c:to_table())
          c:geem_(1, a, b, -1)
          assert.same({ { -1 }, { 1.5 }, { -6.5 }, { -1.5 } }, c:to_table())
          check_pad()
        end)
      end)

      it("beta = 0 does not read the written mat (NaN there does not leak)", function()
        R.places(function()
          local a = gm.mat(2, { ctype = ct, initial_contents = { 1, 2 } })
          local c = gm.mat(2, { ctype = ct, initial_contents = { NAN, INF } })
          gm.geem_(1, a, a, 0, c)
          assert.same({ 1, 4 }, c:to_table())
          local b = gm.mat(2, { ctype = ct, initial_contents = { NAN, NAN } })
          gm.add_sign_(3, a, 0, b)
          assert.same({ 3, 3 }, b:to_table())
        end)
      end)

      it("geerv_ multiplies each row of a by x", function()
        R.places(function()
          local a = gm.mat({ 2, 3 }, { ctype = ct, initial_contents = { { 1, 2, 3 }, { 4, 5, 6 } } })
          local x = gm.mat(3, { ctype = ct, initial_contents = { 1, 0.5, -2 } })
          local b, check_pad = padded(ct, { 1, 1, 1, 1, 1, 1 }, { 2, 3 })
          assert.equal(b, gm.geerv_(2, a, x, 1, b))
          assert.same({ { 3, 3, -11 }, { 9, 6, -23 } }, b:to_table())
          b:geerv_(1, a, x, 0)
          assert.same({ { 1, 1, -6 }, { 4, 2.5, -12 } }, b:to_table())
          check_pad()
        end)
      end)

      it("lt_ sets y to 1 where x < y, else 0 (NaN compares false)", function()
        R.places(function()
          local x = gm.mat(5, { ctype = ct, initial_contents = { 1, 2, 3, NAN, 0 } })
          local y, check_pad = padded(ct, { 2, 2, 1, 5, NAN })
          assert.equal(y, gm.lt_(x, y))
          assert.same({ 1, 0, 0, 0, 0 }, y:to_table())
          local z = gm.mat(2, { ctype = ct, initial_contents = { -1, 4 } })
          z:lt_(gm.mat(2, { ctype = ct, initial_contents = { -2, 4 } }))
          assert.same({ 1, 0 }, z:to_table())
          check_pad()
        end)
      end)

      it("min_ and max_ clamp; a NaN element stays NaN", function()
        R.places(function()
          local x, check_pad = padded(ct, { -3, 0.5, 2, NAN })
          assert.equal(x, gm.min_(1, x))
          near_list(x:to_table(), { -3, 0.5, 1, NAN }, ct, "min")
          x:max_(0)
          near_list(x:to_table(), { 0, 0.5, 1, NAN }, ct, "max")
          check_pad()
        end)
      end)

      it("add_sign_ adds alpha sign(a) to beta b", function()
        R.places(function()
          local a = gm.mat(4, { ctype = ct, initial_contents = { -2, 0, 3, NAN } })
          local b, check_pad = padded(ct, { 1, 1, 1, 1 })
          assert.equal(b, gm.add_sign_(2, a, 0.5, b))
          near_list(b:to_table(), { -1.5, 0.5, 2.5, NAN }, ct, "add_sign")
          local c = gm.mat(3, { ctype = ct, initial_contents = { 1, 1, 1 } })
          c:add_sign_(-1, gm.mat(3, { ctype = ct, initial_contents = { 5, -5, 0 } }), 1)
          assert.same({ 0, 2, 1 }, c:to_table())
          check_pad()
        end)
      end)

      it("fill_ fills the visible part and honours n", function()
        R.places(function()
          local x, check_pad = padded(ct, { 1, 2, 3, 4 }, { 2, 2 })
          assert.equal(x, gm.fill_(0.5, x, { n = 3 }))
          assert.same({ { 0.5, 0.5 }, { 0.5, 4 } }, x:to_table())
          x:fill_(-1.5)
          assert.same({ { -1.5, -1.5 }, { -1.5, -1.5 } }, x:to_table())
          x:fill_(9, { n = 0 })
          assert.same({ { -1.5, -1.5 }, { -1.5, -1.5 } }, x:to_table())
          check_pad()
        end)
      end)

      it("sum_ along axis 1 (columns) and 2 (rows) with alpha and beta", function()
        R.places(function()
          local x, check_x = padded(ct, { 1, 2, 3, 4, 5, 6.5 }, { 2, 3 })
          local y, check_pad = padded(ct, { 10, 20, 30 })
          assert.equal(y, gm.sum_(x, y, { axis = 1 }))
          assert.same({ 5, 7, 9.5 }, y:to_table())
          gm.sum_(x, y, { axis = 1, alpha = 2, beta = -1 })
          assert.same({ 5, 7, 9.5 }, y:to_table())
          local r = gm.mat({ 2, 1 }, { ctype = ct, initial_contents = { { 1 }, { 1 } } })
          assert.equal(r, r:sum_(x, { axis = 2, alpha = 0.5, beta = 3 }))
          assert.same({ { 6 }, { 10.75 } }, r:to_table())
          check_pad()
          check_x()
        end)
      end)

      it("sum_ of a large matrix matches a plain-Lua reference", function()
        R.places(function()
          local rows, cols = 37, 301
          local t, cs, rs = {}, {}, {}
          for c = 1, cols do cs[c] = 0 end
          for r = 1, rows do
            rs[r] = 0
            local row = {}
            for c = 1, cols do
              local v = gm.coerce_to_ctype(((r * 31 + c * 17) % 101) / 7 - 5, ct)
              row[c] = v
              cs[c] = cs[c] + v
              rs[r] = rs[r] + v
            end
            t[r] = row
          end
          local x = gm.mat({ rows, cols }, { ctype = ct, initial_contents = t })
          local yc, yr = gm.mat(cols, { ctype = ct }), gm.mat(rows, { ctype = ct })
          gm.sum_(x, yc, { axis = 1 })
          gm.sum_(x, yr, { axis = 2 })
          near_list(yc:to_table(), cs, ct, "column sums", ct == "float" and 1e-4 or nil)
          near_list(yr:to_table(), rs, ct, "row sums", ct == "float" and 1e-4 or nil)
        end)
      end)

      it("scale_rows_ and scale_columns_, in place and into result", function()
        R.places(function()
          local a = gm.mat({ 2, 3 }, { ctype = ct, initial_contents = { { 1, 2, 3 }, { 4, 5, 6 } } })
          local rs = gm.mat(2, { ctype = ct, initial_contents = { 2, -1 } })
          local cs = gm.mat(3, { ctype = ct, initial_contents = { 1, 0.5, 0 } })
          local res, check_pad = padded(ct, { 0, 0, 0, 0, 0, 0 }, { 2, 3 })
          assert.equal(res, gm.scale_rows_(rs, a, { result = res }))
          assert.same({ { 2, 4, 6 }, { -4, -5, -6 } }, res:to_table())
          assert.same({ { 1, 2, 3 }, { 4, 5, 6 } }, a:to_table())
          assert.equal(res, gm.scale_columns_(cs, a, { result = res }))
          assert.same({ { 1, 1, 0 }, { 4, 2.5, 0 } }, res:to_table())
          check_pad()
          assert.equal(a, a:scale_columns_(cs))
          assert.same({ { 1, 1, 0 }, { 4, 2.5, 0 } }, a:to_table())
          assert.equal(a, gm.scale_rows_(rs, a))
          assert.same({ { 2, 2, 0 }, { -4, -2.5, 0 } }, a:to_table())
        end)
      end)
    end)
  end

  describe("float exp, log and tanh (branch-free polynomials)", function()
    -- compares with the C library's double results rounded to float: about
    -- 1 ulp (relative 1.2e-7); 3e-7 leaves room for the rounding of input
    local function sweep(name, f, lo, hi, n, rel)
      local vals, expected = {}, {}
      for i = 1, n do
        local v = gm.coerce_to_ctype(lo + (hi - lo) * (i - 1) / (n - 1), "float")
        vals[i], expected[i] = v, gm.coerce_to_ctype(f(v), "float")
      end
      local x = gm.mat(n, { ctype = "float", initial_contents = vals })
      gm[name .. "_"](x)
      near_list(x:to_table(), expected, "float", name, rel)
    end
    it("exp over [-87, 88]", function() sweep("exp", math.exp, -87, 88, 4001, 3e-7) end)
    it("log over (0, 1e38] and subnormals", function()
      sweep("log", math.log, 1e-3, 10, 2001, 3e-7)
      sweep("log", math.log, 1, 3e38, 2001, 3e-7)
      local x = gm.mat(3, { ctype = "float", initial_contents = { 1e-40, 1e-44, 1.1754942e-38 } })
      x:log_()
      local t = x:to_table()
      near(t[1], math.log(gm.coerce_to_ctype(1e-40, "float")), "float", "log subnormal", 3e-7)
      near(t[2], math.log(gm.coerce_to_ctype(1e-44, "float")), "float", "log subnormal", 3e-7)
      near(t[3], math.log(gm.coerce_to_ctype(1.1754942e-38, "float")), "float", "log subnormal", 3e-7)
    end)
    it("tanh over [-10, 10]", function()
      -- absolute error near 0 is what matters for tanh; compare relative to max(1, |y|)
      local n, vals = 4001, {}
      for i = 1, n do vals[i] = gm.coerce_to_ctype(-10 + 20 * (i - 1) / (n - 1), "float") end
      local x = gm.mat(n, { ctype = "float", initial_contents = vals })
      x:tanh_()
      local t = x:to_table()
      for i = 1, n do
        local e = refs.tanh(vals[i])
        assert(math.abs(t[i] - e) <= 3e-7 * math.max(math.abs(e), 1e-3),
               string.format("tanh(%.9g): expected %.9g, got %.9g", vals[i], e, t[i]))
      end
    end)
    -- tanh_ and gm.tanh of vals followed by tiny and -0 (ctype ct): checks
    -- that both forms agree, that the tiny values come back exact and -0
    -- as -0; returns both forms' elements and the count before the tail
    local function tanh_tail_exact(ct, vals, tiny)
      local n = #vals
      for _, v in ipairs(tiny) do vals[#vals + 1] = gm.coerce_to_ctype(v, ct) end
      vals[#vals + 1] = -0.0
      local x = gm.mat(#vals, { ctype = ct, initial_contents = vals })
      local y = gm.tanh(x)
      x:tanh_()
      local t, t2 = x:to_table(), y:to_table()
      for i = 1, #vals do
        assert(t2[i] == t[i] or (t[i] ~= t[i] and t2[i] ~= t2[i]), string.format("tanh(%a): tanh_ %a, gm.tanh %a", vals[i], t[i], t2[i]))
      end
      for i = n + 1, #vals do
        assert(t[i] == vals[i], string.format("%s tanh(%a) is itself, got %a", ct, vals[i], t[i]))
      end
      assert.equal(-math.huge, 1 / t[#vals], "tanh(-0) is -0")
      assert.equal(-math.huge, 1 / t2[#vals], "tanh(-0) is -0 out of place")
      return t, n
    end
    it("tanh within 2.1 ulp from 1e-3 to 9, tiny values and -0 exact", function()
      -- every float was checked against C's double tanh when the
      -- polynomial was made: 1.86 ulp at most with FMA, 2.02 without
      -- (kernels/elementwise.h); here a geometric sweep of both signs, where
      -- the double reference has no cancellation
      local vals = {}
      for i = 0, 2999 do
        local v = gm.coerce_to_ctype(1e-3 * (9e3) ^ (i / 2999), "float")
        vals[#vals + 1], vals[#vals + 2] = v, -v
      end
      -- the worst cases of the exhaustive checks: this polynomial with and
      -- without FMA, without its refinement of e/(e+2) (2.57 ulp), the old one
      for _, v in ipairs { 0x1.c3e30ep-3, 0x1.a48b9cp-3, 0x1.fc1832p-5, 0x1.41b1cap-1 } do
        vals[#vals + 1], vals[#vals + 2] = v, -v
      end
      local t, n = tanh_tail_exact("float", vals, { 1e-5, -1e-5, 1e-20, 1e-40, -1e-44, 0 })
      for i = 1, n do
        local e = refs.tanh(vals[i])
        local ulp = 2.0 ^ (math.floor(math.log(math.abs(e), 2)) - 23)
        assert(math.abs(t[i] - e) <= 2.1 * ulp,
               string.format("tanh(%.9g): expected %.9g, got %.9g (%.2f ulp)", vals[i], e, t[i], math.abs(t[i] - e) / ulp))
      end
    end)
    it("double tanh within 2.2 ulp of long double tanh (NumPy), tiny values and -0 exact", function()
      -- a polynomial like float's (kernels/elementwise.h): 1.99 ulp at
      -- most over 13M samples with FMA, 2.18 without (the emulated
      -- device's CPU model, the second input below); the error of each element is
      -- measured in NumPy's long double, so the check is of gpumat's error
      -- alone (2.54 ulp at the third input below without the refinement)
      local nref = require "numpy_ref"
      if not nref.python then
        pending(nref.why)
        return
      end
      local vals = { -0x1.a4297ee6a2c3bp-3, -0x1.b93c02d612772p-3, -0x1.bd450ea69d7d6p-3, -0x1.01c946529d39dp-1 }
      for i = 0, 1999 do
        local v = 1e-9 * (19e9) ^ (i / 1999)
        vals[#vals + 1], vals[#vals + 2] = v, -v
      end
      local t, n = tanh_tail_exact("double", vals, { 1e-300, -1e-310, 5e-324, 0 })
      local a, b = {}, {}
      for i = 1, n do a[i], b[i] = vals[i], t[i] end
      local err = nref.numpy({ a = { { n }, a }, b = { { n }, b } }, {
        "np.abs(b.astype(np.longdouble) - np.tanh(a.astype(np.longdouble)))"
          .. " / np.spacing(np.abs(np.tanh(a.astype(np.longdouble)).astype(np.float64)))" })[1][2]
      for i = 1, n do
        assert(err[i] <= 2.2, string.format("tanh(%a): got %.17g, %.2f ulp", vals[i], t[i], err[i]))
      end
    end)
    it("exp of subnormal results", function()
      local x = gm.mat(2, { ctype = "float", initial_contents = { -100, -103 } })
      x:exp_()
      local t = x:to_table()
      near(t[1], math.exp(-100), "float", "exp(-100)", 1e-3)
      near(t[2], math.exp(-103), "float", "exp(-103)", 0.2)
    end)
  end)

  describe("large arrays (parallel host loops)", function()
    it("every element of a large mat is transformed, the padding is not", function()
      local n = 300001
      local base = gm.mat(n + 2, { ctype = "float", initial_element = 4 })
      local x = gm.mat(n, { displaced_to = base, displacement = 1 })
      x:sqrt_()
      x:add_scalar_(1)
      assert.equal(4, base[1])
      assert.equal(4, base[n + 2])
      assert.equal(3, x[1])
      assert.equal(3, x[n // 2])
      assert.equal(3, x[n])
      gm.sum_(x:reshape({ 1, n }), gm.mat(1, { ctype = "float" }), { axis = 2 })
      local s = gm.mat(1, { ctype = "float" })
      gm.sum_(x:reshape({ n, 1 }), s, { axis = 1 })
      assert.equal(3 * n, s[1])
    end)
  end)

  describe("bad inputs", function()
    local d3 = gm.mat(3)
    local d2 = gm.mat(2)
    local f3 = gm.mat(3, { ctype = "float" })
    local m23 = gm.mat({ 2, 3 })
    it("names the function and argument", function()
      assert.has_error(function() gm.exp_(nil) end, "bad argument #1 to 'exp_' (gpumat.mat expected, got nil)")
      assert.has_error(function() gm.exp_(d3, { n = 4 }) end, "bad argument #2 to 'exp_' (n (4) exceeds the size of x (3))")
      assert.has_error(function() gm.log_(d3, { m = 1 }) end, "bad argument #2 to 'log_' (unknown option 'm')")
      assert.has_error(function() gm.expt_(d3, "2") end, "bad argument #2 to 'expt_' (power must be a number, got string)")
      assert.has_error(function() gm.add_scalar_(nil, d3) end, "bad argument #1 to 'add_scalar_' (alpha must be a number, got nil)")
      assert.has_error(function() gm.mul_(d3, d2) end, "bad argument #2 to 'mul_' (y has 2 elements but x has 3)")
      assert.has_error(function() gm.mul_(d3, f3) end, "bad argument #2 to 'mul_' (mixed ctypes: x is double, y is float)")
      assert.has_error(function() gm.geem_(1, d3, d3, 0, d2) end, "bad argument #5 to 'geem_' (c has 2 elements but a has 3)")
      assert.has_error(function() gm.geem_(1, d3, d3, "x", d3) end, "bad argument #4 to 'geem_' (beta must be a number, got string)")
      assert.has_error(function() gm.geerv_(1, m23, d2, 0, m23) end, "bad argument #3 to 'geerv_' (x has 2 elements but a has 3 columns)")
      assert.has_error(function() gm.geerv_(1, d3, d3, 0, d3) end, "bad argument #2 to 'geerv_' (a must be 2-dimensional, got rank 1)")
      assert.has_error(function() gm.geerv_(1, m23, d3, 0, gm.mat({ 3, 2 })) end, "bad argument #5 to 'geerv_' (b must have the dimensions of a (2x3))")
      assert.has_error(function() gm.lt_(f3, d3) end, "bad argument #2 to 'lt_' (mixed ctypes: x is float, y is double)")
      assert.has_error(function() gm.min_(d3, d3) end, "bad argument #1 to 'min_' (alpha must be a number, got userdata)")
      assert.has_error(function() gm.add_sign_(1, d3, 1, d2) end, "bad argument #4 to 'add_sign_' (b has 2 elements but a has 3)")
      assert.has_error(function() gm.fill_(1, d3, { n = 5 }) end, "bad argument #3 to 'fill_' (n (5) exceeds the size of x (3))")
      assert.has_error(function() gm.fill_(1, d3, { n = -1 }) end, "bad argument #3 to 'fill_' (option 'n' must be non-negative, got -1)")
      assert.has_error(function() gm.sum_(m23, d3) end, "bad argument #3 to 'sum_' (option 'axis' is required (1 or 2))")
      assert.has_error(function() gm.sum_(m23, d3, { axis = 0 }) end, "bad argument #3 to 'sum_' (axis 0 is out of range 1..2)")
      assert.has_error(function() gm.sum_(m23, d3, { axis = 2 }) end, "bad argument #2 to 'sum_' (y has 3 elements but summing along axis 2 gives 2)")
      assert.has_error(function() gm.sum_(d3, d3, { axis = 1 }) end, "bad argument #1 to 'sum_' (x must be 2-dimensional, got rank 1)")
      assert.has_error(function() gm.scale_rows_(d3, m23) end, "bad argument #1 to 'scale_rows_' (scales has 3 elements but a has 2 rows)")
      assert.has_error(function() gm.scale_columns_(d3, m23, { result = d3 }) end, "bad argument #3 to 'scale_columns_' (result must have the dimensions of a (2x3))")
      assert.has_error(function() gm.scale_columns_(d3, m23, { result = 1 }) end, "bad argument #3 to 'scale_columns_' (option 'result' must be a mat, got number)")
    end)
    it("methods report the module function's argument numbers", function()
      assert.has_error(function() d3:mul_(d2) end, "bad argument #2 to 'mul_' (y has 3 elements but x has 2)")
      assert.has_error(function() d3:fill_("a") end, "bad argument #1 to 'fill_' (alpha must be a number, got string)")
      assert.has_error(function() d2:geem_(1, d3, d3, 0) end, "bad argument #5 to 'geem_' (c has 2 elements but a has 3)")
    end)
    it("a failed op leaves its operands unchanged", function()
      local x = gm.mat(3, { initial_contents = { 1, 2, 3 } })
      pcall(gm.geem_, 1, x, d2, 0, x)
      assert.same({ 1, 2, 3 }, x:to_table())
      local y = gm.mat(3, { initial_contents = { 1, 2, 3 } })
      pcall(gm.fill_, 0, y, { n = 4 })
      assert.same({ 1, 2, 3 }, y:to_table())
    end)
    it("freed mats are rejected", function()
      local x = gm.mat(2)
      x:free()
      assert.has_error(function() gm.exp_(x) end, "bad argument #1 to 'exp_' (attempt to use a freed mat)")
      local r = gm.mat({ 1, 2 })
      r:free()
      assert.has_error(function() gm.scale_rows_(gm.mat(1), gm.mat({ 1, 2 }), { result = r }) end,
        "bad argument #3 to 'scale_rows_' (option 'result' is a freed mat)")
    end)
  end)
end)
