-- gm.result_type, can_cast, finfo, iinfo, isdtype (lua/gpumat/dtypes.lua)
-- against NumPy, computed here once by python3 for every pair and triple of
-- NumPy's 14 of the 15 types (bfloat16 is not NumPy's: an explicit table),
-- and against the standard's own promotion tables.  Dtype-with-dtype
-- promotion and safe casting are the same in NumPy 1.2x and 2 (NEP 50
-- changed only Python scalars), so either NumPy is a reference; the weak
-- Lua scalars (NumPy 2's Python scalars) are checked against explicit cases.
local gm = require "gpumat"

local NP = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "float32", "float64", "complex64", "complex128" }

local PY = [[
import itertools, numpy as np
names = "%s".split()
dt = {n: np.dtype(n) for n in names}
for a, b in itertools.product(names, repeat=2):
    print("R", a, b, np.result_type(dt[a], dt[b]).name)
    print("C", a, b, "true" if np.can_cast(dt[a], dt[b]) else "false")
for a, b, c in itertools.product(names, repeat=3):
    print("T", a, b, c, np.result_type(dt[a], dt[b], dt[c]).name)
for n in ["float16", "float32", "float64", "complex64", "complex128"]:
    f = np.finfo(dt[n])
    print("F", n, f.bits, repr(float(f.eps)), repr(float(f.max)), repr(float(f.min)),
          repr(float(f.smallest_normal)), f.dtype.name)
for n in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
    i = np.iinfo(dt[n])
    print("I", n, i.bits, i.min, i.max, i.dtype.name)
]]

-- The reference lines, or nil and why (no python3 with numpy).
local function numpy_reference()
  local script = os.tmpname()
  local f = assert(io.open(script, "w"))
  f:write(PY:format(table.concat(NP, " ")))
  f:close()
  for _, py in ipairs({ os.getenv("GPUMAT_PYTHON") or "", "/usr/bin/python3", "python3" }) do
    if py ~= "" then
      local p = io.popen(py .. " " .. script .. " 2>/dev/null")
      local out = p:read("a")
      p:close()
      if out:find("\nI uint64 ") then
        os.remove(script)
        return out
      end
    end
  end
  os.remove(script)
  return nil, "python3 with numpy is not available"
end

local ref, why = numpy_reference()

local function each_line(tag, fn)
  local n = 0
  for line in ref:gmatch("[^\n]+") do
    if line:sub(1, 2) == tag .. " " then
      local words = {}
      for w in line:gmatch("%S+") do words[#words + 1] = w end
      fn(table.unpack(words, 2))
      n = n + 1
    end
  end
  return n
end

describe("dtypes against NumPy", function()
  it("result_type of every pair of NumPy's types #host", function()
    if not ref then return pending(why) end
    local bad = {}
    local n = each_line("R", function(a, b, r)
      local got = gm.result_type(a, b)
      if got ~= r then bad[#bad + 1] = ("%s %s: %s, numpy %s"):format(a, b, got, r) end
    end)
    assert.are.equal(14 * 14, n)
    assert.are.same({}, bad)
  end)

  it("result_type of every triple (several arguments at once, not folded) #host", function()
    if not ref then return pending(why) end
    local bad = {}
    local n = each_line("T", function(a, b, c, r)
      local got = gm.result_type(a, b, c)
      if got ~= r then bad[#bad + 1] = ("%s %s %s: %s, numpy %s"):format(a, b, c, got, r) end
    end)
    assert.are.equal(14 ^ 3, n)
    assert.are.same({}, bad)
  end)

  it("can_cast of every pair of NumPy's types #host", function()
    if not ref then return pending(why) end
    local bad = {}
    local n = each_line("C", function(a, b, r)
      local got = gm.can_cast(a, b)
      if tostring(got) ~= r then bad[#bad + 1] = ("%s -> %s: %s, numpy %s"):format(a, b, tostring(got), r) end
      -- the standard's definition: a casts to b when promoting them gives b
      if got ~= (gm.result_type(a, b) == b) then bad[#bad + 1] = ("%s -> %s vs result_type"):format(a, b) end
    end)
    assert.are.equal(14 * 14, n)
    assert.are.same({}, bad)
  end)

  it("finfo of the floating and complex types #host", function()
    if not ref then return pending(why) end
    local n = each_line("F", function(name, bits, eps, max, min, smallest, dtype)
      local f = gm.finfo(name)
      assert.are.same({ bits = math.tointeger(bits), eps = tonumber(eps), max = tonumber(max),
        min = tonumber(min), smallest_normal = tonumber(smallest), dtype = dtype }, f)
      assert.are.equal("float", math.type(f.eps))
    end)
    assert.are.equal(5, n)
  end)

  it("iinfo of the integer types (uint64's max as Lua's unsigned -1) #host", function()
    if not ref then return pending(why) end
    local n = each_line("I", function(name, bits, min, max, dtype)
      local i = gm.iinfo(name)
      assert.are.equal(math.tointeger(bits), i.bits)
      assert.are.equal(math.tointeger(min), i.min)
      assert.are.equal(max, i.max_string)
      -- NumPy's max as a Lua integer, but uint64's (above math.maxinteger):
      -- the integer with the same 64 bits, -1
      assert.are.equal(math.tointeger(tonumber(max)) or (name == "uint64" and -1), i.max)
      assert.are.equal(dtype, i.dtype)
      assert.are.equal("integer", math.type(i.max))
    end)
    assert.are.equal(8, n)
    assert.are.equal(-1, gm.iinfo("uint64").max)
    assert.is_true(math.ult(gm.iinfo("int64").max, gm.iinfo("uint64").max))
  end)
end)

describe("dtypes: the standard's tables and gpumat's choices", function()
  -- The standard's promotion tables (type_promotion.rst), row by row:
  -- within signed, within unsigned, signed with unsigned, floating.
  local TABLES = {
    { { "int8", "int16", "int32", "int64" }, { "int8", "int16", "int32", "int64" }, {
      { "int8", "int16", "int32", "int64" }, { "int16", "int16", "int32", "int64" },
      { "int32", "int32", "int32", "int64" }, { "int64", "int64", "int64", "int64" } } },
    { { "uint8", "uint16", "uint32", "uint64" }, { "uint8", "uint16", "uint32", "uint64" }, {
      { "uint8", "uint16", "uint32", "uint64" }, { "uint16", "uint16", "uint32", "uint64" },
      { "uint32", "uint32", "uint32", "uint64" }, { "uint64", "uint64", "uint64", "uint64" } } },
    { { "int8", "int16", "int32", "int64" }, { "uint8", "uint16", "uint32" }, {
      { "int16", "int32", "int64" }, { "int16", "int32", "int64" },
      { "int32", "int32", "int64" }, { "int64", "int64", "int64" } } },
    { { "float32", "float64", "complex64", "complex128" }, { "float32", "float64", "complex64", "complex128" }, {
      { "float32", "float64", "complex64", "complex128" }, { "float64", "float64", "complex128", "complex128" },
      { "complex64", "complex128", "complex64", "complex128" },
      { "complex128", "complex128", "complex128", "complex128" } } },
  }

  it("follows the standard's promotion tables, both argument orders #host", function()
    local checked = 0
    for _, t in ipairs(TABLES) do
      local rows, cols, cells = t[1], t[2], t[3]
      for i, a in ipairs(rows) do
        for j, b in ipairs(cols) do
          assert.are.equal(cells[i][j], gm.result_type(a, b), a .. " " .. b)
          assert.are.equal(cells[i][j], gm.result_type(b, a), b .. " " .. a)
          checked = checked + 1
        end
      end
    end
    assert.are.equal(16 + 16 + 12 + 16, checked)
  end)

  it("promotes bfloat16 as ml_dtypes and PyTorch do #host", function()
    local expect = { bool = "bfloat16", int8 = "bfloat16", uint8 = "bfloat16", int16 = "float32",
      uint16 = "float32", int32 = "float64", uint32 = "float64", int64 = "float64", uint64 = "float64",
      float16 = "float32", bfloat16 = "bfloat16", float32 = "float32", float64 = "float64",
      complex64 = "complex64", complex128 = "complex128" }
    for other, r in pairs(expect) do
      assert.are.equal(r, gm.result_type("bfloat16", other), other)
      assert.are.equal(r, gm.result_type(other, "bfloat16"), other)
      assert.are.equal(r == "bfloat16", gm.can_cast(other, "bfloat16"), other .. " -> bfloat16")
      assert.are.equal(r == other, gm.can_cast("bfloat16", other), "bfloat16 -> " .. other)
    end
    local f = gm.finfo("bfloat16")
    assert.are.same({ bits = 16, eps = 2.0 ^ -7, max = 3.3895313892515355e38, min = -3.3895313892515355e38,
      smallest_normal = 2.0 ^ -126, dtype = "bfloat16" }, f)
  end)

  it("names every type: gm.bool ... gm.complex128, and MGL's float/double aliases #host", function()
    for _, t in ipairs({ "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
      "float16", "bfloat16", "float32", "float64", "complex64", "complex128" }) do
      assert.are.equal(t, gm[t])
    end
    assert.are.equal("float32", gm.result_type("float", "float"))
    assert.are.equal("float64", gm.result_type("float", "double"))
    assert.are.equal("float64", gm.result_type("double", "int32"))
    assert.is_true(gm.can_cast("float", "double"))
    assert.is_false(gm.can_cast("double", "float32"))
    assert.are.equal("float32", gm.finfo("float").dtype)
    assert.is_true(gm.isdtype("double", "float64"))
  end)

  it("takes a mat's element type #host", function()
    local f, d = gm.mat(2, { ctype = "float" }), gm.mat(2, { ctype = "double" })
    assert.are.equal("float32", gm.result_type(f))
    assert.are.equal("float64", gm.result_type(f, d))
    assert.are.equal("float64", gm.result_type(f, "int32"))
    assert.are.equal("complex64", gm.result_type(f, "complex64"))
    assert.is_true(gm.can_cast(f, "float64"))
    assert.is_false(gm.can_cast(d, "float32"))
    assert.are.equal(2.0 ^ -23, gm.finfo(f).eps)
    assert.has_error(function() gm.iinfo(d) end, "bad argument #1 to 'iinfo' (integer dtype expected, got float64)")
  end)

  it("treats Lua numbers and booleans as weak scalars #host", function()
    local saved = gm.default_ctype
    local cases = {
      -- a Lua integer takes the other type; a bool becomes the default integer
      { { "int8", 1 }, "int8" }, { { 1, "uint8" }, "uint8" }, { { "float32", 1 }, "float32" },
      { { "uint64", -1 }, "uint64" }, { { "bool", 1 }, "int64" }, { { "complex64", 3 }, "complex64" },
      -- a Lua float takes a floating type; integers and bool become the default float
      { { "float16", 1.5 }, "float16" }, { { "bfloat16", 2.0 }, "bfloat16" }, { { "int8", 1.5 }, "float64" },
      { { "bool", 0.5 }, "float64" }, { { "complex64", 0.5 }, "complex64" }, { { "uint64", 1.0 }, "float64" },
      -- a Lua boolean is a weak bool
      { { "bool", true }, "bool" }, { { "int16", false }, "int16" }, { { true, "float32" }, "float32" },
      -- scalars together: the highest of them decides
      { { "int8", true, 1 }, "int8" }, { { "int8", 1, 2.5 }, "float64" }, { { "bool", true, 1 }, "int64" },
      { { "int8", "uint8", 1 }, "int16" }, { { "int8", 1, "float16" }, "float16" },
    }
    for _, c in ipairs(cases) do
      local shown = {}
      for i, v in ipairs(c[1]) do shown[i] = tostring(v) end
      assert.are.equal(c[2], gm.result_type(table.unpack(c[1])), table.concat(shown, " "))
    end
    gm.default_ctype = "float"
    local ok, err = pcall(function()
      assert.are.equal("float32", gm.result_type("int8", 1.5))
      assert.are.equal("float32", gm.result_type("bool", 0.5))
      assert.are.equal("float64", gm.result_type("float64", 0.5))
    end)
    gm.default_ctype = saved
    assert(ok, err)
  end)

  it("answers isdtype for kinds, dtypes and lists of them #host", function()
    local kinds = {
      ["bool"] = { "bool" },
      ["signed integer"] = { "int8", "int16", "int32", "int64" },
      ["unsigned integer"] = { "uint8", "uint16", "uint32", "uint64" },
      ["integral"] = { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64" },
      ["real floating"] = { "float16", "bfloat16", "float32", "float64" },
      ["complex floating"] = { "complex64", "complex128" },
      ["numeric"] = { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "bfloat16", "float32", "float64", "complex64", "complex128" },
    }
    for kind, members in pairs(kinds) do
      local set = {}
      for _, m in ipairs(members) do set[m] = true end
      for _, t in ipairs(NP) do
        assert.are.equal(set[t] == true, gm.isdtype(t, kind), t .. " " .. kind)
      end
      assert.are.equal(set.bfloat16 == true, gm.isdtype("bfloat16", kind), "bfloat16 " .. kind)
    end
    assert.is_true(gm.isdtype("int8", "int8"))
    assert.is_false(gm.isdtype("int8", "int16"))
    assert.is_true(gm.isdtype("uint8", { "bool", "unsigned integer" }))
    assert.is_true(gm.isdtype("float32", { "int8", gm.float32 }))
    assert.is_false(gm.isdtype("complex64", { "real floating", "integral", "float64" }))
    assert.is_false(gm.isdtype("bool", {}))
  end)

  it("raises naming the function and argument #host", function()
    local list = "one of bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, " ..
      "float32, float64, complex64, complex128"
    local kinds = "'bool', 'signed integer', 'unsigned integer', 'integral', 'real floating', " ..
      "'complex floating', 'numeric'"
    local cases = {
      { function() gm.result_type("int12") end,
        "bad argument #1 to 'result_type' (dtype or mat expected (" .. list .. "), got 'int12')" },
      { function() gm.result_type("int8", {}) end,
        "bad argument #2 to 'result_type' (dtype or mat expected (" .. list .. "), got table)" },
      { function() gm.result_type() end,
        "bad argument #1 to 'result_type' (at least one mat or dtype expected, got no arguments)" },
      { function() gm.result_type(1, 2.5, true) end,
        "bad argument #1 to 'result_type' (at least one mat or dtype expected, got only Lua scalars)" },
      { function() gm.can_cast(1, "int8") end,
        "bad argument #1 to 'can_cast' (dtype or mat expected (" .. list .. "), got number)" },
      { function() gm.can_cast("int8", gm.mat(1)) end,
        "bad argument #2 to 'can_cast' (dtype expected (" .. list .. "), got gpumat.mat)" },
      { function() gm.can_cast("int8") end,
        "bad argument #2 to 'can_cast' (dtype expected (" .. list .. "), got nil)" },
      { function() gm.finfo("int32") end, "bad argument #1 to 'finfo' (floating dtype expected, got int32)" },
      { function() gm.finfo("Float32") end,
        "bad argument #1 to 'finfo' (dtype or mat expected (" .. list .. "), got 'Float32')" },
      { function() gm.iinfo("bool") end, "bad argument #1 to 'iinfo' (integer dtype expected, got bool)" },
      { function() gm.iinfo("float16") end, "bad argument #1 to 'iinfo' (integer dtype expected, got float16)" },
      { function() gm.isdtype("int8", "integer") end,
        "bad argument #2 to 'isdtype' (a dtype or one of the kinds " .. kinds .. " expected, got 'integer')" },
      { function() gm.isdtype("int8", { "bool", 3 }) end,
        "bad argument #2 to 'isdtype' (kind[2]: a dtype or one of the kinds " .. kinds .. " expected, got number)" },
      { function() gm.isdtype(gm.mat(1), "numeric") end,
        "bad argument #1 to 'isdtype' (dtype expected (" .. list .. "), got gpumat.mat)" },
      { function() gm.isdtype("int8", "numeric", 3) end, "bad argument #3 to 'isdtype' (no value expected)" },
      { function() gm.finfo("float32", 1) end, "bad argument #2 to 'finfo' (no value expected)" },
    }
    for _, c in ipairs(cases) do assert.has_error(c[1], c[2]) end
  end)
end)
