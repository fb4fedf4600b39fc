-- Whole programs as users write them (bench/programs/*.lua), each against
-- its numpy twin (bench/programs/*.py) in the same run: an MLP, softmax
-- regression, k-means, PCA by power iteration and logistic regression.
-- The programs allocate every result (no out= buffers, no
-- collectgarbage()); both sides start from the same .npy data and initial
-- weights (bench/programs/data.py, fixed seeds) and must end at the same
-- result (a final loss, inertia or eigenvalue sum).
--
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' \
--     lua5.4 bench/programs_bench.lua [--rounds N] [--no-emulated] [--cpu] [--markdown FILE] [name ...]
--
-- The data go to $TMPDIR/gpumat-bench-programs (default /tmp).
-- Each run is a fresh process that reports the time of its main loop
-- (after loading the data), its result and its peak resident memory
-- (VmHWM).  Rounds interleave numpy (as users run it, and with freed
-- pages kept: see KEEP_PAGES), gpumat on the host and gpumat on the
-- emulated device (GPUMAT_DEVICE=emulated), rotating who goes first; the
-- table shows the best time and the lowest peak over the rounds.
-- --cpu compares the processes' CPU time of the main loop instead of the
-- wall clock: on a machine shared with other work (load above the cores)
-- the wall clock mostly measures the scheduler; CPU time is the work, and
-- a fair measure where both sides run one thread (OPENBLAS_NUM_THREADS=1
-- GPUMAT_NUM_THREADS=1).
-- Goals: host time <= 1.0x numpy's, host peak memory <= 1.5x numpy's,
-- emulated device time <= 3x the host's.
if rawget(_G, "GPUMAT_BENCH_HARNESS") then return {} end
local bench_dir = (arg[0]:match("^(.*)/[^/]*$") or ".")
package.path = bench_dir .. "/lib/?.lua;" .. package.path
local timing = require "bench_timing"
local external = require "bench_external"
local q = external.shell_quote

local opts = { rounds = 3, emulated = true, filters = {} }
do
  local i = 1
  while i <= #arg do
    local a = arg[i]
    if a == "--rounds" then opts.rounds = assert(tonumber(arg[i + 1]), "--rounds needs a number"); i = i + 1
    elseif a == "--markdown" then opts.markdown = assert(arg[i + 1], "--markdown needs a file"); i = i + 1
    elseif a == "--no-emulated" then opts.emulated = false
    elseif a == "--cpu" then opts.cpu = true
    elseif a:sub(1, 2) == "--" then error("unknown option " .. a)
    else opts.filters[#opts.filters + 1] = a:lower() end
    i = i + 1
  end
end

local out_dir = bench_dir .. "/out"
-- the data stay outside the source tree (spec/architecture_spec.lua reads
-- every file under bench/)
local data_dir = (os.getenv("TMPDIR") or "/tmp") .. "/gpumat-bench-programs"
local prog_dir = bench_dir .. "/programs"
os.execute("mkdir -p " .. q(out_dir))
timing.init(bench_dir, out_dir) -- builds benchclock.so, the programs' wall clock
local py = external.numpy_env .. " " .. external.python
if not os.execute(string.format("test -f %s/pca_X.npy -a %s/pca_X.npy -nt %s/data.py || %s %s/data.py %s",
    q(data_dir), q(data_dir), q(prog_dir), py, q(prog_dir), q(data_dir))) then
  error("bench/programs/data.py failed (numpy missing?)")
end

-- name, description, relative tolerance of the result
local PROGRAMS = {
  { "mlp", "64-64-10 MLP, 1797 x 64 digits-shaped data, 300 Adam steps (double)", 1e-9 },
  { "softmax", "softmax regression, 5000 x 16, 10 classes, 400 GD steps (float)", 1e-3 },
  { "kmeans", "k-means, 20000 x 16, 10 clusters, 30 Lloyd iterations (double)", 1e-9 },
  { "pca", "PCA: covariance of 5000 x 64, 5 components x 100 power steps (double)", 1e-9 },
  { "logreg", "logistic regression, 10000 x 32, 300 GD steps (double)", 1e-9 },
}

local function run(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local text = p:read("a")
  local ok = p:close()
  local r = { text = text }
  r.time = tonumber(text:match("\ntime ([%d.e+-]+)") or text:match("^time ([%d.e+-]+)"))
  if opts.cpu then r.time = tonumber(text:match("\ncpu ([%d.e+-]+)")) end
  r.result = tonumber(text:match("result ([%w.e+-]+)"))
  r.peak = tonumber(text:match("peak_kb (%d+)"))
  if not ok or not r.time then r.error = text:gsub("\n", " "):sub(1, 300) end
  return r
end

-- numpy_kept: numpy with glibc's malloc told to keep freed memory (no
-- mmap per big array, no trim): on a VM where a page fault costs ~10 us,
-- numpy's default (each array of 128 KB and more a fresh mmap, faulted in
-- page by page) spent 2.3 of the MLP's 2.7 s in 171K page faults.  The
-- goal is against numpy as users run it; this column says how much of
-- the lead is the allocator.
local KEEP_PAGES = "MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=4294967296 "

local function side_cmd(side, name)
  if side == "numpy" or side == "numpy_kept" then
    return string.format("%s %s%s %s/%s.py %s", external.numpy_env, side == "numpy_kept" and KEEP_PAGES or "",
      external.python, q(prog_dir), name, q(data_dir))
  end
  -- OpenBLAS's own kernel choice on both sides (bench_external.own_openblas_kernel)
  local env = external.numpy_env .. (side == "emulated" and " GPUMAT_DEVICE=emulated " or " -u GPUMAT_DEVICE ")
  return string.format("%slua5.4 %s/%s.lua %s %s", env, q(prog_dir), name, q(data_dir), q(out_dir))
end

local sides = { "numpy", "numpy_kept", "host" }
if opts.emulated then sides[#sides + 1] = "emulated" end

local rows = {}
for _, p in ipairs(PROGRAMS) do
  local keep = #opts.filters == 0
  for _, f in ipairs(opts.filters) do keep = keep or p[1]:find(f, 1, true) ~= nil end
  if keep then
    local best = {}
    for round = 1, opts.rounds do
      for k = 0, #sides - 1 do
        local side = sides[(round + k - 1) % #sides + 1]
        local r = run(side_cmd(side, p[1]))
        local b = best[side] or {}
        if r.error then b.error = r.error
        else
          b.time = math.min(b.time or math.huge, r.time)
          b.peak = math.min(b.peak or math.huge, r.peak or math.huge)
          b.result = r.result
        end
        best[side] = b
      end
    end
    rows[#rows + 1] = { p = p, best = best }
    io.stderr:write(("%s done\n"):format(p[1]))
  end
end

local function fmt(x, f) return x and (f or "%.3f"):format(x) or "—" end
local function ratio(a, b) return a and b and b > 0 and a / b or nil end
local function verdict(r, limit) return r and (r <= limit and "met" or "missed") or "—" end

local lines = {
  "| program | numpy s | gpumat s | time ratio (≤ 1.0) | numpy, freed pages kept s | ratio to it | numpy peak MB | gpumat peak MB | memory ratio (≤ 1.5) | emulated s | emulated / host (≤ 3) | results agree |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|",
}
for _, row in ipairs(rows) do
  local n, h, e = row.best.numpy or {}, row.best.host or {}, row.best.emulated or {}
  local k = row.best.numpy_kept or {}
  local tr, mr, er = ratio(h.time, n.time), ratio(h.peak, n.peak), ratio(e.time, h.time)
  local kr = ratio(h.time, k.time)
  local agree = "—"
  if n.result and h.result then
    local tol = row.p[3] * math.max(1, math.abs(n.result))
    agree = math.abs(n.result - h.result) <= tol and "yes" or ("NO: %.10g vs %.10g"):format(h.result, n.result)
    if e.result and math.abs(e.result - n.result) > tol then agree = agree .. (" (emulated %.10g)"):format(e.result) end
  end
  local errs = {}
  for _, s in ipairs(sides) do
    if (row.best[s] or {}).error then errs[#errs + 1] = s .. ": " .. row.best[s].error end
  end
  if #errs > 0 then agree = agree .. " ERROR " .. table.concat(errs, "; ") end
  lines[#lines + 1] = string.format("| %s | %s | %s | %s %s | %s | %s | %s | %s | %s %s | %s | %s %s | %s |",
    row.p[1] .. ": " .. row.p[2], fmt(n.time), fmt(h.time), fmt(tr, "%.2f"), verdict(tr, 1.0), fmt(k.time),
    fmt(kr, "%.2f"),
    fmt(n.peak and n.peak / 1024, "%.0f"), fmt(h.peak and h.peak / 1024, "%.0f"), fmt(mr, "%.2f"), verdict(mr, 1.5),
    fmt(e.time), fmt(er, "%.2f"), verdict(er, 3.0), agree)
end
local uptime = io.popen("cat /proc/loadavg"):read("l")
local text = table.concat(lines, "\n") .. "\n\n" .. (opts.cpu and "CPU time of the main loop; b" or "B") ..
  "est of " .. opts.rounds .. " rounds; load average at the end: " ..
  uptime .. "\n"
io.write(text)
if opts.markdown then
  local f = assert(io.open(opts.markdown, "w"))
  f:write("Command: `lua5.4 bench/programs_bench.lua ", table.concat(arg, " "), "`\n\n", text)
  f:close()
end
