-- Timing for the Lua side of the benchmarks.  The same scheme is used by
-- bench/baselines/numpy_ops.py and c_baselines.c so all sides are comparable:
--   calibrate: setup(); run(1) as warm-up (first-touch allocation, caches,
--              thread pools); unless the iteration count is fixed, grow it
--              until one timed run(n) takes min_time / 4, then scale n so a
--              repeat takes ~min_time
--   once:      setup(); collect garbage; time run(n) / n
-- The harness interleaves the sides' repeats round by round and reports
-- medians.  setup() and garbage collection happen outside the timed region.
local M = {}

local clock_now
local clock_note

-- Wall clock: compile bench/baselines/clock.c once into bench/out/; fall back
-- to os.clock (CPU time: wrong for multi-threaded calls) with a warning.
function M.init(bench_dir, out_dir)
  local so = out_dir .. "/benchclock.so"
  local src = bench_dir .. "/baselines/clock.c"
  local cmd = string.format(
    "test %s -nt %s || cc -O2 -shared -fPIC -I/usr/include/lua5.4 -o %s %s 2>&1",
    so, src, so, src)
  local p = io.popen(cmd)
  local out = p:read("a")
  p:close()
  local loader = package.loadlib(so, "luaopen_benchclock")
  if loader then
    clock_now = loader().now
    clock_note = "wall clock (clock_gettime CLOCK_MONOTONIC)"
  else
    clock_now = os.clock
    clock_note = "os.clock CPU time (clock.c did not build: " .. out:gsub("\n", " ") .. ")"
    io.stderr:write("warning: " .. clock_note .. "\n")
  end
  return clock_note
end

function M.now() return clock_now() end

local function timed(run, n)
  local t0 = clock_now()
  run(n)
  return clock_now() - t0
end

function M.median(xs)
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  local m = #s
  if m == 0 then return nil end
  if m % 2 == 1 then return s[(m + 1) // 2] end
  return (s[m // 2] + s[m // 2 + 1]) / 2
end

-- Warm up, then choose the iteration count for one repeat of ~min_time.
function M.calibrate(run, setup, fixed, min_time)
  setup()
  run(1)
  if fixed and fixed > 0 then return fixed end
  local n, t = 1, nil
  while true do
    setup()
    collectgarbage()
    t = timed(run, n)
    if t >= min_time / 4 or n >= 1e9 then break end
    local grow = t > 0 and min_time / 4 / t * 1.5 or 100
    n = n * math.floor(math.min(100, math.max(2, grow)))
  end
  return math.max(1, math.floor(n * min_time / (t > 0 and t or min_time) + 0.5))
end

-- One timed repeat: seconds per iteration.
function M.once(run, setup, n)
  setup()
  collectgarbage()
  return timed(run, n) / n
end

return M
