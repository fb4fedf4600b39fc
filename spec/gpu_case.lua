-- What every spec under spec/gpu/ starts with:
--   local need_gpu, CUDA = require("gpu_case")(_ENV)
-- CUDA holds the options that open the real CUDA device; need_gpu() marks
-- the running test pending (with the reason gm.cuda_available() gives)
-- when there is no device and returns false, so a GPU-only test never
-- passes silently on a machine without one.  The spec file's environment
-- is passed in: busted's `pending` lives there, and is a different function
-- inside a test than at the file's top level, so it is looked up at call
-- time.
local gm = require "gpumat"

return function(env)
  assert(type(env) == "table", "gpu_case: pass the spec file's _ENV")
  local function need_gpu()
    local ok, why = gm.cuda_available()
    if not ok then env.pending("no CUDA device: " .. tostring(why)) end
    return ok
  end
  return need_gpu, { backend = "cuda" }
end
