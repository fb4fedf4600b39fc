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

-- The options table of fname (argument n): nil gives {}; a key not in
-- allowed raises "unknown option 'k'".  Returns the table itself.
function M.options(fname, opts, n, allowed)
  if opts == nil then return {} end
  if type(opts) ~= "table" then M.argerror(n, fname, "options table expected, got %s", type(opts)) end
  for k in pairs(opts) do
    if not allowed[k] then M.argerror(n, fname, "unknown option '%s'", tostring(k)) end
  end
  return opts
end

-- A 1-based axis of a rank-`rank` mat (negative counts from the end: -1
-- is the last), as a positive index; anything else raises naming
-- argument n of fname.
function M.axis(fname, ax, rank, n)
  if math.type(ax) ~= "integer" or ax == 0 or ax > rank or ax < -rank then
    M.argerror(n, fname, "axis %s is out of range 1..%d (or -%d..-1)", tostring(ax), rank, rank)
  end
  return ax < 0 and rank + 1 + ax or ax
end

return M
