-- Hostile-input fuzzer (issue 7 item 3).
--   lua5.4 tools/fuzz.lua SEED CALLS
-- Calls every module function and every mat method (enumerated from the
-- module table and the method table, so new functions are covered
-- without editing this file) with random arguments: numbers at the edges,
-- strings, mats (displaced views, freed mats, both ctypes), option and
-- dims tables, and hostile values: tables whose __index/__len/__tostring/
-- __call/__eq/__concat free or reshape mats or run collectgarbage(),
-- functions doing the same, and finalizer objects that do it whenever the
-- collector runs.  With GPUMAT_DEVICE set, calls run in chunks inside
-- gm.with_cuda.  Run it in a scratch directory: paths it writes are
-- relative.
-- Invariant checked: a call that raises leaves every mat argument that no
-- hostile callback touched with the same dims and contents.  Exits 1 on a
-- violation; a crash or hang is the caller's to notice.
local gm = require "gpumat"
local core = require "gpumat.core"

local seed, ncalls = tonumber(arg[1]) or 1, tonumber(arg[2]) or 2000
math.randomseed(seed)
local R = math.random
local function pick(t) return t[R(#t)] end

-- Functions to call.  Excluded: none of the API on purpose; only those
-- whose effect is global and would end the run (none today).
local funcs = {}
for k, v in pairs(gm) do if type(v) == "function" then funcs[#funcs + 1] = {"gm." .. k, v, false} end end
for k, v in pairs(core.mat_methods()) do
  if type(v) == "function" then funcs[#funcs + 1] = {"m:" .. k, v, true} end
end
table.sort(funcs, function(a, b) return a[1] < b[1] end)

local settings = {"default_ctype", "print_mat", "print_mat_facets", "print_max_elements",
  "mat_headers", "cuda_enabled", "default_mat_cuda_enabled", "default_synchronization",
  "maybe_synchronize", "foreign_array_strategy", "let_input_through", "let_output_through",
  "syncing_cuda_facets_safe"}
local saved = {}
for _, k in ipairs(settings) do saved[k] = gm[k] end

-- The pool of live mats the arguments come from.
local pool = {}
local hostile_ran = false   -- set by every hostile callback
local function new_mat()
  local ctype = pick({"float", "double"})
  local r = R(0, 3)
  local dims = {}
  for i = 1, r do dims[i] = R(0, 4) end
  local size = 1
  for _, d in ipairs(dims) do size = size * d end
  local ok, m = pcall(gm.mat, dims, {ctype = ctype, initial_element = R(-3, 3),
    max_size = size + R(0, 3), cuda_enabled = R() < 0.8})
  if not ok then return nil end
  if R() < 0.3 and size > 0 then pcall(gm.uniform_random_, m) end
  if R() < 0.3 and m:max_size() > size then
    local ok2, v = pcall(gm.reshape_and_displace, m, dims, m:max_size() - size)
    if ok2 then m = v end
  end
  -- strided views: axes reversed, or the first row stretched (read-only)
  if R() < 0.25 and #dims >= 2 then
    local perm = {}
    for i = 1, #dims do perm[i] = #dims + 1 - i end
    local ok3, v = pcall(gm.permute, m, perm)
    if ok3 then m = v end
  elseif R() < 0.1 and #dims >= 1 and dims[1] > 0 then
    local ok3, v = pcall(function() return m:narrow(1, 1, 1):expand(dims) end)
    if ok3 then m = v end
  end
  return m
end
local function refill()
  for i = 1, 10 do
    local m = pool[i]
    if m == nil or (R() < 0.05) then pool[i] = new_mat() or pool[i] end
  end
end

local function hostile_action()
  hostile_ran = true
  local m = pool[R(#pool)]
  local a = R(1, 6)
  if a == 1 then collectgarbage()
  elseif a == 2 and m then pcall(m.free, m)
  elseif a == 3 and m then pcall(gm.reshape_, m, {1}); pcall(gm.reshape_, m, {R(0, 3), R(0, 3)})
  elseif a == 4 and m then pcall(gm.displace_, m, R(0, 3))
  elseif a == 5 and m then pcall(gm.fill_, R(), m)
  elseif a == 6 then pool[R(#pool)] = new_mat() end
end

local function finalizer_object()
  return setmetatable({}, {__gc = function() hostile_action() end})
end

local gen_value
local small = {0, 1, 2, 3, 4, 5, -1, -2}
local edge = {0.5, -0.5, 0 / 0, math.huge, -math.huge, 2^45, 2^59, 2^62, math.maxinteger,
  math.mininteger, 1e300, -0, 2^31, 2^32 + 1}
local strings = {"float", "double", "foreign", "cuda", "cuda_host", "managed", "input", "output",
  "io", "maybe", "foo", "", "f.npy", "/", "/nonexistent/x.npy", ".", "1", "emulated"}
local optkeys = {"n", "incx", "incy", "ctype", "displacement", "max_size", "initial_element",
  "initial_contents", "displaced_to", "cuda_enabled", "synchronization", "axis", "alpha", "beta",
  "result", "transpose_a", "transpose_b", "m", "k", "lda", "ldb", "ldc", "start", "stride",
  "anchor", "batched", "pool_dimensions", "limit", "mean", "stddev", "state", "scale", "ensures",
  "destroys", "backend", "enabled", "n_pool_bytes", "device_id", "verbose", "safe", "key",
  "pass_raw", "displacement_start", "displacement_step", "place", "destroy_old", "means",
  "covariances", "transpose", "random_seed", "n_random_states", "pinned", "mapped", "kinds"}

local function hostile_table(base)
  local t = base or {}
  return setmetatable(t, {
    __index = function(_, k) hostile_action(); if R() < 0.5 then return gen_value(1) end end,
    __len = function() hostile_action(); return pick({0, 1, 2, 3, 2^40, -1}) end,
    __tostring = function() hostile_action(); return "hostile" end,
    __call = function() hostile_action() end,
    __eq = function() hostile_action(); return false end,
    __lt = function() hostile_action(); return false end,
    __concat = function() hostile_action(); return "x" end,
    __close = function() hostile_action() end,
  })
end

function gen_value(depth)
  local k = R(1, 16)
  if k <= 4 then return pool[R(#pool)] or 1
  elseif k == 5 then return pick(small)
  elseif k == 6 then return R() < 0.7 and pick(small) or pick(edge)
  elseif k == 7 then return pick(strings)
  elseif k == 8 then return R() < 0.5
  elseif k == 9 then return nil
  elseif k == 10 then -- dims or a list
    local t = {}
    for i = 1, R(0, 3) do t[i] = R() < 0.85 and pick(small) or pick(edge) end
    return t
  elseif k == 11 or k == 12 then -- options
    local t = {}
    for _ = 1, R(0, 3) do t[pick(optkeys)] = depth > 0 and gen_value(depth - 1) or pick(small) end
    if R() < 0.5 then return hostile_table(t) end
    return t
  elseif k == 13 then -- list of mats / nested contents / specs
    local t = {}
    for i = 1, R(0, 3) do
      t[i] = depth > 0 and (R() < 0.5 and pool[R(#pool)] or gen_value(depth - 1)) or R()
    end
    return t
  elseif k == 14 then return hostile_table()
  elseif k == 15 then
    return function(...) if R() < 0.5 then hostile_action() end; return gen_value(0) end
  else return finalizer_object() end
end

local stats = {calls = 0, ok = 0, errors = 0, hostile = 0, checked = 0}
local by_kind = {}

local function snapshot(m)
  if gm.is_freed(m) then return nil end
  local ok, n = pcall(gm.size, m)
  if not ok or n > 4096 then return nil end
  local ok2, t = pcall(gm.mat_to_array, m)
  local ok3, d = pcall(gm.dims, m)
  if not (ok2 and ok3) then return nil end
  return {t = t, d = table.concat(d, "x")}
end

local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) == "table" then
    if #a ~= #b then return false end
    for i = 1, #a do if not same(a[i], b[i]) then return false end end
    return true
  end
  return a == b or (a ~= a and b ~= b)
end

local violations = 0
local function one_call()
  local entry = pick(funcs)
  local name, f, method = entry[1], entry[2], entry[3]
  local nargs = R(0, 6)
  local args = {}
  for i = 1, nargs do args[i] = R() < 0.35 and pool[R(#pool)] or gen_value(2) end
  if method and R() < 0.9 then args[1] = pool[R(#pool)] end
  -- no finalizer may run while the snapshots are taken (it would change
  -- the mats outside the call under test)
  collectgarbage("stop")
  local snaps = {}
  local has_fn = false
  for i = 1, nargs do
    local a = args[i]
    if type(a) == "function" then has_fn = true end
    if type(a) == "userdata" and getmetatable(a) and getmetatable(a).__name == "gpumat.mat" then
      snaps[i] = snapshot(a)
    end
  end
  hostile_ran = false
  stats.calls = stats.calls + 1
  collectgarbage("restart")
  local ok, err = pcall(f, table.unpack(args, 1, nargs))
  collectgarbage("stop")
  if hostile_ran then stats.hostile = stats.hostile + 1 end
  if ok then
    stats.ok = stats.ok + 1
    -- keep some results as new operands
    for _, v in ipairs({err}) do
      if type(v) == "userdata" and R() < 0.2 and pcall(gm.size, v) and gm.size(v) <= 4096 then
        pool[R(#pool)] = v
      end
    end
  else
    stats.errors = stats.errors + 1
    local kind = type(err) == "table" and tostring(err.kind) or type(err)
    by_kind[kind] = (by_kind[kind] or 0) + 1
    if not hostile_ran and not has_fn then
      for i, s in pairs(snaps) do
        stats.checked = stats.checked + 1
        local now = snapshot(args[i])
        if now and (now.d ~= s.d or not same(now.t, s.t)) then
          violations = violations + 1
          io.write(string.format("VIOLATION: %s raised (%s) but changed argument #%d\n", name,
            tostring(err), i))
        end
      end
    end
  end
  collectgarbage("restart")
end

local device = os.getenv("GPUMAT_DEVICE")
local chunk = 100
local done = 0
while done < ncalls do
  refill()
  local n = math.min(chunk, ncalls - done)
  local function body() for _ = 1, n do one_call() end end
  if device and device ~= "" then
    local ok, err = pcall(gm.with_cuda, {}, body)
    if not ok then by_kind["with_cuda"] = (by_kind["with_cuda"] or 0) + 1; local _ = err end
  else
    body()
  end
  done = done + n
  for _, k in ipairs(settings) do pcall(function() gm[k] = saved[k] end) end
  if R() < 0.3 then collectgarbage() end
end
collectgarbage()
pcall(gm.collect)

local kinds = {}
for k, v in pairs(by_kind) do kinds[#kinds + 1] = k .. "=" .. v end
table.sort(kinds)
io.write(string.format("fuzz seed %d (%s): %d functions, %d calls, %d returned, %d raised "
  .. "(%s), %d with hostile callbacks, %d unchanged-on-error checks, %d violations\n",
  seed, device or "host", #funcs, stats.calls, stats.ok, stats.errors, table.concat(kinds, " "),
  stats.hostile, stats.checked, violations))
os.exit(violations == 0 and 0 or 1)
