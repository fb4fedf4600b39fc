-- Typed mats: bool and every integer type as mat element
-- types (docs/API.md "Element types").  Every value is checked against a
-- plain-Lua reference; under GPUMAT_DEVICE=emulated the bodies run inside
-- the emulated device (spec/helper.lua), so fills and copies take its
-- kernels and element access reads back through its facets.
local gm = require "gpumat"

-- The integer types: their range as Lua integers (uint64's top is the
-- integer with all 64 bits set, Lua's unsigned convention).
local INTS = {
  { name = "int8", lo = -128, hi = 127, bytes = 1, descr = "|i1" },
  { name = "int16", lo = -32768, hi = 32767, bytes = 2, descr = "<i2" },
  { name = "int32", lo = -2147483648, hi = 2147483647, bytes = 4, descr = "<i4" },
  { name = "int64", lo = math.mininteger, hi = math.maxinteger, bytes = 8, descr = "<i8" },
  { name = "uint8", lo = 0, hi = 255, bytes = 1, descr = "|u1" },
  { name = "uint16", lo = 0, hi = 65535, bytes = 2, descr = "<u2" },
  { name = "uint32", lo = 0, hi = 4294967295, bytes = 4, descr = "<u4" },
  { name = "uint64", lo = 0, hi = -1, bytes = 8, descr = "<u8" },
}
local ALL = { "float32", "float64", "bool" }
for _, t in ipairs(INTS) do ALL[#ALL + 1] = t.name end

-- v wrapped into t (two's complement), as astype between integers does.
local function wrap(t, v)
  if t.bytes == 8 then return v end
  local bits = t.bytes * 8
  local u = v & ((1 << bits) - 1)
  if t.lo < 0 and u >= (1 << (bits - 1)) then u = u - (1 << bits) end
  return u
end

-- x (a float) converted into t with saturation: NaN -> 0, out of range ->
-- the nearest bound, else truncated toward zero.
local function sat(t, x)
  if x ~= x then return 0 end
  local lo = t.lo + 0.0
  local hi = t.name == "uint64" and 2.0 ^ 64 or t.name == "int64" and 2.0 ^ 63 or t.hi + 0.0
  if x <= lo then return t.lo end
  if x >= hi then return t.hi end
  local r = x < 0 and math.ceil(x) or math.floor(x)
  if t.name == "uint64" and r >= 2.0 ^ 63 then return math.tointeger(r - 2.0 ^ 64) end
  return math.tointeger(r)
end

-- The Python with numpy (bench/lib/bench_external.lua's choice).
local PY = os.getenv("GPUMAT_BENCH_PYTHON") or "/usr/bin/python3"

local function tmpname(suffix)
  return os.tmpname() .. suffix
end

describe("typed mats: names and constructors", function()
  it("every element type makes mats with m:ctype() and m:dtype()", function()
    for _, d in ipairs(ALL) do
      local m = gm.mat({ 2, 3 }, { ctype = d })
      assert.are.equal(d, m:dtype())
      local ct = d == "float32" and "float" or d == "float64" and "double" or d
      assert.are.equal(ct, m:ctype())
      assert.are.same({ 2, 3 }, m:dims())
      local z = gm.zeros(2, 3, { dtype = d })
      assert.are.equal(d, z:dtype())
      local one = gm.ones({ 4 }, { dtype = d })
      local want = d == "bool" and true or d:find("float") and 1.0 or 1
      for k = 1, 4 do assert.are.equal(want, one[k]) end
      local zero = 0
      if d == "bool" then zero = false elseif d:find("float") then zero = 0.0 end
      assert.are.equal(zero, z[{ 2, 3 }])
    end
  end)

  it("ctype and dtype name the same option: both at once raise", function()
    assert.has_error(function() gm.mat(2, { ctype = "int8", dtype = "int8" }) end,
      "bad argument #2 to 'mat' (options 'ctype' and 'dtype' name the same thing: give one)")
    assert.has_error(function() gm.mat(2, { dtype = "int3" }) end)
    assert.are.equal("int16", gm.array_to_mat({ 1, 2 }, { dtype = "int16" }):dtype())
  end)

  it("full fills with the value converted as astype does", function()
    for _, t in ipairs(INTS) do
      local m = gm.full({ 3 }, 7, { dtype = t.name })
      assert.are.same({ 7, 7, 7 }, m:to_table())
      local s = gm.full({ 2 }, 1e30, { dtype = t.name })
      assert.are.same({ t.hi, t.hi }, s:to_table())
      local n = gm.full({ 2 }, 0 / 0, { dtype = t.name })
      assert.are.same({ 0, 0 }, n:to_table())
      assert.are.equal(7, m:initial_element())
      assert.are.equal("integer", math.type(m:initial_element()))
      assert.are.equal(t.hi, s:initial_element())
    end
    assert.are.same({ true, true }, gm.full({ 2 }, true, { dtype = "bool" }):to_table())
    assert.are.same({ false }, gm.full({ 1 }, 0, { dtype = "bool" }):to_table())
  end)

  it("array_to_mat and fill_ on every integer type", function()
    for _, t in ipairs(INTS) do
      local m = gm.array_to_mat({ { 1, 2 }, { 3, 100 } }, { ctype = t.name })
      assert.are.same({ { 1, 2 }, { 3, 100 } }, m:to_table())
      m:fill_(5)
      assert.are.same({ { 5, 5 }, { 5, 5 } }, m:to_table())
      assert.are.equal("integer", math.type(m[1]))
    end
  end)
end)

describe("typed mats: element access", function()
  it("reads and writes each type's bounds exactly as Lua integers", function()
    for _, t in ipairs(INTS) do
      local m = gm.zeros({ 2, 2 }, { dtype = t.name })
      m[{ 1, 1 }] = t.lo
      m[{ 1, 2 }] = t.hi
      m[3] = 42
      m:set(2, 2, -1)
      assert.are.equal(t.lo, m[{ 1, 1 }])
      assert.are.equal(t.hi, m:mref(1, 2))
      assert.are.equal(42, m[3])
      assert.are.equal(wrap(t, -1), m[4])
      assert.are.equal("integer", math.type(m[{ 1, 2 }]))
      assert.are.same({ { t.lo, t.hi }, { 42, wrap(t, -1) } }, m:to_table())
    end
  end)

  it("uint64 at or above 2^63 reads as the integer with the same bits", function()
    local m = gm.zeros({ 2 }, { dtype = "uint64" })
    m[1] = math.mininteger -- 2^63
    m[2] = -1              -- 2^64 - 1
    assert.are.equal(math.mininteger, m[1])
    assert.are.equal(-1, m[2])
    assert.is_true(math.ult(1, m[1]))
    assert.truthy(tostring(m):find("{9223372036854775808, 18446744073709551615}", 1, true))
  end)

  it("integer writes wrap, float writes saturate, NaN gives 0, booleans give 1 and 0", function()
    for _, t in ipairs(INTS) do
      local m = gm.zeros({ 8 }, { dtype = t.name })
      m[1] = 300
      m[2] = 300.0
      m[3] = -1.5
      m[4] = 0 / 0
      m[5] = -1e300
      m[6] = 2.9
      m[7] = true
      m[8] = false
      assert.are.same({ wrap(t, 300), sat(t, 300.0), sat(t, -1.5), 0, t.lo, 2, 1, 0 }, m:to_table())
    end
    local u8 = gm.zeros({ 2 }, { dtype = "uint8" })
    u8[1] = 300
    u8[2] = 300.0
    assert.are.same({ 44, 255 }, u8:to_table()) -- the documented rule, spelled out once
  end)

  it("bool mats hold true and false; numbers write as != 0 (NaN is true)", function()
    local b = gm.zeros({ 5 }, { dtype = "bool" })
    b[1] = true
    b[2] = 2
    b[3] = 0.0
    b[4] = 0 / 0
    b[5] = -0.5
    assert.are.same({ true, true, false, true, true }, b:to_table())
    assert.are.equal("boolean", type(b[1]))
    assert.has_error(function() b[1] = "x" end, "bad argument #3 to 'set' (number or boolean expected, got string)")
  end)

  it("views, reshape, strides and copies keep the type and the values", function()
    for _, t in ipairs(INTS) do
      local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } }, { dtype = t.name })
      local tr = m:t()
      assert.are.equal(t.name, tr:dtype())
      assert.are.same({ { 1, 4 }, { 2, 5 }, { 3, 6 } }, tr:to_table())
      local c = tr:copy()
      assert.are.equal(t.name, c:dtype())
      assert.are.same({ { 1, 4 }, { 2, 5 }, { 3, 6 } }, c:to_table())
      assert.are.same({ 2, 5 }, m:select(2, 2):to_table())
      assert.are.same({ { 2, 3 }, { 5, 6 } }, m:narrow(2, 2, 2):to_table())
      assert.are.same({ { 1, 2 }, { 3, 4 }, { 5, 6 } }, m:reshape({ 3, 2 }):to_table())
      local ct = tr:contiguous()
      assert.are.same({ 1, 4, 2, 5, 3, 6 }, { ct[1], ct[2], ct[3], ct[4], ct[5], ct[6] })
      m[{ 2, {} }] = 9 -- slice assignment fills
      assert.are.same({ { 1, 2, 3 }, { 9, 9, 9 } }, m:to_table())
    end
  end)

  it("a view takes every value one element takes, exactly: booleans, gm.complex, integers past 2^53", function()
    local b = gm.zeros({ 2, 3 }, { dtype = "bool" })
    b[{ 2 }] = true
    assert.are.same({ { false, false, false }, { true, true, true } }, b:to_table())
    local big = (1 << 62) + 1 -- a double would round it to 2^62
    for _, t in ipairs({ "int64", "uint64" }) do
      local m = gm.zeros({ 2, 3 }, { dtype = t })
      m[{ 1, { 2, 3 } }] = big
      m[{ 2 }] = true
      assert.are.same({ { 0, big, big }, { 1, 1, 1 } }, m:to_table())
    end
    local z = gm.zeros({ 2, 2 }, { dtype = "complex64" })
    z[{ {}, 2 }] = gm.complex(7, -8)
    assert.are.same({ 0, 7, 0, 7 }, { z[{ 1, 1 }].re, z[{ 1, 2 }].re, z[{ 2, 1 }].re, z[{ 2, 2 }].re })
    assert.are.same({ 0, -8, 0, -8 }, { z[{ 1, 1 }].im, z[{ 1, 2 }].im, z[{ 2, 1 }].im, z[{ 2, 2 }].im })
    local d = gm.zeros({ 2, 2 })
    assert.has_error(function() d[{ 1 }] = true end, "bad argument #3 to 'set' (number expected, got boolean)")
    assert.has_error(function() b[{ 1 }] = "x" end, "bad argument #3 to 'set' (number or boolean expected, got string)")
    assert.are.same({ { 0, 0 }, { 0, 0 } }, d:to_table())
  end)
end)

describe("typed mats: astype", function()
  local xs = { 1.5, -1.5, 300.0, -300.0, 0 / 0, 1 / 0, -1 / 0, 1e20, -0.0, 70000.7 }

  it("float -> integer saturates (NaN -> 0) for every integer type", function()
    for _, src in ipairs({ "float64", "float32" }) do
      local f = gm.array_to_mat(xs, { dtype = src })
      for _, t in ipairs(INTS) do
        local r = f:as(t.name)
        assert.are.equal(t.name, r:dtype())
        local want = {}
        for i, x in ipairs(xs) do want[i] = sat(t, src == "float32" and f[i] or x) end
        assert.are.same(want, r:to_table())
      end
    end
  end)

  it("float <-> int32/int64 in blocks: in-range blocks and blocks with edge values agree with the rules", function()
    -- the direct loops convert blocks of 256 whose values are in range
    -- with vector instructions and redo a block holding NaN or a big value:
    -- 1000 plain values with the edge values scattered over some blocks
    local edges = { 0 / 0, 1 / 0, -1 / 0, -0.0, 0.5, -0.5, -1.5, 2.0 ^ 51, -(2.0 ^ 51), 2.0 ^ 51 + 1, 2.0 ^ 52 + 1,
      2.0 ^ 53, -(2.0 ^ 53), 2.0 ^ 62, 2.0 ^ 63, -(2.0 ^ 63), 1e300, -1e300, 2147483647.9, -2147483648.9,
      2147483648.0, -2147483649.0, 123456789.99, -123456789.99 }
    local xs, seed = {}, 11
    for i = 1, 1000 do
      seed = (seed * 1103515245 + 12345) % 2147483648
      xs[i] = (seed / 2147483648 - 0.5) * 2e6
    end
    for k, e in ipairs(edges) do xs[300 + 7 * k] = e end -- blocks 2 and 3 of 4
    local byname = {}
    for _, t in ipairs(INTS) do byname[t.name] = t end
    for _, src in ipairs({ "float64", "float32" }) do
      local f = gm.array_to_mat(xs, { dtype = src })
      local fv = f:to_table()
      for _, tn in ipairs({ "int32", "int64" }) do
        local got, want = f:as(tn):to_table(), {}
        for i = 1, #xs do want[i] = sat(byname[tn], fv[i]) end
        assert.are.same(want, got, src .. " -> " .. tn)
      end
    end
    -- and back: int64 and int32 to float64 and float32, one rounding
    local is = {}
    for i = 1, 1000 do is[i] = math.tointeger(i * 7919 - 500000) end
    local big = { 1 << 51, -(1 << 51), (1 << 51) + 1, (1 << 53) + 2, 1 << 60, -(1 << 62), 3 << 55, math.maxinteger - 1023,
      math.mininteger }
    for k, v in ipairs(big) do is[600 + 5 * k] = v end
    local function f32(x) return (string.unpack("f", string.pack("f", x))) end
    local function to_floats(vals, dtype)
      local m = gm.array_to_mat(vals, { dtype = dtype })
      local d, f = m:as("float64"):to_table(), m:as("float32"):to_table()
      for i, v in ipairs(vals) do
        assert.are.equal(v + 0.0, d[i], dtype .. " -> float64 " .. v)
        assert.are.equal(f32(v + 0.0), f[i], dtype .. " -> float32 " .. v)
      end
    end
    to_floats(is, "int64")
    local small = {}
    for i = 1, 1000 do small[i] = is[i] end
    small[10], small[20], small[30] = 2147483647, -2147483648, 16777217
    for i = 1, 1000 do if small[i] > 2147483647 or small[i] < -2147483648 then small[i] = i end end
    to_floats(small, "int32")
  end)

  it("integer -> integer wraps; -> float rounds; -> bool is != 0", function()
    local vals = { 300, -1, 70000, -129, 0, 2147483647 }
    local m = gm.array_to_mat(vals, { dtype = "int64" })
    for _, t in ipairs(INTS) do
      local want = {}
      for i, v in ipairs(vals) do want[i] = wrap(t, v) end
      assert.are.same(want, gm.astype(m, t.name):to_table())
      -- and back to int64 from that type: the wrapped values, sign- or zero-extended
      local back = gm.astype(gm.astype(m, t.name), "int64"):to_table()
      for i, v in ipairs(want) do
        local ext = v
        if t.lo == 0 and t.bytes == 8 then ext = v end
        assert.are.equal(ext, back[i])
      end
    end
    assert.are.same({ true, true, true, true, false, true }, m:as("bool"):to_table())
    assert.are.same({ 300.0, -1.0, 70000.0, -129.0, 0.0, 2147483647.0 }, m:as("float64"):to_table())
    local u = gm.zeros({ 1 }, { dtype = "uint64" })
    u[1] = -1 -- 2^64 - 1
    assert.are.equal(2.0 ^ 64, u:as("float64")[1])
    assert.are.equal(-1, u:as("int64")[1])
    assert.are.same({ 1.0, 0.0 }, gm.array_to_mat({ 1, 0 }, { dtype = "bool" }):as("double"):to_table())
  end)

  it("long mats convert as single elements do, for every pair of types (the SIMD loops against their tails)", function()
    -- core/ops/convert.c's loops run in AVX-512/AVX2 clones: a long mat
    -- goes through their vector bodies, a 1-element one through the scalar
    -- tail; specials sit at every position modulo the vector widths
    local floats = { 1.5, -1.5, 300.0, -300.0, 0 / 0, 1 / 0, -1 / 0, 1e20, -0.0, 70000.7, 0.3, -2.0 ^ 31, 2.0 ^ 31,
                     2.0 ^ 63, -2.0 ^ 63, 2.0 ^ 64, 255.5, 65535.9, -0.7, 4294967295.5, 1e-40 }
    local ints = { 300, -1, 70000, -129, 0, 2147483647, -2147483648, (1 << 53) + 1, math.maxinteger, math.mininteger,
                   255, 256, 65535, -32768, 4294967295, 1 }
    local function same(u, v)
      if type(u) == "table" and type(v) == "table" then return same(u.re, v.re) and same(u.im, v.im) end
      if type(u) == "number" and type(v) == "number" then
        return (u ~= u and v ~= v) or (u == v and (u ~= 0 or 1 / u == 1 / v))
      end
      return u == v
    end
    local n = 1031
    local types = { "float16", "bfloat16", "complex64", "complex128" }
    for _, t in ipairs(ALL) do types[#types + 1] = t end
    for _, a in ipairs(types) do
      local vals = a == "bool" and { 0, 1, 1, 0, 1 } or (a:find("int") and ints or floats)
      local src = {}
      for i = 1, n do src[i] = vals[(i * 7) % #vals + 1] end
      local m = gm.array_to_mat(src, { dtype = a })
      for _, b in ipairs(types) do
        local one = {}
        for k, v in ipairs(vals) do one[k] = gm.array_to_mat({ v }, { dtype = a }):as(b)[1] end
        local got = m:as(b):to_table()
        for i = 1, n do
          local want = one[(i * 7) % #vals + 1]
          if not same(want, got[i]) then
            error(string.format("%s -> %s [%d] of %s: %s, one element gives %s", a, b, i, tostring(src[i]),
              tostring(got[i]), tostring(want)))
          end
        end
      end
    end
  end)

  it("every pair of types converts small values exactly", function()
    for _, a in ipairs(ALL) do
      for _, b in ipairs(ALL) do
        local m = gm.array_to_mat({ 0, 1, 1, 0 }, { dtype = a })
        local r = m:as(b)
        local want = b == "bool" and { false, true, true, false }
          or b:find("float") and { 0.0, 1.0, 1.0, 0.0 } or { 0, 1, 1, 0 }
        assert.are.same(want, r:to_table(), a .. " -> " .. b)
      end
    end
  end)
end)

describe("typed mats: integer arithmetic and whole-mat reductions", function()
  it("whole-mat reductions of long integer mats (folded in pieces on the host) give the serial fold's bits", function()
    local n = 200003
    local a = gm.arange(n):astype("int32") - 100000
    local s = 0
    for i = 0, n - 1 do s = s + (i - 100000) end
    assert.are.equal(s, a:sum())
    assert.are.same({ 100002, -100000 }, { a:max(), a:min() })
    assert.are.same({ n, 1 }, { a:argmax(1):to_table(), a:argmin(1):to_table() })
    local u = gm.full({ n }, 255, { dtype = "uint8" })
    local p = 1
    for _ = 1, n do p = p * 255 end -- Lua's integers wrap as uint64's product does
    assert.are.same({ 255 * n, p }, { u:sum(), u:prod() })
    local b = gm.zeros({ n }, { dtype = "bool" })
    b[n - 3], b[n - 1] = true, true
    assert.are.same({ true, n - 3, 2 }, { b:max(), b:argmax(1):to_table(), b:sum() })
  end)

  it("sums of 1- and 2-byte types past their 32-bit blocks (2^24 bools, 2^23 bytes, 2^15 shorts) are exact", function()
    -- the host sums those types in blocks of 32-bit lanes, widened to 64 bits per block
    for _, c in ipairs {
      { "bool", true, 1, (1 << 24) + 5 }, { "uint8", 255, 255, (1 << 23) + 3 }, { "int8", -128, -128, (1 << 23) + 3 },
      { "int8", 127, 127, (1 << 23) + 3 }, { "uint16", 65535, 65535, (1 << 15) * 3 + 7 },
      { "int16", -32768, -32768, (1 << 15) * 3 + 7 }, { "int16", 32767, 32767, (1 << 15) * 3 + 7 },
    } do
      local ct, v, w, n = c[1], c[2], c[3], c[4]
      local m = gm.full({ n }, v, { dtype = ct })
      assert.are.equal(w * n, m:sum(), ct)
      assert.are.equal(w * (n - 2), m:narrow(1, 2, n - 2):sum(), ct .. " narrowed")
      m[n] = 0
      assert.are.equal(w * (n - 1), gm.sum(m), ct .. " the last element zeroed")
      assert.are.same({ w * n - w }, m:view(1, n):sum(2):to_table(), ct .. " along the axis")
    end
    -- mixed signs in one block: the int32 lanes take negatives (a lane sum of int8 -128 .. 127)
    local t, want = {}, 0
    for i = 1, 1000 do t[i] = (i * 37) % 256 - 128; want = want + t[i] end
    assert.are.equal(want, gm.asarray(t, { dtype = "int8" }):sum())
  end)

  it("max and min of long mats of every integer type and bool, extremes anywhere (the host's value-only loops)", function()
    -- the host folds max and min of contiguous integer and bool mats in a
    -- loop without indices (src/host/reduce_axis.c), in pieces on the cores
    local n = 70001
    for _, t in ipairs(INTS) do
      -- values within the type (bounds excluded), then the bounds put in
      local span = t.hi > 0 and math.min(t.hi - 1, 1000) or 1000 -- (uint64: hi is -1)
      local m = gm.zeros({ n }, { dtype = t.name })
      for i = 1, n do m[i] = (i * 7919) % span + (t.lo < 0 and -(span // 2) or 1) end
      for _, at in ipairs({ { 1, n }, { n, 1 }, { 2, 3 }, { 3, 2 }, { 33, 40000 }, { 40000, 33 } }) do
        local v = m:copy()
        v[at[1]], v[at[2]] = t.hi, t.lo -- uint64's hi is -1 in Lua: 2^64 - 1
        assert.are.equal(t.hi, v:max(), t.name .. " max")
        assert.are.equal(t.lo, v:min(), t.name .. " min")
        assert.are.equal(at[1], v:argmax(1):to_table(), t.name .. " argmax")
        assert.are.equal(at[2], v:argmin(1):to_table(), t.name .. " argmin")
      end
    end
    -- (any and all stop at the first 4096-byte block that settles them: the deciding element
    -- at block edges, and along an axis of 7 rows)
    for _, at in ipairs({ 1, 31, 32, 33, 4096, 4097, 8192, 8193, 65536, 65537, n }) do
      local b = gm.zeros({ n }, { dtype = "bool" })
      assert.are.same({ false, false, false }, { b:max(), b:min(), gm.any(b) })
      b[at] = true
      assert.are.same({ true, false, true, false }, { b:max(), b:min(), gm.any(b), gm.all(b) })
      local c = gm.ones({ n }, { dtype = "bool" })
      c[at] = false
      assert.are.same({ true, false, false }, { c:max(), c:min(), gm.all(c) })
      if at <= 70000 then
        local row = (at - 1) // 10000 + 1
        local want_any, want_all = { false, false, false, false, false, false, false }, { true, true, true, true, true, true, true }
        want_any[row], want_all[row] = true, false
        assert.are.same(want_any, gm.any(b:narrow(1, 1, 70000):view(7, 10000), 2):to_table(), "any along axis 2, at " .. at)
        assert.are.same(want_all, gm.all(c:narrow(1, 1, 70000):view(7, 10000), 2):to_table(), "all along axis 2, at " .. at)
      end
    end
  end)

  -- the values of the operands: near each type's bounds, so sums,
  -- differences and products wrap
  local function operands(t)
    local a = { t.hi, t.lo, 7, t.hi - 1, 3 }
    local b = { 1, -1, 9, t.hi, t.lo + 2 }
    if t.lo == 0 then b[2] = 2 end
    for i = 1, #b do a[i], b[i] = wrap(t, a[i]), wrap(t, b[i]) end
    return a, b
  end

  it("add, sub and cmul wrap as two's complement, for every integer type", function()
    for _, t in ipairs(INTS) do
      local a, b = operands(t)
      local ma = gm.zeros({ #a }, { dtype = t.name })
      local mb = gm.zeros({ #b }, { dtype = t.name })
      for i = 1, #a do ma[i], mb[i] = a[i], b[i] end
      local sum, dif, prod = {}, {}, {}
      for i = 1, #a do
        sum[i], dif[i], prod[i] = wrap(t, a[i] + b[i]), wrap(t, a[i] - b[i]), wrap(t, a[i] * b[i])
      end
      local r = ma + mb
      assert.are.equal(t.name, r:dtype())
      assert.are.same(sum, r:to_table(), t.name .. " +")
      assert.are.same(dif, (ma - mb):to_table(), t.name .. " -")
      assert.are.same(prod, gm.cmul(ma, mb):to_table(), t.name .. " cmul")
      assert.are.same(sum, gm.add(ma, mb):to_table())
      assert.are.same(dif, gm.sub(ma, mb):to_table())
      local plus2 = {}
      for i = 1, #a do plus2[i] = wrap(t, a[i] + 2) end
      assert.are.same(plus2, (ma + 2):to_table(), t.name .. " + 2")
    end
  end)

  it("runs where the operands live: the emulated device's kernels #nocuda", function()
    gm.with_cuda({ backend = "emulated" }, function()
      local a = gm.array_to_mat({ 127, -128, 3 }, { dtype = "int8" })
      local r = a + a
      assert.truthy(r:facets():find("C", 1, true))
      assert.are.same({ -2, 0, 6 }, r:to_table())
      -- a Lua integer converts into the type as a float write does (saturating), then wraps
      assert.are.same({ -2, -1, -126 }, (a + 1000):to_table())
      -- a Lua float makes the result the default float
      assert.are.same({ 1127, 872, 1003 }, (a + 1000.0):to_table())
      local u = gm.array_to_mat({ { 1, 2 }, { 3, 4 } }, { dtype = "uint16" })
      assert.are.same({ { 1, 6 }, { 6, 16 } }, gm.cmul(u, u:t()):to_table())
    end)
  end)

  it("broadcasts and walks strided views", function()
    local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } }, { dtype = "int16" })
    local row = gm.array_to_mat({ 10, 20, 30 }, { dtype = "int16" })
    assert.are.same({ { 11, 22, 33 }, { 14, 25, 36 } }, (m + row):to_table())
    local sq = gm.array_to_mat({ { 1, 2 }, { 3, 4 } }, { dtype = "uint32" })
    assert.are.same({ { 2, 5 }, { 5, 8 } }, (sq + sq:t()):to_table())
    assert.are.same({ { 0, 4294967295 }, { 1, 0 } }, (sq - sq:t()):to_table())
  end)

  it("sum, max and min of the whole mat are Lua integers (sum wraps in 64 bits)", function()
    for _, t in ipairs(INTS) do
      local a = { t.hi, t.lo, 7, wrap(t, -2), 1 }
      local m = gm.zeros({ #a }, { dtype = t.name })
      for i = 1, #a do m[i] = a[i] end
      local sum, mx, mn = 0, a[1], a[1]
      local less = t.name == "uint64" and math.ult or function(x, y) return x < y end
      for _, v in ipairs(a) do
        -- NumPy: small signed types sum as int64, unsigned as uint64 (their values are non-negative)
        if t.lo == 0 and t.bytes < 8 then v = v & ((1 << (t.bytes * 8)) - 1) end
        sum = sum + v -- Lua integers wrap too
      end
      for _, v in ipairs(a) do
        if less(mx, v) then mx = v end
        if less(v, mn) then mn = v end
      end
      assert.are.equal(sum, m:sum(), t.name .. " sum")
      assert.are.equal("integer", math.type(m:sum()))
      assert.are.equal(mx, m:max(), t.name .. " max")
      assert.are.equal(mn, m:min(), t.name .. " min")
    end
    assert.are.equal(0, gm.zeros({ 0 }, { dtype = "int8" }):sum())
    assert.has_error(function() gm.zeros({ 0 }, { dtype = "int8" }):max() end, "bad argument #1 to 'max' (the mat is empty)")
  end)

  it("refuses what NumPy refuses: bool - bool, -bool, an integer to a negative Lua power", function()
    local b = gm.zeros({ 2 }, { dtype = "bool" })
    assert.has_error(function() return b - b end,
      "sub: bool mats do not subtract (NumPy's rule): use ~ (bitwise_xor) or logical_xor")
    assert.has_error(function() return -b end,
      "bad argument #1 to '__unm' (bool mats do not negate: use ~ (bitwise_invert) or logical_not)")
    local m = gm.array_to_mat({ 1, 2 }, { dtype = "int32" })
    assert.has_error(function() return m ^ -1 end, "bad argument #2 to '__pow' (integers to negative integer "
      .. "powers are not allowed (NumPy's rule; convert the base with m:as(\"float64\")))")
  end)
end)

describe("typed mats: pow, bool arithmetic, float functions of integers", function()
  -- a word of Python's output as a Lua value (True/False, integers, floats, inf, nan)
  local SPECIAL = { inf = math.huge, ["-inf"] = -math.huge, nan = 0 / 0, True = true, False = false }
  local function value(w)
    if SPECIAL[w] ~= nil then return SPECIAL[w] end
    local x = assert(tonumber(w), w)
    return math.tointeger(x) or x
  end
  -- expected x against got g: exact for integers and bools, within tol for floats (NaN matches NaN)
  local function check(x, g, tol, what)
    if math.type(g) == "float" then
      assert.is_true(x == g or (x ~= x and g ~= g) or math.abs(x - g) <= tol * math.max(1, math.abs(x)), what)
    else
      assert.are.equal(x, g, what)
    end
  end
  -- gpumat's names of NumPy's float-only functions
  local FLOAT_FNS = { sqrt = "sqrt", log1p = "log1p", sin = "sin" }
  local FLOAT_BIN = { atan2 = "arctan2", logaddexp = "logaddexp" }

  it("agrees with NumPy on every type: ^ wraps in integers, float functions promote (one python3 process)", function()
    local R = require "numpy_ref"
    if not R.python then pending(R.why) return end
    local A, E = { 0, 1, 2, 3, 5, -2, -1, 7 }, { 0, 1, 2, 7, 3, 0, 5, 1 }
    local un, bin = {}, {}
    for g, np in pairs(FLOAT_FNS) do un[#un + 1] = ('("%s", np.%s)'):format(g, np) end
    for g, np in pairs(FLOAT_BIN) do bin[#bin + 1] = ('("%s", np.%s)'):format(g, np) end
    -- NumPy's float16 results are float32 in gpumat (no float16 mats yet): values computed there
    local lines = R.run(([[
import numpy as np
va, ve = np.array([%s], dtype=np.int64), np.array([%s], dtype=np.int64)
def out(tag, d, r):
    o = r.view(np.int64) if r.dtype == np.uint64 else r
    print(tag, d, r.dtype, " ".join(repr(x) for x in o.astype(object).tolist()))
with np.errstate(all="ignore"):
    for d in [%s]:
        a, e = va.astype(d), ve.astype(d)
        out("^", d, np.power(a, e))
        for g, f in [%s]:
            r = f(a)
            out(g, d, f(a.astype(np.float32)) if r.dtype == np.float16 else r)
        for g, f in [%s]:
            r = f(a, e)
            out(g, d, f(a.astype(np.float32), e.astype(np.float32)) if r.dtype == np.float16 else r)]]):format(
      table.concat(A, ","), table.concat(E, ","), '"' .. table.concat(ALL, '","') .. '"', table.concat(un, ","),
      table.concat(bin, ",")))
    local va, ve = gm.array_to_mat(A, { dtype = "int64" }), gm.array_to_mat(E, { dtype = "int64" })
    local n = 0
    for _, line in ipairs(lines) do
      local op, d, dt, rest = line:match("^(%S+) (%S+) (%S+) (.*)$")
      local a, e = va:as(d), ve:as(d)
      local r
      if op == "^" then r = a ^ e elseif FLOAT_FNS[op] then r = gm[op](a) else r = gm[op](a, e) end
      local what = ("%s %s"):format(d, op)
      assert.are.equal(dt == "float16" and "float32" or dt, r:dtype(), what)
      local got, i = r:to_table(), 0
      for w in rest:gmatch("%S+") do
        i = i + 1
        check(value(w), got[i], dt == "float64" and 1e-12 or 1e-6, what .. " " .. i)
      end
      assert.are.equal(#got, i, what)
      n = n + 1
    end
    assert.are.equal(#ALL * 6, n)
  end)

  it("integer ^: negative mat exponents give 1/a^-b truncated, 0^0 is 1, mixed types promote", function()
    local a = gm.array_to_mat({ 1, -1, -1, 2, 0, 0, 3 }, { dtype = "int16" })
    local e = gm.array_to_mat({ -1, -3, -2, -1, -2, 0, 2 }, { dtype = "int16" })
    assert.are.same({ 1, -1, 1, 0, 0, 1, 9 }, (a ^ e):to_table())
    assert.are.same({ 1, -1, 1, 0, 0, 1, 9 }, gm.pow(a, e):to_table())
    -- a weak Lua integer keeps the type; a Lua float makes it float64; m ^ 2 wraps as m * m
    assert.are.equal("int16", (a ^ 3):dtype())
    assert.are.same({ 1, -1, -1, 8, 0, 0, 27 }, (a ^ 3):to_table())
    assert.are.equal("float64", (a ^ 0.5):dtype())
    local big = gm.array_to_mat({ 200, 16 }, { dtype = "uint8" })
    assert.are.same({ 64, 0 }, (big ^ 2):to_table())
    assert.are.same({ 0, 0 }, (big ^ 8):to_table())
    -- int with float promotes (int8 with float32: float32; int32 with float32: float64)
    local f = gm.array_to_mat({ 0.5, 2 }, { dtype = "float32" })
    local i8 = gm.array_to_mat({ 4, 3 }, { dtype = "int8" })
    assert.are.equal("float32", (i8 ^ f):dtype())
    assert.are.same({ 2, 9 }, (i8 ^ f):to_table())
    assert.are.equal("float64", (i8:as("int32") ^ f):dtype())
    -- int64 with uint64: float64
    local r = gm.pow(gm.array_to_mat({ 2 }, { dtype = "int64" }), gm.array_to_mat({ 3 }, { dtype = "uint64" }))
    assert.are.equal("float64", r:dtype())
    assert.are.same({ 8 }, r:to_table())
  end)

  it("bool arithmetic is NumPy's: + or, * and, maximum or, minimum and; / float64; ^ // % int8", function()
    local p = gm.array_to_mat({ 1, 1, 0, 0 }, { dtype = "bool" })
    local q = gm.array_to_mat({ 1, 0, 1, 0 }, { dtype = "bool" })
    local cases = { { p + q, "bool", { true, true, true, false } }, { gm.cmul(p, q), "bool", { true, false, false, false } },
      { gm.maximum(p, q), "bool", { true, true, true, false } }, { gm.minimum(p, q), "bool", { true, false, false, false } },
      { p / q, "float64", { 1, 1 / 0, 0, 0 / 0 } }, { p ^ q, "int8", { 1, 1, 0, 1 } }, { p // q, "int8", { 1, 0, 0, 0 } },
      { p % q, "int8", { 0, 0, 0, 0 } }, { p + true, "bool", { true, true, true, true } } }
    for k, c in ipairs(cases) do
      assert.are.equal(c[2], c[1]:dtype(), k)
      local got = c[1]:to_table()
      for i = 1, 4 do
        if c[3][i] ~= c[3][i] then assert.is_true(got[i] ~= got[i], k) else assert.are.equal(c[3][i], got[i], k) end
      end
    end
    -- a Lua integer is a weak int: bool + 1 is int64
    assert.are.same({ 2, 2, 1, 1 }, (p + 1):to_table())
  end)

  it("float functions of integer mats: out of the promoted type, and the destructive forms refuse", function()
    local m = gm.array_to_mat({ 1, 4, 9 }, { dtype = "int32" })
    local out = gm.zeros({ 3 }, { dtype = "float64" })
    assert.are.equal(out, gm.sqrt(m, { out = out }))
    assert.are.same({ 1, 2, 3 }, out:to_table())
    assert.are.same({ 1, 2, 3 }, m:sqrt():to_table())
    assert.has_error(function() gm.sqrt(m, { out = gm.zeros({ 3 }, { dtype = "float32" }) }) end,
      "bad argument #2 to 'sqrt' (option 'out' is float but the result is double)")
    assert.has_error(function() gm.sqrt_(m) end,
      "bad argument #1 to 'sqrt_' (an int32 mat; this function takes float32/float64 mats (convert with m:as(\"float64\")))")
    -- a strided view converts too
    local v = gm.array_to_mat({ { 1, 4 }, { 9, 16 } }, { dtype = "uint16" }):t()
    assert.are.equal("float32", gm.sqrt(v):dtype())
    assert.are.same({ { 1, 3 }, { 2, 4 } }, gm.sqrt(v):to_table())
  end)

  it("matmul, *, tensordot and vecdot of every type and of mixed types agree with NumPy (one python3 process)", function()
    local R = require "numpy_ref"
    if not R.python then pending(R.why) return end
    -- values large enough to wrap every integer type's sums; stacks of 2 against one matrix
    local va = { -7, 100, 3, 55, -128, 9, 77, -3, 0, 120, 1, -90 }
    local vb = { 5, -9, 127, 2, 0, 64, -1, 33, 17, -100, 8, 1 }
    local PAIRS = { { "int8", "float32" }, { "int64", "uint64" }, { "int16", "uint8" }, { "bool", "int32" } }
    local pairs_py = {}
    for i, p in ipairs(PAIRS) do pairs_py[i] = ('("%s", "%s")'):format(p[1], p[2]) end
    local lines = R.run(([[
import numpy as np
va, vb = np.array([%s], dtype=np.int64), np.array([%s], dtype=np.int64)
def out(tag, d, r):
    r = np.asarray(r)
    o = r.view(np.int64) if r.dtype == np.uint64 else r
    print(tag, d, r.dtype, " ".join(repr(x) for x in np.ravel(o).astype(object).tolist()))
for d in [%s]:
    a, b = va.astype(d).reshape(2, 2, 3), vb.astype(d).reshape(3, 4)
    out("matmul", d, np.matmul(a, b))
    out("tensordot", d, np.tensordot(a, b, axes=1))
    x, y = va.astype(d).reshape(4, 3), vb.astype(d).reshape(4, 3)
    out("vecdot", d, np.any(x & y, axis=-1) if d == "bool" else np.sum(x * y, axis=-1, dtype=d))
for p, q in [%s]:
    out("mixed", p + "," + q, np.matmul(va.astype(p).reshape(4, 3), vb.astype(q).reshape(3, 4)))]]):format(
      table.concat(va, ","), table.concat(vb, ","), '"' .. table.concat(ALL, '","') .. '"', table.concat(pairs_py, ",")))
    local ma, mb = gm.array_to_mat(va, { dtype = "int64" }), gm.array_to_mat(vb, { dtype = "int64" })
    local n = 0
    for _, line in ipairs(lines) do
      local op, d, dt, rest = line:match("^(%S+) (%S+) (%S+) (.*)$")
      local r
      if op == "matmul" then
        r = ma:as(d):view(2, 2, 3) * mb:as(d):view(3, 4)
      elseif op == "tensordot" then
        r = gm.tensordot(ma:as(d):view(2, 2, 3), mb:as(d):view(3, 4), { axes = 1 })
      elseif op == "vecdot" then
        r = gm.vecdot(ma:as(d):view(4, 3), mb:as(d):view(4, 3))
      else
        local p, q = d:match("(%w+),(%w+)")
        r = ma:as(p):view(4, 3) * mb:as(q):view(3, 4)
      end
      local what = op .. " " .. d
      assert.are.equal(dt, r:dtype(), what)
      local got, i = R.flat(r), 0
      for w in rest:gmatch("%S+") do
        i = i + 1
        check(value(w), got[i], 1e-6, what .. " " .. i)
      end
      assert.are.equal(#got, i, what)
      n = n + 1
    end
    assert.are.equal(#ALL * 3 + #PAIRS, n)
    -- empty inner axis: zeros of the type; a 1-d operand; x * x
    assert.are.same({ { 0, 0 }, { 0, 0 } }, (gm.zeros({ 2, 0 }, { dtype = "int32" }) * gm.zeros({ 0, 2 }, { dtype = "int32" })):to_table())
    local v = gm.array_to_mat({ 1, 2, 3 }, { dtype = "uint16" })
    assert.are.equal(14, gm.matmul(v, v))
    local sq = gm.array_to_mat({ { 1, 2 }, { 3, 4 } }, { dtype = "int8" })
    assert.are.same({ { 7, 10 }, { 15, 22 } }, (sq * sq):to_table())
  end)

  it("promotes on the device: mixed operands and float functions copy nothing through the host #nocuda", function()
    gm.with_cuda({ backend = "emulated" }, function()
      local i8 = gm.array_to_mat({ -3, 4, 100 }, { dtype = "int8" })
      local f = gm.array_to_mat({ 0.5, 0.25, 2 }, { dtype = "float32" })
      local b = gm.array_to_mat({ 1, 0, 1 }, { dtype = "bool" })
      local u = gm.array_to_mat({ 1, 2, 3 }, { dtype = "uint64" })
      for _, m in ipairs { i8, f, b, u } do m:add(0) end -- now on the device
      local c0 = gm.counters()
      local r1, r2, r3, r4 = i8 + f, gm.sqrt(i8), i8 ^ u:as("int8"), gm.add(u, i8:as("int64"))
      local r5, r6 = i8:as("float64"), b + b
      local r7 = i8:view(3, 1) * i8:view(1, 3)
      local c1 = gm.counters()
      assert.are.equal(c0.n_memcpy_device_to_host, c1.n_memcpy_device_to_host)
      assert.are.equal(c0.n_memcpy_host_to_device, c1.n_memcpy_host_to_device)
      assert.truthy(r1:facets():find("C", 1, true))
      assert.are.same({ -2.5, 4.25, 102 }, r1:to_table())
      local s = r2:to_table()
      assert.is_true(s[1] ~= s[1])
      assert.near(2, s[2], 1e-6)
      assert.near(10, s[3], 1e-5)
      assert.are.same({ -3, 16, 64 }, r3:to_table())
      assert.are.equal("float64", r4:dtype())
      assert.are.same({ -2, 6, 103 }, r4:to_table())
      assert.are.same({ -3, 4, 100 }, r5:to_table())
      assert.are.same({ true, false, true }, r6:to_table())
      assert.are.same({ { 9, -12, -44 }, { -12, 16, -112 }, { -44, -112, 16 } }, r7:to_table())
      -- astype on the device saturates and wraps as on the host
      local g = gm.array_to_mat({ 300.5, -1e30, 0 / 0 }, { dtype = "float64" })
      g:add(0)
      assert.are.same({ 127, -128, 0 }, g:as("int8"):to_table())
      assert.are.same({ 44, 1, 255 }, gm.array_to_mat({ 300, 257, -1 }, { dtype = "int32" }):as("uint8"):to_table())
    end)
  end)
end)

describe("typed mats: promotion, weak scalars, comparisons", function()
  -- small values every type holds (bool: 0 and 1)
  local A, B = { 0, 1, 3 }, { 1, 1, 2 }
  local function mk(t, v)
    local m = gm.zeros({ #v }, { dtype = t })
    for i = 1, #v do m[i] = t == "bool" and v[i] ~= 0 or v[i] end
    return m
  end
  local function num(x) return x == true and 1 or x == false and 0 or x end
  local function nums(m)
    local r = {}
    for i, x in ipairs(m:to_table()) do r[i] = num(x) end
    return r
  end
  local function clip(t, v) -- A, B as stored in t
    local r = {}
    for i = 1, #v do r[i] = t == "bool" and math.min(v[i], 1) or v[i] end
    return r
  end

  it("every pair of types: add and cdiv promote as gm.result_type, lt gives bool", function()
    local ma, mb = {}, {}
    for _, t in ipairs(ALL) do ma[t], mb[t] = mk(t, clip(t, A)), mk(t, clip(t, B)) end
    for _, ta in ipairs(ALL) do
      for _, tb in ipairs(ALL) do
        local a, b = ma[ta], mb[tb]
        local va, vb = clip(ta, A), clip(tb, B)
        local want = gm.result_type(a, b)
        local lt, sum, quo = {}, {}, {}
        for i = 1, #va do
          lt[i], sum[i], quo[i] = va[i] < vb[i], va[i] + vb[i], va[i] / vb[i]
        end
        local what = ta .. " with " .. tb
        if want ~= "bool" then
          local r = a + b
          assert.are.equal(want, r:dtype(), what)
          assert.are.same(sum, nums(r), what)
        end
        local q = gm.cdiv(a, b)
        local qt = gm.isdtype(want, "real floating") and want or "float64"
        assert.are.equal(qt, q:dtype(), what .. " cdiv")
        for i = 1, #quo do assert.near(quo[i], q[i], 1e-6 * math.abs(quo[i]), what .. " cdiv") end
        local c = a:lt(b)
        assert.are.equal("bool", c:dtype(), what)
        assert.are.same(lt, c:to_table(), what .. " lt")
      end
    end
  end)

  it("Lua values are weak: integers take the mat's type, floats make integer results float64", function()
    for _, t in ipairs(ALL) do
      local m = mk(t, clip(t, A))
      local float = t == "float32" or t == "float64"
      if t ~= "bool" then
        assert.are.equal(t, (m + 1):dtype(), t .. " + 1")
        assert.are.equal(t, (2 * m):dtype(), "2 * " .. t)
        assert.are.equal(t, gm.cmax(m, 1):dtype(), t .. " cmax")
        assert.are.same({ 1, 1, 3 }, nums(gm.cmax(m, 1)), t .. " cmax")
        assert.are.same({ 0, 1, 1 }, nums(gm.cmin(1, m)), t .. " cmin")
      else
        assert.are.equal("int64", (m + 1):dtype())
      end
      local r = m + 1.5
      assert.are.equal(float and t or "float64", r:dtype(), t .. " + 1.5")
      assert.are.same(t == "bool" and { 1.5, 2.5, 2.5 } or { 1.5, 2.5, 4.5 }, nums(r), t .. " + 1.5")
      assert.are.same({ false, true, t == "bool" }, m:eq(true):to_table(), t .. " eq true")
      assert.are.same({ true, false, false }, gm.gt(1, m):to_table(), "1 > " .. t)
    end
    assert.are.same({ 2.5, 3.5, 4.5 }, (gm.array_to_mat({ 1, 2, 3 }, { dtype = "int32" }) + 1.5):to_table())
    local i8 = mk("int8", { 1, 2, 3 })
    assert.are.same({ -1, -2, -3 }, (-i8):to_table())
    assert.are.equal("int8", (-i8):dtype())
    assert.are.same({ 255, 254, 253 }, (-mk("uint8", { 1, 2, 3 })):to_table())
  end)

  it("comparisons: NaN rules, numbers on either side, broadcasting, out", function()
    for _, t in ipairs({ "float32", "float64" }) do
      local m = gm.array_to_mat({ 0 / 0, 1, 2 }, { dtype = t })
      assert.are.same({ false, false, true }, m:gt(1):to_table())
      assert.are.same({ false, true, true }, m:ge(1):to_table())
      assert.are.same({ false, false, false }, gm.less(m, 1):to_table())
      assert.are.same({ false, true, false }, gm.le(m, 1):to_table())
      assert.are.same({ false, true, true }, m:eq(m):to_table())
      assert.are.same({ true, false, true }, m:not_equal(1):to_table())
      assert.are.same({ false, false, true }, gm.lt(1, m):to_table())
    end
    local col = gm.array_to_mat({ { 1 }, { 2 } }, { dtype = "int16" })
    local row = gm.array_to_mat({ 1, 2, 3 }, { dtype = "uint32" })
    local out = gm.zeros({ 2, 3 }, { dtype = "bool" })
    assert.are.equal(out, gm.greater_equal(col, row, { out = out }))
    assert.are.same({ { true, false, false }, { true, true, false } }, out:to_table())
    assert.are.same({ { true, false, false }, { false, true, false } }, col:equal(row):to_table())
    assert.has_error(function() gm.gt(col, row, { out = gm.zeros({ 2, 3 }) }) end,
      "gt: out's ctype is double but the result's is bool")
    -- int64 with uint64 compares in float64 (their promotion)
    assert.are.same({ true }, gm.lt(mk("int64", { -1 }), mk("uint64", { 1 })):to_table())
  end)

  it("where takes a bool cond (or any nonzero cond) and promotes a with b", function()
    local m = gm.array_to_mat({ -1, 2, -3 }, { dtype = "int32" })
    local r = gm.where(m:gt(0), m, 0)
    assert.are.equal("int32", r:dtype())
    assert.are.same({ 0, 2, 0 }, r:to_table())
    local f = gm.array_to_mat({ 0.5, 0.5, 0.5 }, { dtype = "float32" })
    local w = gm.where(m:lt(0), m, f)
    assert.are.equal("float64", w:dtype())
    assert.are.same({ -1, 0.5, -3 }, w:to_table())
    local cond = gm.array_to_mat({ 0, 0 / 0, 2 })
    assert.are.same({ 20, 10, 10 }, gm.where(cond, 10, 20):to_table())
    assert.are.equal("int64", gm.where(cond, 10, 20):dtype())
    assert.are.same({ false, true, true }, gm.where(cond, true, false):to_table())
    -- a bool mask used as numbers promotes (bool with float: float)
    local g = gm.array_to_mat({ 1.5, 2.5, 3.5 }, { dtype = "float32" })
    local h = gm.cmul(g, m:gt(0))
    assert.are.equal("float32", h:dtype())
    assert.are.same({ 0, 2.5, 0 }, h:to_table())
  end)

  it("integer operators promote mixed integer types; a float promotion refuses", function()
    local i = gm.array_to_mat({ -7, 8 }, { dtype = "int32" })
    local u = gm.array_to_mat({ 2, 3 }, { dtype = "uint8" })
    assert.are.equal("int32", (i // u):dtype())
    assert.are.same({ -4, 2 }, (i // u):to_table())
    assert.are.same({ 0, 0 }, (i & u):to_table())
    -- int64 with uint64 promotes to float64, where // is Lua's float floor division
    assert.are.same({ 2 }, (mk("int64", { 7 }) // mk("uint64", { 3 })):to_table())
    assert.are.equal("float64", (mk("int64", { 7 }) // mk("uint64", { 3 })):dtype())
  end)
end)

describe("typed mats: reductions along an axis", function()
  -- dtype name -> the INTS row (nil for float32/float64/bool)
  local ROW = {}
  for _, t in ipairs(INTS) do ROW[t.name] = t end
  -- 3x4 values: small numbers of both signs (wrapped into unsigned types,
  -- so uint rows hold values near their top), with ties
  local function values(d)
    local v = {}
    for k = 1, 12 do
      local x = (k * 37) % 23 - 11
      if d == "bool" then v[k] = k % 3 ~= 0
      elseif ROW[d] then v[k] = wrap(ROW[d], x)
      else v[k] = x / 4 end
    end
    return v
  end
  -- Lua number of an element (bool 0/1; uint64 values with the top bit set as 2^64 + v)
  local function num(d, x)
    if x == true then return 1 elseif x == false then return 0 end
    if d == "uint64" and x < 0 then return x + 2.0 ^ 64 end
    return x
  end
  local function less(d, a, b)
    if d == "bool" then return not a and b end
    if d == "uint64" then return math.ult(a, b) end
    return a < b
  end
  -- reference of op over the column of v (3x4, row-major) along axis at index i of the result
  local function ref(d, op, v, axis, i)
    local col = {}
    for k = 1, (axis == 1 and 3 or 4) do
      if axis == 1 then col[k] = v[(k - 1) * 4 + i] else col[k] = v[(i - 1) * 4 + k] end -- (v may hold false)
    end
    local float = d == "float32" or d == "float64"
    if op == "sum" or op == "prod" then
      local s = op == "sum" and 0 or 1
      for _, x in ipairs(col) do
        x = float and x or math.tointeger(x == true and 1 or x == false and 0 or x)
        if not float and ROW[d] and ROW[d].lo == 0 and ROW[d].bytes < 8 then x = x & ((1 << (ROW[d].bytes * 8)) - 1) end
        s = op == "sum" and s + x or s * x -- Lua integers wrap modulo 2^64, as int64/uint64 sums
      end
      return s
    elseif op == "max" or op == "min" or op == "argmax" or op == "argmin" then
      local b, bi = col[1], 1
      for k = 2, #col do
        local x = col[k]
        if (op == "max" or op == "argmax") and less(d, b, x) or (op == "min" or op == "argmin") and less(d, x, b) then b, bi = x, k end
      end
      return op:sub(1, 3) == "arg" and bi or b
    else -- mean, var (double)
      local s = 0
      for _, x in ipairs(col) do s = s + num(d, x) end
      local mean = s / #col
      if op == "mean" then return mean end
      local q = 0
      for _, x in ipairs(col) do q = q + (num(d, x) - mean) ^ 2 end
      return q / #col
    end
  end
  local function result_dtype(d, op)
    if op:sub(1, 3) == "arg" then return "int64" end
    if op == "max" or op == "min" or d == "float32" or d == "float64" then return d end
    if op == "sum" or op == "prod" then return d:sub(1, 4) == "uint" and "uint64" or "int64" end
    return "float64"
  end

  it("sum, prod, max, min, argmax, argmin, mean, var of every type: NumPy's result types and exact values", function()
    for _, d in ipairs(ALL) do
      local v = values(d)
      local m = gm.zeros({ 3, 4 }, { dtype = d })
      local nums = {}
      for k = 1, 12 do nums[k] = v[k] == true and 1 or v[k] == false and 0 or v[k] end
      m:replace_(nums)
      for _, src in ipairs { m, m:t():contiguous():t() } do -- contiguous, then a strided view of the same values
        -- (var of uint64's values near 2^64 would compare roundings of differences of huge doubles)
        for _, op in ipairs { "sum", "prod", "max", "min", "argmax", "argmin", "mean", d ~= "uint64" and "var" or nil } do
          for axis = 1, 2 do
            local r = src[op](src, axis)
            local what = ("%s %s(%d)"):format(d, op, axis)
            assert.are.equal(result_dtype(d, op), r:dtype(), what)
            local got = r:to_table()
            for i = 1, #got do
              local e = ref(d, op, v, axis, i)
              if type(e) == "number" and math.type(e) == "float" then
                local g = got[i]
                assert.is_true(math.abs(e - g) <= 1e-6 * math.max(1, math.abs(e)), what .. " [" .. i .. "]: " .. e .. " vs " .. g)
              else
                assert.are.equal(e, got[i], what .. " [" .. i .. "]")
              end
            end
          end
        end
      end
    end
  end)

  it("agrees with NumPy: result dtypes and values along each axis, every type (one python3 process)", function()
    local R = require "numpy_ref"
    if not R.python then pending(R.why) return end
    local v = {}
    for k = 1, 12 do v[k] = (k * 37) % 23 - 11 end
    local OPS = { "sum", "prod", "max", "min", "argmax", "argmin", "mean", "var", "any", "all", "count_nonzero" }
    -- NumPy's argmax is 0-based; uint64 results print as their int64 bits (Lua's convention)
    local lines = R.run(([[
import numpy as np
v = np.array([%s], dtype=np.int64).reshape(3, 4)
for d in [%s]:
    a = v.astype(d)
    for op in [%s]:
        for ax in (0, 1):
            r = getattr(np, op)(a, axis=ax)
            r = r + 1 if op.startswith("arg") else r
            out = r.view(np.int64) if r.dtype == np.uint64 else r
            print(d, op, ax, r.dtype, " ".join(repr(x) for x in out.astype(object).tolist()))]]):format(
      table.concat(v, ","), '"' .. table.concat(ALL, '","') .. '"', '"' .. table.concat(OPS, '","') .. '"'))
    local base = gm.array_to_mat(v, { dtype = "int64" }):view({ 3, 4 })
    local n = 0
    for _, line in ipairs(lines) do
      local d, op, ax, dt, rest = line:match("^(%S+) (%S+) (%d) (%S+) ?(.*)$")
      local r = gm[op](base:as(d), tonumber(ax) + 1)
      local what = ("%s %s(%d)"):format(d, op, ax + 1)
      assert.are.equal(dt, r:dtype(), what)
      local got, i = r:to_table(), 0
      for w in rest:gmatch("%S+") do
        i = i + 1
        local e = w == "True" or (w ~= "False" and (math.tointeger(tonumber(w)) or tonumber(w)))
        if math.type(e) == "float" then
          assert.is_true(math.abs(e - got[i]) <= 1e-6 * math.max(1, math.abs(e)), what)
        else
          assert.are.equal(e, got[i], what)
        end
      end
      assert.are.equal(#got, i, what)
      n = n + 1
    end
    assert.are.equal(#ALL * #OPS * 2, n)
  end)

  it("integer sums and products wrap in 64 bits; whole-mat forms give Lua values", function()
    local i64 = gm.array_to_mat({ { math.maxinteger, 1 }, { 2, 3 } }, { dtype = "int64" })
    assert.are.same({ math.mininteger, 5 }, i64:sum(2):to_table())
    local u8 = gm.array_to_mat({ { 255, 255 }, { 1, 2 } }, { dtype = "uint8" })
    assert.are.same({ 510, 3 }, u8:sum(2):to_table())
    assert.are.same({ 65025, 2 }, u8:prod(2):to_table())
    local u64 = gm.array_to_mat({ -1, 2 }, { dtype = "uint64" }) -- 2^64 - 1 and 2
    assert.are.equal(1, u64:sum(1):to_table()) -- a 0-d result
    assert.are.equal(-1, u64:max()) -- the uint64 top as its bits
    local i32 = gm.array_to_mat({ 65536, 65536, 65536, 65536 }, { dtype = "int32" })
    assert.are.equal(0, i32:prod(1):to_table()) -- 2^64 wraps to 0
    assert.are.equal(0, i32:prod())
    assert.are.equal("integer", math.type(i32:prod()))
    assert.are.equal(65536.0, i32:mean())
    assert.are.equal("float", math.type(i32:mean()))
    assert.are.equal(1, i32:argmax())
    -- a long axis with few outputs: the device splits it into parts and merges them in order
    local long = gm.full({ 5000 }, 7, { dtype = "int16" })
    long[17], long[4321], long[4400] = -3, 9, 9
    assert.are.equal(7 * 5000 - 10 + 2 + 2, long:sum())
    assert.are.same({ 4321, 17, 9, -3 }, { long:argmax(), long:argmin(), long:max(), long:min() })
    assert.are.same({ 7 * 2500 - 10, 7 * 2500 + 4 }, long:view({ 2, 2500 }):sum(2):to_table())
    assert.are.same({ 1821, 17 }, { long:view({ 2, 2500 }):argmax(2)[2], long:view({ 2, 2500 }):argmin(2)[1] })
    local b = gm.array_to_mat({ 0, 1, 1 }, { dtype = "bool" })
    assert.are.equal(2, b:sum())
    assert.is_true(b:max())
    assert.is_false(b:min())
    assert.are.equal(2, b:argmax())
  end)

  it("empty axes: sum 0, prod 1, mean NaN, any false, all true, count_nonzero 0", function()
    local z = gm.zeros({ 0, 3 }, { dtype = "int8" })
    assert.are.same({ 0, 0, 0 }, z:sum(1):to_table())
    assert.are.equal("int64", z:sum(1):dtype())
    assert.are.same({ 1, 1, 1 }, z:prod(1):to_table())
    local mean = z:mean(1):to_table()
    assert.is_true(mean[1] ~= mean[1])
    assert.are.same({ false, false, false }, z:any(1):to_table())
    assert.are.same({ true, true, true }, z:all(1):to_table())
    assert.are.same({ 0, 0, 0 }, gm.count_nonzero(z, 1):to_table())
    assert.is_false(z:any())
    assert.is_true(z:all())
    assert.are.equal(0, z:count_nonzero())
    assert.has_error(function() z:max(1) end)
  end)

  it("any, all and count_nonzero of every type (NaN is nonzero), keepdims and out", function()
    for _, d in ipairs(ALL) do
      local m = gm.zeros({ 2, 3 }, { dtype = d })
      m:replace_ { 0, 1, 0, 0, 1, 1 }
      assert.are.same({ false, true, true }, m:any(1):to_table(), d)
      assert.are.same({ false, true, false }, gm.all(m, 1):to_table(), d)
      assert.are.same({ 1, 2 }, m:count_nonzero(2):to_table(), d)
      assert.are.equal("int64", m:count_nonzero(2):dtype())
      assert.are.same({ { 1 }, { 2 } }, m:count_nonzero(2, { keepdims = true }):to_table())
      assert.is_true(m:any())
      assert.is_false(m:all())
      assert.are.equal(3, m:count_nonzero())
    end
    local f = gm.array_to_mat({ 0 / 0, 0, 2 }, { dtype = "float32" })
    assert.are.equal(2, f:count_nonzero())
    assert.is_false(f:all())
    assert.is_true(gm.any(f, 1):to_table()) -- a 0-d result
    local out = gm.zeros({ 3 }, { dtype = "bool" })
    assert.are.equal(out, gm.any(gm.ones({ 2, 3 }), 1, { out = out }))
    assert.are.same({ true, true, true }, out:to_table())
  end)

  it("cumulative_sum and cumulative_prod of bool and integers: int64 (uint64 for unsigned), wrapping", function()
    local i8 = gm.array_to_mat({ { 100, 100, -128 }, { 1, 2, 3 } }, { dtype = "int8" })
    local c = gm.cumulative_sum(i8, { axis = 2 })
    assert.are.equal("int64", c:dtype())
    assert.are.same({ { 100, 200, 72 }, { 1, 3, 6 } }, c:to_table())
    assert.are.same({ { 100, 10000, -1280000 }, { 1, 2, 6 } }, i8:cumprod(2):to_table())
    assert.are.same({ { 0, 100, 200, 72 }, { 0, 1, 3, 6 } },
      gm.cumulative_sum(i8, { axis = 2, include_initial = true }):to_table())
    local u8 = gm.array_to_mat({ 255, 255 }, { dtype = "uint8" })
    assert.are.equal("uint64", u8:cumsum(1):dtype())
    assert.are.same({ 255, 510 }, u8:cumsum(1):to_table())
    local i64 = gm.array_to_mat({ math.maxinteger, 1 }, { dtype = "int64" })
    assert.are.same({ math.maxinteger, math.mininteger }, i64:cumsum(1):to_table())
    local b = gm.array_to_mat({ { 1, 0 }, { 1, 1 } }, { dtype = "bool" })
    assert.are.same({ { 1, 0 }, { 2, 1 } }, b:cumsum(1):to_table())
    local f = gm.cumulative_sum(i8, { axis = 1, dtype = "float64" })
    assert.are.equal("float64", f:dtype())
    assert.are.same({ { 100.0, 100.0, -128.0 }, { 101.0, 102.0, -125.0 } }, f:to_table())
    assert.has_error(function() gm.cumulative_sum(i8, { axis = 1, dtype = "int8" }) end,
      "bad argument #2 to 'cumulative_sum' (option 'dtype' int8: the scan of an int8 mat is int64 (or give float32 or float64))")
  end)

  it("the dtype option and the standard's {axis = ...} form", function()
    local m = gm.array_to_mat({ { 2147483647, 1 }, { 3, 4 } }, { dtype = "int32" })
    local s = gm.sum(m, { axis = 2, dtype = "float64" })
    assert.are.equal("float64", s:dtype())
    assert.are.same({ 2147483648.0, 7.0 }, s:to_table())
    assert.are.same({ 2147483650, 5 }, gm.sum(m, { axis = 1 }):to_table())
    assert.are.equal("uint64", m:sum(1, { dtype = "uint64" }):dtype())
    assert.are.equal(2147483655, m:sum({ dtype = "int64" }))
    assert.are.equal("float32", m:mean(2, { dtype = "float32" }):dtype())
    assert.has_error(function() m:sum(1, { dtype = "int32" }) end,
      "bad argument #3 to 'sum' (dtype int32: the sum of an int32 mat is int64 (a sum or product of integers is "
      .. "int64 or uint64, a mean, var or std float32 or float64))")
    assert.has_error(function() m:sum(1, { axis = 2 }) end)
    assert.has_error(function() gm.softmax(m, 1) end,
      "bad argument #1 to 'softmax' (an int32 mat; softmax takes float32/float64 mats (convert with m:as(\"float64\")))")
    assert.are.equal("float64", gm.logsumexp(m, 1):dtype())
  end)
end)

describe("typed mats: text", function()
  it("tostring and format_mat print integers without decimals and bools as true/false", function()
    local m = gm.array_to_mat({ { 1, -2 }, { 3, 40 } }, { dtype = "int32" })
    assert.truthy(tostring(m):find("int32", 1, true))
    assert.truthy(tostring(m):find("{{1, -2}, {3, 40}}", 1, true))
    local b = gm.array_to_mat({ 1, 0 }, { dtype = "bool" })
    assert.truthy(tostring(b):find("{true, false}", 1, true))
    local f = gm.format_mat(m)
    assert.truthy(f:find("40", 1, true))
    assert.falsy(f:find("40.", 1, true))
    assert.truthy(gm.format_mat(b):find("true", 1, true))
    assert.truthy(gm.format_mat(b):find("false", 1, true))
  end)
end)

describe("typed mats: refusals", function()
  it("float-only functions name the function, the argument and the dtype", function()
    local m = gm.zeros({ 2, 2 }, { dtype = "int32" })
    assert.has_error(function() gm.exp_(m) end,
      "bad argument #1 to 'exp_' (an int32 mat; this function takes float32/float64 mats (convert with m:as(\"float64\")))")
    local ok, err = pcall(function() return gm.logistic_(m) end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("int32 mat", 1, true))
    local ok2, err2 = pcall(gm.m_mul, m, m)
    assert.is_false(ok2)
    assert.truthy(tostring(err2):find("float32/float64", 1, true))
    local u = gm.zeros({ 3 }, { dtype = "uint8" })
    local ok3, err3 = pcall(function() return u:uniform_random_() end)
    assert.is_false(ok3)
    assert.truthy(tostring(err3):find("a uint8 mat", 1, true))
  end)

  it("MGL's mat format refuses integer mats clearly", function()
    local p = tmpname(".mat")
    local m = gm.zeros({ 2 }, { dtype = "int16" })
    local f = assert(io.open(p, "wb"))
    local ok, err = pcall(gm.write_mat, m, f)
    f:close()
    os.remove(p)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("MGL's mat format holds float and double mats only, not int16", 1, true))
  end)
end)

-- The bytes of a .npy file of version 1.0 with the given header dict.
local function npy_bytes(dict, payload)
  local h = dict
  local total = 10 + #h + 1
  h = h .. string.rep(" ", (64 - total % 64) % 64) .. "\n"
  return "\147NUMPY\1\0" .. string.pack("<I2", #h) .. h .. payload
end

describe("typed mats: .npy", function()
  it("round-trips every type with numpy's descr #host", function()
    for _, t in ipairs(INTS) do
      local m = gm.array_to_mat({ t.lo, t.hi, 1, 0 }, { dtype = t.name })
      local p = tmpname(".npy")
      gm.save_npy(m, p)
      local f = assert(io.open(p, "rb"))
      local bytes = f:read("a")
      f:close()
      assert.truthy(bytes:find("'descr': '" .. t.descr .. "'", 1, true))
      local r = gm.load_npy(p)
      os.remove(p)
      assert.are.equal(t.name, r:dtype())
      assert.are.same({ t.lo, t.hi, 1, 0 }, r:to_table())
    end
    local b = gm.array_to_mat({ 1, 0, 1 }, { dtype = "bool" })
    local p = tmpname(".npy")
    gm.save_npy(b, p)
    local r = gm.load_npy(p)
    os.remove(p)
    assert.are.same({ true, false, true }, r:to_table())
  end)

  it("hostile files: truncated data, unknown descr, bool bytes other than 0/1 #host", function()
    local p = tmpname(".npy")
    local function write(s)
      local f = assert(io.open(p, "wb"))
      f:write(s)
      f:close()
    end
    write(npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", string.pack("<i4i4", 1, 2)))
    local ok, err = pcall(gm.load_npy, p)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("truncated .npy file", 1, true))
    write(npy_bytes("{'descr': '<i3', 'fortran_order': False, 'shape': (1,), }", "abc"))
    ok, err = pcall(gm.load_npy, p)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("unsupported .npy dtype '<i3'", 1, true))
    write(npy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", "\0\2\255"))
    local m = gm.load_npy(p)
    assert.are.same({ false, true, true }, m:to_table())
    write(npy_bytes("{'descr': '<u2', 'fortran_order': False, 'shape': (2, 1), }", string.pack("<I2I2", 65535, 7)))
    assert.are.same({ { 65535 }, { 7 } }, gm.load_npy(p):to_table())
    os.remove(p)
  end)

  it("agrees with numpy in both directions #host", function()
    local probe = io.popen(PY .. " -c 'import numpy; print(numpy.__version__)' 2>/dev/null")
    local version = probe and probe:read("l")
    if probe then probe:close() end
    if not version then
      pending("python3 with numpy is not installed")
      return
    end
    for _, t in ipairs(INTS) do
      local mine, theirs = tmpname(".npy"), tmpname(".npy")
      local m = gm.array_to_mat({ { t.lo, t.hi }, { 5, 0 } }, { dtype = t.name })
      gm.save_npy(m, mine)
      local lo = t.lo
      local hi = t.name == "uint64" and "18446744073709551615" or tostring(t.hi)
      local cmd = (PY .. " -c \"import numpy as np; a = np.load('%s'); "
        .. "assert a.dtype == np.dtype('%s'), a.dtype; assert a.tolist() == [[%s, %s], [5, 0]], a.tolist(); "
        .. "np.save('%s', np.array([[%s, 3], [%s, 9]], dtype='%s'))\""):format(
        mine, t.descr, lo, hi, theirs, hi, lo, t.descr)
      assert.is_true(os.execute(cmd), t.name)
      local r = gm.load_npy(theirs)
      os.remove(mine)
      os.remove(theirs)
      assert.are.equal(t.name, r:dtype())
      assert.are.same({ { t.hi, 3 }, { t.lo, 9 } }, r:to_table())
    end
    local p = tmpname(".npy")
    assert.is_true(os.execute((PY .. " -c \"import numpy as np; np.save('%s', np.array([True, False, True]))\""):format(p)))
    assert.are.same({ true, false, true }, gm.load_npy(p):to_table())
    os.remove(p)
  end)
end)

describe("typed mats: buffers", function()
  it("buffers of every element type become mats of that type #host", function()
    for _, t in ipairs(INTS) do
      local b = gm.make_foreign_array({ 3 }, { element_type = t.name })
      gm.set_row_major_bref(b, 1, t.lo)
      gm.set_row_major_bref(b, 2, 7)
      gm.set_row_major_bref(b, 3, t.name == "uint64" and 9 or t.hi)
      local m = gm.mat_from_buffer(b)
      assert.are.equal(t.name, m:dtype())
      assert.are.same({ t.lo, 7, t.name == "uint64" and 9 or t.hi }, m:to_table())
    end
    local b = gm.make_foreign_array({ 2 }, { element_type = "bool" })
    gm.set_row_major_bref(b, 1, 1)
    gm.set_row_major_bref(b, 2, 0)
    assert.are.same({ true, false }, gm.mat_from_buffer(b):to_table())
    -- a uint8 buffer seen as bool: bytes other than 0 and 1 read as true
    local u = gm.make_foreign_array({ 3 }, { element_type = "uint8" })
    gm.set_row_major_bref(u, 1, 2)
    gm.set_row_major_bref(u, 2, 0)
    gm.set_row_major_bref(u, 3, 255)
    local bm = gm.mat_from_buffer(gm.buffer_displace(u, { element_type = "bool" }))
    assert.are.same({ true, false, true }, bm:to_table())
    assert.truthy(tostring(bm):find("{true, false, true}", 1, true))
    assert.are.same({ 1, 0, 1 }, bm:as("int8"):to_table())
  end)
end)
