-- Constructors as Torch7 and NumPy users expect them: zeros, ones, full,
-- eye, range, linspace, rand, randn, zeros_like, ones_like, m:as(ctype).
-- Run on the host and, with GPUMAT_DEVICE=emulated, inside with_cuda
-- (the random fills then run on the emulated device's kernels).
local gm = require "gpumat"

local TOL = { float = 1e-6, double = 1e-15 }

local function close(e, a, ctype)
  return math.abs(e - a) <= TOL[ctype] * math.max(1, math.abs(e))
end

describe("zeros, ones, full", function()
  it("take dims as an integer, a list or several integers", function()
    assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 } }, gm.zeros(2, 3):to_table())
    assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 } }, gm.zeros({ 2, 3 }):to_table())
    assert.are.same({ 1, 1, 1, 1 }, gm.ones(4):to_table())
    assert.are.same({ 2, 1, 3 }, gm.ones(2, 1, 3):dims())
    assert.are.same({ { 7.5, 7.5 } }, gm.full({ 1, 2 }, 7.5):to_table())
    assert.are.same({ -2, -2, -2 }, gm.full(3, -2):to_table())
    assert.are.same({ 0 }, gm.zeros(0):dims())
  end)

  it("take gm.mat's options, also after several integers", function()
    local z = gm.zeros(2, 3, { ctype = "float" })
    assert.are.equal("float", z:ctype())
    assert.are.same({ 2, 3 }, z:dims())
    assert.are.equal("float", gm.ones({ 2 }, { ctype = "float" }):ctype())
    assert.are.equal("double", gm.full(2, 1):ctype())
    assert.is_false(gm.zeros(2, { cuda_enabled = false }):cuda_enabled())
    local f = gm.full(2, 0.1, { ctype = "float" })
    assert.are.equal(gm.coerce_to_ctype(0.1, "float"), f[1])
    local old = gm.default_ctype
    gm.default_ctype = "float"
    local d = gm.ones(2)
    gm.default_ctype = old
    assert.are.equal("float", d:ctype())
  end)

  it("the initial element fills every element of every dtype, -0 and odd lengths included", function()
    -- a new mat's first facet is filled on first use (core/model/vec.c's
    -- fill_host: memset for +0, one element then doubling copies)
    local function is(v, want)
      if type(v) == "table" then return v.re == want and v.im == 0 end -- complex
      if type(v) == "boolean" then return v == (want ~= 0) end
      return v == want
    end
    for _, dt in ipairs { "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                          "uint64", "bool", "float16", "bfloat16", "complex64", "complex128" } do
      for _, n in ipairs { 1, 2, 3, 7, 64, 1001 } do
        for _, v in ipairs { 0, 1, 3 } do
          if not (dt == "bool" and v == 3) then
            local m = gm.full({ n }, v, { dtype = dt })
            local z = gm.zeros({ n }, { dtype = dt })
            for i = 1, n do
              assert(is(m[i], v), string.format("%s full(%d, %d)[%d] = %s", dt, n, v, i, tostring(m[i])))
              assert(is(z[i], 0), string.format("%s zeros(%d)[%d] = %s", dt, n, i, tostring(z[i])))
            end
          end
        end
      end
    end
    for _, dt in ipairs { "float32", "float64" } do
      local m = gm.mat({ 1001 }, { dtype = dt, initial_element = -0.0 })
      for i = 1, 1001 do assert.equal(-math.huge, 1 / m[i]) end
      local p = gm.mat({ 5 }, { dtype = dt, initial_element = 0.0 })
      assert.equal(math.huge, 1 / p[5])
    end
  end)

  it("errors name the function and the argument", function()
    assert.has_error(function() gm.zeros(2, { foo = 1 }) end, "bad argument #2 to 'zeros' (unknown option 'foo')")
    assert.has_error(function() gm.ones(2, 3, { initial_element = 5 }) end,
      "bad argument #3 to 'ones' (unknown option 'initial_element')")
    assert.has_error(function() gm.zeros(-1) end,
      "bad argument #1 to 'zeros' (dimensions must be non-negative integers, got -1)")
    assert.has_error(function() gm.zeros(2, 1.5) end)
    assert.has_error(function() gm.zeros() end, "bad argument #1 to 'zeros' (dimensions expected, got no value)")
    assert.has_error(function() gm.full(2) end, "bad argument #2 to 'full' (value must be a number or a boolean, got nil)")
    assert.has_error(function() gm.zeros({ 2 }, { ctype = "int" }) end,
      "bad argument #2 to 'zeros' (option 'ctype' must be \"float\" (\"float32\"), \"double\" (\"float64\"), \"bool\", \"int8\", \"int16\", \"int32\", \"int64\", \"uint8\", \"uint16\", \"uint32\" or \"uint64\", got int)")
    assert.has_error(function() gm.full(2, 1, { ctype = "int" }) end,
      "bad argument #3 to 'full' (option 'ctype' must be \"float\" (\"float32\"), \"double\" (\"float64\"), \"bool\", \"int8\", \"int16\", \"int32\", \"int64\", \"uint8\", \"uint16\", \"uint32\" or \"uint64\", got int)")
    assert.has_error(function() gm.zeros({ 2 }, {}, 3) end, "bad argument #3 to 'zeros' (no value expected)")
  end)
end)

describe("eye", function()
  it("n x n or n x m with ones on the diagonal", function()
    assert.are.same({ { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }, gm.eye(3):to_table())
    assert.are.same({ { 1, 0, 0, 0 }, { 0, 1, 0, 0 } }, gm.eye(2, 4):to_table())
    assert.are.same({ { 1, 0 }, { 0, 1 }, { 0, 0 } }, gm.eye(3, 2):to_table())
    local f = gm.eye(2, { ctype = "float" })
    assert.are.equal("float", f:ctype())
    assert.are.same({ { 1, 0 }, { 0, 1 } }, f:to_table())
    assert.are.equal("float", gm.eye(2, 2, { ctype = "float" }):ctype())
  end)

  it("puts ones on diagonal k of every dtype, zeros elsewhere", function()
    for _, dt in ipairs({ "float64", "float32", "int8", "uint64", "bool", "float16", "complex128" }) do
      for _, c in ipairs({ { 3, 3, 0 }, { 3, 5, 1 }, { 5, 3, -2 }, { 4, 4, 4 }, { 4, 4, -5 }, { 1, 1, 0 }, { 2, 6, -1 }, { 6, 2, 1 }, { 0, 3, 0 } }) do
        local e = gm.eye(c[1], c[2], { k = c[3], dtype = dt })
        assert.are.same({ c[1], c[2] }, e:dims())
        local t = e:to_table()
        for i = 1, c[1] do
          for j = 1, c[2] do
            local v = t[i][j]
            local one = v == true or v == 1 or (type(v) == "table" and v.re == 1 and v.im == 0)
            assert.are.equal(j - i == c[3], one, string.format("%s eye(%d, %d, k = %d) at %d,%d", dt, c[1], c[2], c[3], i, j))
          end
        end
      end
    end
  end)

  it("rejects bad sizes", function()
    assert.has_error(function() gm.eye(-1) end, "bad argument #1 to 'eye' (dimensions must be non-negative integers, got -1)")
    assert.has_error(function() gm.eye(2, 1.5) end, "bad argument #2 to 'eye' (dimensions must be non-negative integers, got 1.5)")
  end)
end)

describe("range", function()
  -- the values Lua's numeric for visits
  local function lua_for(a, b, s)
    local t = {}
    for v = a, b, s do t[#t + 1] = v end
    return t
  end

  it("is inclusive, like Lua's numeric for and torch.range", function()
    assert.are.same({ 1, 2, 3, 4, 5 }, gm.range(1, 5):to_table())
    assert.are.same({ 5, 3, 1 }, gm.range(5, 1, -2):to_table())
    assert.are.same({ 2, 5, 8 }, gm.range(2, 9, 3):to_table())
    assert.are.same({ 0 }, gm.range(1, 0):dims())
    assert.are.same({ 0 }, gm.range(0, 5, -1):dims())
    assert.are.same({ 3 }, gm.range(3, 3):to_table())
  end)

  it("counts float steps as Lua's for does", function()
    for _, c in ipairs { { 0, 1, 0.1 }, { 0, 1, 0.25 }, { 1, 2, 1 / 3 }, { 0.5, -1, -0.3 }, { 0, 0.3, 0.1 } } do
      local expected = lua_for(c[1], c[2], c[3])
      local m = gm.range(c[1], c[2], c[3])
      assert.are.equal(#expected, m:size(), table.concat(c, ", "))
      for i, v in ipairs(expected) do assert.are.equal(v, m[i]) end
    end
  end)

  it("takes options, with or without a step", function()
    local f = gm.range(0, 1, 0.5, { ctype = "float" })
    assert.are.equal("float", f:ctype())
    assert.are.same({ 0, 0.5, 1 }, f:to_table())
    assert.are.same({ 1, 2, 3 }, gm.range(1, 3, { ctype = "float" }):to_table())
  end)

  it("big ranges are exact: every value, whatever the cores that wrote it", function()
    -- 2^20 values (written by several threads on the host), first + k exact in double
    local n = 1 << 20
    local m = gm.range(2 ^ 40, 2 ^ 40 + n - 1)
    assert.are.equal(n, m:size())
    for _, k in ipairs { 1, 2, 4097, n // 2 + 3, n - 1, n } do assert.are.equal(2 ^ 40 + k - 1, m[k]) end
    assert.are.equal(n * 2 ^ 40 + n * (n - 1) / 2, m:sum()) -- exact: every term and partial sum fits 2^53
    local d = gm.range(-3, 3 * n - 4, 3) -- an integer step: first + k * step
    assert.are.equal(n, d:size())
    for _, k in ipairs { 1, 77, n } do assert.are.equal(-3 + 3 * (k - 1), d[k]) end
    -- float: integers up to 2^24 are exact
    local f = gm.range(2 ^ 24 - n + 1, 2 ^ 24, { ctype = "float" })
    for _, k in ipairs { 1, 1000, n } do assert.are.equal(2 ^ 24 - n + k, f[k]) end
    -- a fractional step accumulates as Lua's for does, also over many values
    local expected = lua_for(0, 1000, 0.1)
    local a = gm.range(0, 1000, 0.1)
    assert.are.equal(#expected, a:size())
    for _, k in ipairs { 1, 2, 3, 5000, #expected - 1, #expected } do assert.are.equal(expected[k], a[k]) end
  end)

  it("rejects a zero step and non-numbers", function()
    assert.has_error(function() gm.range(1, 5, 0) end, "bad argument #3 to 'range' (step must not be zero)")
    assert.has_error(function() gm.range(1, "x") end, "bad argument #2 to 'range' (number expected, got x)")
    assert.has_error(function() gm.range(0, 1e300, 1e-300) end)
  end)
end)

describe("linspace", function()
  it("n values from first to last, both included", function()
    for _, ct in ipairs { "float", "double" } do
      local m = gm.linspace(0, 1, 5, { ctype = ct })
      assert.are.same({ 0, 0.25, 0.5, 0.75, 1 }, m:to_table())
      local l = gm.linspace(-1, 2, 7, { ctype = ct })
      for i = 1, 7 do assert.is_true(close(-1 + (i - 1) * 0.5, l[i], ct)) end
      local t = gm.linspace(0, 1, 11, { ctype = ct })
      assert.are.equal(1, t[11])
      for i = 1, 11 do assert.is_true(close((i - 1) / 10, t[i], ct)) end
    end
    assert.are.same({ 3 }, gm.linspace(3, 9, 1):to_table())
    assert.are.same({ 0 }, gm.linspace(3, 9, 0):dims())
    assert.are.equal(100, gm.linspace(0, 1):size())
  end)

  it("many values: first + k * step, the last exactly last", function()
    local n = (1 << 20) + 1
    local first, last = -1e15, 1e15
    local step = (last - first) / (n - 1)
    for _, ct in ipairs { "float", "double" } do
      local m = gm.linspace(first, last, n, { ctype = ct })
      assert.are.equal(n, m:size())
      local function as_ct(v) return ct == "float" and gm.scalar_as_mat(v, { ctype = "float" })[1] or v end
      assert.are.equal(as_ct(last), m[n])
      for _, k in ipairs { 1, 2, 999, n // 2, n - 1 } do
        assert.are.equal(as_ct(first + (k - 1) * step), m[k], ct .. " element " .. k)
      end
    end
  end)

  it("rejects a bad count", function()
    assert.has_error(function() gm.linspace(0, 1, -2) end,
      "bad argument #3 to 'linspace' (dimensions must be non-negative integers, got -2)")
  end)
end)

describe("rand and randn", function()
  it("rand is uniform in [0, 1), randn standard normal, seeded by gm.seed", function()
    gm.seed(42)
    local u = gm.rand(100, 50)
    assert.are.same({ 100, 50 }, u:dims())
    -- one assertion after the loop, not one per element (minutes under
    -- GPUMAT_TEST_GC=aggressive)
    local s, lo, hi = 0, math.huge, -math.huge
    for i = 1, #u do
      local v = u[i]
      lo, hi, s = math.min(lo, v), math.max(hi, v), s + v
    end
    assert.is_true(lo >= 0 and hi < 1, string.format("rand: values in [%g, %g]", lo, hi))
    assert.is_true(math.abs(s / #u - 0.5) < 0.02)
    local n = gm.randn({ 5000 }, { ctype = "float" })
    assert.are.equal("float", n:ctype())
    local m1, m2 = 0, 0
    for i = 1, #n do
      m1 = m1 + n[i]
      m2 = m2 + n[i] ^ 2
    end
    assert.is_true(math.abs(m1 / #n) < 0.05)
    assert.is_true(math.abs(m2 / #n - 1) < 0.08)
  end)

  it("the same seed gives the same values as uniform_random_ and gaussian_random_", function()
    gm.seed(7)
    local a = gm.rand(3, 4)
    gm.seed(7)
    local b = gm.mat({ 3, 4 }):uniform_random_()
    assert.are.same(b:to_table(), a:to_table())
    gm.seed(7)
    local c = gm.randn(6, { ctype = "float" })
    gm.seed(7)
    local d = gm.mat(6, { ctype = "float" }):gaussian_random_()
    assert.are.same(d:to_table(), c:to_table())
  end)
end)

describe("zeros_like, ones_like and as", function()
  it("keep dims and ctype", function()
    local m = gm.mat({ 2, 3 }, { ctype = "float", initial_element = 5 })
    local z, o = gm.zeros_like(m), gm.ones_like(m)
    assert.are.same({ 2, 3 }, z:dims())
    assert.are.equal("float", z:ctype())
    assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 } }, z:to_table())
    assert.are.same({ { 1, 1, 1 }, { 1, 1, 1 } }, o:to_table())
    assert.are.equal("float", o:ctype())
    assert.has_error(function() gm.zeros_like(3) end, "bad argument #1 to 'zeros_like' (gpumat.mat expected, got number)")
  end)

  it("without options (core._full_like, core._full) give what the options give, for every dtype", function()
    local dts = { "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                  "bool", "float16", "bfloat16", "complex64", "complex128" }
    local function vals(m)
      local t = {}
      for i = 1, m:size() do
        local v = m[i]
        t[i] = type(v) == "table" and (v.re .. "+" .. v.im .. "i") or tostring(v)
      end
      return table.concat(t, " ")
    end
    for _, dt in ipairs(dts) do
      for _, dims in ipairs { { 3, 5 }, {}, { 0, 4 }, { 1001 } } do
        local x = gm.mat(dims, { dtype = dt, cuda_enabled = false })
        for name, v in pairs { zeros_like = 0, ones_like = 1, empty_like = 0 } do
          local a, b = gm[name](x), gm[name](x, {})
          assert.equal(dt, a:dtype(), name)
          assert.same(dims, a:dims(), name)
          assert.is_false(a:cuda_enabled(), name .. " keeps cuda_enabled")
          assert.equal(vals(b), vals(a), name .. " " .. dt)
          assert.equal(vals(gm.full(dims, v, { dtype = dt })), vals(a), name .. " " .. dt)
        end
        local v = dt == "bool" and 1 or 7
        assert.equal(vals(gm.full_like(x, v, {})), vals(gm.full_like(x, v)), "full_like " .. dt)
        assert.equal(dt, gm.full_like(x, true):dtype())
      end
    end
    local old = gm.default_ctype
    gm.default_ctype = "float"
    local ok, z, f = pcall(function() return gm.zeros({ 2, 3 }), gm.full(4, 0.1) end)
    gm.default_ctype = old
    assert(ok, z)
    assert.equal("float", z:ctype())
    assert.same({ 2, 3 }, z:dims())
    assert.equal(gm.coerce_to_ctype(0.1, "float"), f[4])
    assert.equal("double", gm.ones(5):ctype())
    assert.same({ 1, 1, 1, 1, 1 }, gm.ones(5):to_table())
    assert.same({ -2.5, -2.5 }, gm.full({ 2 }, -2.5):to_table())
    -- errors name the function
    local x = gm.mat({ 2 })
    assert.has_error(function() gm.full_like(x, "a") end,
      "bad argument #2 to 'full_like' (value must be a number or a boolean, got string)")
    assert.has_error(function() gm.full({ 2 }, "a") end,
      "bad argument #2 to 'full' (value must be a number or a boolean, got string)")
    assert.has_error(function() gm.zeros({ 2, -1 }) end,
      "bad argument #1 to 'zeros' (dimensions must be non-negative integers, got -1)")
    local nine = { 1, 1, 1, 1, 1, 1, 1, 1, 1 }
    assert.has_error(function() gm.ones(nine) end, "bad argument #1 to 'ones' (rank 9 exceeds 8)")
    assert.has_error(function() gm.ones(nine, {}) end, "bad argument #1 to 'ones' (rank 9 exceeds 8)")
    local y = gm.mat({ 2 })
    y:free()
    assert.has_error(function() gm.zeros_like(y) end, "bad argument #1 to 'zeros_like' (attempt to use a freed mat)")
    assert.has_error(function() gm.ones_like(y) end, "bad argument #1 to 'ones_like' (attempt to use a freed mat)")
  end)

  it("as converts to a new mat of the ctype", function()
    local m = gm.mat({ 2, 2 }, { initial_contents = { { 0.1, 2 }, { 3, 4.5 } } })
    local f = m:as("float")
    assert.are.equal("float", f:ctype())
    assert.are.same({ 2, 2 }, f:dims())
    assert.are.equal(gm.coerce_to_ctype(0.1, "float"), f[1])
    assert.are.equal(4.5, f[4])
    local d = f:as("double")
    assert.are.equal("double", d:ctype())
    assert.are.equal(gm.coerce_to_ctype(0.1, "float"), d[1])
    f[2] = 9
    assert.are.equal(2, m[2]) -- a copy, not a view
    assert.has_error(function() m:as("int") end)
    assert.has_error(function() m:as() end, "bad argument #2 to 'as' (ctype name expected, got nil)")
  end)
end)
