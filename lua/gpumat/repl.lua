-- The gpumat REPL (bin/gpumat).  An interactive session is M.interactive():
-- lua5.4's REPL rewritten in Lua (lua.c's doREPL: `expr` and `=expr` show
-- their values, an incomplete chunk continues at `>>`, errors print a
-- traceback and the session goes on) with what lua.c lacks:
--   * Ctrl-C at the prompt (empty, half-typed or at `>>`) discards the
--     line and prompts again, as Python and trepl do; lua5.4 leaves SIGINT
--     at its default action there and the session is lost.  Ctrl-C during
--     a running chunk stops it with "interrupted!", as lua.c does
--     (src/lua/l_repl.c does the signal side);
--   * line editing, history kept across sessions (~/.gpumat_history) and
--     Tab completion of names (`gm.ze` -> `gm.zeros`, `m:resh` ->
--     `m:reshape`) through Debian's lua-readline when it is installed
--     (plain lines otherwise);
--   * values shown for people: mats as gm.format_mat, tables of numbers
--     as `{2, 3}`, other tables as `{key = value, ...}`, several results
--     one per line when any of them spans lines.
-- M.session() preloads the module as the global `gm`, enters one device
-- context for the whole session (gm.with_cuda{} without a body), so mats
-- live on the GPU or the emulated device when one is usable, and prints a
-- banner that says where.
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

-- A plain table as Lua would write it, keys sorted, nested tables and
-- long contents cut at `budget` characters; nil when it has a metatable.
local function record_table(t, budget, depth)
  if getmetatable(t) ~= nil then return nil end
  if depth > 3 then return "{...}" end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(x, y)
    local tx, ty = type(x), type(y)
    if tx ~= ty then return tx < ty end
    if tx == "number" or tx == "string" then return x < y end
    return tostring(x) < tostring(y)
  end)
  local parts, used, n = {}, 2, #t
  for _, k in ipairs(keys) do
    local v = t[k]
    local vs = type(v) == "string" and ("%q"):format(v)
      or (type(v) == "table" and record_table(v, budget // 2, depth + 1)) or tostring(v)
    local item = (math.type(k) == "integer" and k >= 1 and k <= n) and vs
      or (type(k) == "string" and k:match("^[%a_][%w_]*$") and (k .. " = " .. vs))
      or ("[" .. (type(k) == "string" and ("%q"):format(k) or tostring(k)) .. "] = " .. vs)
    used = used + #item + 2
    if used > budget then
      parts[#parts + 1] = "..."
      break
    end
    parts[#parts + 1] = item
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end

-- How the session shows one value.
local mat_mt
function M.show(gm, v)
  mat_mt = mat_mt or getmetatable(gm.mat(1))
  if getmetatable(v) == mat_mt then
    local ok, s = pcall(gm.format_mat, v)
    if ok then return s end
  elseif type(v) == "table" and getmetatable(v) == nil then
    local s = number_table(v, 1000, 0) or record_table(v, 2000, 0)
    if s then return s end
  end
  return tostring(v)
end

-- The session's `print`: print's own output for everything but mats and
-- plain tables; values that span lines (mats) are each put on lines of
-- their own, so two mats never run together.
function M.printer(gm)
  local write = io.write
  return function(...)
    local n = select("#", ...)
    local shown, multi = {}, false
    for i = 1, n do
      shown[i] = M.show(gm, (select(i, ...)))
      multi = multi or shown[i]:find("\n", 1, true) ~= nil
    end
    write(table.concat(shown, multi and "\n" or "\t"), "\n")
  end
end

-- ---- the interactive loop (lua.c's doREPL) ----

local function message_of(e)
  if type(e) == "string" then return e end
  local mt = getmetatable(e)
  if mt and mt.__tostring then return tostring(e) end
  return ("(error object is a %s value)"):format(type(e))
end

-- The traceback down to the chunk: the REPL's own frames (xpcall and
-- below) are cut, as lua.c's traceback ends at the chunk.
local function traceback(e)
  local tb = debug.traceback(message_of(e), 2)
  return (tb:gsub("\n%s*%[C%]: in function 'xpcall'.*$", ""))
end

-- Reads one line with lua-readline's callback interface, so that a Ctrl-C
-- while waiting (core._repl_wait_input) ends the read: -> the line, nil at
-- end of input, false on Ctrl-C.
local function readline_reader(RL, core)
  return function(prompt)
    local line, done = nil, false
    RL.handler_install(prompt, function(l)
      line, done = l, true
      RL.handler_remove() -- now, or readline shows the next prompt at once
    end)
    while not done do
      if not core._repl_wait_input() then
        if RL.sigcleanup then RL.sigcleanup() end
        -- the terminal is still prepared: readline restores it while its
        -- stream is open, before lua-readline closes the stream (l_repl.c)
        core._repl_readline_remove()
        RL.handler_remove()
        io.write("\n")
        return false
      end
      core._repl_blocked(RL.read_char)
    end
    return line
  end
end

-- Plain lines (no terminal, or no lua-readline): a Ctrl-C interrupts the
-- read (no SA_RESTART), which io.read reports as an error.
local function plain_reader()
  return function(prompt)
    io.write(prompt)
    io.flush()
    local line, err = io.read("l")
    if line == nil and err then
      io.write("\n")
      return false
    end
    return line
  end
end

-- Tab completion: the names after the last `.` or `:` of a chain of
-- names (`gm.ze`, `m:resh`, `string.fo`), or globals.
function M.completions(word, mat_methods)
  local chain, sep, stem = word:match("^([%a_][%w_%.:]-)([%.:])([%w_]*)$")
  local scope, out = _G, {}
  if chain then
    for name in chain:gmatch("[^%.:]+") do
      if type(scope) ~= "table" and type(scope) ~= "userdata" then return out end
      local ok, v = pcall(function() return scope[name] end)
      if not ok then return out end
      scope = v
    end
  else
    stem, chain, sep = word, "", ""
  end
  local source = scope
  if type(scope) == "userdata" then
    source = mat_methods
  elseif type(scope) == "string" then
    source = string
  end
  local names = {}
  if type(source) == "table" then
    for k, v in pairs(source) do
      if type(k) == "string" and k:sub(1, #stem) == stem and k:match("^[%a_][%w_]*$")
        and (sep ~= ":" or type(v) == "function") then
        names[#names + 1] = k
      end
    end
  end
  table.sort(names)
  for i, k in ipairs(names) do out[i] = chain .. sep .. k end
  return out
end

local function make_reader(core)
  if not core._repl_stdin_tty() then return plain_reader(), nil end
  local ok, RL = pcall(require, "readline")
  if not ok or type(RL) ~= "table" or not RL.handler_install then return plain_reader(), nil end
  RL.set_options({ histfile = "~/.gpumat_history", auto_add = false, keeplines = 1000 })
  RL.set_readline_name("gpumat")
  RL.set_completion_append_character("")
  local methods = core.mat_methods()
  RL.set_complete_function(function(text, from, to)
    local ok2, r = pcall(M.completions, text:sub(from, to), methods)
    return ok2 and r or {}
  end)
  return readline_reader(RL, core), RL
end

-- One statement or expression, read over as many lines as it takes:
-- -> a function, or nil and a message, or false (Ctrl-C) or nil (end).
local function read_chunk(read)
  local line = read("> ")
  if not line then return line end
  if line:sub(1, 1) == "=" then line = "return " .. line:sub(2) end -- as lua5.2
  local fn = load("return " .. line, "=stdin")
  if fn then return fn, nil, line end
  local buffer = line
  while true do
    local f, err = load(buffer, "=stdin")
    if f then return f, nil, buffer end
    if not err:find("<eof>$") then return nil, err, buffer end
    local more = read(">> ")
    if more == false then return false end
    if more == nil then return nil, err, buffer end
    buffer = buffer .. "\n" .. more
  end
end

local function run(core, fn)
  core._repl_signal("run")
  local results = table.pack(xpcall(fn, traceback))
  core._repl_signal("prompt")
  if not results[1] then
    io.stderr:write("gpumat: ", message_of(results[2]), "\n")
  elseif results.n > 1 then
    print(table.unpack(results, 2, results.n))
  end
end

function M.interactive()
  local core = require "gpumat.core"
  local release, copyright = core._repl_release()
  io.write(copyright or release, "\n")
  M.session()
  local read, RL = make_reader(core)
  core._repl_signal("prompt")
  local last
  while true do
    local fn, err, text = read_chunk(read)
    if fn == nil and err == nil then break end -- end of input (Ctrl-D)
    if RL and text and text ~= "" and text ~= last then
      RL.add_history(text)
      last = text
    end
    if fn then
      run(core, fn)
    elseif err then
      io.stderr:write("gpumat: ", err, "\n")
    end
    io.stdout:flush()
  end
  io.write("\n")
  if RL then RL.save_history() end
  core._repl_signal("default")
  os.exit(0, true)
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
