-- Argument checks shared by the Lua-side areas.  Messages match the ones
-- raised from C ("bad argument #2 to 'stack' (...)") and carry no
-- position (error level 0): a position inside lua/gpumat/NAME.lua would
-- tell the user nothing.
local M = {}

local function raise(msg)
  error(msg, 0)
end

-- Raises "bad argument #n to 'fname' (fmt...)".
function M.argerror(n, fname, fmt, ...)
  raise(string.format("bad argument #%d to '%s' (%s)", n, fname, string.format(fmt, ...)))
end

-- Raises the plain message fmt... ("copy_full_buffer: sizes differ ...").
function M.error(fmt, ...)
  raise(string.format(fmt, ...))
end

-- Functions and callable tables/userdata are accepted.
function M.check_callable(f, n, fname)
  local mt = getmetatable(f)
  if type(f) ~= "function" and not (type(mt) == "table" and mt.__call) then
    M.argerror(n, fname, "function expected, got %s", type(f))
  end
  return f
end

-- The argument count rule for Lua-side functions (the C side declares
-- counts in its registration tables, src/lua/util.h): f's own parameter
-- list is its declaration.  strict(fname, f) returns f wrapped so that a
-- call with more arguments than f has parameters raises "bad argument #n
-- to 'fname' (no value expected)"; a function declared with `...` is
-- variadic and returned as is, as are C functions (checked by their
-- registration) and functions already wrapped.
local declared = setmetatable({}, { __mode = "k" }) -- wrapper -> {max, name}

function M.strict(fname, f)
  if type(f) ~= "function" or declared[f] then return f end
  local info = debug.getinfo(f, "Su")
  if info.what ~= "Lua" or info.isvararg then return f end
  local max = info.nparams
  local g = function(...)
    if select("#", ...) > max then M.argerror(max + 1, fname, "no value expected") end
    return f(...)
  end
  declared[g] = { max, fname }
  return g
end

-- The count and name strict declared for f, or nothing (for the specs
-- and the fuzzer; core._arity answers for C functions).
function M.arity(f)
  local d = declared[f]
  if d then return d[1], d[2] end
end

-- strict for every function field of t, named by its key.
function M.strict_table(t)
  for k, v in pairs(t) do
    if type(k) == "string" and type(v) == "function" then rawset(t, k, M.strict(k, v)) end
  end
  return t
end

return M
