-- The element types' rules as data: names, kinds, safe casts, promotion,
-- machine limits.  gm.result_type, can_cast, finfo, iinfo, isdtype and the
-- name constants gm.bool ... gm.complex128 (the array API standard 2025.12,
-- docs/API.md "Element types").
--
-- Promotion is computed from one table, the safe casts (`casts` below,
-- closed transitively): the result of several types is the least type all
-- of them cast to safely, searched kind by kind from the highest kind among
-- them (bool < integer < real floating < complex floating), so int8 with
-- uint8 gives int16 (an integer) rather than float16, and uint64 with int64,
-- which no integer holds, gives float64.  These are the standard's tables
-- within a kind and NumPy 2's results across kinds (spec/dtypes_spec.lua
-- compares every pair with NumPy).  bfloat16 (not in NumPy) casts as
-- ml_dtypes and PyTorch treat it: int8, uint8 and bool fit it exactly
-- (8 significant bits), it widens to float32; with float16 it gives float32.
local argcheck = require "gpumat.argcheck"

local NAMES = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "bfloat16", "float32", "float64", "complex64", "complex128" }

-- kind (isdtype's), level (the promotion search order), bits, and the
-- types each one casts to safely in one step.
local INFO = {
  bool = { kind = "bool", level = 0, bits = 8, casts = { "int8", "uint8" } },
  int8 = { kind = "signed integer", level = 1, bits = 8, casts = { "int16", "float16", "bfloat16" } },
  int16 = { kind = "signed integer", level = 1, bits = 16, casts = { "int32", "float32" } },
  int32 = { kind = "signed integer", level = 1, bits = 32, casts = { "int64", "float64" } },
  int64 = { kind = "signed integer", level = 1, bits = 64, casts = { "float64" } },
  uint8 = { kind = "unsigned integer", level = 1, bits = 8, casts = { "uint16", "int16", "float16", "bfloat16" } },
  uint16 = { kind = "unsigned integer", level = 1, bits = 16, casts = { "uint32", "int32", "float32" } },
  uint32 = { kind = "unsigned integer", level = 1, bits = 32, casts = { "uint64", "int64", "float64" } },
  uint64 = { kind = "unsigned integer", level = 1, bits = 64, casts = { "float64" } },
  float16 = { kind = "real floating", level = 2, bits = 16, casts = { "float32", "complex64" } },
  bfloat16 = { kind = "real floating", level = 2, bits = 16, casts = { "float32", "complex64" } },
  float32 = { kind = "real floating", level = 2, bits = 32, casts = { "float64", "complex64" } },
  float64 = { kind = "real floating", level = 2, bits = 64, casts = { "complex128" } },
  complex64 = { kind = "complex floating", level = 3, bits = 64, casts = { "complex128" } },
  complex128 = { kind = "complex floating", level = 3, bits = 128, casts = {} },
}

-- MGL's ctype names of float32 and float64 (m:ctype() gives them).
local ALIASES = { float = "float32", double = "float64" }

-- Floating limits: significand bits p (with the implicit one) and the
-- largest exponent emax; eps = 2^(1-p), max = (2 - 2^(1-p)) * 2^emax,
-- smallest_normal = 2^(1-emax).  Powers of two are exact in Lua floats.
local FLOAT_FORMAT = { float16 = { 11, 15 }, bfloat16 = { 8, 127 }, float32 = { 24, 127 },
  float64 = { 53, 1023 } }
local COMPONENT = { complex64 = "float32", complex128 = "float64" }

-- safe[a][b]: a casts to b without loss (reflexive, transitive closure).
local safe = {}
for _, a in ipairs(NAMES) do
  local reach, todo = { [a] = true }, { a }
  while #todo > 0 do
    local t = table.remove(todo)
    for _, b in ipairs(INFO[t].casts) do
      if not reach[b] then reach[b], todo[#todo + 1] = true, b end
    end
  end
  safe[a] = reach
end

-- The promotion of a list of type names (the rule above); nil when none
-- exists (never, complex128 takes every type).
local function promote_list(types)
  local level = 0
  for _, t in ipairs(types) do level = math.max(level, INFO[t].level) end
  for l = level, 3 do
    local bounds = {}
    for _, c in ipairs(NAMES) do
      local ok = INFO[c].level == l
      for _, t in ipairs(types) do ok = ok and safe[t][c] end
      if ok then bounds[#bounds + 1] = c end
    end
    for _, c in ipairs(bounds) do
      local least = true
      for _, d in ipairs(bounds) do least = least and safe[c][d] end
      if least then return c end
    end
  end
end

-- Pairs are looked up, not searched: promote[a][b].
local promote = {}
for _, a in ipairs(NAMES) do
  promote[a] = {}
  for _, b in ipairs(NAMES) do promote[a][b] = promote_list({ a, b }) end
end

return function(gm, core)
  -- the broadcasting ops (src/lua/l_broadcast.c) promote mixed ctypes
  -- with this same table
  core._set_promotion(promote)
  local mat_mt = getmetatable(core.mat(0))
  local known = table.concat(NAMES, ", ")

  local function describe(v)
    if type(v) == "string" then return ("'%s'"):format(v) end
    return getmetatable(v) == mat_mt and "gpumat.mat" or type(v)
  end

  -- The standard name of a dtype name (aliases accepted), or nil.
  local function name_of(v)
    if type(v) ~= "string" then return nil end
    v = ALIASES[v] or v
    return INFO[v] and v or nil
  end

  -- A dtype name or a mat's type; `what` says what else is accepted.
  local function dtype_arg(v, n, fname, mats)
    if mats and getmetatable(v) == mat_mt then
      local t = v.dtype and v:dtype() or core.ctype(v)
      local name = name_of(t)
      if not name then argcheck.argerror(n, fname, "mat of unknown element type %s", tostring(t)) end
      return name
    end
    local name = name_of(v)
    if not name then
      argcheck.argerror(n, fname, "dtype%s expected (one of %s), got %s", mats and " or mat" or "", known,
        describe(v))
    end
    return name
  end

  local function default_float()
    return name_of(core.get_setting("default_ctype")) or "float64"
  end

  for _, t in ipairs(NAMES) do gm[t] = t end

  -- Lua scalars are weak: a boolean takes any type, an integer any but
  -- bool (which becomes int64), a float the floating types (bool and
  -- integers become the default float), a gm.complex value the complex
  -- types (real ones become complex).  Level of the weak scalars: 0
  -- boolean, 1 integer, 2 float, 3 complex.
  function gm.result_type(...)
    local n = select("#", ...)
    local strong, weak = {}, -1
    for i = 1, n do
      local v = select(i, ...)
      if type(v) == "boolean" then
        weak = math.max(weak, 0)
      elseif type(v) == "number" then
        weak = math.max(weak, math.type(v) == "integer" and 1 or 2)
      elseif gm.iscomplex(v) then
        weak = 3
      else
        strong[#strong + 1] = dtype_arg(v, i, "result_type", true)
      end
    end
    if #strong == 0 then
      argcheck.argerror(1, "result_type", "at least one mat or dtype expected, got %s",
        n == 0 and "no arguments" or "only Lua scalars")
    end
    local r = #strong == 2 and promote[strong[1]][strong[2]] or promote_list(strong)
    -- a complex value: float32 (and the 16-bit floats) give complex64,
    -- the other real types complex128 (NumPy 2's weak Python complex)
    if weak == 3 and INFO[r].level < 3 then return safe[r].complex64 and r ~= "int16" and r ~= "uint16" and
        INFO[r].level == 2 and "complex64" or "complex128" end
    if weak == 2 and INFO[r].level < 2 then return default_float() end
    if weak == 1 and INFO[r].level < 1 then return "int64" end
    return r
  end

  function gm.can_cast(from, to)
    local a = dtype_arg(from, 1, "can_cast", true)
    local b = dtype_arg(to, 2, "can_cast", false)
    return safe[a][b] == true
  end

  function gm.finfo(t)
    local name = dtype_arg(t, 1, "finfo", true)
    local real = COMPONENT[name] or name
    local fmt = FLOAT_FORMAT[real]
    if not fmt then argcheck.argerror(1, "finfo", "floating dtype expected, got %s", name) end
    local p, emax = fmt[1], fmt[2]
    local max = (2.0 - 2.0 ^ (1 - p)) * 2.0 ^ emax
    return { bits = INFO[real].bits, eps = 2.0 ^ (1 - p), max = max, min = -max,
      smallest_normal = 2.0 ^ (1 - emax), dtype = real }
  end

  -- uint64's max, 2^64 - 1, is the Lua integer with all 64 bits set (-1
  -- in Lua's signed view, Lua's unsigned convention: math.ult); max_string
  -- spells every max in decimal.
  function gm.iinfo(t)
    local name = dtype_arg(t, 1, "iinfo", true)
    local info = INFO[name]
    if info.level ~= 1 then argcheck.argerror(1, "iinfo", "integer dtype expected, got %s", name) end
    local bits, signed = info.bits, info.kind == "signed integer"
    -- Lua's integer arithmetic wraps and 1 << 64 is 0, so the 64-bit
    -- bounds come out of the same expressions.
    local min = signed and -(1 << (bits - 1)) or 0
    local max = signed and (1 << (bits - 1)) - 1 or (1 << bits) - 1
    local max_string = (bits == 64 and not signed) and "18446744073709551615" or tostring(max)
    return { bits = bits, min = min, max = max, max_string = max_string, dtype = name }
  end

  local KINDS = {
    ["bool"] = { bool = true },
    ["signed integer"] = { ["signed integer"] = true },
    ["unsigned integer"] = { ["unsigned integer"] = true },
    ["integral"] = { ["signed integer"] = true, ["unsigned integer"] = true },
    ["real floating"] = { ["real floating"] = true },
    ["complex floating"] = { ["complex floating"] = true },
    ["numeric"] = { ["signed integer"] = true, ["unsigned integer"] = true, ["real floating"] = true,
      ["complex floating"] = true },
  }

  local function is_kind(name, kind, n, where)
    if KINDS[kind] then return KINDS[kind][INFO[name].kind] == true end
    local other = name_of(kind)
    if other then return other == name end
    argcheck.argerror(n, "isdtype", "%sa dtype or one of the kinds 'bool', 'signed integer', " ..
      "'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric' expected, got %s",
      where, describe(kind))
  end

  function gm.isdtype(dtype, kind)
    local name = dtype_arg(dtype, 1, "isdtype", false)
    if type(kind) ~= "table" or getmetatable(kind) == mat_mt then return is_kind(name, kind, 2, "") end
    local any = false
    for i, k in ipairs(kind) do
      any = is_kind(name, k, 2, ("kind[%d]: "):format(i)) or any
    end
    return any
  end
end
