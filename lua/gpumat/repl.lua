-- The gpumat REPL (bin/gpumat).  Interactive sessions are lua5.4's own
-- REPL (`lua5.4 -i`: readline line editing and history, Ctrl-C interrupts
-- a running chunk and returns to the prompt, `=expr` and `expr` print
-- their values); bin/gpumat runs M.session() first through `-e`, which
--   * preloads the module as the global `gm`;
--   * enters one device context for the whole session (gm.with_cuda{}
--     without a body), so mats live on the GPU or the emulated device
--     when one is usable, and prints a banner that says where;
--   * replaces the global `print`, which lua.c's REPL calls to show the
--     values of an expression, by one that shows mats as gm.format_mat
--     does and tables of numbers as `{2, 3}`.
--   gpumat script [args]   runs the script (with `gm` and `arg`) inside
--                          gm.with_cuda{} (M.main)
local M = {}

-- Where ops on new mats run inside the current context.
function M.placement(gm)
  if not gm.use_cuda_p(gm.mat(1)) then
    local ok, why = gm.cuda_available()
    local env = os.getenv("GPUMAT_DEVICE")
    local reason = (env and env ~= "" and env ~= "cuda") and ("unknown GPUMAT_DEVICE " .. env)
      or (not ok and ("no usable CUDA device: " .. tostring(why))) or "cuda disabled"
    return "mats live on the host (" .. reason .. ")"
  end
  local backend = os.getenv("GPUMAT_DEVICE")
  if backend == nil or backend == "" then backend = "cuda" end
  local ok, info = pcall(gm.device_info, gm.cuda_default_device_id, { backend = backend })
  local name = ok and info.name or backend
  if backend == "emulated" then return "mats live on the emulated device (" .. name .. ")" end
  return ("mats live on CUDA device %d (%s)"):format(gm.cuda_default_device_id, name)
end

function M.banner(gm)
  return ("gpumat %s (%s): %s; gm.help() lists the functions"):format(gm.version, _VERSION,
    M.placement(gm))
end

-- A table that is a (nested) sequence of at most `budget` numbers, shown
-- as Lua would write it; nil for any other table.
local function number_table(t, budget, depth)
  if depth > 8 then return nil end
  local n, parts = #t, {}
  local count = 0
  for k in pairs(t) do
    count = count + 1
    if math.type(k) ~= "integer" or k < 1 or k > n then return nil end
  end
  if count ~= n then return nil end
  for i = 1, n do
    local v = t[i]
    if type(v) == "number" then
      budget = budget - 1
      parts[i] = tostring(v)
    elseif type(v) == "table" and getmetatable(v) == nil then
      local s
      s, budget = number_table(v, budget, depth + 1)
      if not s then return nil end
      parts[i] = s
    else
      return nil
    end
    if budget < 0 then return nil end
  end
  return "{" .. table.concat(parts, ", ") .. "}", budget
end

-- How the session shows one value.
local mat_mt
function M.show(gm, v)
  mat_mt = mat_mt or getmetatable(gm.mat(1))
  if getmetatable(v) == mat_mt then
    local ok, s = pcall(gm.format_mat, v)
    if ok then return s end
  elseif type(v) == "table" and getmetatable(v) == nil then
    local s = number_table(v, 1000, 0)
    if s then return s end
  end
  return tostring(v)
end

-- The session's `print`: print's own output for everything but mats and
-- tables of numbers.
function M.printer(gm)
  local write = io.write
  return function(...)
    local n = select("#", ...)
    for i = 1, n do
      if i > 1 then write("\t") end
      write(M.show(gm, (select(i, ...))))
    end
    write("\n")
  end
end

-- The session-wide device context stays open until the interpreter closes
-- its state; a finalizer then exits it (contexts are per thread and the
-- REPL runs on one).
local session_ctx

function M.session()
  local gm = require "gpumat"
  _G.gm = gm
  local core = require "gpumat.core"
  local ctx = core.cuda_context({}, nil, "gpumat", 1)
  session_ctx = setmetatable({ ctx = ctx }, {
    __gc = function(s) pcall(getmetatable(s.ctx).__close, s.ctx) end,
  })
  _G.print = M.printer(gm)
  io.write(M.banner(gm), "\n")
  return session_ctx ~= nil
end

function M.main(args)
  local gm = require "gpumat"
  _G.gm = gm
  gm.with_cuda({}, function()
    local script = table.remove(args, 1)
    _G.arg = args
    args[0] = script
    local fn = assert(loadfile(script))
    fn(table.unpack(args))
  end)
end

if ... == "gpumat.repl" then return M end
M.main({ ... })
