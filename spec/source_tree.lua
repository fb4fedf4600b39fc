-- The repository's files as the specs about the code itself read them
-- (spec/architecture_spec.lua, spec/code_shape_spec.lua).
local M = {}

function M.read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- The files `find ARGS` lists under the repository root, sorted.
function M.find(args)
  local p = assert(io.popen("find " .. args .. " | sort", "r"))
  local files = {}
  for line in p:lines() do files[#files + 1] = line end
  p:close()
  return files
end

return M
