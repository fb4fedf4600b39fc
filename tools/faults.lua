-- Fault-injection driver, run by tools/faults-sweep.sh
-- once per N with GPUMAT_EMULATED_FAIL_EVERY=N (every Nth emulated device
-- allocation or copy fails; GPUMAT_EMULATED_FAIL_MAX caps the faults).
-- Runs a fixed script of operations on cuda-enabled mats inside
-- gm.with_cuda{backend = "emulated"}, mirrored on host-only mats that
-- never touch the device.  A step that raises must raise a
-- cuda_out_of_memory or cuda_error object; a step that succeeds is applied
-- to the mirror too.  After every step each device mat must read back
-- (retrying reads that hit a fault, each cleanly) equal to its mirror.
-- At the end device_bytes_in_use must be back at its starting value and
-- the device must still work.  Prints one line "faults N: ..." and exits
-- non-zero on a defect.
--
-- With GPUMAT_HOST_FAIL_EVERY=N instead, every Nth request of the host
-- caching allocator fails (src/core/mem/hostpool.c; GPUMAT_HOST_FAIL_MAX
-- caps them): such a step must raise "out of host memory ... (injected
-- fault)" (or page-locked), and a mirror step that meets a fault is
-- retried.  Steps of the script also free mats from finalizers and call
-- gm.collect() from them (pool trimming while blocks are in use); with
-- GPUMAT_GC_PACE_MIN=0 every new mat runs a full collection, so those
-- finalizers run in the middle of the calls that make mats.
local gm = require "gpumat"

local defects, injected, steps_ok = 0, 0, 0
local function defect(fmt, ...)
  defects = defects + 1
  io.write("DEFECT: ", string.format(fmt, ...), "\n")
end

local HOST_FAULTS = os.getenv("GPUMAT_HOST_FAIL_EVERY") ~= nil

local function host_fault(err)
  return HOST_FAULTS and type(err) == "string" and err:find("injected fault", 1, true) ~= nil
    and (err:find("out of host memory", 1, true) or err:find("out of page-locked memory", 1, true)) ~= nil
end

local function is_fault(err)
  return type(err) == "table" and (err.kind == "cuda_out_of_memory" or err.kind == "cuda_error") or host_fault(err)
end

local function clean(err, where)
  if os.getenv("FAULTS_VERBOSE") then io.write(where, ": ", tostring(err), "\n") end
  if is_fault(err) then
    injected = injected + 1
    return true
  end
  defect("%s raised %s, not a cuda_out_of_memory or cuda_error object", where, tostring(err))
  return false
end

-- Reads with retries: a read is itself a device->host copy that may fail.
local function read(m, where)
  for _ = 1, 10 do
    local ok, t = pcall(gm.mat_to_array, m)
    if ok then return t end
    if not clean(t, where .. " (read)") then return nil end
  end
  defect("%s: 10 reads failed", where)
end

-- A step on the mirror: faults hit it too (one process-wide host pool;
-- with_facet's "cuda" facet copies through the device), so a faulted try
-- is retried.
local function mirror(f, env, name)
  for _ = 1, 10 do
    local ok, err = pcall(f, env)
    if ok then return end
    if not is_fault(err) then defect("%s on the mirror raised %s", name, tostring(err)) return end
    injected = injected + 1
  end
  defect("%s: 10 tries on the mirror failed", name)
end

-- A finalizer that frees a mat of its own and calls gm.collect(), run
-- whenever the collector next runs (mid-call under GPUMAT_GC_PACE_MIN=0).
local function finalizer_frees()
  local victim = gm.mat({3, 3}, {initial_element = 1})
  setmetatable({}, {__gc = function()
    victim:free()
    pcall(gm.collect)
  end})
end

local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) == "table" then
    if #a ~= #b then return false end
    for i = 1, #a do if not same(a[i], b[i]) then return false end end
    return true
  end
  return a == b or math.abs(a - b) <= 1e-12 * (1 + math.abs(b))
end

local function contents(r, c, k)
  local t = {}
  for i = 1, r do
    t[i] = {}
    for j = 1, c do t[i][j] = ((i * 7 + j * 3 + k) % 11) / 4 - 1 end
  end
  return t
end

-- f(...)'s result, retried while it meets an injected host fault (the
-- setup must complete for the script to mean anything).
local function retried(f, ...)
  for _ = 1, 20 do
    local ok, r = pcall(f, ...)
    if ok then return r end
    if not host_fault(r) then error(r, 0) end
    injected = injected + 1
  end
  error("20 tries failed")
end

-- Pairs of (device mat, mirror mat) by name.
local dev, host = {}, {}
local function pair(name, r, c, k)
  host[name] = retried(gm.mat, {r, c}, {initial_contents = contents(r, c, k), cuda_enabled = false})
  -- under host faults the subject runs on the host too: its steps then
  -- allocate from the host pool (results, scratch, staging)
  dev[name] = retried(gm.mat, {r, c}, {initial_contents = contents(r, c, k), cuda_enabled = not HOST_FAULTS})
end

local function check_all(where)
  for name, h in pairs(host) do
    local d = read(dev[name], where .. " " .. name)
    if d and not same(d, gm.mat_to_array(h)) then defect("%s: mat %s lost data", where, name) end
  end
end

-- The script: each step is f(env) with env = dev or host.
local script = {
  {"fill_", function(e) gm.fill_(0.5, e.z) end},
  {"scal_", function(e) gm.scal_(2, e.a) end},
  {"axpy_", function(e) gm.axpy_(-1, e.b, e.c) end},
  {"gemm_", function(e) gm.gemm_(1, e.a, e.k, 0.5, e.g) end},
  {"sin_", function(e) gm.sin_(e.a) end},
  {"sum_", function(e) gm.sum_(e.a, e.s, {axis = 1}) end},
  {"geem_", function(e) gm.geem_(1, e.b, e.c, 1, e.c) end},
  {"copy_mat", function(e) e.t1 = gm.copy_mat(e.a) end},
  {"transpose", function(e) e.t2 = gm.transpose(e.b) end},
  {"stack_", function(e) gm.stack_(1, {e.a, e.a}, e.st) end},
  {"view fill_", function(e) gm.fill_(3, gm.reshape_and_displace(e.c, {2, 2}, 3)) end},
  {"m_add", function(e) e.t3 = e.b + e.c end},
  {"convolve_", function(e) gm.convolve_(e.a, e.w, e.y, {stride = {2, 2}}) end},
  {"max_pool_", function(e) gm.max_pool_(e.a, e.y, {stride = {2, 2}, pool_dimensions = {2, 2}}) end},
  {"with_facet", function(e) gm.with_facet(e.b, "cuda", "input", function() end) end},
  {"destroy_facet", function(e) e.c:destroy_facet("cuda") end},
  {"exp_", function(e) gm.exp_(e.c) end},
  -- strided views: staged through device temporaries (gather, scatter)
  {"strided scal_", function(e) gm.scal_(2, e.a:t()) end},
  {"strided set", function(e) e.c[{{}, {1, 4, 2}}] = e.b[{{}, {2, 3}}] end},
  {"strided exp_", function(e) gm.exp_(e.g[{{1, 4, 2}}]) end},
  -- finalizers freeing mats and trimming the pools while blocks are in use
  {"finalizer frees, m_add", function(e) finalizer_frees(); e.t3 = e.b + e.c end},
  {"finalizer frees, copy_mat", function(e) finalizer_frees(); finalizer_frees(); e.t1 = gm.copy_mat(e.g) end},
  {"collect between ops", function(e) gm.collect(); gm.scal_(0.5, e.k) end},
  {"finalizer frees, strided scal_", function(e) finalizer_frees(); gm.scal_(3, e.st:t()) end},
}

local start_bytes = gm.counters().device_bytes_in_use
local ok, err = pcall(gm.with_cuda, {backend = "emulated"}, function()
  pair("a", 4, 5, 1); pair("b", 3, 4, 2); pair("c", 3, 4, 3); pair("g", 4, 4, 4)
  pair("z", 2, 6, 5); pair("k", 5, 4, 9); pair("st", 8, 5, 6); pair("w", 3, 3, 7); pair("y", 2, 3, 8)
  host.s = retried(gm.mat, {5}, {cuda_enabled = false}); dev.s = retried(gm.mat, {5}, {cuda_enabled = not HOST_FAULTS})
  for _, step in ipairs(script) do
    local name, f = step[1], step[2]
    local ok1, e1 = pcall(f, dev)
    if ok1 then
      mirror(f, host, name)
      steps_ok = steps_ok + 1
      for _, k in ipairs({"t1", "t2", "t3"}) do -- results of non-destructive ops
        if dev[k] and not rawequal(dev[k], host[k]) and host[k] then
          local d = read(dev[k], name .. " result")
          if d and not same(d, gm.mat_to_array(host[k])) then defect("%s: result %s differs", name, k) end
        end
        dev[k], host[k] = nil, nil
      end
    else
      clean(e1, name)
      dev.t1, dev.t2, dev.t3 = nil, nil, nil
    end
    check_all("after " .. name)
  end
end)
-- the context's exit barrier copies the device facets back: it may fail
if not ok then clean(err, "with_cuda exit") end
check_all("after with_cuda")

dev, host = {}, {}
collectgarbage(); collectgarbage()
gm.collect()
local end_bytes = gm.counters().device_bytes_in_use
if end_bytes ~= start_bytes then
  defect("device_bytes_in_use %d at the end, %d at the start", end_bytes, start_bytes)
end

-- The device still works (faults are capped by GPUMAT_EMULATED_FAIL_MAX).
local works = false
for _ = 1, 10 do
  local ok2, r = pcall(gm.with_cuda, {backend = "emulated"}, function()
    local m = gm.mat({3, 3}, {initial_element = 1})
    local n = gm.mat({3, 3}, {initial_element = 2})
    local o = gm.mat({3, 3})
    gm.gemm_(1, m, n, 0, o)
    return gm.mat_to_array(o)[2][2]
  end)
  if ok2 then
    if r ~= 6 then defect("after the faults gemm_ gives %s, not 6", tostring(r)) end
    works = true
    break
  end
  clean(r, "final check")
end
if not works then defect("the device did not work again after the faults") end
collectgarbage(); gm.collect()
if gm.counters().device_bytes_in_use ~= start_bytes then
  defect("device_bytes_in_use not back after the final check")
end

io.write(string.format("faults N=%s: %d steps succeeded, %d faults seen as clean errors, %d defects\n",
  os.getenv("GPUMAT_EMULATED_FAIL_EVERY") or os.getenv("GPUMAT_HOST_FAIL_EVERY") or "-", steps_ok, injected,
  defects))
os.exit(defects == 0 and 0 or 1)
