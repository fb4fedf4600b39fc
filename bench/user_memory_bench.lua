-- Peak resident memory of loops of temporaries as users write them,
-- against numpy in the same run: a loop of temporaries must stay in bounded memory.
--
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' \
--     lua5.4 bench/user_memory_bench.lua
--
-- Each case runs in a fresh process (gpumat: lua5.4, numpy: /usr/bin/python3), with
-- no collectgarbage() / gm.collect() in the loop:
--   a = ones(n, float32); for i = 1, iters do local b = a + 1 end
-- on the host and on the emulated device (inside gm.with_cuda).  A process
-- reports its resident memory just before the loop (after `a` and one
-- `a + 1` exist) and its peak (VmHWM) after it; the growth is the peak
-- minus that base.  The base itself differs (gpumat's process maps the CUDA
-- libraries of a CUDA-enabled build: ~200 MB resident before any mat), so
-- the goal compares growths: gpumat's ≤ max(2 × numpy's, numpy's + 64 MB).
-- Exits non-zero when a case misses it.
-- A standalone script: bench/run.lua's harness gets no cases from it.
if rawget(_G, "GPUMAT_BENCH_HARNESS") then return {} end
local self_path = arg and arg[0] or "bench/user_memory_bench.lua"

local function rss(key)
  for l in io.lines("/proc/self/status") do
    local v = l:match("^" .. key .. ":%s+(%d+)")
    if v then return tonumber(v) * 1024 end
  end
end

-- child mode: lua5.4 user_memory_bench.lua child <host|emulated> n iters
if arg and arg[1] == "child" then
  local gm = require "gpumat"
  local where, n, iters = arg[2], tonumber(arg[3]), tonumber(arg[4])
  local function run()
    local a = gm.mat({ n }, { ctype = "float", initial_element = 1 })
    local s = a + 1
    s = nil
    local base = rss("VmRSS")
    local t = os.clock()
    for _ = 1, iters do
      local b = a + 1
    end
    gm.synchronize()
    io.write(string.format("%d %d %.3f\n", base, rss("VmHWM"), os.clock() - t))
  end
  if where == "emulated" then gm.with_cuda({ backend = "emulated" }, run) else run() end
  os.exit(0)
end

local NUMPY = [[
import sys, time, numpy as np
def rss(k):
    for l in open("/proc/self/status"):
        if l.startswith(k + ":"): return int(l.split()[1]) * 1024
n, iters = int(sys.argv[1]), int(sys.argv[2])
a = np.ones(n, dtype=np.float32); s = a + 1; del s
base = rss("VmRSS"); t = time.process_time()
for i in range(iters): b = a + 1
print(base, rss("VmHWM"), "%.3f" % (time.process_time() - t))
]]

-- Debian's python3 has numpy (the one on PATH may not), as bench_external.lua
local PYTHON = os.getenv("GPUMAT_BENCH_PYTHON") or "/usr/bin/python3"

local function run(cmd)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  local base, peak, cpu = out:match("(%d+) (%d+) ([%d.]+)")
  if not base then error("child failed: " .. cmd .. "\n" .. out) end
  return tonumber(base), tonumber(peak), tonumber(cpu)
end

local MB = 1024 * 1024
local cases = {
  { "host", 1 << 20, 1000 }, { "host", 2 << 20, 3000 },
  { "emulated", 1 << 20, 1000 }, { "emulated", 2 << 20, 3000 },
}
local py = os.tmpname()
local f = assert(io.open(py, "w"))
f:write(NUMPY)
f:close()
local failed = 0
print("| case | numpy base / peak / growth | gpumat base / peak / growth | growth goal | gpumat cpu s (numpy) | met |")
print("|---|---|---|---|---|---|")
for _, c in ipairs(cases) do
  local where, n, iters = c[1], c[2], c[3]
  local nb, np_peak, ncpu = run(string.format("%s %s %d %d", PYTHON, py, n, iters))
  local gb, g_peak, gcpu = run(string.format("lua5.4 %s child %s %d %d", self_path, where, n, iters))
  local ng, gg = np_peak - nb, g_peak - gb
  local goal = math.max(2 * ng, ng + 64 * MB)
  local met = gg <= goal
  if not met then failed = failed + 1 end
  print(string.format("| %s: %d × `a + 1`, %d MB float mat | %d / %d / %d MB | %d / %d / %d MB | ≤ %d MB | %.2f (%.2f) | %s |",
    where, iters, n * 4 // MB, nb // MB, np_peak // MB, ng // MB, gb // MB, g_peak // MB, gg // MB, goal // MB,
    gcpu, ncpu, met and "yes" or "**no**"))
end
os.remove(py)
os.exit(failed == 0 and 0 or 1)
