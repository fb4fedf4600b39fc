-- The memory layer, on the emulated device.
--
-- As a file of bench/run.lua (dofile): timed cases, allocation of a 64 MiB
-- device block from the pool or from an alloc cache (hits) against a
-- fresh allocation of the same size: the emulated device's mmap, committed
-- at once as cudaMalloc commits device memory, given back with munmap;
-- with GPUMAT_EMULATED_COMMIT=0 in the environment its pages stay
-- untouched (a bare mmap).  Goal: a hit ≥ 50× cheaper.  RESULTS.md
-- reports both kinds of fresh allocation.
--
-- As a script (the loop report of bench/RESULTS.md, "Memory layer"):
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build-bench/?.so;;' \
--     lua5.4 bench/memory_bench.lua [iterations]
-- runs 1000 iterations that each give a mat a 64 MiB cuda facet, with and
-- without gm.cached, and reports device bytes in use (flat vs peak); the
-- per-call cost of hits and fresh allocations; and gm.ensure of an
-- up-to-date facet (goal ≤ 1 µs, zero copies).
local gm = require "gpumat"

local EMU = { backend = "emulated" }
local COMMITTED = os.getenv("GPUMAT_EMULATED_COMMIT") ~= "0"
local FRESH_KIND = COMMITTED and "mmap + commit of every page + munmap" or "mmap of untouched pages + munmap"
local MIB64 = 64 << 20
local U_ok, U = pcall(require, "bench_util")

-- one 64 MiB device array from the pool: made and dereferenced; the next
-- allocation drains the queued free back into the pool (no gm.collect():
-- it also trims the pool's cached blocks, which would make every call a
-- fresh allocation)
local function pool_alloc()
  local b = gm.make_cuda_array(MIB64, { element_type = "uint8" })
  gm.deref_buffer(b)
end

-- a pitched block bypasses the pool: raw mmap, then munmap when the next
-- allocation drains the queue (the same Lua calls as pool_alloc)
local function fresh_alloc()
  local b = gm.make_cuda_array({ 1024, MIB64 // 1024 }, { element_type = "uint8", pitch_elt_size = 4 })
  gm.deref_buffer(b)
end

local function cache_alloc(cache)
  gm.cached(cache, function() gm.make_cuda_array({ 1024, MIB64 // 1024 }, { element_type = "uint8", pitch_elt_size = 4 }) end)
end

local function in_context(f)
  return function(n) gm.with_cuda(EMU, function() for _ = 1, n do f() end end) end
end

local fresh_baseline = {
  label = "fresh 64 MiB allocation (" .. FRESH_KIND .. ")",
  prepare = function() return in_context(fresh_alloc) end,
  goal = U_ok and U.speed_at_least(50, "a fresh allocation") or nil,
}

local cases = {
  {
    name = "64 MiB device array, pool hit", requires = { "make_cuda_array" },
    -- warmed: the first (missing) allocation is made before calibration, or
    -- a committed fresh allocation would make the harness pick n = 1-2
    prepare = function()
      local run = in_context(pool_alloc)
      run(1)
      return run
    end,
    against = { fresh_baseline },
  },
  {
    name = "64 MiB device array, alloc-cache hit", requires = { "alloc_cache", "cached" },
    prepare = function()
      local cache = gm.alloc_cache()
      local run = in_context(function() cache_alloc(cache) end)
      run(1) -- warmed, as the pool case
      return run, nil, function() cache:free() end
    end,
    against = { fresh_baseline },
  },
}

-- pinned vs pageable host -> device copy throughput: needs a real GPU (on
-- the emulated device both are memcpy); without one the case is reported
-- as skipped, in both modes of this file
local NO_GPU = not gm.cuda_available() and "needs a CUDA device: on the emulated device both copies are memcpy" or nil

-- n host -> device copies of a 64 MiB mat (pinned or pageable host facet)
local function copy_case(pinned)
  return function()
    local m = gm.mat(MIB64 // 4, { ctype = "float", pinned = pinned, initial_element = 1 })
    return function(n)
      gm.with_cuda({ backend = "cuda" }, function()
        for _ = 1, n do
          gm.set(m, 1, 1.0) -- host write: the next device access copies 64 MiB in
          gm.with_facet(m, "cuda", "input", function() end)
        end
      end)
    end
  end
end

cases[#cases + 1] = {
  name = "64 MiB host -> device copy from a pinned mat", requires = { "mat" }, skip = NO_GPU,
  prepare = copy_case(true),
  against = { { label = "the same copy from pageable memory", prepare = copy_case(false),
    goal = U_ok and U.speed_at_least(1.2, "pageable") or nil } },
}

local script = arg and arg[0] and arg[0]:match("memory_bench%.lua$")
if not script then
  return {
    order = 80,
    title = "Memory layer",
    description = "Device allocation on the emulated device: pool and alloc-cache hits against fresh allocations.",
    cases = cases,
  }
end

-- ---- script mode: the loop report ----

package.cpath = package.cpath
local clock
do
  local so = "bench/out/benchclock.so"
  os.execute("mkdir -p bench/out; test " .. so .. " -nt bench/baselines/clock.c || cc -O2 -shared -fPIC " ..
    "-I/usr/include/lua5.4 -o " .. so .. " bench/baselines/clock.c")
  local loader = package.loadlib(so, "luaopen_benchclock")
  clock = loader and loader().now or os.clock
end

local iterations = tonumber(arg[1]) or 1000

local function in_use() return gm.counters().device_bytes_in_use end

local function loop(with_cache)
  local peak, last = 0, 0
  gm.with_cuda(EMU, function()
    collectgarbage()
    collectgarbage()
    gm.collect()
    local base = in_use()
    local cache = with_cache and gm.alloc_cache() or nil
    local t0 = clock()
    for i = 1, iterations do
      local body = function()
        local m = gm.mat(MIB64 // 4, { ctype = "float" })
        -- the cuda facet's 64 MiB block, made by an output access (no fill)
        gm.with_facet(m, "cuda", "output", function() end)
        peak = math.max(peak, in_use() - base)
      end
      if cache then gm.cached(cache, body) else body() end
    end
    last = in_use() - base
    local t = clock() - t0
    if cache then cache:free() end
    io.write(string.format("  %-14s peak %8.1f MiB, at the end %8.1f MiB, %.1f µs per iteration\n",
      with_cache and "with a cache:" or "without:", peak / 2 ^ 20, last / 2 ^ 20, t / iterations * 1e6))
  end)
  return peak, last
end

local function per_call(f, n)
  local t
  gm.with_cuda(EMU, function()
    f() -- warm up (first miss)
    local t0 = clock()
    for _ = 1, n do f() end
    t = (clock() - t0) / n
  end)
  return t
end

local function median(xs)
  table.sort(xs)
  return xs[(#xs + 1) // 2]
end

local function timed(f, n)
  local s = {}
  for r = 1, 5 do s[r] = per_call(f, n) end
  return median(s)
end

print(string.format("memory_bench: %d iterations of a 64 MiB cuda facet on the emulated device", iterations))
local peak_c, last_c = loop(true)
local peak_n, last_n = loop(false)

local cache = gm.alloc_cache()
local t_pool = timed(pool_alloc, 2000)
local t_cache = timed(function() cache_alloc(cache) end, 2000)
-- a committed fresh allocation takes milliseconds: fewer of them
local t_fresh = timed(fresh_alloc, COMMITTED and 20 or 2000)
cache:free()
-- the same hit with the options table made once by the caller (the
-- per-call table is the caller's cost, not the allocator's)
local POOL_OPTS = { element_type = "uint8" }
local t_pool_hoisted = timed(function()
  local b = gm.make_cuda_array(MIB64, POOL_OPTS)
  gm.deref_buffer(b)
end, 2000)

-- pinned vs pageable host -> device copies (GPU only)
local copy_rows
if not NO_GPU then
  local function rate(pinned)
    local run = copy_case(pinned)()
    run(1)
    local s = {}
    for r = 1, 3 do
      local t0 = clock()
      run(10)
      s[r] = (clock() - t0) / 10
    end
    return MIB64 / median(s) / 1e9
  end
  local gp, gq = rate(true), rate(false)
  copy_rows = {
    string.format("| host → device copy of 64 MiB, pinned | %.2f GB/s | |", gp),
    string.format("| host → device copy of 64 MiB, pageable | %.2f GB/s | |", gq),
    string.format("| pinned / pageable throughput | %.2f× | ≥ 1.2×: %s |", gp / gq, gp / gq >= 1.2 and "met" or "**not met**"),
  }
else
  copy_rows = { "| host → device copy of 64 MiB, pinned vs pageable | skipped (" .. NO_GPU .. ") | |" }
end

local m = gm.mat({ 100, 100 }, { initial_element = 1 })
gm.mref(m, 1, 1)
local c0 = gm.counters()
local function ensure_host()
  local v = gm.ensure(m, "host")
  gm.deref_buffer(v)
end
local t_ensure = median({ per_call(ensure_host, 100000), per_call(ensure_host, 100000), per_call(ensure_host, 100000) })
local t_ensure_dev
gm.with_cuda(EMU, function()
  local d = gm.mat({ 100, 100 }, { initial_element = 1 })
  gm.scal_(1, d)
  local function ensure_dev()
    local v = gm.ensure(d, "device")
    gm.deref_buffer(v)
  end
  ensure_dev()
  local s = {}
  for r = 1, 3 do
    local t0 = clock()
    for _ = 1, 100000 do ensure_dev() end
    s[r] = (clock() - t0) / 100000
  end
  t_ensure_dev = median(s)
end)
local c1 = gm.counters()
local n_copies = (c1.n_memcpy_host_to_device - c0.n_memcpy_host_to_device) +
  (c1.n_memcpy_device_to_host - c0.n_memcpy_device_to_host)

local function verdict(ok) return ok and "met" or "**not met**" end
print()
print("| measure | value | goal |")
print("|---|---|---|")
print(string.format("| device bytes in use, %d × 64 MiB with `gm.cached` | peak %.0f MiB, %.0f MiB at the end | flat at one iteration (64 MiB): %s |",
  iterations, peak_c / 2 ^ 20, last_c / 2 ^ 20, verdict(peak_c <= MIB64)))
print(string.format("| device bytes in use, %d × 64 MiB without a cache | peak %.0f MiB, %.0f MiB at the end | (reported) |",
  iterations, peak_n / 2 ^ 20, last_n / 2 ^ 20))
print(string.format("| pool hit, per call (make_cuda_array 64 MiB + deref; drained by the next call) | %.2f µs | |", t_pool * 1e6))
print(string.format("| alloc-cache hit, per call (gm.cached + pitched make_cuda_array 64 MiB) | %.2f µs | |", t_cache * 1e6))
print(string.format("| pool hit, options table made once by the caller | %.2f µs | |", t_pool_hoisted * 1e6))
print(string.format("| fresh allocation, per call (pitched: %s + the same Lua calls) | %.2f µs | |", FRESH_KIND,
  t_fresh * 1e6))
print(string.format("| fresh (%s) / pool hit | %.1f× | ≥ 50×: %s |", COMMITTED and "committed" or "untouched", t_fresh / t_pool, verdict(t_fresh / t_pool >= 50)))
print(string.format("| fresh (%s) / cache hit | %.1f× | ≥ 50×: %s |", COMMITTED and "committed" or "untouched", t_fresh / t_cache, verdict(t_fresh / t_cache >= 50)))
print(string.format("| `gm.ensure(m, \"host\")` + `deref_buffer` of an up-to-date facet | %.2f µs | ≤ 1 µs: %s |", t_ensure * 1e6,
  verdict(t_ensure <= 1e-6)))
print(string.format("| `gm.ensure(m, \"device\")` + `deref_buffer` of an up-to-date facet | %.2f µs | ≤ 1 µs: %s |",
  t_ensure_dev * 1e6, verdict(t_ensure_dev <= 1e-6)))
print(string.format("| copies made by those ensures | %d | 0: %s |", n_copies, verdict(n_copies == 0)))
for _, row in ipairs(copy_rows) do print(row) end
