-- The gpumat REPL (bin/gpumat): Lua 5.4's read-eval-print loop with the
-- module preloaded as the global `gm`, run inside gm.with_cuda{} so that,
-- when a device is usable (a CUDA GPU, or GPUMAT_DEVICE=emulated), mats
-- live on it for the whole session; otherwise everything runs on the host.
-- The first line printed says which.
--   gpumat                 interactive session
--   gpumat script [args]   runs the script (with `gm` and `arg`) instead
-- Like lua.c's REPL: a line is first tried as an expression (its values
-- are printed), then as a statement; an incomplete chunk asks for more
-- with ">> "; errors print their message and the session goes on.  One
-- addition: "statements; expression" runs the statements and prints the
-- expression (`m = gm.mat(3); m + 1`).
local M = {}

-- Where ops on new mats run inside the current context.
function M.placement(gm)
  if not gm.use_cuda_p(gm.mat(1)) then
    local ok, why = gm.cuda_available()
    local env = os.getenv("GPUMAT_DEVICE")
    local reason = (env and env ~= "" and env ~= "cuda") and ("unknown GPUMAT_DEVICE " .. env)
      or (not ok and why) or "cuda disabled"
    return "mats live on the host (" .. tostring(reason) .. ")"
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

local function report(ok, ...)
  if not ok then
    local msg = ...
    io.stderr:write(tostring(msg), "\n")
    io.stderr:flush()
  elseif select("#", ...) > 0 then
    print(...)
  end
end

local function incomplete(err) return err and err:sub(-5) == "<eof>" end

function M.loop(gm)
  print(M.banner(gm))
  while true do
    io.stdout:write("> ")
    io.stdout:flush()
    local line = io.read("L")
    if not line then io.stdout:write("\n") return end
    local chunk = line:gsub("^=", "return ")
    local fn = load("return " .. chunk, "=stdin", "t")
    if not fn then
      local err
      fn, err = load(chunk, "=stdin", "t")
      while not fn and incomplete(err) do
        io.stdout:write(">> ")
        io.stdout:flush()
        local more = io.read("L")
        if not more then break end
        chunk = chunk .. more
        fn, err = load(chunk, "=stdin", "t")
      end
      if not fn then -- "statements; expression" prints the expression
        local stmts, expr = chunk:match("^(.*);([^;]*)$")
        local fn2 = stmts and expr:find("%S") and load(stmts .. "; return " .. expr, "=stdin", "t")
        if fn2 then fn, err = fn2, nil end
      end
      if not fn then
        io.stderr:write(err, "\n")
        io.stderr:flush()
      end
    end
    if fn then report(xpcall(fn, function(e) return type(e) == "string" and e or tostring(e) end)) end
  end
end

function M.main(args)
  local gm = require "gpumat"
  _G.gm = gm
  gm.with_cuda({}, function()
    if args[1] then
      local script = table.remove(args, 1)
      _G.arg = args
      args[0] = script
      local fn = assert(loadfile(script))
      fn(table.unpack(args))
    else
      M.loop(gm)
    end
  end)
end

if ... == "gpumat.repl" then return M end
M.main({ ... })
