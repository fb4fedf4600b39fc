-- NumPy differential oracle, typed steps (gpumat side): programs of
-- non-destructive ops on mats of every element type, mixed-type operands,
-- Lua scalars (weak), Lua operators, and the contract's defined edge
-- cases (integer wraparound, // and % by zero, MIN // -1, shifts by
-- negative or >= width counts, float -> int astype of NaN/inf/out of
-- range, halves for round).  tools/oracle/typed.py replays them.
--
-- Two layers, so new ops are one entry each:
--   * the dtype layer (DTYPES, values, scalars, operands): random contents
--     per element type with the edges of each type, every operand a view
--     of a base storage (fresh, displaced or strided) as gen.lua's are;
--   * OPS: name -> generator returning (call description, run function);
--     the description's args are operand refs or encoded Lua scalars.
-- A step records the op, its arguments, every involved storage before
-- and after, and the result (a mat: dtype, dims, values; a Lua value; or
-- the error message, which typed.py accepts only where the contract
-- allows a refusal).
local M = {}

local R = math.random
local function pick(t) return t[R(#t)] end

-- float16 (NumPy's): typed.py checks it at its own tolerance; bfloat16 is
-- not here, NumPy (1.24, no ml_dtypes) has no such dtype to replay it in
M.DTYPES = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "float32", "float64" }
local INTS = { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64" }
local FLOATS = { "float16", "float32", "float64" }
local BITS = { int8 = 8, int16 = 16, int32 = 32, int64 = 64, uint8 = 8, uint16 = 16, uint32 = 32,
  uint64 = 64 }
M.INTS, M.FLOATS = INTS, FLOATS

local function is_int(t) return BITS[t] ~= nil end
local function limits(t)
  local b = BITS[t]
  if t:sub(1, 1) == "u" then
    if b == 64 then return 0, -1 end   -- the all-ones bit pattern
    return 0, (1 << b) - 1
  end
  if b == 64 then return math.mininteger, math.maxinteger end
  return -(1 << (b - 1)), (1 << (b - 1)) - 1
end

-- One element of type t: small values, the type's edges, shift counts
-- around the width, random bit patterns; for floats also halves, signed
-- zeros, NaN, infinities, huge and tiny values.
local function value(t)
  if t == "bool" then return R(0, 1) end
  if t:match("^complex") then -- moderate parts (OPS.complex)
    local function part() local k = R(1, 4) return k == 1 and 0.0 or k == 2 and R(-6, 6) * 0.5 or R() * 4 - 2 end
    local re, im = part(), part()
    -- never 0 + 0i: log, reciprocal and sign at 0 are the specs' cases
    return require("gpumat").complex(re, (re == 0 and im == 0) and 0.5 or im)
  end
  local k = R(1, 10)
  if is_int(t) then
    local lo, hi = limits(t)
    if k <= 4 then return R(-6, 6) & (t:sub(1, 1) == "u" and 0xff or -1)
    elseif k == 5 then return pick({ lo, hi, lo + 1, hi - 1, -1, 0 })
    elseif k == 6 then return pick({ BITS[t] - 1, BITS[t], BITS[t] + 1, 2 * BITS[t], 1 })
    elseif k == 7 then return R(math.mininteger, math.maxinteger) end
    local v = R(-1000, 1000)
    if BITS[t] < 64 then -- wrap into the type so the stored value is v's image
      local m = 1 << BITS[t]
      v = v % m
      if t:sub(1, 1) ~= "u" and v > hi then v = v - m end
    end
    return v
  end
  if k <= 4 then return (R() * 8 - 4)
  elseif k == 5 then return pick({ 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, -0.0, 0.0, 1.0, -1.0 })
  elseif k == 6 then return pick({ 0 / 0, math.huge, -math.huge, 1e10, -1e10, 3e9, -3e9, 1e19, -1e19, 200.7, -129.5 })
  elseif k == 7 then return pick({ 3e38, -3e38, 1e-40, 5e-324, 1e300, 2 ^ 63, -2 ^ 63, 2 ^ 64 })
  end
  return R(-20, 20) + 0.0
end

-- A Lua scalar argument, encoded so typed.py knows its Lua type.
local SCALAR_INTS = { 0, 1, -1, 2, 3, -3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, -128,
  -129, 1000, -1000, 1 << 31, (1 << 53) + 1, math.maxinteger, math.mininteger }
local SCALAR_FLOATS = { 0.0, -0.0, 0.5, 1.5, -2.5, 2.0, 3.0, -1.0, 1e10, 0 / 0, math.huge, -math.huge }
function M.scalar(kind)
  kind = kind or pick({ "integer", "integer", "float", "boolean" })
  local v
  if kind == "integer" then v = R() < 0.6 and R(-4, 8) or pick(SCALAR_INTS)
  elseif kind == "float" then v = R() < 0.5 and R(-8, 8) * 0.5 + 0.0 or pick(SCALAR_FLOATS)
  else v = R() < 0.5 end
  return { scalar = v, lt = kind }, v
end

-- Storages: the program's list, filled by gen.lua's driver.
local storages
function M.reset(s) storages = s end

local function new_storage(n, t)
  local vals = {}
  for i = 1, n do vals[i] = value(t) end
  local base = require("gpumat").mat({ n }, { ctype = t, initial_contents = vals })
  storages[#storages + 1] = base
  return #storages, base
end

local function size_of(dims) local s = 1 for _, d in ipairs(dims) do s = s * d end return s end

-- An operand of dtype t and dims: fresh, displaced, or strided (axes of a
-- padded parent permuted, every other element along some of them).
function M.operand(dims, t)
  local gm = require "gpumat"
  local k, size = #dims, size_of(dims)
  if k >= 1 and size > 0 and R() < 0.25 then
    local perm, step, pdims, inv, subs = {}, {}, {}, {}, {}
    for i = 1, k do perm[i], step[i] = i, R(1, 2) end
    for i = k, 2, -1 do local j = R(1, i); perm[i], perm[j] = perm[j], perm[i] end
    for j = 1, k do pdims[j], inv[perm[j]] = dims[perm[j]] * step[perm[j]], j end
    local d = R(0, 2)
    local id, base = new_storage(d + size_of(pdims) + R(0, 2), t)
    local v = base:reshape_and_displace(pdims, d)
    if k > 1 then v = v:permute(inv) end
    for i = 1, k do subs[i] = { 1, -1, step[i] } end
    v = v[subs]
    return { m = v, ref = { s = id, dims = dims, d = v:displacement(), strides = v:strides(), dtype = t } }
  end
  local d = R() < 0.4 and R(0, 3) or 0
  local id, base = new_storage(d + size + R(0, 2), t)
  local m = base:reshape_and_displace(dims, d)
  return { m = m, ref = { s = id, dims = dims, d = d, dtype = t } }
end

local function rdims(rank, maxd)
  local t = {}
  for i = 1, rank do t[i] = R(1, maxd or 4) end
  return t
end
M.rdims = rdims

-- dims that broadcast with dims: some axes 1, some leading ones dropped
local function bdims(dims)
  local t = {}
  local drop = R() < 0.3 and R(0, #dims) or 0
  for i = drop + 1, #dims do t[#t + 1] = R() < 0.25 and 1 or dims[i] end
  return t
end

local function dtype_for(kind)
  if kind == "int" then return pick(INTS) elseif kind == "float" then return pick(FLOATS)
  elseif kind == "intbool" then return R() < 0.15 and "bool" or pick(INTS) end
  return pick(M.DTYPES)
end

-- One binary operand pair: mat with mat (mixed types), or a mat with a Lua
-- scalar on either side.  kind restricts the mats' types.
local function binary_args(kind, scalar_kind)
  local dims = rdims(R(0, 3))
  local a = M.operand(dims, dtype_for(kind))
  local r = R()
  if r < 0.55 then
    local b = M.operand(bdims(dims), R() < 0.4 and a.ref.dtype or dtype_for(kind))
    if R() < 0.5 then return { a, b } end
    return { b, a }
  end
  local enc, v = M.scalar(scalar_kind)
  local s = { scalar = v, enc = enc }
  if r < 0.8 then return { a, s } end
  return { s, a }
end

local function arg_value(x) if x.scalar ~= nil then return x.scalar end return x.m end
local function arg_ref(x) if x.enc then return x.enc end return x.ref end

-- Lua's operators on mats and numbers (the metamethods).
local LUA_OPS = {
  add = function(a, b) return a + b end, subtract = function(a, b) return a - b end,
  divide = function(a, b) return a / b end, pow = function(a, b) return a ^ b end,
  floor_divide = function(a, b) return a // b end, remainder = function(a, b) return a % b end,
  bitwise_and = function(a, b) return a & b end, bitwise_or = function(a, b) return a | b end,
  bitwise_xor = function(a, b) return a ~ b end,
  bitwise_left_shift = function(a, b) return a << b end,
  bitwise_right_shift = function(a, b) return a >> b end,
  negative = function(a) return -a end, bitwise_invert = function(a) return ~a end,
}
M.LUA_OPS = LUA_OPS

-- A generic call: f(args..., opts) recorded with its refs.
local function call(fname, xs, opts, form)
  local refs, mats = {}, {}
  for i, x in ipairs(xs) do refs[i] = arg_ref(x); if x.m then mats[#mats + 1] = x end end
  local st = { op = "typed", f = fname, args = refs, opts = opts, form = form or "fn" }
  return st, mats, function(gm)
    local vals = {}
    for i, x in ipairs(xs) do vals[i] = arg_value(x) end
    if form == "op" then return LUA_OPS[fname](table.unpack(vals, 1, #xs)) end
    if opts then vals[#vals + 1] = opts end
    return gm[fname](table.unpack(vals, 1, #xs + (opts and 1 or 0)))
  end
end


M.OPS = {}
local OPS = M.OPS

local ARITH = { "add", "subtract", "multiply", "divide", "maximum", "minimum", "pow", "floor_divide",
  "remainder", "greater", "greater_equal", "less", "less_equal", "equal", "not_equal",
  "logical_and", "logical_or", "logical_xor" }
local INTOPS = { "floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
  "bitwise_left_shift", "bitwise_right_shift" }
local FLOAT2 = { "atan2", "hypot", "copysign", "nextafter", "logaddexp" }

-- An `out` mat for a call (a view of the result's dims and dtype, maybe
-- strided): the step records it, typed.py expects its storage written
-- there and nowhere else.
local function with_out(st, mats, run, dims, dtype)
  local o = M.operand(dims, dtype)
  st.out = o.ref
  mats[#mats + 1] = o
  return st, mats, function(gm)
    local r = run(gm, o.m)
    if r ~= o.m then error("oracle: out= returned another mat") end
    return r
  end
end

OPS.binary = function()
  local f = pick(ARITH)
  local xs = binary_args(R() < 0.8 and "any" or "float")
  if R() < 0.2 then -- into an out mat of the result's dims and dtype
    local gm = require "gpumat"
    local a, b = arg_value(xs[1]), arg_value(xs[2])
    local ok, dims = pcall(function()
      return gm.broadcast_shapes(type(a) == "userdata" and a:dims() or {}, type(b) == "userdata" and b:dims() or {})
    end)
    local okt, t = pcall(gm.result_type, a, b)
    if ok and okt then
      if f:match("^greater") or f:match("^less") or f:match("equal$") or f:match("^logical") then t = "bool"
      elseif f == "divide" and not t:match("^float") then t = "float64"
      elseif f == "pow" and t == "bool" then t = "int8" end -- NumPy's bool ** bool computes in int8
      local st, mats = call(f, xs)
      return with_out(st, mats, function(gm2, o) return gm2[f](a, b, { out = o }) end, dims, t)
    end
  end
  return call(f, xs)
end
OPS.intbinary = function()
  local f = pick(INTOPS)
  -- a fraction in a bitwise operand raises (Lua's rule); mostly integers
  return call(f, binary_args("intbool", R() < 0.9 and "integer" or nil))
end
OPS.float_binary = function()
  return call(pick(FLOAT2), binary_args(R() < 0.8 and "float" or "any", R() < 0.7 and "float" or nil))
end
OPS.operator = function()
  local names = {}
  for k in pairs(LUA_OPS) do names[#names + 1] = k end
  table.sort(names)
  local f = pick(names)
  if f == "negative" or f == "bitwise_invert" then
    local a = M.operand(rdims(R(1, 3)), R() < 0.7 and dtype_for("intbool") or dtype_for("any"))
    return call(f, { a }, nil, "op")
  end
  local kind = (f:match("^bitwise") or f == "floor_divide" or f == "remainder") and "intbool" or "any"
  if R() < 0.15 then kind = "any" end
  local xs = binary_args(kind, kind == "intbool" and (R() < 0.9 and "integer" or nil) or nil)
  -- a Lua operator needs a mat on one side: binary_args always gives one
  return call(f, xs, nil, "op")
end
-- Shifts and integer division at their defined edges, on purpose.
OPS.int_edges = function()
  local t = pick(INTS)
  local lo = limits(t)
  local dims = rdims(1, 4)
  local a = M.operand(dims, t)
  local f = pick({ "floor_divide", "remainder", "bitwise_left_shift", "bitwise_right_shift" })
  local b
  if f == "floor_divide" or f == "remainder" then
    local v = pick({ 0, -1, -1, 0, 1 })
    b = { scalar = v, enc = { scalar = v, lt = "integer" } }
    if R() < 0.5 then a.m:fill_(R() < 0.5 and lo or 0) end -- MIN // -1, 0 // 0 ...
  else
    local v = pick({ -1, -64, BITS[t] - 1, BITS[t], BITS[t] + 1, 64, 65, 1000, math.maxinteger, math.mininteger })
    b = { scalar = v, enc = { scalar = v, lt = "integer" } }
  end
  if R() < 0.3 then -- the counts in a mat of another integer type
    local bb = M.operand(dims, pick(INTS))
    return call(f, { a, bb })
  end
  return call(f, { a, b }, nil, R() < 0.5 and "op" or "fn")
end

local UNARY = { "abs", "negative", "positive", "sign", "square", "trunc", "round", "floor", "ceil",
  "isnan", "isinf", "isfinite", "signbit", "logical_not", "bitwise_invert",
  "sqrt", "exp", "log", "expm1", "log1p", "sin", "cos", "tan", "tanh", "sinh", "cosh",
  "acos", "acosh", "asin", "asinh", "atan", "atanh", "log2", "log10" }
OPS.unary = function()
  local f = pick(UNARY)
  local a = M.operand(rdims(R(0, 3)), dtype_for("any"))
  return call(f, { a })
end

OPS.where = function()
  local dims = rdims(R(1, 3))
  local c = M.operand(bdims(dims), R() < 0.8 and "bool" or dtype_for("any"))
  local function side()
    if R() < 0.35 then local enc, v = M.scalar(); return { scalar = v, enc = enc } end
    return M.operand(bdims(dims), dtype_for("any"))
  end
  local xs = { c, side(), side() }
  if xs[2].scalar ~= nil and xs[3].scalar ~= nil and R() < 0.5 then xs[2] = M.operand(dims, dtype_for("any")) end
  return call("where", xs)
end

local REDUCE = { "sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "count_nonzero",
  "argmax", "argmin" }
OPS.reduce = function()
  local f = pick(REDUCE)
  local dims = rdims(R(1, 3))
  if R() < 0.1 then dims[R(#dims)] = 0 end
  local a = M.operand(dims, dtype_for("any"))
  local opts
  if R() < 0.6 then
    opts = { axis = R(1, #dims) * (R() < 0.2 and -1 or 1) }
    if R() < 0.3 and f ~= "argmax" and f ~= "argmin" then opts.keepdims = true end
  end
  -- sum, prod, mean, var, std take a dtype: a float one, or the result's own
  if R() < 0.25 and ({ sum = 1, prod = 1, mean = 1, var = 1, std = 1 })[f] then
    opts = opts or {}
    opts.dtype = pick({ "float32", "float64", "int64", "uint64", pick(M.DTYPES) })
  end
  return call(f, { a }, opts)
end
OPS.cumulative = function()
  local f = pick({ "cumulative_sum", "cumulative_prod" })
  local dims = rdims(R(1, 2))
  local a = M.operand(dims, dtype_for("any"))
  local opts = { axis = R(1, #dims) }
  if R() < 0.3 then opts.include_initial = true end
  return call(f, { a }, opts)
end
OPS.diff = function()
  local dims = rdims(R(1, 2))
  local a = M.operand(dims, dtype_for("any"))
  local opts = { axis = R(1, #dims), n = R(0, 2) }
  local xs = { a }
  if R() < 0.3 then
    local pd = { table.unpack(dims) }; pd[opts.axis] = R(1, 2)
    local p = M.operand(pd, dtype_for("any"))
    opts.prepend = p.m
    local st, mats, run = call("diff", xs, opts)
    opts.prepend = nil
    st.opts = { axis = opts.axis, n = opts.n }
    st.prepend = p.ref
    mats[#mats + 1] = p
    return st, mats, function(gm) return gm.diff(a.m, { axis = st.opts.axis, n = st.opts.n, prepend = p.m }) end
  end
  return call("diff", xs, opts)
end
-- The matrix product of integer, bool and mixed mats (promoted; integers
-- wrap), 2-d and batched.
OPS.matmul = function()
  local r, k, c = R(1, 4), R(0, 4), R(1, 4)
  local batch = R() < 0.25 and { R(1, 2) } or {}
  local da, db = { table.unpack(batch) }, { table.unpack(batch) }
  da[#da + 1], da[#da + 2] = r, k
  db[#db + 1], db[#db + 2] = k, c
  local a = M.operand(da, dtype_for(R() < 0.7 and "intbool" or "any"))
  local b = M.operand(db, R() < 0.5 and a.ref.dtype or dtype_for("any"))
  return call("matmul", { a, b })
end
OPS.astype = function()
  local a = M.operand(rdims(R(1, 3)), dtype_for("any"))
  local t = pick(M.DTYPES)
  return call("astype", { a, { scalar = t, enc = { scalar = t, lt = "dtype" } } })
end

-- Complex mats (complex64, complex128; docs/API.md "Complex mats"):
-- arithmetic with a complex, real or scalar second operand, the unary
-- functions, pow, the reductions and scans, vecdot and matmul.  Parts
-- are moderate values (halves, small randoms, zeros): the edge cases of
-- infinities and NaN in complex functions (C99 Annex G) are the specs'.
local CX = { "complex64", "complex128" }
local CX_UNARY = { "abs", "real", "imag", "conj", "sign", "negative", "square", "reciprocal", "sqrt", "exp", "log",
  "expm1", "log1p", "log2", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh" }
local CX_BINARY = { "add", "subtract", "multiply", "divide", "equal", "not_equal", "pow" }
OPS.complex = function()
  local t = pick(CX)
  local k = R(1, 6)
  if k <= 2 then
    local dims = rdims(R(1, 2))
    local a = M.operand(dims, t)
    local b
    local f = pick(CX_BINARY)
    -- pow's exponent is never a real mat of edge values: infinite
    -- exponents are C99 Annex G's special cases, which the element
    -- functions' textbook formulas do not follow
    local r = R()
    if f == "pow" and r >= 0.5 and r < 0.7 then r = 0.8 end
    if r < 0.5 then b = M.operand(bdims(dims), R() < 0.7 and t or pick(CX))
    elseif r < 0.7 then b = M.operand(bdims(dims), pick(FLOATS))
    else -- small Lua numbers (pow's large exponents overflow differently per formula)
      local v = R() < 0.6 and R(-4, 8) or pick({ 0.5, 1.5, -2.5, 0.0 })
      b = { scalar = v, enc = { scalar = v, lt = math.type(v) } }
    end
    return call(f, { a, b })
  elseif k == 3 then
    return call(pick(CX_UNARY), { M.operand(rdims(R(1, 2)), t) })
  elseif k == 4 then
    local f = pick({ "sum", "prod", "mean" })
    local dims = rdims(R(1, 3))
    local opts = R() < 0.6 and { axis = R(1, #dims) } or nil
    if opts and R() < 0.3 then opts.keepdims = true end
    return call(f, { M.operand(dims, t) }, opts)
  elseif k == 5 then
    local dims = rdims(R(1, 2))
    local opts = { axis = R(1, #dims), include_initial = R() < 0.3 or nil }
    return call(pick({ "cumulative_sum", "cumulative_prod" }), { M.operand(dims, t) }, opts)
  end
  local r, q, c = R(1, 3), R(1, 3), R(1, 3)
  if R() < 0.4 then
    local dims = rdims(R(1, 2))
    return call("vecdot", { M.operand(dims, t), M.operand(dims, t) })
  end
  local batch = R() < 0.3 and { R(1, 2) } or {}
  local da, db = { table.unpack(batch) }, { table.unpack(batch) }
  da[#da + 1], da[#da + 2] = r, q
  db[#db + 1], db[#db + 2] = q, c
  return call("matmul", { M.operand(da, t), M.operand(db, t) })
end

M.names = {}
for k in pairs(OPS) do M.names[#M.names + 1] = k end
table.sort(M.names)

-- Lua values of a result, recorded with their Lua types.
local function lua_value(v)
  local t = math.type(v) or type(v)
  return { value = v, lt = t }
end

-- Runs one typed step: st gets res (mat: dtype, dims, values), value (a
-- Lua value) or err (the message).
function M.run(gm, st, run)
  local ok, r = pcall(run, gm)
  if not ok then st.err = tostring(r); return end
  local mt = getmetatable(gm.mat(0))
  if getmetatable(r) == mt then
    local n = r:size()
    local flat = n > 0 and r:contiguous():reshape({ n }):to_table() or {}
    st.res = { dtype = r:dtype(), dims = r:dims(), vals = flat }
  else
    st.value = lua_value(r)
  end
end

return M
