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

-- Debian's python3 has python3-numpy; GPUMAT_BENCH_PYTHON picks another.
M.python = os.getenv("GPUMAT_BENCH_PYTHON") or "/usr/bin/python3"
M.numpy_env = "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE"

local function shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end
M.shell_quote = shell_quote

-- The gpumat side picks OpenBLAS's kernel as numpy's does: a harness
-- started with OPENBLAS_CORETYPE or OPENBLAS_L2_SIZE set (this project's
-- VM sets OPENBLAS_CORETYPE=Haswell) runs itself again without them,
-- before anything loads OpenBLAS.  Before, only numpy's command dropped
-- them: gpumat's products ran the AVX2 kernel against numpy's AVX-512 one
-- (a 1024 x 1024 float product 12.3 ms against 7.5; both 7.1-7.2 with the
-- same kernel, both 12.3-12.9 with Haswell's).  GPUMAT_BENCH_KEEP_OPENBLAS_ENV=1
-- keeps them (numpy's command still drops them).  Returns only when no
-- re-run is needed; else exits with the re-run's status.
function M.own_openblas_kernel()
  if not (os.getenv("OPENBLAS_CORETYPE") or os.getenv("OPENBLAS_L2_SIZE")) then return end
  if os.getenv("GPUMAT_BENCH_KEEP_OPENBLAS_ENV") == "1" then return end
  local lo = 0
  while arg[lo - 1] do lo = lo - 1 end
  local words = {}
  for i = lo, #arg do words[#words + 1] = shell_quote(arg[i]) end
  local ok, how, code = os.execute(M.numpy_env .. " " .. table.concat(words, " "))
  os.exit(how == "exit" and code or 1)
end

local Tool = {}
Tool.__index = Tool

-- Start `cmd` reading from a fresh FIFO; nil, message when it cannot start.
-- The FIFO gets a unique name (several harness runs may share bench/out/)
-- and is unlinked once both ends are open.
local function start(name, cmd)
  local fifo = os.tmpname()
  if not os.execute("rm -f " .. shell_quote(fifo) .. " && mkfifo " .. shell_quote(fifo)) then
    return nil, "mkfifo failed"
  end
  -- Opened read-write, so it never blocks and a tool that dies early cannot
  -- turn our next write into a SIGPIPE; we only ever write to it.
  local wr = io.open(fifo, "r+")
  -- stderr goes to a log file: answers must be the only lines on the pipe.
  local log = os.tmpname()
  local rd = wr and io.popen(cmd .. " < " .. shell_quote(fifo) .. " 2> " .. shell_quote(log), "r")
  if not (rd and wr) then os.remove(fifo) return nil, "cannot start " .. name end
  wr:setvbuf("line")
  local t = setmetatable({ name = name, rd = rd, wr = wr, log = log, info = {} }, Tool)
  t:call("info", nil, function(line)
    local k, v = line:match("^info (%S+) (.*)$")
    if k then t.info[k] = v end
  end)
  os.remove(fifo) -- the tool has answered, so its shell has opened the FIFO
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
      local text = f and f:read("a") or ""
      if f then f:close() end
      local last = "no message"
      for l in text:gmatch("[^\n]+") do last = l end
      self.dead = self.name .. " baseline process died: " .. last
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

-- Tools exit on "quit": end of input never comes while other children of
-- this process hold inherited copies of the FIFO open.
function Tool:close()
  if not self.dead then self.wr:write("quit\n") self.wr:flush() end
  pcall(self.wr.close, self.wr)
  pcall(self.rd.close, self.rd)
  os.remove(self.log)
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
  return start("c", shell_quote(exe))
end

function M.start_numpy(bench_dir)
  return start("numpy", string.format("%s %s %s", M.numpy_env, M.python,
                                      shell_quote(bench_dir .. "/baselines/numpy_ops.py")))
end

return M
