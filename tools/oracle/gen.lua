-- NumPy differential oracle, gpumat side.
--   lua5.4 tools/oracle/gen.lua SEED COUNT OUT.json
-- Generates COUNT random programs (seeded with SEED), runs each with
-- gpumat (inside gm.with_cuda on the device given by GPUMAT_DEVICE, else
-- on the host) and writes, for every step, the op, its arguments and the
-- contents of every storage involved before and after the step (whole
-- storages, so writes to invisible elements of displaced views show up).
-- tools/oracle/check.py replays each step with numpy in float64 on the
-- "before" contents and compares with "after" (per-ctype tolerances).
-- Steps are checked one at a time on gpumat's own inputs, so rounding
-- differences never accumulate along a program.
local gm = require "gpumat"
package.path = arg[0]:gsub("[^/]*$", "") .. "?.lua;" .. package.path
-- the share of programs that are typed (typed.lua); the rest are the
-- float/double programs of the gens below
local TYPED_SHARE = tonumber(os.getenv("ORACLE_TYPED_SHARE") or "") or 0.5

local seed, count, out = tonumber(arg[1]), tonumber(arg[2]), arg[3]
assert(seed and count and out, "usage: gen.lua SEED COUNT OUT.json")
math.randomseed(seed)
local R = math.random

local function pick(t) return t[R(#t)] end

-- JSON encoding (numbers round-trip with %.17g; python's json reads
-- NaN/Infinity).
local function enc(v, buf)
  local t = type(v)
  if t == "number" then
    if v ~= v then buf[#buf + 1] = "NaN"
    elseif v == math.huge then buf[#buf + 1] = "Infinity"
    elseif v == -math.huge then buf[#buf + 1] = "-Infinity"
    elseif math.type(v) == "integer" then buf[#buf + 1] = tostring(v)
    else
      -- a float keeps a decimal point so JSON readers see a float (-0.0 too)
      local s = string.format("%.17g", v)
      if not s:find("[.eni]") then s = s .. ".0" end
      buf[#buf + 1] = s
    end
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
        buf[#buf + 1] = string.format("%q:", k)
        enc(x, buf)
      end
      buf[#buf + 1] = "}"
    end
  else error("cannot encode " .. t) end
end

-- Storages and views.  Every operand is a view of a base mat (dims
-- {max_size}, displacement 0) so the whole storage can be read back;
-- strided views carry their strides (check.py stages them as gpumat does).
local storages, ctype
local function new_storage(n, lo, hi)
  lo, hi = lo or -2, hi or 2
  local vals = {}
  for i = 1, n do vals[i] = lo + (hi - lo) * R() end
  local base = gm.mat({n}, {ctype = ctype, initial_contents = vals})
  storages[#storages + 1] = base
  return #storages, base
end

local function size_of(dims) local s = 1 for _, d in ipairs(dims) do s = s * d end return s end

-- A non-contiguous view of the given dims: the axes of a padded parent
-- in a random order, every other element along some of them.
local function strided_operand(dims, lo, hi)
  local k = #dims
  local perm, step, pdims, inv, subs = {}, {}, {}, {}, {}
  for i = 1, k do perm[i], step[i] = i, R(1, 2) end
  for i = k, 2, -1 do local j = R(1, i); perm[i], perm[j] = perm[j], perm[i] end
  for j = 1, k do pdims[j], inv[perm[j]] = dims[perm[j]] * step[perm[j]], j end
  local d = R(0, 2)
  local id, base = new_storage(d + size_of(pdims) + R(0, 2), lo, hi)
  local v = base:reshape_and_displace(pdims, d)
  if k > 1 then v = v:permute(inv) end
  for i = 1, k do subs[i] = {1, -1, step[i]} end
  v = v[subs]
  return {m = v, s = id, dims = dims, d = v:displacement(), strides = v:strides()}
end

-- A mat of the given dims: fresh, a displaced view with slack, or (a
-- quarter of them) a strided view.
local function operand(dims, lo, hi)
  if #dims >= 1 and R() < 0.25 then return strided_operand(dims, lo, hi) end
  local size = size_of(dims)
  local d, slack = 0, 0
  if R() < 0.4 then d, slack = R(0, 3), R(0, 3) end
  local id, base = new_storage(d + size + slack, lo, hi)
  local m
  if R() < 0.5 then m = base:reshape_and_displace(dims, d)
  else m = gm.mat(dims, {displaced_to = base, displacement = d}) end
  return {m = m, s = id, dims = dims, d = d}
end

local function ref(o) return {s = o.s, dims = o.dims, d = o.d, strides = o.strides} end
local function rdims(rank, maxd) local t = {} for i = 1, rank do t[i] = R(1, maxd or 5) end return t end
local function scalar() return pick({-2, -1.5, -1, -0.5, 0, 0.25, 0.5, 1, 2, 3}) end

-- A previous step's written operand may be reused as an input (if dims fit).
local last
local function maybe_last(dims, lo, hi)
  if last and R() < 0.3 and last.dims and size_of(last.dims) == size_of(dims) and #last.dims == #dims then
    local same = true
    for i = 1, #dims do if dims[i] ~= last.dims[i] then same = false end end
    if same then return last end
  end
  return operand(dims, lo, hi)
end

-- every unary op of the op table (kernels/op_table.h)
local unary = require("gpumat.core")._unary_ops

-- Each generator returns (step table without snapshots, operands list, run fn).
local gens = {}

gens.unary = function()
  local f = pick(unary)
  local x = maybe_last(rdims(R(1, 3), 4))
  local n = R() < 0.3 and R(0, size_of(x.dims)) or nil
  return {op = "unary", f = f, x = ref(x), n = n}, {x},
    function() gm[f .. "_"](x.m, n and {n = n} or nil) end, x
end
gens.expt = function()
  local x = maybe_last(rdims(R(1, 2), 4))
  local p = pick({2, 3, 0.5, -1, 1.5, 0})
  return {op = "expt", x = ref(x), p = p}, {x}, function() gm.expt_(x.m, p) end, x
end
gens.add_scalar = function()
  local x = maybe_last(rdims(R(1, 3), 4)); local a = scalar()
  return {op = "add_scalar", x = ref(x), a = a}, {x}, function() gm.add_scalar_(a, x.m) end, x
end
gens.minmax = function()
  local x = maybe_last(rdims(R(1, 2), 5)); local a = scalar(); local f = pick({"min", "max"})
  return {op = f, x = ref(x), a = a}, {x}, function() gm[f .. "_"](a, x.m) end, x
end
gens.fill = function()
  local x = maybe_last(rdims(R(1, 3), 4)); local a = scalar()
  local n = R() < 0.4 and R(0, size_of(x.dims)) or nil
  return {op = "fill", x = ref(x), a = a, n = n}, {x},
    function() gm.fill_(a, x.m, n and {n = n} or nil) end, x
end
gens.mul_lt = function()
  local dims = rdims(R(1, 2), 5)
  local x, y = operand(dims), maybe_last(dims)
  local f = pick({"mul", "lt"})
  return {op = f, x = ref(x), y = ref(y)}, {x, y}, function() gm[f .. "_"](x.m, y.m) end, y
end
gens.geem = function()
  local dims = rdims(R(1, 2), 5)
  local a, b, c = operand(dims), operand(dims), maybe_last(dims)
  local al, be = scalar(), pick({0, 1, 0.5, -1})
  return {op = "geem", a = ref(a), b = ref(b), c = ref(c), alpha = al, beta = be}, {a, b, c},
    function() gm.geem_(al, a.m, b.m, be, c.m) end, c
end
gens.geerv = function()
  local r, c = R(1, 5), R(1, 5)
  local a, x, b = operand({r, c}), operand({c}), maybe_last({r, c})
  local al, be = scalar(), pick({0, 1, 0.5, -1})
  return {op = "geerv", a = ref(a), x = ref(x), b = ref(b), alpha = al, beta = be}, {a, x, b},
    function() gm.geerv_(al, a.m, x.m, be, b.m) end, b
end
gens.add_sign = function()
  local dims = rdims(R(1, 2), 5)
  local a, b = operand(dims), maybe_last(dims)
  local al, be = scalar(), pick({0, 1, 0.5, -1})
  return {op = "add_sign", a = ref(a), b = ref(b), alpha = al, beta = be}, {a, b},
    function() gm.add_sign_(al, a.m, be, b.m) end, b
end
gens.sum = function()
  local r, c = R(1, 5), R(1, 5)
  local axis = R(1, 2)
  local x, y = operand({r, c}), operand({axis == 1 and c or r})
  local al, be = scalar(), pick({0, 1, 0.5})
  return {op = "sum", x = ref(x), y = ref(y), axis = axis, alpha = al, beta = be}, {x, y},
    function() gm.sum_(x.m, y.m, {axis = axis, alpha = al, beta = be}) end, y
end
gens.scale_rc = function()
  local r, c = R(1, 5), R(1, 5)
  local rows = R() < 0.5
  local s, a = operand({rows and r or c}), maybe_last({r, c})
  local res = R() < 0.4 and operand({r, c}) or nil
  local ops = {s, a}
  if res then ops[3] = res end
  return {op = rows and "scale_rows" or "scale_columns", s = ref(s), a = ref(a), res = res and ref(res) or nil},
    ops, function() gm[rows and "scale_rows_" or "scale_columns_"](s.m, a.m, res and {result = res.m} or nil) end,
    res or a
end
gens.blas1 = function()
  local f = pick({"asum", "nrm2", "dot", "axpy", "copy", "scal"})
  local incx, incy = R(1, 3), R(1, 3)
  local n = R(0, 6)
  local x = operand({math.max(1, (n - 1) * incx + 1) + R(0, 2)})
  local y = operand({math.max(1, (n - 1) * incy + 1) + R(0, 2)})
  local a = scalar()
  local st = {op = f, x = ref(x), y = ref(y), n = n, incx = incx, incy = incy, alpha = a}
  local run = {
    asum = function() st.result = gm.asum(x.m, {n = n, incx = incx}) end,
    nrm2 = function() st.result = gm.nrm2(x.m, {n = n, incx = incx}) end,
    dot = function() st.result = gm.dot(x.m, y.m, {n = n, incx = incx, incy = incy}) end,
    axpy = function() gm.axpy_(a, x.m, y.m, {n = n, incx = incx, incy = incy}) end,
    copy = function() gm.copy_(x.m, y.m, {n = n, incx = incx, incy = incy}) end,
    scal = function() gm.scal_(a, x.m, {n = n, incx = incx}) end,
  }
  return st, {x, y}, run[f], (f == "scal") and x or y
end
gens.gemm = function()
  local m, n, k = R(1, 5), R(1, 5), R(1, 5)
  local ta, tb = R() < 0.5, R() < 0.5
  local a = operand(ta and {k, m} or {m, k})
  local b = operand(tb and {n, k} or {k, n})
  local c = maybe_last({m, n})
  local al, be = scalar(), pick({0, 1, 0.5})
  return {op = "gemm", a = ref(a), b = ref(b), c = ref(c), alpha = al, beta = be, ta = ta, tb = tb},
    {a, b, c}, function() gm.gemm_(al, a.m, b.m, be, c.m, {transpose_a = ta, transpose_b = tb}) end, c
end
-- gemm_ with every size explicit: sub-blocks with wider leading dimensions.
gens.gemm_ld = function()
  local m, n, k = R(1, 4), R(1, 4), R(1, 4)
  local ta, tb = R() < 0.5, R() < 0.5
  local ar, ac = ta and k or m, ta and m or k
  local br, bc = tb and n or k, tb and k or n
  local lda, ldb, ldc = ac + R(0, 2), bc + R(0, 2), n + R(0, 2)
  local a = operand({(ar - 1) * lda + ac + R(0, 2)})
  local b = operand({(br - 1) * ldb + bc + R(0, 2)})
  local c = operand({(m - 1) * ldc + n + R(0, 2)})
  local al, be = scalar(), pick({0, 1, 0.5})
  local opts = {transpose_a = ta, transpose_b = tb, m = m, n = n, k = k, lda = lda, ldb = ldb, ldc = ldc}
  return {op = "gemm_ld", a = ref(a), b = ref(b), c = ref(c), alpha = al, beta = be, ta = ta, tb = tb,
    m = m, n = n, k = k, lda = lda, ldb = ldb, ldc = ldc}, {a, b, c},
    function() gm.gemm_(al, a.m, b.m, be, c.m, opts) end, nil
end
gens.stack = function()
  local rank = R(1, 3)
  local dims = rdims(rank, 3)
  local axis = R(1, rank)
  local parts, total = {}, 0
  for i = 1, R(1, 3) do
    local d = {table.unpack(dims)}; d[axis] = R(1, 3); total = total + d[axis]
    parts[i] = operand(d)
  end
  local od = {table.unpack(dims)}; od[axis] = total
  local out = operand(od)
  local ms, refs, ops = {}, {}, {}
  for i, p in ipairs(parts) do ms[i] = p.m; refs[i] = ref(p); ops[i] = p end
  ops[#ops + 1] = out
  return {op = "stack", axis = axis, parts = refs, out = ref(out)}, ops,
    function() gm.stack_(axis, ms, out.m) end, out
end
local function nn_geom(kh, kw, xh, xw)
  local start = {R(1, xh), R(1, xw)}
  local stride = {R(1, 3), R(1, 3)}
  local anchor = {R(1, kh), R(1, kw)}
  local oh = 1 + (xh - start[1]) // stride[1]
  local ow = 1 + (xw - start[2]) // stride[2]
  return start, stride, anchor, oh, ow
end
gens.convolve = function()
  local batched = R() < 0.3
  local B = R(1, 3)
  local xh, xw, kh, kw = R(1, 6), R(1, 6), R(1, 3), R(1, 3)
  local start, stride, anchor, oh, ow = nn_geom(kh, kw, xh, xw)
  local x = operand(batched and {B, xh, xw} or {xh, xw})
  local w = operand({kh, kw})
  local y = operand(batched and {B, oh, ow} or {oh, ow})
  local opts = {start = start, stride = stride, anchor = anchor, batched = batched}
  return {op = "convolve", x = ref(x), w = ref(w), y = ref(y), start = start, stride = stride,
    anchor = anchor, batched = batched}, {x, w, y}, function() gm.convolve_(x.m, w.m, y.m, opts) end, y
end
gens.max_pool = function()
  local batched = R() < 0.3
  local B = R(1, 3)
  local xh, xw, kh, kw = R(1, 6), R(1, 6), R(1, 3), R(1, 3)
  local start, stride, anchor, oh, ow = nn_geom(kh, kw, xh, xw)
  local x = operand(batched and {B, xh, xw} or {xh, xw})
  local y = operand(batched and {B, oh, ow} or {oh, ow})
  local opts = {start = start, stride = stride, anchor = anchor, batched = batched,
    pool_dimensions = {kh, kw}}
  return {op = "max_pool", x = ref(x), y = ref(y), start = start, stride = stride,
    anchor = anchor, batched = batched, pool = {kh, kw}}, {x, y},
    function() gm.max_pool_(x.m, y.m, opts) end, y
end
-- Non-destructive ops: the result is a new storage, recorded after the step.
gens.nondestr = function()
  local f = pick({"copy_mat", "transpose", "m_mul", "m_add", "m_sub"})
  local r, c, k = R(1, 4), R(1, 4), R(1, 4)
  local a = operand({r, c})
  local b = (f == "m_mul") and operand({c, k}) or operand({r, c})
  local st = {op = f, a = ref(a), b = ref(b)}
  return st, {a, b}, function()
    local res
    if f == "copy_mat" then res = gm.copy_mat(a.m)
    elseif f == "transpose" then res = gm.transpose(a.m)
    else res = gm[f](a.m, b.m) end
    st.res_dims = res:dims()
    st.res = res:to_table()
  end
end

local gen_names = {}
for k in pairs(gens) do gen_names[#gen_names + 1] = k end
table.sort(gen_names)

local function flat(base) return base:to_table() end

-- A typed program (tools/oracle/typed.lua): ops on mats of every element
-- type; one step records its arguments, the storages before and after and
-- the result.
local typed = require "typed"
local function typed_program(pid)
  storages = {}
  typed.reset(storages)
  local steps = {}
  for _ = 1, R(1, 4) do
    local st, mats, run = typed.OPS[pick(typed.names)]()
    local involved, seen = {}, {}
    for _, o in ipairs(mats) do
      if not seen[o.ref.s] then seen[o.ref.s] = true; involved[#involved + 1] = o.ref.s end
    end
    local before = {}
    for _, s in ipairs(involved) do before[tostring(s)] = storages[s]:to_table() end
    typed.run(gm, st, run)
    local after = {}
    for _, s in ipairs(involved) do after[tostring(s)] = storages[s]:to_table() end
    st.before, st.after = before, after
    steps[#steps + 1] = st
  end
  return {id = pid, ctype = "typed", steps = steps}
end

local function program(pid)
  -- typed programs mix element types; the others are float or double
  if R() < TYPED_SHARE then return typed_program(pid) end
  storages = {}
  ctype = pick({"float", "double"})
  last = nil
  local steps = {}
  for _ = 1, R(1, 4) do
    local st, ops, run, written = gens[pick(gen_names)]()
    local involved, seen = {}, {}
    for _, o in ipairs(ops) do
      if not seen[o.s] then seen[o.s] = true; involved[#involved + 1] = o.s end
    end
    local before = {}
    for _, s in ipairs(involved) do before[tostring(s)] = flat(storages[s]) end
    run()
    local after = {}
    for _, s in ipairs(involved) do after[tostring(s)] = flat(storages[s]) end
    st.before, st.after = before, after
    steps[#steps + 1] = st
    if written then last = written end
  end
  return {id = pid, ctype = ctype, steps = steps}
end

local progs = {}
local function all()
  for i = 1, count do progs[i] = program(i) end
end
local device = os.getenv("GPUMAT_DEVICE")
if device and device ~= "" then
  gm.with_cuda({}, function()
    all()
    -- the programs must really have run on the device
    local c = gm.counters()
    assert(c.n_memcpy_host_to_device > 0 and c.n_memcpy_device_to_host > 0,
      "oracle: no device copies inside with_cuda; the device path did not run")
  end)
else all() end

local f = assert(io.open(out, "w"))
local buf = {}
enc({seed = seed, device = device or "host", programs = progs}, buf)
f:write(table.concat(buf))
f:close()
io.write(string.format("generated %d programs (seed %d, %s)\n", count, seed, device or "host"))
