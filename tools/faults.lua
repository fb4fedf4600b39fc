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
local gm = require "gpumat"

local defects, injected, steps_ok = 0, 0, 0
local function defect(fmt, ...)
  defects = defects + 1
  io.write("DEFECT: ", string.format(fmt, ...), "\n")
end

local function clean(err, where)
  if os.getenv("FAULTS_VERBOSE") then io.write(where, ": ", tostring(err), "\n") end
  if type(err) == "table" and (err.kind == "cuda_out_of_memory" or err.kind == "cuda_error") then
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

-- Pairs of (device mat, mirror mat) by name.
local dev, host = {}, {}
local function pair(name, r, c, k)
  host[name] = gm.mat({r, c}, {initial_contents = contents(r, c, k), cuda_enabled = false})
  dev[name] = gm.mat({r, c}, {initial_contents = contents(r, c, k)})
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
}

local start_bytes = gm.counters().device_bytes_in_use
local ok, err = pcall(gm.with_cuda, {backend = "emulated"}, function()
  pair("a", 4, 5, 1); pair("b", 3, 4, 2); pair("c", 3, 4, 3); pair("g", 4, 4, 4)
  pair("z", 2, 6, 5); pair("k", 5, 4, 9); pair("st", 8, 5, 6); pair("w", 3, 3, 7); pair("y", 2, 3, 8)
  host.s = gm.mat({5}, {cuda_enabled = false}); dev.s = gm.mat({5})
  for _, step in ipairs(script) do
    local name, f = step[1], step[2]
    local ok1, e1 = pcall(f, dev)
    if ok1 then
      f(host)
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
  os.getenv("GPUMAT_EMULATED_FAIL_EVERY") or "-", steps_ok, injected, defects))
os.exit(defects == 0 and 0 or 1)
