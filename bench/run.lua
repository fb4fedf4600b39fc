-- gpumat benchmark harness.  Run from the repository root:
--
--   make bench                                  (BUILD=build)
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build-bench/?.so;;' \
--     lua5.4 bench/run.lua [options] [filter ...]
--
-- options: --markdown FILE   also write the results as Markdown
--          --repeats N       timed repeats per case (median reported; default 9)
--          --min-time S      minimum seconds per repeat (default 0.1)
--          --list            list the cases and exit
--          --all-baselines   measure baselines also for cases gpumat cannot run yet
-- filters: case-insensitive substrings of "file/group/name"; a case runs
--          when any filter matches (no filter: everything).
--
-- Benchmark files are bench/*_bench.lua; see bench/README.md for their format.
local bench_dir = (arg[0]:match("^(.*)/[^/]*$") or ".")
package.path = bench_dir .. "/lib/?.lua;" .. package.path

local timing = require "bench_timing"
local external = require "bench_external"
local report = require "bench_report"

local opts = { repeats = 9, min_time = 0.1, filters = {} }
do
  local i = 1
  while i <= #arg do
    local a = arg[i]
    if a == "--markdown" then opts.markdown = assert(arg[i + 1], "--markdown needs a file"); i = i + 1
    elseif a == "--repeats" then opts.repeats = assert(tonumber(arg[i + 1]), "--repeats needs a number"); i = i + 1
    elseif a == "--min-time" then opts.min_time = assert(tonumber(arg[i + 1]), "--min-time needs a number"); i = i + 1
    elseif a == "--list" then opts.list = true
    elseif a == "--all-baselines" then opts.all_baselines = true
    elseif a:sub(1, 2) == "--" then error("unknown option " .. a)
    else opts.filters[#opts.filters + 1] = a:lower() end
    i = i + 1
  end
end

local function sh(cmd)
  local p = io.popen("{ " .. cmd .. "; } 2>/dev/null")
  local out = p:read("a")
  p:close()
  return (out:gsub("%s+$", ""))
end

external.own_openblas_kernel() -- before gpumat loads OpenBLAS

local out_dir = bench_dir .. "/out"
os.execute("mkdir -p " .. external.shell_quote(out_dir))

local gm = require "gpumat"

-- Load benchmark files ------------------------------------------------------
GPUMAT_BENCH_HARNESS = true -- standalone scripts (dist_bench.lua) return no cases
local files = {}
for path in sh("ls " .. external.shell_quote(bench_dir) .. "/*_bench.lua"):gmatch("[^\n]+") do
  local spec = dofile(path)
  local name = path:match("([^/]+)$")
  local f = { file = "bench/" .. name, title = spec.title or name, description = spec.description,
              notes = spec.notes, order = spec.order or 50, cases = {}, results = {} }
  for _, c in ipairs(spec.cases or spec) do
    local id = (name .. "/" .. (c.group or "") .. "/" .. c.name):lower()
    local keep = #opts.filters == 0
    for _, flt in ipairs(opts.filters) do
      if id:find(flt, 1, true) then keep = true end
    end
    if keep then f.cases[#f.cases + 1] = c end
  end
  if #f.cases > 0 then files[#files + 1] = f end
end

table.sort(files, function(a, b)
  if a.order ~= b.order then return a.order < b.order end
  return a.file < b.file
end)

if opts.list then
  for _, f in ipairs(files) do
    print(f.file .. "  (" .. f.title .. ")")
    for _, c in ipairs(f.cases) do print("  " .. c.name) end
  end
  os.exit(0)
end

local clock_note = timing.init(bench_dir, out_dir)

-- Runners: start() (prepare, warm up, calibrate), once() (one timed repeat,
-- seconds per iteration), finish().  Lua ones run in this process; external
-- ones in the numpy / C coprocesses (bench_external.lua).
local t_start = timing.now()
local load_start = sh("cut -d' ' -f1-3 /proc/loadavg")
local tools, tool_errors = {}, {}
tools.c, tool_errors.c = external.start_c(bench_dir, out_dir)
tools.numpy, tool_errors.numpy = external.start_numpy(bench_dir)
local c_info = tools.c and tools.c.info or {}
local np_info = tools.numpy and tools.numpy.info or {}

local function lua_runner(prepare, fixed, min_time)
  local r, run, setup, cleanup = {}, nil, nil, nil
  function r.start()
    local ok, a, b, c = pcall(prepare)
    if not ok then return nil, tostring(a) end
    run, setup, cleanup = a, b or function() end, c
    local ok2, n = pcall(timing.calibrate, run, setup, fixed, min_time)
    if not ok2 then return nil, tostring(n) end
    r.iterations = n
    return true
  end
  function r.once()
    local ok, t = pcall(timing.once, run, setup, r.iterations)
    if not ok then return nil, tostring(t) end
    return t
  end
  function r.finish()
    if cleanup then pcall(cleanup) end
    run, setup, cleanup = nil, nil, nil
  end
  return r
end

local n_keys = 0
local function baseline_runner(c, b, min_time)
  local fixed = b.iterations or c.iterations
  if b.prepare then return lua_runner(b.prepare, fixed, min_time) end
  local name = b.numpy and "numpy" or "c"
  if not tools[name] then return nil, tool_errors[name] end
  n_keys = n_keys + 1
  return tools[name]:runner(name .. n_keys, b[name], fixed, min_time)
end

-- All sides of a case are started, then timed one repeat each per round
-- (rotating who goes first), so a burst of load from other processes lands
-- on every side alike instead of on whichever ran at that moment.
-- settle: seconds to pause before each timed repeat.  Cases whose sides
-- all call OpenBLAS's threaded gemm set it: OpenBLAS workers keep spinning
-- for a while after a call, so without a pause each side would run while
-- the previous side's workers (in another process) still hold a core.
local function measure_sides(sides, repeats, settle)
  for _, s in ipairs(sides) do
    s.samples = {}
    if not s.err then
      local ok, err = s.runner.start()
      if not ok then s.err = err end
      s.started = ok
    end
  end
  for r = 1, repeats do
    for i = 0, #sides - 1 do
      local s = sides[(r + i - 1) % #sides + 1]
      if not s.err then
        if settle then os.execute(string.format("sleep %g", settle)) end
        local t, err = s.runner.once()
        if t then s.samples[#s.samples + 1] = t else s.err = err end
      end
    end
  end
  for _, s in ipairs(sides) do
    if s.started then s.runner.finish() end
    if not s.err then s.t = timing.median(s.samples) end
  end
  collectgarbage()
  collectgarbage()
end

local function missing_functions(c)
  local miss = {}
  for _, fn in ipairs(c.requires or {}) do
    if gm[fn] == nil then miss[#miss + 1] = "gm." .. fn end
  end
  return miss
end

local function run_case(c)
  local res = { name = c.name, baselines = {} }
  local per = c.per or 1
  local min_time = c.min_time or opts.min_time
  local miss = missing_functions(c)
  local t0 = timing.now()
  io.stderr:write("  " .. c.name)
  local sides, gm_side = {}, nil
  if c.skip then
    -- a case that cannot run here (e.g. needs a GPU): reported, not timed
    res.status, res.status_text = "skipped", "skipped (" .. c.skip .. ")"
  elseif #miss > 0 then
    res.status, res.status_text = "not implemented", "not implemented (" .. table.concat(miss, ", ") .. " missing)"
  else
    gm_side = { runner = lua_runner(c.prepare, c.iterations, min_time) }
    sides[1] = gm_side
  end
  if not c.skip and (gm_side or opts.all_baselines) then
    for _, b in ipairs(c.against or {}) do
      local runner, err = baseline_runner(c, b, min_time)
      sides[#sides + 1] = { runner = runner, err = err, baseline = b }
    end
  end
  measure_sides(sides, c.repeats or opts.repeats, c.settle)
  if gm_side then
    if gm_side.t then res.status, res.t = "ok", gm_side.t / per
    else res.status, res.status_text = "error", "error: " .. tostring(gm_side.err):gsub("\n", " ") end
  end
  for _, s in ipairs(sides) do
    local b = s.baseline
    if b then
      local row = { label = b.label, goal = b.goal, note = s.runner and s.runner.note, spec = b.numpy or b.c }
      if s.t then row.t = s.t / (b.per or per) else row.error = tostring(s.err):gsub("\n", " ") end
      if row.t and row.t > 0 and res.t then row.ratio = res.t / row.t end
      res.baselines[#res.baselines + 1] = row
    end
  end
  io.stderr:write(string.format(" (%.1f s)\n", timing.now() - t0))
  return res
end

for _, f in ipairs(files) do
  io.stderr:write("bench: " .. f.file .. "\n")
  for _, c in ipairs(f.cases) do f.results[#f.results + 1] = run_case(c) end
end
for _, t in pairs(tools) do t:close() end
local elapsed = timing.now() - t_start

-- Report --------------------------------------------------------------------
for _, f in ipairs(files) do
  print("== " .. f.title .. " (" .. f.file .. ")")
  print(report.text_table(report.rows(f.results)))
  print()
end
local missed, missing, errors = report.summary(files)
if #missed > 0 then print("Goals not reached:") for _, l in ipairs(missed) do print("  " .. l) end end
if #missing > 0 then print("Not implemented:") for _, l in ipairs(missing) do print("  " .. l) end end
if #errors > 0 then print("Errors:") for _, l in ipairs(errors) do print("  " .. l) end end
print(string.format("(%.0f s)", elapsed))

if opts.markdown then
  local core_path = package.searchpath("gpumat.core", package.cpath) or "?"
  local build_dir = core_path:match("^(.-)/gpumat/core%.so$") or core_path
  local build_type = sh("grep -m1 '^CMAKE_BUILD_TYPE:' " .. external.shell_quote(build_dir .. "/CMakeCache.txt"))
    :gsub(":STRING", "")
  local cmd_args = {}
  for i = 1, #arg do cmd_args[i] = arg[i]:find("[^%w%./_-]") and external.shell_quote(arg[i]) or arg[i] end
  local command = string.format("LUA_PATH=%s LUA_CPATH=%s %s %s %s",
    external.shell_quote(os.getenv("LUA_PATH") or ""), external.shell_quote(os.getenv("LUA_CPATH") or ""),
    arg[-1] or "lua5.4", arg[0], table.concat(cmd_args, " "))
  local function env(name) return os.getenv(name) or "unset" end
  local head = sh("git -C " .. external.shell_quote(bench_dir) .. " rev-parse --short HEAD")
  local dirty = sh("git -C " .. external.shell_quote(bench_dir) .. " status --porcelain | head -1")
  local ctx = {
    date = os.date("!%Y-%m-%d %H:%M UTC"),
    elapsed = string.format("%.0f", elapsed),
    build_dir = build_dir,
    command = command:gsub("%s+$", ""),
    repeats = opts.repeats, min_time = opts.min_time,
    machine = {
      "CPU: " .. sh("grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2-"):gsub("^%s+", "") ..
        " (family " .. sh("grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2-"):gsub("^%s+", "") ..
        ", model " .. sh("grep -m1 '^model\\s' /proc/cpuinfo | cut -d: -f2-"):gsub("^%s+", "") ..
        (sh("grep -m1 -o -w avx512f /proc/cpuinfo") ~= "" and ", AVX-512" or "") .. ")" ..
        ", nproc: " .. sh("nproc") .. ", " .. sh("uname -sr"),
      "source tree: commit " .. head .. (dirty ~= "" and " plus uncommitted changes" or ""),
      "gpumat: `" .. core_path .. "` (" .. (build_type ~= "" and build_type or "build type unknown") ..
        "), " .. _VERSION,
      "OpenBLAS of the gpumat process and the C baselines: " .. (c_info.openblas_config or "?") ..
        ", kernel " .. (c_info.openblas_corename or "?") .. ", " .. (c_info.openblas_threads or "?") ..
        " threads; environment OPENBLAS_CORETYPE=" .. env("OPENBLAS_CORETYPE") ..
        ", OPENBLAS_L2_SIZE=" .. env("OPENBLAS_L2_SIZE") ..
        ", OPENBLAS_NUM_THREADS=" .. env("OPENBLAS_NUM_THREADS"),
      "numpy " .. (np_info.numpy_version or "?") .. " (" .. external.python ..
        ", run as `" .. external.numpy_env .. " ...`): OpenBLAS kernel " ..
        (np_info.openblas_corename or "?") .. ", " .. (np_info.openblas_threads or "?") .. " threads",
      "gpumat host threads: GPUMAT_NUM_THREADS=" .. env("GPUMAT_NUM_THREADS") ..
        " (unset: one per online CPU); numpy's elementwise ufuncs are single-threaded",
      "load average (1, 5, 15 min) at start: " .. load_start .. ", at end: " ..
        sh("cut -d' ' -f1-3 /proc/loadavg") .. " (other work on the machine inflates " ..
        "times; the sides of a case are interleaved repeat by repeat, so ratios suffer less)",
      "timer: " .. clock_note,
    },
    baseline_notes = {
      "memcpy: `c_baselines.c`, `memcpy` of n·sizeof(ctype) bytes between two " ..
        "pre-touched buffers (one read stream, one write stream), compiled with cc -O2.",
      "cblas: `c_baselines.c`, `cblas_sgemm`/`cblas_dgemm` row-major, no transpose, " ..
        "alpha 1, beta 0, linked with -lopenblas (the library gpumat links).",
      "lua table: the same loop over plain Lua tables in the same process.",
    },
  }
  local seen = {}
  for _, f in ipairs(files) do
    for _, res in ipairs(f.results) do
      for _, row in ipairs(res.baselines) do
        if row.note and row.note ~= "" and row.spec and not seen[row.label .. row.note] then
          seen[row.label .. row.note] = true
          ctx.baseline_notes[#ctx.baseline_notes + 1] =
            string.format("%s (%s %s): `%s`", row.label, row.spec.op, row.spec.dtype, row.note)
        end
      end
    end
  end
  local fh = assert(io.open(opts.markdown, "w"))
  fh:write(report.markdown(ctx, files))
  fh:close()
  io.stderr:write("bench: wrote " .. opts.markdown .. "\n")
end
