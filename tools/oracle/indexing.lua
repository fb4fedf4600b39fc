-- NumPy differential oracle for indexing, ordering, sets and scans,
-- gpumat side.
--   lua5.4 tools/oracle/indexing.lua FIRST_SEED COUNT OUT.json [SEEDS]
-- Runs, for each of SEEDS seeds, COUNT random cases on the host and the
-- same cases inside gm.with_cuda (GPUMAT_DEVICE's device, else the
-- emulated one) of sort, argsort, topk, unique_all, searchsorted, isin, cumulative
-- sums and products, take, take_along_axis, nonzero, masked_select,
-- m[{...}] reads and writes with integer, range, index-mat and mask
-- subscripts (mixed), flip, roll, repeat, tile, pad and diag, on mats of
-- every element type (a third of them strided views: reversed or
-- permuted axes, every other element), and writes each case's inputs
-- (dtype, dims, row-major values), arguments and results (or the error
-- message).  tools/oracle/indexing.py replays them with numpy in the
-- same dtypes.  Index values include negative, repeated and, now and
-- then, out-of-range ones (numpy must raise there too).
local gm = require "gpumat"

local seed, count, out, batches = tonumber(arg[1]), tonumber(arg[2]), arg[3], tonumber(arg[4] or 1)
assert(seed and count and out and batches, "usage: indexing.lua FIRST_SEED COUNT OUT.json [SEEDS]")
local R = math.random
local function pick(t) return t[R(#t)] end

-- float16 is NumPy's; bfloat16 has no NumPy dtype and is left out (its
-- paths are float16's: the same bit moves and float32 copies)
local DTYPES = { "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool" }
local INDEX_DTYPES = { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64" }

-- JSON (numbers round-trip with %.17g; python's json reads NaN/Infinity)
local function enc(v, buf)
  local t = type(v)
  if t == "number" then
    if v ~= v then buf[#buf + 1] = "NaN"
    elseif v == math.huge then buf[#buf + 1] = "Infinity"
    elseif v == -math.huge then buf[#buf + 1] = "-Infinity"
    elseif math.type(v) == "integer" then buf[#buf + 1] = tostring(v)
    else buf[#buf + 1] = string.format("%.17g", v) end
  elseif t == "string" then
    buf[#buf + 1] = '"' .. v:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
  elseif t == "boolean" then buf[#buf + 1] = tostring(v)
  elseif t == "table" then
    if #v > 0 or next(v) == nil then
      buf[#buf + 1] = "["
      for i = 1, #v do if i > 1 then buf[#buf + 1] = "," end enc(v[i], buf) end
      buf[#buf + 1] = "]"
    else
      buf[#buf + 1] = "{"
      local first = true
      for k, x in pairs(v) do
        if not first then buf[#buf + 1] = "," end
        first = false
        buf[#buf + 1] = '"' .. k .. '":'
        enc(x, buf)
      end
      buf[#buf + 1] = "}"
    end
  else error("cannot encode " .. t) end
end

local function size_of(dims) local s = 1 for _, d in ipairs(dims) do s = s * d end return s end
local function rdims(lo, hi, maxd)
  local t = {}
  for i = 1, R(lo, hi) do t[i] = R(1, maxd or 4) end
  return t
end

-- One element of dtype t: small values with repeats, and the type's edges
-- now and then (NaN, infinities, -0.0 for floats)
local EDGE = { int8 = { -128, 127 }, int16 = { -32768, 32767 }, int32 = { -2147483648, 2147483647 },
  int64 = { math.mininteger, math.maxinteger }, uint8 = { 0, 255 }, uint16 = { 0, 65535 },
  uint32 = { 0, 4294967295 }, uint64 = { 0, 0x7fffffffffffffff } }
local function value(t, nan_ok)
  if t == "bool" then return R() < 0.5 end
  if t:match("^float") then
    local k = R(1, 12)
    if k == 1 and nan_ok then return 0 / 0 end
    if k == 2 then return pick({ math.huge, -math.huge, -0.0 }) end
    return (R(-8, 8)) / 2
  end
  if R() < 0.06 then return pick(EDGE[t]) end
  return t:match("^u") and R(0, 9) or R(-5, 5)
end

-- A mat of dtype t and dims: contiguous (displaced in a bigger storage)
-- or a strided view (axes permuted, every other element, reversed).
local function mat(t, dims, vals)
  local n = size_of(dims)
  if not vals then
    vals = {}
    for i = 1, n do vals[i] = value(t, true) end
  end
  local m
  if #dims >= 1 and R() < 0.33 then
    local k = #dims
    local perm, pd = {}, {}
    for i = 1, k do perm[i] = i end
    for i = k, 2, -1 do local j = R(1, i); perm[i], perm[j] = perm[j], perm[i] end
    for j = 1, k do pd[j] = dims[perm[j]] * 2 end
    local parent = gm.zeros(pd, { dtype = t })
    local inv, subs = {}, {}
    for j = 1, k do inv[perm[j]] = j end
    local v = k > 1 and parent:permute(inv) or parent
    for i = 1, k do subs[i] = R() < 0.5 and { 1, -1, 2 } or { -1, 1, -2 } end
    m = v[subs]
  else
    local d = R(0, 2)
    local base = gm.zeros(n + d + R(0, 2), { dtype = t })
    m = base:narrow(1, d + 1, n):view(#dims == 0 and {} or dims)
  end
  for i = 1, n do m[i] = vals[i] end -- row-major element i of the view
  return m, vals
end

-- a mat description: dtype, dims, row-major values
local function desc(m)
  local vals = {}
  for i = 1, m:size() do vals[i] = m[i] end
  return { dtype = m:dtype(), dims = m:dims(), v = vals }
end
local function any_mat(lo, hi, nan_ok, dtype)
  local t = dtype or pick(DTYPES)
  local dims = rdims(lo or 1, hi or 3)
  local vals = {}
  for i = 1, size_of(dims) do vals[i] = value(t, nan_ok ~= false) end
  return mat(t, dims, vals)
end

-- index values for an axis of length n: in range (negative from the end
-- too, repeats), and out of range now and then (numpy must raise too)
local function index_value(n, bad)
  if bad then return pick({ 0, n + 1, -n - 1, math.mininteger, math.maxinteger }) end
  local v = R(1, n)
  return R() < 0.3 and v - n - 1 or v
end
local function index_mat(n, dims, dtype)
  local bad = R() < 0.05
  dtype = dtype or pick(INDEX_DTYPES)
  local vals = {}
  for i = 1, size_of(dims) do vals[i] = index_value(n, bad and i == 1) end
  if dtype:match("^u") or dtype == "int8" then -- keep the values the type holds
    for i, v in ipairs(vals) do
      local lo, hi = EDGE[dtype][1], EDGE[dtype][2]
      if v < lo or v > hi then -- a negative in-range index as its positive twin, else an extreme
        vals[i] = (v < 0 and v >= -n) and v + n + 1 or (v < lo and lo or hi)
      end
    end
  end
  return mat(dtype, dims, vals)
end
local function mask_mat(dims)
  local vals = {}
  for i = 1, size_of(dims) do vals[i] = R() < 0.5 end
  return mat("bool", dims, vals)
end

local function res(v)
  if type(v) == "userdata" then return desc(v) end
  if type(v) == "table" then
    local t = {}
    for i, x in ipairs(v) do t[i] = res(x) end
    return { list = t }
  end
  return { scalar = v }
end

local gens = {}
gens.sort = function()
  local x = any_mat(1, 3)
  local axis, d = R(-#x:dims(), #x:dims()), R() < 0.5
  if axis == 0 then axis = -1 end
  local which = pick({ "sort", "argsort" })
  return { x = desc(x), axis = axis, descending = d, which = which },
    function() return { gm[which](x, { axis = axis, descending = d }) } end
end
gens.topk = function()
  local x = any_mat(1, 2)
  local axis = R(1, #x:dims())
  local k, largest = R(0, x:dim(axis)), R() < 0.5
  return { x = desc(x), axis = axis, k = k, largest = largest },
    function() return { gm.topk(x, k, { axis = axis, largest = largest }) } end
end
gens.unique_all = function()
  local x = any_mat(1, 2, false)
  return { x = desc(x) }, function() return { gm.unique_all(x) } end
end
gens.searchsorted = function()
  local t = pick(DTYPES)
  local n = R(1, 6)
  local vals = {}
  for i = 1, n do vals[i] = value(t, true) end
  -- sorted as gm.sort leaves it (NaN last; false before true)
  local function key(v) if type(v) == "boolean" then return v and 1 or 0 end return v end
  table.sort(vals, function(a, b)
    a, b = key(a), key(b)
    return a < b or (b ~= b and a == a)
  end)
  local x1 = mat(t, { n }, vals)
  local x2 = any_mat(1, 2, true, t)
  local side = pick({ "left", "right" })
  return { x1 = desc(x1), x2 = desc(x2), side = side },
    function() return { gm.searchsorted(x1, x2, { side = side }) } end
end
gens.isin = function()
  local t = pick(DTYPES)
  local x, e, inv = any_mat(1, 2, true, t), any_mat(1, 1, true, t), R() < 0.3
  return { x = desc(x), e = desc(e), invert = inv }, function() return { gm.isin(x, e, { invert = inv }) } end
end
gens.cumulative = function()
  local x = any_mat(1, 3)
  local axis, init = R(1, #x:dims()), R() < 0.3
  local which = pick({ "cumulative_sum", "cumulative_prod" })
  return { x = desc(x), axis = axis, include_initial = init, which = which },
    function() return { gm[which](x, { axis = axis, include_initial = init }) } end
end
gens.take = function()
  local x = any_mat(1, 3)
  local flat = R() < 0.4
  local axis = R(1, #x:dims())
  local idx = index_mat(flat and x:size() or x:dim(axis), rdims(1, 2))
  return { x = desc(x), idx = desc(idx), axis = not flat and axis or nil },
    function() return { gm.take(x, idx, not flat and { axis = axis } or nil) } end
end
gens.take_along_axis = function()
  local x = any_mat(1, 3)
  local axis = R(1, #x:dims())
  local d = x:dims()
  d[axis] = R(1, 4)
  local idx = index_mat(x:dim(axis), d, pick({ "int64", "int32" }))
  return { x = desc(x), idx = desc(idx), axis = axis },
    function() return { gm.take_along_axis(x, idx, axis) } end
end
gens.nonzero = function()
  local x = any_mat(1, 3)
  return { x = desc(x) }, function() return { gm.nonzero(x) } end
end
gens.masked_select = function()
  local x = any_mat(1, 3)
  local d = x:dims()
  local md = {}
  for i = R(1, #d), #d do md[#md + 1] = R() < 0.2 and 1 or d[i] end
  local m = mask_mat(md)
  return { x = desc(x), mask = desc(m) }, function() return { gm.masked_select(x, m) } end
end

-- A random subscript list for dims: integers, ranges (any nonzero step),
-- {}, index mats and masks; its description for numpy (1-based values).
local function subscript(dims)
  local subs, descs, axis = {}, {}, 1
  while axis <= #dims do
    local n, k = dims[axis], R(1, 10)
    if k <= 2 then
      local v = index_value(n, R() < 0.03)
      subs[#subs + 1], descs[#descs + 1] = v, { int = v }
      axis = axis + 1
    elseif k <= 4 then
      local a, b = R(1, n), R(1, n)
      local step = (a <= b and 1 or -1) * R(1, 2)
      local fa, fb = R() < 0.3 and a - n - 1 or a, R() < 0.3 and b - n - 1 or b
      subs[#subs + 1], descs[#descs + 1] = { fa, fb, step }, { range = { a, b, step } }
      axis = axis + 1
    elseif k == 5 then
      subs[#subs + 1], descs[#descs + 1] = {}, { all = true }
      axis = axis + 1
    elseif k <= 8 then
      local m = index_mat(n, rdims(1, 2, 3))
      subs[#subs + 1], descs[#descs + 1] = m, { idx = desc(m) }
      axis = axis + 1
    else
      local span = R(1, math.min(2, #dims - axis + 1))
      local md = { table.unpack(dims, axis, axis + span - 1) }
      if R() < 0.03 then md[1] = md[1] + 1 end -- the wrong shape must raise
      local m = mask_mat(md)
      subs[#subs + 1], descs[#descs + 1] = m, { mask = desc(m) }
      axis = axis + span
    end
  end
  return subs, descs
end
gens.subscript = function()
  local x = any_mat(1, 3)
  local subs, descs = subscript(x:dims())
  return { x = desc(x), subs = descs }, function() return { x[subs] } end
end
gens.subscript_set = function()
  local x = any_mat(1, 3)
  local subs, descs = subscript(x:dims())
  local v = value(x:dtype(), true)
  if type(v) == "boolean" then v = v and 1 or 0 end
  return { x = desc(x), subs = descs, value = v },
    function()
      x[subs] = v
      return { x }
    end
end
gens.shape = function()
  local x = any_mat(1, 3)
  local r = #x:dims()
  local which = pick({ "flip", "roll", "repeat", "tile", "pad", "diag" })
  local a = { which = which, x = desc(x) }
  local f
  if which == "flip" then
    a.axis = R(1, r)
    f = function() return gm.flip(x, { axis = a.axis }) end
  elseif which == "roll" then
    a.shift, a.axis = R(-5, 5), R() < 0.7 and R(1, r) or nil
    f = function() return gm.roll(x, a.shift, a.axis and { axis = a.axis } or nil) end
  elseif which == "repeat" then
    a.repeats, a.axis = R(0, 3), R() < 0.7 and R(1, r) or nil
    f = function() return gm["repeat"](x, a.repeats, a.axis and { axis = a.axis } or nil) end
  elseif which == "tile" then
    a.reps = {}
    for i = 1, R(1, 3) do a.reps[i] = R(1, 2) end
    f = function() return gm.tile(x, a.reps) end
  elseif which == "pad" then
    a.widths, a.mode = {}, pick({ "constant", "edge", "reflect" })
    local most = a.mode == "reflect" and 1 or 2 -- reflect needs fewer than the axis has
    for i = 1, r do
      local w = math.min(most, a.mode == "reflect" and x:dim(i) - 1 or most)
      a.widths[i] = { R(0, w), R(0, w) }
    end
    f = function() return gm.pad(x, a.widths, { mode = a.mode }) end
  else
    if r > 2 then x = x[{ 1, "..." }]; a.x = desc(x); r = #x:dims() end
    a.k = R(-2, 2)
    f = function() return gm.diag(x, a.k) end
  end
  return a, function() return { f() } end
end

local names = {}
for k in pairs(gens) do names[#names + 1] = k end
table.sort(names)

local cases = {}
local function all(where)
  for i = 1, count do
    local op = pick(names)
    local c, run = gens[op]()
    c.op, c.id, c.seed, c.device = op, i, math.tointeger(seed), where
    local ok, r = pcall(run)
    if ok then
      c.out = {}
      for j, v in ipairs(r) do c.out[j] = res(v) end
    else
      c.error = type(r) == "string" and r or tostring(r and r.message or r)
    end
    cases[#cases + 1] = c
  end
end
-- every seed's cases on the host, then inside gm.with_cuda on the device
-- GPUMAT_DEVICE names (the emulated one when unset): one process for the
-- whole campaign, as a process start costs more than the cases
local device = os.getenv("GPUMAT_DEVICE")
if not device or device == "" then device = "emulated" end
local seed0 = seed
for b = 0, batches - 1 do
  seed = seed0 + b
  math.randomseed(seed)
  all("host")
  math.randomseed(seed)
  gm.with_cuda({ backend = device }, function() all(device) end)
end

local f = assert(io.open(out, "w"))
local buf = {}
enc({ cases = cases }, buf)
f:write(table.concat(buf))
f:close()
io.write(string.format("indexing: generated %d cases (seeds %d..%d, host and %s)\n", #cases, seed0, seed, device))
