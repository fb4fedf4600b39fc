-- GPU benchmarks on a real CUDA device (run by tools/gpu/run; a standalone
-- script, not a case file of bench/run.lua):
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' lua5.4 bench/gpu_bench.lua
-- Cases, each against a direct CUDA/cuBLAS call (bench/baselines/cuda_baselines.c,
-- compiled into bench/out/ with the toolkit at CUDA_HOME or /usr/local/cuda):
--   elementwise scal_/axpy_ on 64M floats: bandwidth against the card's
--     theoretical peak and a device-to-device cudaMemcpy;
--   gemm_ 4096^3 float and double against cublasSgemm/Dgemm;
--   64 MiB host -> device copies from a pinned and from a pageable mat
--     against cudaMemcpy from cudaMallocHost and malloc memory;
--   a 64 MiB device array from the pool (hit) against cudaMalloc + cudaFree.
-- Prints a Markdown table (also written to $GPUMAT_BENCH_OUT/bench.md when
-- set).  Without a usable CUDA device every case is reported as skipped
-- and the script exits 0.
if rawget(_G, "GPUMAT_BENCH_HARNESS") then return {} end
local gm = require "gpumat"

local out_dir = os.getenv("GPUMAT_BENCH_OUT")
local lines = {}
local function emit(s)
  print(s)
  lines[#lines + 1] = s
end
local function finish()
  if out_dir then
    local f = assert(io.open(out_dir .. "/bench.md", "w"))
    f:write(table.concat(lines, "\n"), "\n")
    f:close()
  end
end

emit("### GPU benchmarks (bench/gpu_bench.lua)")
emit("")
emit("| case | gpumat | baseline | ratio gpumat/baseline | note |")
emit("|---|---|---|---|---|")
local CASES = { "elementwise scal_ 64M float", "elementwise axpy_ 64M float", "gemm_ 4096 float",
  "gemm_ 4096 double", "H2D 64 MiB pinned", "H2D 64 MiB pageable", "pool hit 64 MiB" }

local ok, why = gm.cuda_available()
if not ok then
  for _, c in ipairs(CASES) do emit(("| %s | skipped | | | no CUDA device: %s |"):format(c, tostring(why))) end
  finish()
  return
end

-- wall clock and the C baselines, built on first use
os.execute("mkdir -p bench/out")
local cuda = os.getenv("CUDA_HOME") or "/usr/local/cuda"
local lua_inc = os.getenv("GPUMAT_LUA_INCLUDE") or "/usr/include/lua5.4"
local function build(cmd) return os.execute(cmd .. " 2>>bench/out/gpu_bench_build.log") end
local clock = os.clock
if build(("cc -O2 -shared -fPIC -I%s -o bench/out/benchclock.so bench/baselines/clock.c"):format(lua_inc)) then
  local loader = package.loadlib("bench/out/benchclock.so", "luaopen_benchclock")
  if loader then clock = loader().now end
end
local have_c = build(("cc -O2 -I%s/include -o bench/out/cuda_baselines bench/baselines/cuda_baselines.c " ..
  "-L%s/lib64 -Wl,-rpath,%s/lib64 -lcublas -lcudart"):format(cuda, cuda, cuda))
local function baseline(args)
  if not have_c then return nil end
  local p = io.popen("bench/out/cuda_baselines " .. args)
  local s = p:read("a")
  p:close()
  local t = {}
  for v in s:gmatch("[%d%.e%-]+") do t[#t + 1] = tonumber(v) end
  return t[1] and t or nil
end

-- median seconds per call of f(n) over 5 repeats, n grown to 0.1 s
local function time(f)
  f(1)
  local n = 1
  while true do
    local t0 = clock()
    f(n)
    if clock() - t0 > 0.1 or n >= 1 << 20 then break end
    n = n * 2
  end
  local ts = {}
  for r = 1, 5 do
    local t0 = clock()
    f(n)
    ts[r] = (clock() - t0) / n
  end
  table.sort(ts)
  return ts[3]
end

local CUDA = { backend = "cuda" }
local function fmt_s(t) return ("%.3f ms"):format(t * 1e3) end

local peak = baseline("peak") or {}
local N = 64 << 20
gm.with_cuda(CUDA, function()
  local x = gm.mat(N, { ctype = "float", initial_element = 1 })
  local y = gm.mat(N, { ctype = "float", initial_element = 1 })
  gm.scal_(1, x)
  gm.scal_(1, y)
  local function bw(bytes, f)
    local t = time(function(n) for _ = 1, n do f() end; gm.synchronize() end)
    return bytes / t / 1e9
  end
  local note = peak[1] and ("peak %.0f GB/s, D2D cudaMemcpy %.0f GB/s"):format(peak[1], peak[2]) or "no baseline"
  local s = bw(2 * 4 * N, function() gm.scal_(1.0000001, x) end)
  emit(("| %s | %.0f GB/s | %s | %s | %s |"):format(CASES[1], s, peak[1] and ("%.0f GB/s"):format(peak[1]) or "n/a",
    peak[1] and ("%.2f of peak"):format(s / peak[1]) or "", note))
  local a = bw(3 * 4 * N, function() gm.axpy_(1e-7, x, y) end)
  emit(("| %s | %.0f GB/s | %s | %s | %s |"):format(CASES[2], a, peak[1] and ("%.0f GB/s"):format(peak[1]) or "n/a",
    peak[1] and ("%.2f of peak"):format(a / peak[1]) or "", note))
  gm.free(x)
  gm.free(y)
end)

for i, ct in ipairs { "float", "double" } do
  local n = 4096
  local a, b, c
  gm.with_cuda(CUDA, function()
    a = gm.mat({ n, n }, { ctype = ct, initial_element = 0 })
    b = gm.mat({ n, n }, { ctype = ct, initial_element = 0 })
    c = gm.mat({ n, n }, { ctype = ct, initial_element = 0 })
    local t = time(function(k) for _ = 1, k do gm.gemm_(1, a, b, 0, c) end; gm.synchronize() end)
    local base = baseline(("gemm %s %d 5"):format(ct:sub(1, 1), n))
    local tf = 2 * n ^ 3 / t / 1e12
    emit(("| %s | %s (%.1f TFLOP/s) | %s | %s | cublas%sgemm direct |"):format(CASES[2 + i], fmt_s(t), tf,
      base and fmt_s(base[1]) or "n/a", base and ("%.2f"):format(t / base[1]) or "", ct == "float" and "S" or "D"))
  end)
end

for i, pinned in ipairs { true, false } do
  local m = gm.mat(N // 4, { ctype = "float", pinned = pinned, initial_element = 1 })
  local t
  gm.with_cuda(CUDA, function()
    t = time(function(n)
      for _ = 1, n do
        gm.set(m, 1, 1.0) -- host write: the next device access copies 64 MiB in
        gm.with_facet(m, "cuda", "input", function() end)
      end
    end)
  end)
  local base = baseline(("h2d %d %s 5"):format(N, pinned and "pinned" or "pageable"))
  emit(("| %s | %.1f GB/s | %s | %s | cudaMemcpy from %s |"):format(CASES[4 + i], N / t / 1e9,
    base and ("%.1f GB/s"):format(N / base[1] / 1e9) or "n/a", base and ("%.2f (time)"):format(t / base[1]) or "",
    pinned and "cudaMallocHost" or "malloc"))
  gm.free(m)
end

do
  -- one context for all repeats: its exit would give the cached block back
  local t
  gm.with_cuda(CUDA, function()
    t = time(function(n)
      for _ = 1, n do gm.deref_buffer(gm.make_cuda_array(N, { element_type = "uint8" })) end
      gm.synchronize()
    end)
  end)
  local base = baseline(("malloc %d 20"):format(N))
  emit(("| %s | %.2f µs | %s | %s | cudaMalloc + cudaFree |"):format(CASES[7], t * 1e6,
    base and ("%.2f µs"):format(base[1] * 1e6) or "n/a", base and ("%.3f"):format(t / base[1]) or ""))
end
finish()
