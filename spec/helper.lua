-- Loaded by busted before the specs (see .busted).
--
-- GPUMAT_TEST_GC=aggressive runs the suite under Lua's incremental
-- collector with a cycle started after every 10 % of heap growth and
-- finished within a few KB of allocation (pause 110, step multiplier
-- 1000), so garbage mats are finalized soon after they die and lifetime
-- bugs (a collected view freeing shared storage, finalizers touching
-- freed state) show up.  GPUMAT_TEST_GC=full is the strongest setting: a
-- pause under 100 makes Lua 5.4 run a whole cycle at every allocation, so
-- every allocation point is a collection point; its cost is the heap's
-- size times the allocations (18 minutes for the suite, whose heap holds
-- every spec file, against about one for aggressive), so it is a long run
-- (`make test-gc-full`), not a CI pass.  Both replace gpumat's default
-- (generational, lua/gpumat/init.lua), so the incremental mode's pacing
-- is tested too: gpumat is loaded first.
local gc_mode = os.getenv("GPUMAT_TEST_GC")
if gc_mode == "aggressive" or gc_mode == "full" then
  require "gpumat"
  if gc_mode == "full" then
    collectgarbage("incremental", 10, 1000, 0)
  else
    collectgarbage("incremental", 110, 1000, 0)
  end
end

-- GPUMAT_DEVICE=emulated (or cuda) runs every test body inside
-- gm.with_cuda{} (the backend defaults to GPUMAT_DEVICE), so every op on
-- cuda-enabled mats takes its device path, and the context's exit barrier
-- (host facet brought up to date, device facets destroyed) runs after
-- each test.  before_each/after_each blocks run outside the context.
-- Tests of host-only behaviour opt out with the tag "#host" in their name
-- (or wrap their body in gm.with_cuda({enabled = false}, fn)); tests that
-- open their own outermost context (n_pool_bytes, counter binding) use the
-- tag "#outermost".
-- A nested with_cuda whose options name another backend or device id runs
-- on that device (docs/GPU.md), so under GPUMAT_DEVICE=cuda a test's
-- with_cuda{backend = "emulated"} runs on the emulated device.  Tests that
-- assert the CPU model's or the emulated device's own behaviour on the
-- wrapper's device (launch counters, range launches) carry the tag
-- "#nocuda": pending under GPUMAT_DEVICE=cuda.
-- GPUMAT_TEST_WRAP_DEVICE_ID=N (with GPUMAT_DEVICE=emulated) wraps the
-- tests in emulated device N instead: every with_cuda{backend = "emulated"}
-- in a test then opens another device (0), as under GPUMAT_DEVICE=cuda,
-- so a machine without a GPU rehearses that run's device switches.
-- See docs/ARCHITECTURE.md, "Testing".
local device = os.getenv("GPUMAT_DEVICE")
if device and device ~= "" then
  local busted = require "busted"
  local gm = require "gpumat"
  -- GPUMAT_DEVICE=cuda names CUDA explicitly: without a usable device every
  -- with_cuda raises (docs/GPU.md); say so once, up front
  if device == "cuda" then
    local ok, why = gm.cuda_available()
    if not ok then error("GPUMAT_DEVICE=cuda but cuda is not usable: " .. tostring(why), 0) end
  end
  local wrap = {}
  local wrap_id = os.getenv("GPUMAT_TEST_WRAP_DEVICE_ID")
  if wrap_id and wrap_id ~= "" then
    assert(device == "emulated", "GPUMAT_TEST_WRAP_DEVICE_ID needs GPUMAT_DEVICE=emulated")
    wrap.device_id = assert(math.tointeger(tonumber(wrap_id)), "GPUMAT_TEST_WRAP_DEVICE_ID: an integer")
  end
  busted.subscribe({ "test", "start" }, function(element)
    local name = element.name or ""
    if element.gpumat_wrapped then return nil, true end
    element.gpumat_wrapped = true
    if device == "cuda" and name:find("#nocuda", 1, true) then
      element.run = function() -- (the test's own pending: busted.pending declares a test)
        element.env.pending("#nocuda: asserts the CPU model or the emulated device (GPUMAT_DEVICE=emulated runs it)")
      end
      return nil, true
    end
    if name:find("#host", 1, true) or name:find("#outermost", 1, true) then return nil, true end
    local run = element.run
    element.run = function(...)
      local args = table.pack(...)
      return gm.with_cuda(wrap, function() return run(table.unpack(args, 1, args.n)) end)
    end
    return nil, true
  end)
end
