-- Hostile-input fuzzer.
--   lua5.4 tools/fuzz.lua SEED CALLS
-- Calls every function reachable from Lua, enumerated so new functions
-- are covered without editing this file: the module table and its
-- sub-tables, the C core table (internal helpers included), the mat
-- method table, and every function of every metatable of the module's
-- types (found in the registry, plus the per-mat method cache's, the
-- module table's and kernel objects'; metamethods called directly).
-- Arguments are random, up to two more than the function declares:
-- numbers at the edges, strings, mats (displaced views, freed mats, both
-- ctypes), other userdata types (buffers, alloc caches, random states,
-- files, coroutines, light userdata), option and dims tables, and hostile
-- values: tables whose __index/__len/__tostring/__call/__eq/__concat free
-- or reshape mats or run collectgarbage(), functions doing the same, and
-- finalizer objects that do it whenever the collector runs (also
-- gm.collect() and a new gm.host_pool_limit: the caching allocators
-- trimmed while blocks are in use; GPUMAT_GC_PACE_MIN=0 in the
-- environment makes every new mat run a full collection, so finalizers
-- run in the middle of calls, and GPUMAT_HOST_FAIL_EVERY=N fails every
-- Nth host allocation, src/core/mem/hostpool.h).  Each chunk
-- also runs every op family on zero-size operands ({0, n}, {n, 0}, ...;
-- see zero_size below) and a few indexing and ordering calls with mats of
-- every element type and hostile index mats, masks and option tables
-- (index_round below).  With GPUMAT_DEVICE set, calls run in chunks
-- inside gm.with_cuda.  Run it in a scratch directory: paths it writes
-- are relative.
-- Invariants checked: a call that raises leaves every mat argument that no
-- hostile callback touched with the same dims and contents; a raising
-- call's message is a string or an error object; zero-size reductions
-- give their neutral value.  Exits 1 on a violation; a crash or hang is
-- the caller's to notice.
local gm = require "gpumat"
local core = require "gpumat.core"
local argcheck = require "gpumat.argcheck"

local seed, ncalls = tonumber(arg[1]) or 1, tonumber(arg[2]) or 2000
math.randomseed(seed)
local R = math.random
local function pick(t) return t[R(#t)] end

-- Functions to call.  Excluded: none of the API on purpose; only those
-- whose effect is global and would end the run (none today).
-- {name, f, self_kind, max_args}: self_kind "mat" puts a mat first most
-- of the time, "any" a value of the metatable's own type.
local funcs, seen_funcs = {}, {}
local function arity(f)
  local n = core._arity(f)
  if n == nil then n = argcheck.arity(f) end
  if n == nil or n < 0 then return nil end
  return n
end
local function add_funcs(prefix, t, self_kind, self_value)
  for k, v in pairs(t) do
    if type(v) == "function" and not seen_funcs[prefix .. tostring(k)] then
      seen_funcs[prefix .. tostring(k)] = true
      funcs[#funcs + 1] = {prefix .. tostring(k), v, self_kind, arity(v), self_value}
    end
  end
end
add_funcs("gm.", gm, false)
for k, v in pairs(gm) do
  if type(v) == "table" then add_funcs("gm." .. k .. ".", v, false) end
end
add_funcs("core.", core, false)
add_funcs("m:", core.mat_methods(), "mat")
-- metatables: instances of each type, made once
local instances = {}
do
  local hot = gm.mat(3, {initial_element = 1})
  for _ = 1, 20 do local _ = hot.size end -- a per-mat method cache (l_mat.c)
  local _ = tostring(gm.mat(1))           -- the guard's metatable is made on first use
  local b, c, rs = gm.make_foreign_array({2, 2}), gm.alloc_cache(), gm.random_state()
  -- (none when the C++ compiler of run-time kernels is missing)
  local _, kernel = pcall(gm.define_cuda_kernel, {name = "fuzz_kernel", params = {{"x", "mat", "io"}, {"n", "int"}},
    body = "for (int64_t i = 0; i < n && i < 1; i++) x[i] = 1;"})
  if type(kernel) ~= "table" then kernel = nil end
  instances = {mat = hot, buffer = b, cache = c, random = rs, kernel = kernel}
  for k, mt in pairs(debug.getregistry()) do
    if type(k) == "string" and k:match("^gpumat") and type(mt) == "table" then add_funcs(k .. ".", mt, "any") end
  end
  local pmt = debug.getmetatable(hot)
  add_funcs("per-mat metatable.", pmt, "mat")
  add_funcs("method cache metatable.", getmetatable(pmt.__index), "any", pmt.__index)
  add_funcs("buffer methods.", getmetatable(b).__index, "any", b)
  add_funcs("alloc cache methods.", getmetatable(c).__index, "any", c)
  add_funcs("module metatable.", getmetatable(gm), "any", gm)
  if kernel then
    add_funcs("kernel metatable.", getmetatable(kernel), "any", kernel)
    add_funcs("kernel.", kernel, "any", kernel)
  end
end
table.sort(funcs, function(a, b) return a[1] < b[1] end)

local settings = {"default_ctype", "print_mat", "print_mat_facets", "print_max_elements",
  "mat_headers", "cuda_enabled", "default_mat_cuda_enabled", "default_synchronization",
  "maybe_synchronize", "foreign_array_strategy", "let_input_through", "let_output_through",
  "syncing_cuda_facets_safe"}
local saved = {}
for _, k in ipairs(settings) do saved[k] = gm[k] end

-- Numbers at the element types' edges: integer limits, shift counts
-- around the widths, values that saturate or wrap, NaN and infinities.
local hostile_numbers = {math.mininteger, math.maxinteger, math.mininteger + 1, -1, 0, 1, 127, 128, -129,
  255, 256, 32767, 65535, 65536, 2147483647, -2147483648, 4294967295, 4294967296, 7, 8, 15, 16, 31, 32,
  33, 63, 64, 65, -64, 1 << 53, (1 << 53) + 1, 0 / 0, math.huge, -math.huge, 2^63, -2^63, 2^64, 1e300,
  -0.0, 0.5, -2.5, 3e38, true, false}

-- The pool of live mats the arguments come from.
local pool = {}
local hostile_ran = false   -- set by every hostile callback
-- every element type (src/core/model/ctype_list.h), float and double most often
local CTYPES = {"float", "double", "float", "double", "bool", "int8", "int16", "int32", "int64",
  "uint8", "uint16", "uint32", "uint64", "complex64", "complex128", "float16", "bfloat16"}
local function new_mat()
  local ctype = pick(CTYPES)
  local r = R(0, 3)
  local dims = {}
  for i = 1, r do dims[i] = R(0, 4) end
  local size = 1
  for _, d in ipairs(dims) do size = size * d end
  local ok, m = pcall(gm.mat, dims, {ctype = ctype, initial_element = R(-3, 3),
    max_size = size + R(0, 3), cuda_enabled = R() < 0.8})
  if not ok then return nil end
  if R() < 0.3 and size > 0 then pcall(gm.uniform_random_, m) end
  if R() < 0.3 and size > 0 then -- the type's edges (wrapping writes), NaN, infinities
    for i = 1, math.min(size, 8) do pcall(gm.set, m, i, pick(hostile_numbers)) end
  end
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

local default_pool_limit = gm.host_pool_limit

local function hostile_action()
  hostile_ran = true
  local m = pool[R(#pool)]
  local a = R(1, 8)
  if a == 1 then collectgarbage()
  elseif a == 2 and m then pcall(m.free, m)
  elseif a == 3 and m then pcall(gm.reshape_, m, {1}); pcall(gm.reshape_, m, {R(0, 3), R(0, 3)})
  elseif a == 4 and m then pcall(gm.displace_, m, R(0, 3))
  elseif a == 5 and m then pcall(gm.fill_, R(), m)
  elseif a == 6 then pool[R(#pool)] = new_mat()
  -- the caching allocators trimmed while blocks are in use (often from a
  -- finalizer, in the middle of a call)
  elseif a == 7 then pcall(gm.collect)
  elseif a == 8 then gm.host_pool_limit = pick({0, 4096, 1 << 20, default_pool_limit}) end
end

local function finalizer_object()
  return setmetatable({}, {__gc = function() hostile_action() end})
end

local gen_value
local small = {0, 1, 2, 3, 4, 5, -1, -2}
local edge = {0.5, -0.5, 0 / 0, math.huge, -math.huge, 2^45, 2^59, 2^62, math.maxinteger,
  math.mininteger, 1e300, -0, 2^31, 2^32 + 1}
local strings = {"float", "double", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
  "uint32", "uint64", "float32", "float64", "float16", "complex64", "foreign", "cuda", "cuda_host", "managed", "input", "output",
  "io", "maybe", "foo", "", "f.npy", "/", "/nonexistent/x.npy", ".", "1", "emulated"}
local optkeys = {"n", "incx", "incy", "ctype", "displacement", "max_size", "initial_element",
  "initial_contents", "displaced_to", "cuda_enabled", "synchronization", "axis", "alpha", "beta",
  "result", "transpose_a", "transpose_b", "m", "k", "lda", "ldb", "ldc", "start", "stride",
  "anchor", "batched", "pool_dimensions", "limit", "mean", "stddev", "state", "scale", "ensures",
  "destroys", "backend", "enabled", "n_pool_bytes", "device_id", "verbose", "safe", "key",
  "pass_raw", "displacement_start", "displacement_step", "place", "destroy_old", "means",
  "covariances", "transpose", "random_seed", "n_random_states", "pinned", "mapped", "kinds", "dtype",
  "keepdims", "include_initial", "prepend", "append", "out", "copy", "unbiased", "correction"}

-- values of the other userdata types (and types Lua code rarely passes)
local light -- a light userdata: a facet pointer
pcall(gm.with_facet, gm.mat(1), "foreign", "input", function(p) light = p end)
local scratch_file = io.tmpfile()
local function other_userdata()
  local k = R(1, 8)
  if k == 1 then
    local ok, b = pcall(gm.make_foreign_array, {R(0, 3), R(0, 3)}, {element_type = pick({"float", "double", "int32"})})
    return ok and b or instances.buffer
  elseif k == 2 then return instances.cache
  elseif k == 3 then return instances.random
  elseif k == 4 then return scratch_file
  elseif k == 5 then return coroutine.create(print)
  elseif k == 6 then return light
  elseif k == 7 and instances.kernel then return instances.kernel
  else local m = gm.mat(R(0, 3)); m:free(); return m end
end

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
  elseif k == 6 then
    local r = R()
    return r < 0.6 and pick(small) or r < 0.8 and pick(edge) or pick(hostile_numbers)
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
  elseif k == 14 then return R() < 0.5 and hostile_table() or other_userdata()
  elseif k == 15 then
    return function(...) if R() < 0.5 then hostile_action() end; return gen_value(0) end
  else return finalizer_object() end
end

local stats = {calls = 0, ok = 0, errors = 0, hostile = 0, checked = 0, zero = 0, typed = 0, typed_ok = 0, index = 0}
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
local function violation(fmt, ...)
  violations = violations + 1
  io.write("VIOLATION: ", string.format(fmt, ...), "\n")
end

-- a value of the type whose metatable holds the function
local function self_of(entry)
  if entry[5] ~= nil then return entry[5] end
  local t = entry[1]:match("^gpumat%.([%w_]+)")
  if t == "mat" then return pool[R(#pool)] end
  if t == "buffer" then return instances.buffer end
  if t == "alloc_cache" then return instances.cache end
  if t == "random_state" then return instances.random end
  return gen_value(1)
end

local function one_call()
  local entry = pick(funcs)
  local name, f, self_kind, max = entry[1], entry[2], entry[3], entry[4]
  -- up to two arguments more than declared (the extra ones must raise)
  local nargs = max and (R() < 0.15 and max + R(1, 2) or R(0, max)) or R(0, 6)
  local args = {}
  for i = 1, nargs do args[i] = R() < 0.35 and pool[R(#pool)] or gen_value(2) end
  if self_kind == "mat" and R() < 0.9 then args[1] = pool[R(#pool)] end
  if self_kind == "any" and nargs > 0 and R() < 0.7 then args[1] = self_of(entry) end
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
    if max and nargs > max then violation("%s accepted %d arguments (declares %d)", name, nargs, max) end
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
    if max and nargs > max and not hostile_ran and not has_fn then
      -- the count is checked before anything else
      local want = ("bad argument #%d to '"):format(max + 1)
      if type(err) ~= "string" or not err:find(want, 1, true) or not err:find("(no value expected)", 1, true) then
        violation("%s with %d arguments (declares %d) raised %s", name, nargs, max, tostring(err))
      end
    end
    if not hostile_ran and not has_fn then
      for i, s in pairs(snaps) do
        stats.checked = stats.checked + 1
        local now = snapshot(args[i])
        if now and (now.d ~= s.d or not same(now.t, s.t)) then
          violation("%s raised (%s) but changed argument #%d", name, tostring(err), i)
        end
      end
    end
  end
  collectgarbage("restart")
end

-- ---- zero-size operands ----
-- Every op family on mats with a zero extent: shape {a, b} with a or b
-- zero and its relatives (transposed, rows, columns, squares, stacked), so
-- each family gets operands that fit (a launch over zero elements must be
-- a no-op: no division by a zero extent, no zero-size grid).  Each call
-- may raise cleanly (a shape the op refuses); none may crash.  Zero-size
-- reductions must give their neutral value.
local zero_shapes = {{0, 5}, {5, 0}, {0, 0}, {0, 1}, {1, 0}, {3, 0}}
local function zero_operands(a, b, ctype)
  local function z(dims) return gm.mat(dims, {ctype = ctype, initial_element = 0}) end
  return {
    x = z({a, b}), x2 = z({a, b}), xt = z({b, a}), rows = z({a}), cols = z({b}), r1 = z({1, b}),
    c1 = z({a, 1}), aa = z({a, a}), bb = z({b, b}), st1 = z({2 * a, b}), st2 = z({a, 2 * b}),
    v = z({a * b}), r3 = z({a, b, 2}), r3b = z({a, b, 2}), r3c = z({a, b, 2}), e = z({0}),
    w = z({2, 2}), w2 = z({2, 2}), w1 = z({1, 1}), col = z({a, 1}), cov = z({a, a}),
  }
end
-- {name, argument lists}: strings name operands, other values pass as is
local zero_ops = {}
local unary = {}
for i, name in ipairs(core._unary_ops or {}) do unary[i] = name .. "_" end -- every unary op of the table
for _, u in ipairs(unary) do zero_ops[#zero_ops + 1] = {u, {{"x"}, {"r3"}, {"e"}, {"x", {n = 0}}}} end
for _, u in ipairs({"uniform_random_", "gaussian_random_", "orthogonal_random_", "copy_mat",
  "transpose", "mat_to_array", "asum", "nrm2", "sum", "mean", "min", "max", "invert", "logdet", "facets",
  "tostring"}) do
  zero_ops[#zero_ops + 1] = {u, {{"x"}, {"r3"}, {"e"}, {"aa"}}}
end
for _, op in ipairs({
  {"expt_", {{"x", 2}, {"e", 0.5}}}, {"clamp_", {{"x", 0, 1}, {"r3", -1, 1}}}, {"add_scalar_", {{1, "x"}}}, {"fill_", {{1, "x"}, {1, "x", {n = 0}}}},
  {"mul_", {{"x", "x2"}}}, {"lt_", {{"x", "x2"}}}, {"min_", {{0, "x"}}}, {"max_", {{0, "x"}}},
  {"geem_", {{1, "x", "x2", 0, "x"}}}, {"geerv_", {{1, "x", "cols", 0, "x2"}, {1, "x", "r1", 1, "x2"}}},
  {"add_sign_", {{1, "x", 1, "x2"}}},
  {"sum_", {{"x", "cols", {axis = 1}}, {"x", "rows", {axis = 2}}, {"x", "r1", {axis = 1}}, {"x", "c1", {axis = 2}},
    {"x", "cols", {axis = 1, alpha = 2, beta = 1}}, {"x", "e"}, {"r3", "x", {axis = 3}}}},
  {"scale_rows_", {{"rows", "x"}, {"rows", "x", {result = "x2"}}}},
  {"scale_columns_", {{"cols", "x"}, {"cols", "x", {result = "x2"}}}},
  {"dot", {{"x", "x2"}}}, {"axpy_", {{1, "x", "x2"}}}, {"copy_", {{"x", "x2"}}}, {"scal_", {{2, "x"}}},
  {"gemm_", {{1, "x", "xt", 0, "aa"}, {1, "xt", "x", 1, "bb"}, {1, "x", "x2", 0, "aa", {transpose_b = true}},
    {1, "x", "x2", 0, "bb", {transpose_a = true}}}},
  {"m_mul", {{"x", "xt"}, {"xt", "x"}}}, {"m_add", {{"x", "x2"}}}, {"m_sub", {{"x", "x2"}}}, {"m_eq", {{"x", "x2"}}},
  {"copy_row", {{"x", 1}}}, {"copy_column", {{"x", 1}}},
  {"stack_", {{1, {"x", "x2"}, "st1"}, {2, {"x", "x2"}, "st2"}}},
  {"convolve_", {{"x", "x2", "x", {start = {1, 1}, stride = {1, 1}, anchor = {0, 0}}}, {"x", "aa", "x2"}}},
  {"max_pool_", {{"x", "x2", {start = {1, 1}, stride = {1, 1}, anchor = {0, 0}, pool_dimensions = {1, 1}}},
    {"x", "x2"}, {"r3", "r3b", {batched = true, pool_dimensions = {2, 2}}}}},
  -- batched NN ops: a zero batch (or zero rows) reaches the kernels
  {"convolve_", {{"r3", "w", "r3b", {batched = true}}, {"r3", "w1", "r3b", {batched = true}}}},
  {"derive_convolve_", {{"r3", "r3b", "w", "w2", "r3c", {batched = true}}, {"x", "x2", "w", "w2", "x"}}},
  {"derive_max_pool_", {{"r3", "r3b", "r3c", "r3", {batched = true, pool_dimensions = {2, 2}}}}},
  {"mv_gaussian_random", {{{means = "col", covariances = "cov"}}}},
  {"replace_", {{"x", {}}, {"e", {}}}}, {"reshape", {{"x", {0}}, {"v", {"__b", "__a"}}}},
  {"array_to_mat", {{{}}, {{{}, {}}}}},
  {"__add", {{"x", "x2"}, {"x", 1}}}, {"__sub", {{"x", "x2"}}}, {"__unm", {{"x", "x"}}}, {"__mul", {{"x", 2}, {"x", "xt"}}},
  {"__div", {{"x", 2}, {2, "x"}}},
}) do zero_ops[#zero_ops + 1] = op end
local mat_mt = getmetatable(gm.mat(1))
local neutral = {asum = 0, nrm2 = 0, sum = 0, dot = 0}

local function zero_call(op, ops, a, b)
  local name, f = op[1], nil
  if name == "tostring" then f = tostring
  elseif name:sub(1, 2) == "__" then f = mat_mt[name]
  else f = gm[name] or (core.mat_methods())[name] end
  if not f then violation("zero-size op %s does not exist", name); return end
  for _, list in ipairs(op[2]) do
    local args = {}
    for i, v in ipairs(list) do
      if type(v) == "string" and ops[v] then v = ops[v] end
      if type(v) == "table" and getmetatable(v) == nil then -- a list of operands or an options table
        local t = {}
        for k, x in pairs(v) do
          if x == "__a" then x = a elseif x == "__b" then x = b end
          t[k] = type(x) == "string" and ops[x] or x
        end
        v = t
      end
      args[i] = v
    end
    stats.zero = stats.zero + 1
    local ok, r = pcall(f, table.unpack(args, 1, #list))
    if ok and neutral[name] and r ~= neutral[name] and (ops.x:size() == 0) and args[1] == ops.x then
      violation("%s of a %dx%d mat gave %s, expected %s", name, a, b, tostring(r), tostring(neutral[name]))
    end
    if not ok and type(r) ~= "string" and type(r) ~= "table" then
      violation("%s on zero-size operands raised a %s", name, type(r))
    end
  end
end

local function zero_size_round()
  local shape = pick(zero_shapes)
  local ops = zero_operands(shape[1], shape[2], pick({"float", "double"}))
  for _, op in ipairs(zero_ops) do zero_call(op, ops, shape[1], shape[2]) end
end

-- ---- typed operands ----
-- Every broadcasting op, Lua operator, astype and typed reduction on mats
-- of random element types (mixed), against hostile values: integer
-- limits, huge shift counts, NaN/inf (into integer types), booleans,
-- strings, freed mats, tables with metamethods, an `out` of another
-- type or overlapping.  None may crash; an error is a string; a result
-- of the promoting ops has gm.result_type's dtype (comparisons: bool).
local typed_binary = {"add", "sub", "cmul", "cdiv", "pow", "cmax", "cmin", "floor_divide", "remainder",
  "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "gt", "ge",
  "lt", "le", "eq", "ne", "logical_and", "logical_or", "logical_xor", "atan2", "hypot", "copysign",
  "nextafter", "logaddexp"}
local promoting = {add = true, sub = true, cmul = true, cmax = true, cmin = true, floor_divide = true,
  remainder = true, bitwise_and = true, bitwise_or = true, bitwise_xor = true,
  bitwise_left_shift = true, bitwise_right_shift = true}
local comparing = {gt = true, ge = true, lt = true, le = true, eq = true, ne = true, logical_and = true,
  logical_or = true, logical_xor = true}
local typed_unary = {"abs", "negative", "positive", "sign", "square", "trunc", "round", "floor", "ceil",
  "isnan", "isinf", "isfinite", "signbit", "logical_not", "bitwise_invert", "sqrt", "exp", "log",
  "sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "count_nonzero", "argmax", "argmin",
  "cumulative_sum", "cumulative_prod", "diff"}
local lua_ops = {
  function(a, b) return a + b end, function(a, b) return a - b end, function(a, b) return a / b end,
  function(a, b) return a ^ b end, function(a, b) return a // b end, function(a, b) return a % b end,
  function(a, b) return a & b end, function(a, b) return a | b end, function(a, b) return a ~ b end,
  function(a, b) return a << b end, function(a, b) return a >> b end, function(a) return -a end,
  function(a) return ~a end, function(a, b) return a * b end,
}
local function typed_mat()
  local t = pick(CTYPES)
  local dims = {}
  for i = 1, R(0, 2) do dims[i] = R(0, 3) end
  local ok, m = pcall(gm.zeros, dims, {ctype = t})
  if not ok then return nil end
  for i = 1, math.min(m:size(), 6) do pcall(gm.set, m, i, pick(hostile_numbers)) end
  if R() < 0.2 and #dims == 2 then m = m:t() end
  return m
end
local function typed_operand(a)
  local k = R(1, 10)
  if k <= 4 then return typed_mat() or a
  elseif k <= 7 then return pick(hostile_numbers)
  elseif k == 8 then return gen_value(1)
  elseif k == 9 then return a
  else local m = gm.mat(R(0, 2), {ctype = pick(CTYPES)}); m:free(); return m end
end
local function typed_check(name, ok, r, a, b)
  stats.typed = stats.typed + 1
  if ok then stats.typed_ok = stats.typed_ok + 1 end
  if not ok then
    if type(r) ~= "string" and type(r) ~= "table" then violation("%s raised a %s", name, type(r)) end
    return
  end
  if getmetatable(r) ~= mat_mt or getmetatable(a) ~= mat_mt then return end
  local want
  if comparing[name] then want = "bool"
  elseif promoting[name] and (getmetatable(b) == mat_mt or math.type(b) == "integer" or type(b) == "boolean") then
    local ok2, t = pcall(gm.result_type, a, b)
    if ok2 then want = t end
    -- bool // bool and bool % bool are int8, as NumPy's (typed_mats_spec)
    if want == "bool" and (name == "floor_divide" or name == "remainder") then want = "int8" end
  end
  if want and r:dtype() ~= want then
    violation("%s of %s and %s gave %s, result_type says %s", name, a:dtype(),
      getmetatable(b) == mat_mt and b:dtype() or tostring(b), r:dtype(), want)
  end
end
local function typed_round()
  local a = typed_mat()
  if not a then return end
  for _ = 1, 20 do
    local b = typed_operand(a)
    local r = R(1, 5)
    if r == 1 then
      local name = pick(typed_binary)
      local x, y = a, b
      if R() < 0.3 then x, y = b, a end
      local opts = R() < 0.15 and {out = R() < 0.5 and typed_mat() or a} or nil
      local ok, res = pcall(gm[name], x, y, opts)
      typed_check(name, ok, res, x, y)
    elseif r == 2 then
      local f = pick(lua_ops)
      local ok, res = pcall(f, a, b)
      typed_check("operator", ok, res, a, b)
      ok, res = pcall(f, b, a)
      typed_check("operator", ok, res, b, a)
    elseif r == 3 then
      local name = pick(typed_unary)
      local opts = R() < 0.5 and {axis = R(-3, 3), keepdims = R() < 0.3 or nil,
        dtype = R() < 0.2 and pick(CTYPES) or nil} or nil
      typed_check(name, pcall(gm[name], a, opts))
    elseif r == 4 then
      typed_check("astype", pcall(gm.astype, a, pick(CTYPES)))
      typed_check("where", pcall(gm.where, a, b, typed_operand(a)))
    else
      typed_check("set", pcall(gm.set, a, R(0, 3), b))
      typed_check("fill_", pcall(gm.fill_, b, a))
      typed_check("full", pcall(gm.full, {R(0, 2)}, b, {ctype = pick(CTYPES)}))
    end
  end
end

-- ---- indexing, ordering, sets and scans ----
-- Each chunk also makes four calls of the indexing and ordering
-- functions with operands of every element type and hostile indices:
-- index mats of every integer type holding out-of-range, negative,
-- repeated and extreme values (math.mininteger, math.maxinteger, uint64's
-- top bit), masks of the wrong shape or rank, subscripts mixing masks,
-- index mats, ranges and integers, and argument tables whose metamethods
-- raise (a string or a table error) or run the hostile actions.  Each
-- call may raise cleanly; a raise that no callback caused must leave the
-- mat arguments unchanged (the index values are checked before any
-- element is touched).
local IX_DTYPES = {"float32", "float64", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
  "uint64", "complex64", "complex128", "float16", "bfloat16"}
local IX_INTS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
local function ix_mat(dtype, dims, fill)
  local ok, m = pcall(gm.zeros, dims, {dtype = dtype})
  if not ok then return gm.zeros({1}) end
  for i = 1, m:size() do pcall(function() m[i] = fill(i) end) end
  return m
end
local function ix_dims()
  local d = {}
  for i = 1, R(0, 3) do d[i] = R(0, 4) end
  return d
end
local function ix_index()
  local dt = pick(IX_INTS)
  local vals = {0, 1, 2, -1, -2, 3, 5, 1000, math.mininteger, math.maxinteger, -1 << 63}
  return ix_mat(dt, R() < 0.8 and {R(0, 4)} or ix_dims(), function() return pick(vals) end)
end
local function ix_mask(like)
  local d = like and like:dims() or ix_dims()
  if R() < 0.4 and #d > 0 then d[R(#d)] = R(0, 5) end -- the wrong shape, now and then
  if R() < 0.1 then d[#d + 1] = 2 end
  return ix_mat("bool", d, function() return R() < 0.5 end)
end
-- tables whose metamethods raise: a string or a table as the error
local function raising_table(base)
  local function boom() if R() < 0.5 then error("hostile __index", 0) end error({kind = "hostile"}) end
  return setmetatable(base or {}, {__index = boom, __len = boom, __pairs = boom, __eq = boom, __tostring = boom})
end
local function ix_opts(keys)
  local t = {}
  for _ = 1, R(0, 2) do t[pick(keys)] = gen_value(0) end
  local k = R(1, 4)
  if k == 1 then return raising_table(t) elseif k == 2 then return hostile_table(t) end
  return t
end
local function ix_operand()
  return ix_mat(pick(IX_DTYPES), ix_dims(), function() return pick({0, 1, -1, 2.5, 0 / 0, math.huge, 7}) end)
end
local function ix_sub(x)
  local subs = {}
  for i = 1, R(0, #x:dims() + 1) do
    local k = R(1, 7)
    if k == 1 then subs[i] = pick({1, -1, 0, 2, math.mininteger, math.maxinteger})
    elseif k == 2 then subs[i] = {pick({1, -1, 2}), pick({-1, 3, math.maxinteger}), pick({1, -1, 2, -2})}
    elseif k == 3 then subs[i] = ix_index()
    elseif k == 4 then subs[i] = ix_mask()
    elseif k == 5 then subs[i] = R() < 0.5 and raising_table({1, 2}) or hostile_table({1})
    elseif k == 6 then subs[i] = R() < 0.5 and "..." or gm.newaxis
    else subs[i] = {} end
  end
  return subs
end
local ix_calls = {
  function(x) return "index", function() return x[ix_sub(x)] end end,
  function(x) local s, v = ix_sub(x), R() < 0.5 and ix_operand() or 1
    return "set", function() x[s] = v end end,
  function(x) local i = ix_index(); return "take", function() return gm.take(x, i, ix_opts({"axis"})) end end,
  function(x) local i = ix_index()
    return "take_along_axis", function() return gm.take_along_axis(x, i, pick({1, -1, 2, {axis = 1}, raising_table()})) end end,
  function(x) local i, s = ix_index(), ix_operand()
    return "scatter_reduce_", function()
      return x:scatter_reduce_(pick({1, 2, -1}), i, s, pick({"sum", "prod", "mean", "amax", "amin"}), ix_opts({"include_self"}))
    end end,
  function(x) local i, s = ix_index(), ix_operand()
    return "index_add_", function() return x:index_add_(pick({1, -1}), i, s) end end,
  function(x) local i = ix_index(); return "index_select", function() return x:index_select(pick({1, 2}), i) end end,
  function(x) local m = ix_mask(x); return "masked_fill_", function() return x:masked_fill_(m, 3) end end,
  function(x) local m = ix_mask(x); return "masked_scatter_", function() return x:masked_scatter_(m, ix_operand()) end end,
  function(x) return "sort", function() return gm.sort(x, ix_opts({"axis", "descending", "stable"})) end end,
  function(x) return "topk", function() return gm.topk(x, pick({0, 1, 3, -1, math.maxinteger}), ix_opts({"axis", "largest"})) end end,
  function(x) return "unique_all", function() return gm.unique_all(x, R() < 0.3 and ix_opts({"axis"}) or nil) end end,
  function(x) local v = ix_operand()
    return "searchsorted", function() return gm.searchsorted(x, v, ix_opts({"side", "sorter"})) end end,
  function(x) return "isin", function() return gm.isin(x, ix_operand(), ix_opts({"invert"})) end end,
  function(x) return "cumulative", function()
    return gm[pick({"cumulative_sum", "cumulative_prod", "cumulative_logsumexp"})](x,
      ix_opts({"axis", "include_initial", "dtype"}))
  end end,
  function(x) return "median", function()
    local f, o = pick({"median", "quantile", "nanquantile"}), ix_opts({"axis", "keepdims"})
    if f == "median" then return gm.median(x, o) end
    return gm[f](x, pick({0, 0.5, 1, 0 / 0, 2}), o)
  end end,
  function(x) return "nonzero", function() return gm.nonzero(x), gm.argwhere(x) end end,
  function(x) return "shape", function()
    local f = pick({"roll", "repeat", "tile", "pad", "diag", "flip"})
    return gm[f](x, pick({1, -1, 0, {1, 2}, math.maxinteger, raising_table()}), ix_opts({"axis", "mode"}))
  end end,
}
local function index_round()
  for _ = 1, 4 do
    local x = R() < 0.7 and ix_operand() or (pool[R(#pool)] or ix_operand())
    local made, name, f = pcall(pick(ix_calls), x) -- a freed pool mat fails here, before the call
    if not made then name, f = "setup", function() end end
    local snap = snapshot(x)
    hostile_ran = false
    stats.index = stats.index + 1
    local ok, err = pcall(f)
    if not ok and type(err) ~= "string" and type(err) ~= "table" then
      violation("%s raised a %s", name, type(err))
    end
    if not ok and not hostile_ran and snap and not (type(err) == "table" and err.kind == "hostile")
      and not (type(err) == "string" and err:find("hostile", 1, true)) then
      local now = snapshot(x)
      if now and (now.d ~= snap.d or not same(now.t, snap.t)) then
        violation("%s raised (%s) but changed its mat", name, tostring(err))
      end
    end
  end
end


local device = os.getenv("GPUMAT_DEVICE")
local chunk = 100
local done = 0
while done < ncalls do
  refill()
  local n = math.min(chunk, ncalls - done)
  local function body()
    zero_size_round()
    typed_round()
    index_round()
    for _ = 1, n do one_call() end
  end
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
  .. "(%s), %d with hostile callbacks, %d unchanged-on-error checks, %d zero-size calls, %d typed calls (%d returned), %d indexing calls, "
  .. "%d violations\n",
  seed, device or "host", #funcs, stats.calls, stats.ok, stats.errors, table.concat(kinds, " "),
  stats.hostile, stats.checked, stats.zero, stats.typed, stats.typed_ok, stats.index, violations))
os.exit(violations == 0 and 0 or 1)
