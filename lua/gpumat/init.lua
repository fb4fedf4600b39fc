-- gpumat: multi-dimensional numeric arrays on the host and CUDA devices.
-- This file builds the public module from the C core (gpumat.core) and the
-- Lua-side helpers in lua/gpumat/*.lua.  Settings (gm.default_ctype, ...)
-- are forwarded to C so the core sees them and every write is validated.
-- first, before gpumat.core loads OpenBLAS: its workers' spin after
-- each threaded call (src/lua/blas_env.c); optional where an application
-- registers gpumat.core itself without the module beside it
pcall(require, "gpumat.blas_env")
local core = require "gpumat.core"

-- Lua's generational collector: a program's mats are mostly temporaries
-- that die young, and the binding paces the collector by the bytes mats
-- allocate with a step every 256 KiB (src/lua/util.c), which in this mode
-- is a minor collection: it costs in proportion to the young objects, not
-- to the heap, and gives the dead temporaries' blocks back to the pools
-- while they are still in the caches.  GPUMAT_LUA_GC=keep leaves the
-- collector's mode as it is (docs/API.md, "The collector knows what mats
-- cost"); a program may also switch back with collectgarbage("incremental")
-- after require: full collections then bound memory alone.
if os.getenv("GPUMAT_LUA_GC") ~= "keep" then collectgarbage("generational") end

local gm = {}
local methods = core.mat_methods()

-- Copy the C functions into the module.
for k, v in pairs(core) do
  -- cuda_enabled is the module setting (gm.cuda_enabled); the C function
  -- of that name is only the mat method m:cuda_enabled()
  if k ~= "get_setting" and k ~= "set_setting" and k ~= "mat_methods" and k ~= "cuda_enabled"
    and k ~= "version" -- version is a read-only setting (get_setting)
    and k:sub(1, 1) ~= "_" then -- "_name": internal helpers of the Lua side
    gm[k] = v
  end
end

-- Methods on mats whose first argument is the mat itself.
local self_first = {
  "free", "is_freed", "ctype", "dtype", "displacement", "dims", "dim", "size", "max_size",
  "initial_element", "cuda_enabled", "set_cuda_enabled", "mref", "set",
  "row_major_mref", "set_row_major", "row_major_index", "replace_", "__dlpack",
}
for _, name in ipairs(self_first) do methods[name] = core[name] end
methods.to_table = core.mat_to_array

-- Lua-side areas extend gm and the method table.
local areas = { "shaping", "facets", "mat_debugging", "random", "cuda", "assemble", "caching",
  "buffer", "format", "help", "kernel", "constructors", "plot", "complex", "dtypes", "linalg", "einsum", "fft",
  "ordering", "manipulation", "missing", "complex_math" }
for _, area in ipairs(areas) do
  require("gpumat." .. area)(gm, core, methods)
end

-- One argument count rule for the Lua-side functions (argcheck.lua).
local argcheck = require "gpumat.argcheck"
argcheck.strict_table(gm)
argcheck.strict_table(methods)

return setmetatable(gm, {
  __index = argcheck.strict("__index", function(t, k)
    if t ~= gm then argcheck.argerror(1, "__index", "the gpumat module expected, got %s", type(t)) end
    local v = core.get_setting(k)
    return v
  end),
  __newindex = argcheck.strict("__newindex", function(t, k, v)
    if t ~= gm then argcheck.argerror(1, "__newindex", "the gpumat module expected, got %s", type(t)) end
    if not core.set_setting(k, v) then rawset(t, k, v) end
  end),
})
