-- Argument checks shared by the Lua-side areas.  Messages match the ones
-- raised from C ("bad argument #2 to 'stack' (...)"), without a position
-- prefix (error level 0).
local M = {}

function M.argerror(n, fname, fmt, ...)
  error(string.format("bad argument #%d to '%s' (%s)", n, fname, string.format(fmt, ...)), 0)
end

-- Functions and callable tables/userdata are accepted.
function M.check_callable(f, n, fname)
  local mt = getmetatable(f)
  if type(f) ~= "function" and not (type(mt) == "table" and mt.__call) then
    M.argerror(n, fname, "function expected, got %s", type(f))
  end
  return f
end

return M
