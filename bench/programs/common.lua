-- Shared by the gpumat programs: data, timing and the report lines (the
-- same as common.py).  arg[1]: the data folder; arg[2]: the folder of
-- benchclock.so (bench/baselines/clock.c, a wall clock).
local gm = require "gpumat"
local C = {}

local clock = package.loadlib(arg[2] .. "/benchclock.so", "luaopen_benchclock")
local wall = assert(clock, "bench/out/benchclock.so is missing (run programs_bench.lua)")().now
-- the wall clock and the process's CPU time (os.clock) of the main loop
local cpu0
function C.now()
  cpu0 = os.clock()
  return wall()
end

function C.load(name) return gm.load_npy(arg[1] .. "/" .. name .. ".npy") end

function C.report(t0, result)
  local t, cpu = wall() - t0, os.clock() - cpu0
  local peak = 0
  for line in io.lines("/proc/self/status") do
    local kb = line:match("^VmHWM:%s+(%d+)")
    if kb then peak = tonumber(kb) end
  end
  print(("time %.6f"):format(t))
  print(("cpu %.6f"):format(cpu))
  print(("result %.12g"):format(result))
  print(("peak_kb %d"):format(peak))
end

return C
