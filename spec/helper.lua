-- Loaded by busted before the specs (see .busted).
--
-- GPUMAT_TEST_GC=aggressive runs the suite under a collector that runs
-- constantly, so lifetime bugs (a collected view freeing shared storage,
-- finalizers touching freed state) show up.
if os.getenv("GPUMAT_TEST_GC") == "aggressive" then
  collectgarbage("incremental", 10, 1000, 0)
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
  busted.subscribe({ "test", "start" }, function(element)
    local name = element.name or ""
    if element.gpumat_wrapped or name:find("#host", 1, true) or name:find("#outermost", 1, true) then
      return nil, true
    end
    element.gpumat_wrapped = true
    local run = element.run
    element.run = function(...)
      local args = table.pack(...)
      return gm.with_cuda({}, function() return run(table.unpack(args, 1, args.n)) end)
    end
    return nil, true
  end)
end
