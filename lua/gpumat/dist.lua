-- gpumat.dist: collectives on mats across processes (see docs/DISTRIBUTED.md).
-- The C functions live in the core module (they share its mat userdata and
-- facet machinery); this opens its second entry point, luaopen_gpumat_dist.
-- A gpumat built without MPI raises a clear error here.
require "gpumat"
local path = package.searchpath("gpumat.core", package.cpath)
if not path then error("gpumat.dist: gpumat/core.so not found on package.cpath", 2) end
local open, err = package.loadlib(path, "luaopen_gpumat_dist")
if not open then error("gpumat.dist: cannot open " .. path .. ": " .. tostring(err), 2) end
return open()
