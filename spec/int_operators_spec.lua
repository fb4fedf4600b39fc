-- Lua's // % & | ~ << >> and unary ~ on integer mats (docs/API.md
-- "Operators", "Defined everywhere"): concrete values against plain-Lua
-- references (Lua integers are int64 with these semantics, except that
-- the contract gives 0 for x // 0 and x % 0, 0 for shifts by a negative
-- amount or >= the width, and -1 for >> of a negative value there);
-- narrower types wrap the int64 reference to their width.
local gm = require "gpumat"

local MIN, MAX = math.mininteger, math.maxinteger

-- wrap an int64 to a type's width (signed or unsigned)
local function wrap(v, bits, signed)
  if bits == 64 then return v end
  local m = v & ((1 << bits) - 1)
  if signed and m >= (1 << (bits - 1)) then m = m - (1 << bits) end
  return m
end

-- the references: one table keyed by op name (spec/op_refs.lua), on
-- (a, b, ctype facts), wrapped to the type here
local op_refs = require "op_refs"
local refs = {}
for _, name in ipairs { "floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
  "bitwise_left_shift", "bitwise_right_shift" } do
  refs[name] = function(a, b, bits, signed)
    local t = { kind = signed and "int" or "uint", bits = bits, signed = signed }
    return wrap(op_refs[name](a, b, t), bits, signed)
  end
end
local ops = {
  floor_divide = function(a, b) return a // b end,
  remainder = function(a, b) return a % b end,
  bitwise_and = function(a, b) return a & b end,
  bitwise_or = function(a, b) return a | b end,
  bitwise_xor = function(a, b) return a ~ b end,
  bitwise_left_shift = function(a, b) return a << b end,
  bitwise_right_shift = function(a, b) return a >> b end,
}

-- values per type: edges and a few ordinary ones, all in range
local types = {
  {"int8", 8, true, {-128, 127, 0, -1, 1, 7, -7, 3, -3, 8, 9, -9}},
  {"int16", 16, true, {-32768, 32767, 0, -1, 1, 7, -7, 3, 15, 16, 17, -100}},
  {"int32", 32, true, {-2147483648, 2147483647, 0, -1, 1, 7, -7, 3, 31, 32, 33, -1000}},
  {"int64", 64, true, {MIN, MAX, 0, -1, 1, 7, -7, 3, 63, 64, 65, -123456789}},
  {"uint8", 8, false, {255, 0, 1, 7, 3, 8, 9, 200}},
  {"uint16", 16, false, {65535, 0, 1, 7, 3, 15, 16, 17}},
  {"uint32", 32, false, {4294967295, 0, 1, 7, 3, 31, 32, 33}},
}

local function check_all(got, want, what)
  local t = gm.mat_to_array(got)
  assert.are.equal(#want, #t, what)
  for i = 1, #want do
    if t[i] ~= want[i] then
      error(string.format("%s: element %d is %s, expected %s", what, i, tostring(t[i]), tostring(want[i])))
    end
  end
end

describe("integer operators", function()
  for _, ty in ipairs(types) do
    local ct, bits, signed, vals = ty[1], ty[2], ty[3], ty[4]
    it(ct .. ": every pair of edge values, as functions and operators (outer broadcast)", function()
      local n = #vals
      local a = gm.array_to_mat(vals, {ctype = ct}):view(n, 1)
      local b = gm.array_to_mat(vals, {ctype = ct}):view(1, n)
      for name, ref in pairs(refs) do
        local want = {}
        for i = 1, n do
          for j = 1, n do want[#want + 1] = ref(vals[i], vals[j], bits, signed) end
        end
        local r1, r2 = gm[name](a, b), ops[name](a, b)
        assert.are.same({n, n}, r1:dims())
        assert.are.equal(ct, r1:ctype())
        check_all(r1:view(n * n), want, ct .. " " .. name)
        check_all(r2:view(n * n), want, ct .. " " .. name .. " operator")
      end
    end)
    it(ct .. ": Lua integer operands take the mat's type, on either side; ~m", function()
      local m = gm.array_to_mat(vals, {ctype = ct})
      for name, ref in pairs(refs) do
        for _, s in ipairs({3, -2, 0, 1}) do
          if signed or s >= 0 then
            local w1, w2 = {}, {}
            for i = 1, #vals do
              w1[i] = ref(vals[i], s, bits, signed)
              w2[i] = ref(s, vals[i], bits, signed)
            end
            check_all(ops[name](m, s), w1, ct .. " " .. name .. " m,s")
            check_all(gm[name](s, m), w2, ct .. " " .. name .. " s,m")
          end
        end
      end
      local w = {}
      for i = 1, #vals do w[i] = wrap(~vals[i], bits, signed) end
      check_all(~m, w, ct .. " ~m")
      check_all(gm.bitwise_invert(m), w, ct .. " bitwise_invert")
    end)
  end

  it("runs on the emulated device's kernels, with the same values #nocuda", function()
    for _, ty in ipairs(types) do
      local ct, bits, signed, vals = ty[1], ty[2], ty[3], ty[4]
      local n = #vals
      gm.with_cuda({backend = "emulated"}, function()
        local a = gm.array_to_mat(vals, {ctype = ct}):view(n, 1)
        local b = gm.array_to_mat(vals, {ctype = ct}):view(1, n)
        for name, ref in pairs(refs) do
          local want = {}
          for i = 1, n do
            for j = 1, n do want[#want + 1] = ref(vals[i], vals[j], bits, signed) end
          end
          local r = ops[name](a, b)
          assert.truthy(r:facets():find("C", 1, true), ct .. " " .. name .. " ran on the device")
          check_all(r:view(n * n), want, ct .. " " .. name .. " emulated")
        end
        local w = {}
        for i = 1, n do w[i] = wrap(~vals[i], bits, signed) end
        local r = ~a:view(n)
        assert.truthy(r:facets():find("C", 1, true))
        check_all(r, w, ct .. " ~m emulated")
      end)
    end
  end)

  it("bool mats take & | ~ and unary ~ (logical), host and emulated #nocuda", function()
    local function run()
      local a = gm.array_to_mat({1, 1, 0, 0}, {ctype = "bool"})
      local b = gm.array_to_mat({1, 0, 1, 0}, {ctype = "bool"})
      assert.are.same({true, false, false, false}, (a & b):to_table())
      assert.are.same({true, true, true, false}, gm.bitwise_or(a, b):to_table())
      assert.are.same({false, true, true, false}, (a ~ b):to_table())
      assert.are.same({false, false, true, true}, (~a):to_table())
      assert.are.same({false, false, true, true}, gm.bitwise_invert(a):to_table())
      return a & b
    end
    run()
    gm.with_cuda({backend = "emulated"}, function()
      assert.truthy(run():facets():find("C", 1, true))
    end)
  end)

  it("float // and % are Lua's own, bit for bit, on the host and the emulated device", function()
    local inf, nan = math.huge, 0 / 0
    local A = { 7.5, -7.5, 7.5, -7.5, 0.0, -0.0, 5, -5, inf, -inf, 3, nan, 1e308, -2.5 }
    local B = { 2, 2, -2, -2, 3, 3, 0.0, -0.0, 2, 3, inf, 1, 1e-308, -inf }
    local function same(x, y) return (x ~= x and y ~= y) or (x == y and 1 / x == 1 / y) end
    local function run(ct)
      local a, b = gm.array_to_mat(A, { ctype = ct }), gm.array_to_mat(B, { ctype = ct })
      local q, r, q2 = (a // b):to_table(), (a % b):to_table(), (a // 2):to_table()
      for k = 1, #A do
        local x, y = A[k], B[k]
        if ct == "float" then x, y = string.unpack("f", string.pack("f", x)), string.unpack("f", string.pack("f", y)) end
        -- float: these quotients are exact in single precision too, so
        -- Lua's double results rounded to float are the reference
        local function ref(v) return ct == "float" and string.unpack("f", string.pack("f", v)) or v end
        assert(same(q[k], ref(x // y)), string.format("%s: %s // %s: %s, Lua %s", ct, x, y, q[k], x // y))
        assert(same(r[k], ref(x % y)), string.format("%s: %s %% %s: %s, Lua %s", ct, x, y, r[k], x % y))
        assert(same(q2[k], ref(x // 2)), string.format("%s: %s // 2: %s", ct, x, q2[k]))
      end
      return (a // b):dtype()
    end
    for _, ct in ipairs { "double", "float" } do
      assert.are.equal(ct == "float" and "float32" or "float64", run(ct))
      gm.with_cuda({ backend = "emulated" }, function() run(ct) end)
    end
  end)

  it("uint64 edge values (the array_to_mat of uint64 is given in range)", function()
    local m = gm.array_to_mat({0, 1, 7, 4294967296}, {ctype = "uint64"})
    check_all(m // 2, {0, 0, 3, 2147483648}, "uint64 //")
    check_all(m % 3, {0, 1, 1, 1}, "uint64 %")
    check_all(m >> 64, {0, 0, 0, 0}, "uint64 >> 64")
    check_all(m << 1, {0, 2, 14, 8589934592}, "uint64 <<")
    check_all(m & 5, {0, 1, 5, 0}, "uint64 &")
  end)

  it("{out = m} and methods", function()
    local a = gm.array_to_mat({-7, 7}, {ctype = "int32"})
    local o = gm.array_to_mat({0, 0}, {ctype = "int32"})
    gm.floor_divide(a, 2, {out = o})
    check_all(o, {-4, 3}, "out")
    check_all(a:remainder(-3), {-1, -2}, "method")
  end)

  it("raises naming the function", function()
    local i = gm.array_to_mat({1, 2}, {ctype = "int32"})
    local u = gm.array_to_mat({1, 2}, {ctype = "uint8"})
    local f = gm.array_to_mat({1.5, 2})
    local bo = gm.array_to_mat({1, 0}, {ctype = "bool"})
    assert.are.equal("int32", (i // u):dtype()) -- mixed integer types promote
    assert.has_error(function() return i & 1.5 end, "bad argument #2 to '__band' (number has no integer representation)")
    assert.has_error(function() return gm.bitwise_left_shift(i, 0.5) end,
                     "bad argument #2 to 'bitwise_left_shift' (number has no integer representation)")
    assert.has_error(function() return ~f end, "bad argument #1 to '__bnot' (integer or bool mat expected, got a double mat)")
    -- bool // and % compute in int8, as NumPy's (by zero: 0)
    assert.are.equal("int8", (bo // bo):dtype())
    assert.are.same({1, 0}, (bo // bo):to_table())
    assert.are.same({0, 0}, (bo % bo):to_table())
    assert.has_error(function() return bo << bo end)
    -- unary - of a bool mat refuses as gm.negative does (it gave an int64 mat of 0/-1)
    assert.has_error(function() return -bo end,
                     "bad argument #1 to '__unm' (bool mats do not negate: use ~ (bitwise_invert) or logical_not)")
    assert.has_error(function() return gm.bitwise_or(i, "x") end)
    assert.has_error(function() return i | (0 / 0) end, "bad argument #2 to '__bor' (number has no integer representation)")
    assert.has_error(function() return i >> math.huge end,
                     "bad argument #2 to '__shr' (number has no integer representation)")
    -- a whole float is an integer, as in Lua
    check_all(i & 3.0, {1, 2}, "whole float")
  end)
end)
