-- Plain-Lua references of the op table's rows (kernels/op_table.h,
-- gpumat.core._op_table), one per row, keyed by the row's public name;
-- the specs take their references from here, and
-- elementwise_functions_spec checks that every row has one (a new row
-- without a reference fails) and computes it.
--
-- Each is the exact mathematical value on Lua numbers, with t (the ctype's
-- facts: t.kind "float", "int", "uint" or "bool", t.bits, t.signed) last:
-- the spec rounds float results to the ctype and wraps integer ones
-- modulo 2^bits (so abs and neg of MIN, square, integer add wrap as
-- two's complement).  Comparisons and predicates return booleans.
-- Unary and predicate refs take x; scalar ones (x, alpha); binary ones
-- (a, b); reductions a list of values (softmax returns a list).
local NAN = 0 / 0
local INF = math.huge

local M = {}

local function isnan(x) return x ~= x end
local function is_int(t) return t ~= nil and t.kind ~= "float" end

-- ---- unary ----

-- the standard's round: halves to even (C's rint, NumPy's round)
local function round(x)
  if x ~= x or x == INF or x == -INF then return x end
  local r = math.floor(x + 0.5)
  if r - x == 0.5 and r % 2 ~= 0 then r = r - 1 end
  return r
end
local function trunc(x)
  if x ~= x or x == INF or x == -INF then return x end
  return x < 0 and math.ceil(x) or math.floor(x)
end
local function nan_outside(f, lo, hi)
  return function(x)
    if x ~= x or x < lo or x > hi then return NAN end
    return f(x)
  end
end
local function log_base(b)
  return function(x)
    if x ~= x or x < 0 then return NAN end
    if x == 0 then return -INF end
    return math.log(x, b)
  end
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

M.square = function(x) return x * x end
M.sqrt = function(x) return x < 0 and NAN or math.sqrt(x) end
M.log = function(x)
  if x ~= x or x < 0 then return NAN end
  return x == 0 and -INF or math.log(x)
end
M.exp = math.exp
M.inv = function(x) return 1 / x end
M.logistic = function(x) return 1 / (1 + math.exp(-x)) end
M.sin = math.sin
M.cos = math.cos
M.tan = math.tan
M.sinh = function(x) return (math.exp(x) - math.exp(-x)) / 2 end
M.cosh = function(x) return (math.exp(x) + math.exp(-x)) / 2 end
M.tanh = function(x)
  if x > 20 then return 1 elseif x < -20 then return -1 end
  local e = math.exp(2 * x)
  return (e - 1) / (e + 1)
end
M.abs = math.abs
M.sign = function(x) return x > 0 and 1 or x < 0 and -1 or x end
M.floor = function(x, t) return is_int(t) and x or math.floor(x) end
M.ceil = function(x, t) return is_int(t) and x or math.ceil(x) end
M.round = function(x, t) return is_int(t) and x or round(x) end
M.neg = function(x) return -x end
M.log1p = log1p
M.expm1 = expm1
M.relu = function(x) return (x < 0) and 0 or x end
M.acos = nan_outside(math.acos, -1, 1)
M.acosh = function(x)
  if x ~= x or x < 1 then return NAN end
  if x == INF then return INF end
  return math.log(x + math.sqrt(x * x - 1))
end
M.asin = nan_outside(math.asin, -1, 1)
M.asinh = function(x)
  local a = math.abs(x)
  local r = math.log(a + math.sqrt(a * a + 1))
  return x < 0 and -r or r
end
M.atan = function(x) return math.atan(x) end
M.atanh = function(x)
  if x ~= x or math.abs(x) > 1 then return NAN end
  if x == 1 then return INF elseif x == -1 then return -INF end
  return 0.5 * math.log((1 + x) / (1 - x))
end
M.log2 = log_base(2)
M.log10 = log_base(10)
M.trunc = function(x, t) return is_int(t) and x or trunc(x) end
M.positive = function(x) return x end
M.conj = function(x) return x end -- (the real types: complex in spec/complex_spec.lua)

-- ---- predicates (NaN is truthy, as NumPy's astype(bool)) ----

M.isnan = function(x) return isnan(x) end
M.isinf = function(x) return x == INF or x == -INF end
M.isfinite = function(x) return x - x == 0 end
M.signbit = function(x) return x < 0 or (x == 0 and 1 / x < 0) end
M.logical_not = function(x) return x == 0 end
M._truth = function(x) return x ~= 0 end

-- ---- one scalar parameter: x := f(x, alpha) ----

M.expt_ = function(x, alpha) return x ^ alpha end
M.add_scalar_ = function(x, alpha) return x + alpha end
M.min_ = function(x, alpha) return alpha < x and alpha or x end
M.max_ = function(x, alpha) return x < alpha and alpha or x end

-- ---- broadcasting binary ops and comparisons ----

local function copysign(x, y)
  local neg = y < 0 or (y == 0 and 1 / y < 0)
  local m = math.abs(x)
  return neg and -m or m
end

M.add = function(a, b) return a + b end
M.sub = function(a, b) return a - b end
M.cmul = function(a, b) return a * b end
M.cdiv = function(a, b) return a / b end
-- integers: the power in Lua's wrapping integers (the spec wraps it to the
-- type); a negative exponent gives 1/a^-b truncated (kernels/int_ops.h)
M.pow = function(a, b, t)
  if not t or (t.kind ~= "int" and t.kind ~= "uint") then return a ^ b end
  a, b = math.tointeger(a), math.tointeger(b)
  if b < 0 then return a == 1 and 1 or a == -1 and (b % 2 ~= 0 and -1 or 1) or 0 end
  local r = 1
  for _ = 1, b do r = r * a end
  return r
end
M.cmax = function(a, b) if a ~= a or a > b then return a end return b end
M.cmin = function(a, b) if a ~= a or a < b then return a end return b end
M.gt = function(a, b) return a > b end
M.ge = function(a, b) return a >= b end
M.lt = function(a, b) return a < b end
M.le = function(a, b) return a <= b end
M.eq = function(a, b) return a == b end
M.ne = function(a, b) return a ~= b end
-- Lua's own // and % (floats too); on integers defined everywhere: 0 for
-- a zero divisor (docs/API.md "Defined everywhere")
M.floor_divide = function(a, b, t)
  if is_int(t) and b == 0 then return 0 end
  return a // b
end
M.remainder = function(a, b, t)
  if is_int(t) and b == 0 then return 0 end
  return a % b
end
-- bool's & | ~ are logical
M.bitwise_and = function(a, b, t) return t.kind == "bool" and ((a ~= 0 and b ~= 0) and 1 or 0) or a & b end
M.bitwise_or = function(a, b, t) return t.kind == "bool" and ((a ~= 0 or b ~= 0) and 1 or 0) or a | b end
M.bitwise_xor = function(a, b, t) return t.kind == "bool" and (((a ~= 0) ~= (b ~= 0)) and 1 or 0) or a ~ b end
-- shifts by a negative count or at least the width give 0 (-1 for a
-- negative a shifted right), never C's undefined behaviour
M.bitwise_left_shift = function(a, b, t)
  if b < 0 or b >= t.bits then return 0 end
  return a << b
end
M.bitwise_right_shift = function(a, b, t)
  if b < 0 or b >= t.bits then return (t.signed and a < 0) and -1 or 0 end
  if t.signed and a < 0 then return ~((~a) >> b) end
  return a >> b
end
M.atan2 = math.atan
M.hypot = function(x, y)
  if math.abs(x) == INF or math.abs(y) == INF then return INF end
  return math.sqrt(x * x + y * y)
end
M.copysign = copysign
-- the next float after a toward b, in the ctype's format (t.bits 32 or 64)
M.nextafter = function(a, b, t)
  if a ~= a or b ~= b then return NAN end
  if a == b then return b end
  local f, i = t.bits == 32 and "<f" or "<d", t.bits == 32 and "<i4" or "<i8"
  if a == 0 then
    local tiny = string.unpack(f, string.pack(i, 1))
    return b > 0 and tiny or -tiny
  end
  local bits = string.unpack(i, string.pack(f, a))
  bits = ((a < b) == (a > 0)) and bits + 1 or bits - 1
  return (string.unpack(f, string.pack(i, bits)))
end
-- NumPy's npy_logaddexp
M.logaddexp = function(a, b)
  if a == b then return a + math.log(2) end
  local d = a - b
  if d > 0 then return a + log1p(math.exp(-d)) end
  if d <= 0 then return b + log1p(math.exp(d)) end
  return d
end

-- ---- reductions of a list v: f(v, t, ddof) (ddof 1: the unbiased
-- var/std; arg ones 1-based, the first NaN or the first best; an empty
-- list gives sum 0, prod 1, mean/var/std NaN, logsumexp -inf) ----

local function fold(f, init)
  return function(v)
    local a = init
    for _, x in ipairs(v) do a = f(a, x) end
    return a
  end
end
local function mean(v) return M.sum(v) / #v end
local function var(v, t, ddof)
  ddof = ddof or 0
  if #v - ddof <= 0 then return NAN end
  local m, s = mean(v), 0
  for _, x in ipairs(v) do s = s + (x - m) ^ 2 end
  return s / (#v - ddof)
end
local function arg(better)
  return function(v)
    local k = 1
    for i, x in ipairs(v) do
      if isnan(x) then return i end
      if better(x, v[k]) then k = i end
    end
    return k
  end
end
local function extreme(better)
  return function(v)
    local a = v[1]
    for _, x in ipairs(v) do
      if isnan(x) then return NAN end
      if better(x, a) then a = x end
    end
    return a
  end
end

M.sum = fold(function(a, x) return a + x end, 0)
M.prod = fold(function(a, x) return a * x end, 1)
M.mean = mean
M.max = extreme(function(x, a) return x > a end)
M.min = extreme(function(x, a) return x < a end)
M.var = var
M.std = function(v, t, ddof) return math.sqrt(var(v, t, ddof)) end
M.argmax = arg(function(x, a) return x > a end)
M.argmin = arg(function(x, a) return x < a end)
M.logsumexp = function(v)
  local m = #v > 0 and M.max(v) or -INF
  if m ~= m or m == -INF then return m end
  local s = 0
  for _, x in ipairs(v) do s = s + math.exp(x - m) end
  return m + math.log(s)
end
M.softmax = function(v)
  local lse, out = M.logsumexp(v), {}
  for i, x in ipairs(v) do out[i] = math.exp(x - lse) end
  return out
end
M.any = fold(function(a, x) return a or x ~= 0 end, false)
M.all = fold(function(a, x) return a and x ~= 0 end, true)
M.count_nonzero = fold(function(a, x) return a + (x ~= 0 and 1 or 0) end, 0)

return M
