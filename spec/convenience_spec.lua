-- REPL and script conveniences: scalar operands of + - * / and unary -,
-- and the reductions m:sum() m:mean() m:min() m:max(), against plain-Lua
-- references with exact values, operands unchanged.  Under
-- GPUMAT_DEVICE=emulated every test body runs inside with_cuda (helper.lua),
-- so the same assertions cover the device path.
local gm = require "gpumat"

local NAN, INF = 0 / 0, math.huge
local function isnan(x) return x ~= x end

local function values(m)
  local t = {}
  for i = 1, #m do t[i] = m[i] end
  return t
end

-- float rounding of a double, as a float mat stores it
local function f32(x) return string.unpack("f", string.pack("f", x)) end

local function mat_of(ct, vals, dims)
  return gm.mat(dims or #vals, { ctype = ct, initial_contents = vals })
end

local function same(expected, actual, what)
  assert.are.equal(#expected, #actual, what)
  for i = 1, #expected do
    local e, a = expected[i], actual[i]
    if not ((isnan(e) and isnan(a)) or e == a) then
      error(string.format("%s[%d]: expected %.17g, got %.17g", what or "value", i, e, a), 2)
    end
  end
end

-- Runs fn(ctype) for float and double.
local function each_ctype(fn)
  for _, ct in ipairs { "float", "double" } do fn(ct, ct == "float" and f32 or function(x) return x end) end
end

describe("scalar operands", function()
  local base = { 1, -2, 0.5, 3, NAN, INF }

  it("m + s, s + m, m - s, s - m, m * s, s * m, m / s, s / m, -m give new mats, exact values", function()
    each_ctype(function(ct, r)
      local m = mat_of(ct, base, { 2, 3 })
      local before = values(m)
      local s = 2.5
      local cases = {
        { m + s, function(x) return r(x + s) end, "m + s" },
        { s + m, function(x) return r(x + s) end, "s + m" },
        { m - s, function(x) return r(x - s) end, "m - s" },
        { s - m, function(x) return r(s - x) end, "s - m" },
        { m * s, function(x) return r(x * s) end, "m * s" },
        { s * m, function(x) return r(s * x) end, "s * m" },
        { m / 4, function(x) return r(x * (1 / 4)) end, "m / 4" },
        { 4 / m, function(x) return r(4 * r(1 / x)) end, "4 / m" },
        { -m, function(x) return -x end, "-m" },
      }
      for _, c in ipairs(cases) do
        local res, f, what = c[1], c[2], c[3]
        local expect = {}
        for i, x in ipairs(before) do expect[i] = f(x) end
        same(expect, values(res), ct .. " " .. what)
        assert.are.same({ 2, 3 }, res:dims())
        assert.are.equal(ct, res:ctype())
        assert.are_not.equal(m, res)
      end
      same(before, values(m), "operand")
    end)
  end)

  it("rounds the scalar to the ctype", function()
    local f = mat_of("float", { 0 })
    assert.are.equal(f32(0.1), (f + 0.1)[1])
    assert.are.equal(f32(0.1), (0.1 + f)[1])
  end)

  it("keeps the operand's dims, cuda_enabled flag and displaced view's contents", function()
    local whole = mat_of("double", { 9, 1, 2, 3, 4, 9 })
    local v = gm.mat({ 2, 2 }, { displaced_to = whole, displacement = 1 })
    v:set_cuda_enabled(false)
    local r = v + 10
    assert.are.same({ 11, 12, 13, 14 }, values(r))
    assert.are.same({ 2, 2 }, r:dims())
    assert.is_false(r:cuda_enabled())
    assert.are.same({ 9, 1, 2, 3, 4, 9 }, values(whole))
  end)

  it("mat * mat stays the matrix product, mat + mat the sum", function()
    local a = mat_of("double", { 1, 2, 3, 4 }, { 2, 2 })
    local b = mat_of("double", { 5, 6, 7, 8 }, { 2, 2 })
    assert.are.same({ 19, 22, 43, 50 }, values(a * b))
    assert.are.same({ 6, 8, 10, 12 }, values(a + b))
    assert.are.same({ -4, -4, -4, -4 }, values(a - b))
    assert.are.same({ 1, 2, 3, 4 }, values(a))
    assert.are.same({ 5, 6, 7, 8 }, values(b))
  end)

  it("works on empty mats", function()
    local e = gm.mat({ 0, 3 })
    local r = e + 1
    assert.are.same({ 0, 3 }, r:dims())
    assert.are.equal(0, #(2 * e))
  end)

  it("raises errors naming the operator for bad operands", function()
    local m = mat_of("double", { 1, 2 })
    local function err(f) local ok, e = pcall(f); assert.is_false(ok); return e end
    assert.matches("bad argument #2 to '__add' %(mat or number expected, got string%)", err(function() return m + "1" end))
    assert.matches("bad argument #1 to '__sub' %(mat or number expected, got table%)", err(function() return {} - m end))
    assert.matches("bad argument #2 to '__mul' %(mat or number expected, got boolean%)", err(function() return m * true end))
    assert.matches("bad argument #1 to '__div' %(mat or number expected, got table%)", err(function() return {} / m end))
    assert.matches("add: cannot broadcast 2 with 3", err(function() return m + gm.mat(3) end))
    assert.are.equal("double", (m + gm.mat(2, { ctype = "float" })):ctype()) -- promotes
    assert.matches("bad argument #1 to '__mul' %(matrix must be 2%-dimensional", err(function() return m * m end))
    local freed = mat_of("double", { 1 })
    freed:free()
    assert.matches("bad argument #1 to '__unm' %(attempt to use a freed mat%)", err(function() return -freed end))
    assert.matches("bad argument #2 to '__add' %(attempt to use a freed mat%)", err(function() return 1 + freed end))
    assert.are.same({ 1, 2 }, values(m))
  end)
end)

describe("m:sum() m:mean() m:min() m:max()", function()
  it("return Lua numbers with exact values", function()
    each_ctype(function(ct)
      local m = mat_of(ct, { 3, -1.5, 8, 0.25, -7, 2 }, { 2, 3 })
      local before = values(m)
      assert.are.equal(4.75, m:sum())
      assert.are.equal(4.75 / 6, m:mean())
      assert.are.equal(-7, m:min())
      assert.are.equal(8, m:max())
      assert.are.equal("float", math.type(m:sum()))
      same(before, values(m), "operand")
    end)
  end)

  it("reduce only the visible elements of a displaced view", function()
    local whole = mat_of("double", { 100, 1, 2, 3, -100 })
    local v = gm.mat(3, { displaced_to = whole, displacement = 1 })
    assert.are.equal(6, v:sum())
    assert.are.equal(2, v:mean())
    assert.are.equal(1, v:min())
    assert.are.equal(3, v:max())
  end)

  it("accumulate float sums in double", function()
    -- in float arithmetic 16777216 + 1 is 16777216: each 1 would be lost
    local vals = { 16777216 }
    for i = 2, 101 do vals[i] = 1 end
    local m = mat_of("float", vals)
    assert.are.equal(16777316, m:sum())
    assert.are.equal(16777316 / 101, m:mean())
  end)

  it("give the same exact results over many blocks (large mats, several threads)", function()
    each_ctype(function(ct)
      local n = 300007
      local m = gm.mat(n, { ctype = ct })
      local s, lo, hi = 0, math.huge, -math.huge
      -- fill through a Lua loop over a small pattern (exact in float)
      local pat = {}
      for i = 1, n do
        local x = ((i * 7919) % 1000) - 500
        pat[i] = x
        s = s + x
        if x < lo then lo = x end
        if x > hi then hi = x end
      end
      m:replace_(pat)
      m[200001] = -1000.5
      m[70000] = 2000.25
      s = s - pat[200001] + (-1000.5) - pat[70000] + 2000.25
      assert.are.equal(s, m:sum())
      assert.are.equal(s / n, m:mean())
      assert.are.equal(-1000.5, m:min())
      assert.are.equal(2000.25, m:max())
    end)
  end)

  it("propagate NaN: any NaN element makes all four NaN (in any block)", function()
    each_ctype(function(ct)
      for _, pos in ipairs { 1, 4, 100000 } do
        local m = gm.mat(100001, { ctype = ct, initial_element = 1 })
        m[pos] = NAN
        assert.is_true(isnan(m:sum()), "sum " .. pos)
        assert.is_true(isnan(m:mean()), "mean " .. pos)
        assert.is_true(isnan(m:min()), "min " .. pos)
        assert.is_true(isnan(m:max()), "max " .. pos)
      end
      local inf = mat_of(ct, { 1, INF, -3 })
      assert.are.equal(INF, inf:sum())
      assert.are.equal(INF, inf:max())
      assert.are.equal(-3, inf:min())
      assert.is_true(isnan(mat_of(ct, { INF, -INF }):sum()))
    end)
  end)

  it("empty mats: sum 0, mean/min/max raise", function()
    local e = gm.mat({ 3, 0 })
    assert.are.equal(0, e:sum())
    for _, f in ipairs { "mean", "min", "max" } do
      local ok, err = pcall(e[f], e)
      assert.is_false(ok)
      assert.are.equal("bad argument #1 to '" .. f .. "' (the mat is empty)", err)
    end
  end)

  it("work on rank-0 and untouched mats (initial element) and reject non-mats", function()
    local s = gm.mat({}, { initial_element = 2.5 })
    assert.are.equal(2.5, s:sum())
    assert.are.equal(12, gm.mat(4, { initial_element = 3 }):sum())
    local m = gm.mat(2)
    local ok, err = pcall(m.sum, 3)
    assert.is_false(ok)
    assert.matches("bad argument #1 to 'sum' %(gpumat.mat expected, got number%)", err)
  end)

  it("run on the device inside with_cuda when the mat is cuda-enabled", function()
    local m = mat_of("double", { 1, 2, 3 })
    if gm.use_cuda_p(m) then
      assert.are.equal(6, m:sum())
      assert.matches("C", m:facets()) -- the device facet was used
    else
      assert.are.equal(6, m:sum())
      assert.are.equal("F", m:facets())
    end
  end)
end)
