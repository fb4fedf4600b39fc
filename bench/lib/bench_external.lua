-- External baselines, measured in the same run as the gpumat cases and
-- interleaved with them repeat by repeat (so load from other processes on a
-- shared machine hits every side alike):
--   numpy: bench/baselines/numpy_ops.py under Debian's /usr/bin/python3 (the
--          python3 on PATH may lack numpy), with OPENBLAS_CORETYPE and
--          OPENBLAS_L2_SIZE unset in that command only so numpy picks its own
--          kernel; it reports which one it runs.
--   c:     bench/baselines/c_baselines.c (memcpy, direct cblas_?gemm), built
--          with cc -O2 -lopenblas into bench/out/ and run with the harness's
--          environment, i.e. the same OpenBLAS settings the gpumat process has.
-- Each tool is a coprocess: the harness writes commands into a FIFO that is
-- the tool's stdin and reads answers from its stdout (protocol in
-- numpy_ops.py's main()).  Every command gets exactly one answer line.
local M = {}

M.python = "/usr/bin/python3"
M.numpy_env = "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE"

local function shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end
M.shell_quote = shell_quote

local Tool = {}
Tool.__index = Tool

-- Start `cmd` reading from a fresh FIFO; nil, message when it cannot start.
local function start(name, cmd, out_dir)
  local fifo = out_dir .. "/" .. name .. ".fifo"
  if not os.execute("rm -f " .. shell_quote(fifo) .. " && mkfifo " .. shell_quote(fifo)) then
    return nil, "mkfifo failed"
  end
  -- Opened read-write, so it never blocks and a tool that dies early cannot
  -- turn our next write into a SIGPIPE; we only ever write to it.
  local wr = io.open(fifo, "r+")
  -- stderr goes to a log file: answers must be the only lines on the pipe.
  local log = out_dir .. "/" .. name .. ".log"
  local rd = wr and io.popen(cmd .. " < " .. shell_quote(fifo) .. " 2> " .. shell_quote(log), "r")
  if not (rd and wr) then return nil, "cannot start " .. name end
  wr:setvbuf("line")
  local t = setmetatable({ name = name, rd = rd, wr = wr, log = log, info = {} }, Tool)
  t:call("info", nil, function(line)
    local k, v = line:match("^info (%S+) (.*)$")
    if k then t.info[k] = v end
  end)
  return t
end

-- Send one command and read lines until the answer for it; a dead tool
-- makes every later call fail with its log's tail.
function Tool:call(command, key, on_info)
  if self.dead then return nil, self.dead end
  self.wr:write(command, "\n")
  self.wr:flush()
  while true do
    local line = self.rd:read("l")
    if not line then
      local f = io.open(self.log)
      local tail = f and f:read("a"):sub(-300):gsub("\n", " ") or ""
      if f then f:close() end
      self.dead = self.name .. " baseline process died: " .. tail
      return nil, self.dead
    end
    if line == "end info" and not key then return true end
    if on_info and line:match("^info ") then on_info(line)
    else
      local kind, k, rest = line:match("^(%S+) (%S+) ?(.*)$")
      if k == key then
        if kind == "error" then return nil, rest end
        return kind, rest
      end
    end
  end
end

-- Returns a runner {start, once, finish} for spec {op, dtype, dims}.
function Tool:runner(key, spec, fixed, min_time)
  local self_ = self
  local r = {}
  function r.start()
    local dims = {}
    for i, d in ipairs(spec.dims) do dims[i] = tostring(d) end
    local kind, rest = self_:call(string.format("prepare %s %g %d %s %s %s", key, min_time,
      fixed or 0, spec.op, spec.dtype, table.concat(dims, " ")), key)
    if kind ~= "ready" then return nil, rest or ("unexpected answer " .. tostring(kind)) end
    local n, note = rest:match("^(%d+) ?(.*)$")
    r.iterations, r.note = tonumber(n), note
    return true
  end
  function r.once()
    local kind, rest = self_:call("run " .. key, key)
    if kind ~= "time" then return nil, rest or "no time" end
    return tonumber(rest)
  end
  function r.finish() self_:call("free " .. key, key) end
  return r
end

function Tool:close()
  pcall(self.wr.close, self.wr)
  pcall(self.rd.close, self.rd)
end

function M.build_c(bench_dir, out_dir)
  local exe = out_dir .. "/c_baselines"
  local src = bench_dir .. "/baselines/c_baselines.c"
  local cmd = string.format(
    "test %s -nt %s || cc -O2 -std=c11 -Wall -I/usr/include/x86_64-linux-gnu/openblas-pthread " ..
    "-o %s %s -lopenblas 2>&1", exe, src, exe, src)
  local p = io.popen(cmd)
  local out = p:read("a")
  local ok = p:close()
  if not ok then return nil, "cc failed: " .. out:gsub("\n", " ") end
  return exe
end

-- Both tools are started once per harness run; nil, message on failure.
function M.start_c(bench_dir, out_dir)
  local exe, err = M.build_c(bench_dir, out_dir)
  if not exe then return nil, err end
  return start("c", shell_quote(exe), out_dir)
end

function M.start_numpy(bench_dir, out_dir)
  return start("numpy", string.format("%s %s %s", M.numpy_env, M.python,
                                      shell_quote(bench_dir .. "/baselines/numpy_ops.py")),
               out_dir)
end

return M
