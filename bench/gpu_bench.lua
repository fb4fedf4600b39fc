-- GPU benchmarks on a real CUDA device (run by tools/gpu/run; a standalone
-- script, not a case file of bench/run.lua):
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' lua5.4 bench/gpu_bench.lua
-- Each case times gpumat and, side by side on the same card in the same
-- run, CuPy and PyTorch (bench/baselines/gpu_py.py, when python3 has them)
-- and where one exists a direct CUDA/cuBLAS call
-- (bench/baselines/cuda_baselines.c, compiled into bench/out/ with the
-- toolkit at CUDA_HOME or /usr/local/cuda):
--   elementwise on 64M floats: gpumat's own kernels (exp_, geem_,
--     broadcast add) and cuBLAS scal_/axpy_, as GB/s (and the fraction of
--     the card's peak);
--   reductions: whole-mat sum, column and row sums of 8192 x 8192
--     (sum_), the axis sum of a narrow 1e6 x 3 mat;
--   gemm_ 4096^3 float and double against cublasSgemm/Dgemm;
--   random: uniform_random_ and gaussian_random_ of 64M floats;
--   copies: D2D copy_, transpose of 8192 x 8192, 64 MiB host -> device
--     from a pinned mat (made inside with_cuda: outside it would come out
--     pageable) and a pageable one, a 64 MiB device array from the pool
--     (hit) against cudaMalloc + cudaFree.
-- Prints a Markdown table (also written to $GPUMAT_BENCH_OUT/bench.md when
-- set).  Without a usable CUDA device every case is reported as skipped
-- and the script exits 0 (tools/gpu/run counts that as a failure).
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
emit("| case | gpumat | CuPy | PyTorch | direct CUDA | note |")
emit("|---|---|---|---|---|---|")
local N = 64 << 20
-- name, key (also bench/baselines/gpu_py.py's), unit (GB/s from bytes,
-- TFLOP/s from flops, else µs), bytes or flops per call, note
local CASES = {
  { "exp_ 64M float", "exp", "GB/s", 8 * N, "gpumat unary kernel" },
  { "geem_ 64M float (c = a .* b)", "geem", "GB/s", 12 * N, "gpumat kernel" },
  { "broadcast add 8192x8192 + 1x8192 float", "broadcast", "GB/s", 8 * N, "gpumat strided kernel" },
  { "scal_ 64M float", "scal", "GB/s", 8 * N, "cuBLAS Sscal" },
  { "axpy_ 64M float", "axpy", "GB/s", 12 * N, "cuBLAS Saxpy; CuPy: two kernels" },
  { "sum 64M float (to a Lua number)", "sum", "GB/s", 4 * N, "reduce.cu, then an 8-byte D2H" },
  { "column sums 8192x8192 float (sum_ axis 1)", "colsum", "GB/s", 4 * N, "" },
  { "row sums 8192x8192 float (sum_ axis 2)", "rowsum", "GB/s", 4 * N, "" },
  { "sum(1) of 1e6x3 float", "narrow_sum", "GB/s", 12e6, "reduce_axis, short inner axis" },
  { "gemm_ 4096 float", "gemm_float", "TFLOP/s", 2 * 4096 ^ 3, "direct: cublasSgemm" },
  { "gemm_ 4096 double", "gemm_double", "TFLOP/s", 2 * 4096 ^ 3, "direct: cublasDgemm" },
  { "uniform_random_ 64M float", "uniform", "GB/s", 4 * N, "Philox" },
  { "gaussian_random_ 64M float", "gaussian", "GB/s", 4 * N, "Philox, Box-Muller" },
  { "copy_ 64M float (D2D)", "d2d", "GB/s", 8 * N, "cuBLAS Scopy" },
  { "transpose 8192x8192 float", "transpose", "GB/s", 8 * N, "geam kernel, new mat from the pool" },
  { "H2D 64 MiB pinned", "h2d_pinned", "GB/s", N, "direct: cudaMemcpy from cudaMallocHost" },
  { "H2D 64 MiB pageable", "h2d_pageable", "GB/s", N, "direct: cudaMemcpy from malloc" },
  { "pool hit 64 MiB", "pool", "µs", nil, "direct: cudaMalloc + cudaFree" },
}
-- The goals of the issues that need a card (typed mats II: half matmul,
-- cuFFT; ordering; linear algebra), each timed in its own pcall so one
-- failing case costs one row.  S holds their sizes: GPUMAT_GPU_BENCH_DRY=1
-- runs only these on the emulated device at small sizes (a check here that
-- the Lua side works before a lease is spent; no baselines, no rows kept).
local DRY = os.getenv("GPUMAT_GPU_BENCH_DRY") == "1"
-- GPUMAT_GPU_BENCH_EXTRA=1: only these rows, with their baselines (a short
-- second call on a card)
local EXTRA_ONLY = os.getenv("GPUMAT_GPU_BENCH_EXTRA") == "1"
local S = DRY and { mm = 64, fft = 1 << 12, fft2 = 64, rfft = 1 << 10, sort = 1 << 14, take_from = 1 << 14,
  take = 1 << 12, bmm = 100, bsolve = 10, solve = 64 }
  or { mm = 8192, fft = 1 << 24, fft2 = 4096, rfft = 1 << 22, sort = 1 << 24, take_from = 1 << 24,
    take = 1 << 22, bmm = 10000, bsolve = 1000, solve = 4096 }
local EXTRA = {
  { "matmul bfloat16 8192^3 (gemm_)", "mm_bf16", "TFLOP/s", 2 * S.mm ^ 3, "cublasGemmEx, CUBLAS_COMPUTE_32F; goal >= 0.8 of PyTorch" },
  { "matmul float16 8192^3 (gemm_)", "mm_fp16", "TFLOP/s", 2 * S.mm ^ 3, "cublasGemmEx, CUBLAS_COMPUTE_32F; goal >= 0.8 of PyTorch" },
  { "fft complex64 2^24", "fft_c64", "ms", nil, "cuFFT C2C, new result; goal <= 1.2x CuPy's time" },
  { "fft2 complex64 4096x4096", "fft2_c64", "ms", nil, "cuFFT 2-d C2C (fftn); goal <= 1.2x CuPy's time" },
  { "rfft float64 2^22", "rfft_f64", "ms", nil, "cuFFT D2Z; goal <= 1.2x CuPy's time" },
  { "sort 16M float32 (values, indices)", "sort_f32", "ms", nil, "kernels/radix.cu; CuPy: values only; PyTorch: stable=True" },
  { "argsort 16M float32", "argsort_f32", "ms", nil, "kernels/radix.cu; PyTorch: stable=True" },
  { "cumulative_sum 16M float64", "cumsum_f64", "ms", nil, "kernels/scan.cu" },
  { "take 4M of 16M float32", "take_f32", "ms", nil, "int64 1-based indices; PyTorch: index_select" },
  { "matmul 10000 x 16x16 float32 (batched)", "bmm_f32", "ms", nil, "cuBLAS strided batched gemm" },
  { "linalg.solve 1000 x 8x8 float64 (batched)", "bsolve_f64", "ms", nil, "getrfBatched/getrsBatched" },
  { "linalg.solve 4096 float64, one right-hand side", "solve_f64", "ms", nil, "cuSOLVER getrf + getrs" },
}

local ok, why = gm.cuda_available()
if not ok and not DRY then
  for _, c in ipairs(CASES) do emit(("| %s | skipped | | | | no CUDA device: %s |"):format(c[1], tostring(why))) end
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
local have_c = not DRY and build(("cc -O2 -I%s/include -o bench/out/cuda_baselines bench/baselines/cuda_baselines.c " ..
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

-- seconds per call of f, its device work waited for
local function sync_time(f) return time(function(n) for _ = 1, n do f() end; gm.synchronize() end) end

-- "123 GB/s" (or TFLOP/s, µs) from seconds per call
local function rate(c, t)
  if not t then return "n/a" end
  if type(t) == "string" then return (t:gsub("|", "/"):gsub("\n", " "):sub(1, 160)) end
  if c[3] == "ms" then return ("%.3f ms"):format(t * 1e3) end
  if c[3] == "GB/s" then return ("%.0f GB/s"):format(c[4] / t / 1e9) end
  if c[3] == "TFLOP/s" then return ("%.1f TFLOP/s"):format(c[4] / t / 1e12) end
  return ("%.2f µs"):format(t * 1e6)
end

-- CuPy and PyTorch on the same card: one python3 run for every case
local py = { cupy = {}, torch = {} }
local py_note = {}
if not DRY then
  local keys = {}
  if EXTRA_ONLY then for _, c in ipairs(EXTRA) do keys[#keys + 1] = c[2] end end
  local p = io.popen("timeout 200 python3 bench/baselines/gpu_py.py " .. table.concat(keys, " ") .. " 2>&1")
  for line in p:lines() do
    local lib, key, v = line:match("^(%S+) (%S+) (.*)$")
    if lib and py[lib] then
      if key == "-" then py_note[#py_note + 1] = lib .. " " .. v else py[lib][key] = tonumber(v) or v end
    end
  end
  p:close()
end
local function pycell(lib, c)
  local v = py[lib][c[2]]
  if type(v) == "number" then return rate(c, v) end
  return v and tostring(v) or "n/a"
end

local peak = baseline("peak") or {}

-- gpumat's seconds per call of each case (one CUDA context)
local function measure()
  local t = {}
  local function full(dims) return gm.mat(dims, { ctype = "float", initial_element = 1 }) end
  local x, y, z = full(N), full(N), full(N)
  gm.scal_(1, x); gm.scal_(1, y); gm.scal_(1, z) -- device facets up to date
  t.exp = sync_time(function() gm.exp_(x) end)
  gm.fill_(1, x)
  t.geem = sync_time(function() gm.geem_(1, x, y, 0, z) end)
  t.scal = sync_time(function() gm.scal_(1.0000001, x) end)
  t.axpy = sync_time(function() gm.axpy_(1e-7, x, y) end)
  t.sum = sync_time(function() return x:sum() end)
  t.uniform = sync_time(function() gm.uniform_random_(x) end)
  t.gaussian = sync_time(function() gm.gaussian_random_(x) end)
  t.d2d = sync_time(function() gm.copy_(x, y) end)
  gm.free(x); gm.free(y); gm.free(z)
  local a, c = full({ 8192, 8192 }), full({ 8192, 8192 })
  local row, col = full({ 1, 8192 }), full(8192)
  gm.scal_(1, a); gm.scal_(1, c)
  t.broadcast = sync_time(function() gm.add(a, row, { out = c }) end)
  t.colsum = sync_time(function() gm.sum_(a, col, { axis = 1 }) end)
  t.rowsum = sync_time(function() gm.sum_(a, col, { axis = 2 }) end)
  t.transpose = sync_time(function() gm.free(gm.transpose(a)) end)
  gm.free(a); gm.free(c)
  local nar, out = full({ 1000000, 3 }), full(3)
  gm.scal_(1, nar)
  t.narrow_sum = sync_time(function() gm.sum(nar, 1, { out = out }) end)
  for _, ct in ipairs { "float", "double" } do
    local n = 4096
    local ga = gm.mat({ n, n }, { ctype = ct, initial_element = 0 })
    local gb = gm.mat({ n, n }, { ctype = ct, initial_element = 0 })
    local gc = gm.mat({ n, n }, { ctype = ct, initial_element = 0 })
    t["gemm_" .. ct] = sync_time(function() gm.gemm_(1, ga, gb, 0, gc) end)
    gm.free(ga); gm.free(gb); gm.free(gc)
  end
  -- host -> device; the pinned mat is made here, inside the context
  for _, pinned in ipairs { true, false } do
    local m = gm.mat(N // 4, { ctype = "float", pinned = pinned, initial_element = 1 })
    t[pinned and "h2d_pinned" or "h2d_pageable"] = time(function(n)
      for _ = 1, n do
        gm.set(m, 1, 1.0) -- host write: the next device access copies 64 MiB in
        gm.with_facet(m, "cuda", "input", function() end)
      end
    end)
    gm.free(m)
  end
  -- (one context for all repeats: its exit would give the cached block back)
  t.pool = sync_time(function() gm.deref_buffer(gm.make_cuda_array(N, { element_type = "uint8" })) end)
  return t
end

-- gpumat's seconds per call of the EXTRA cases, each in its own pcall (an
-- error string in t[key] instead of a time)
local function measure_extra(t)
  local function case(key, setup)
    local ok, err = pcall(function()
      local f, cleanup = setup()
      t[key] = sync_time(f)
      if cleanup then cleanup() end
    end)
    if not ok then t[key] = "error: " .. tostring(err) end
    collectgarbage()
    gm.collect()
  end
  for _, ct in ipairs { { "bfloat16", "mm_bf16" }, { "float16", "mm_fp16" } } do
    case(ct[2], function()
      local a = gm.rand({ S.mm, S.mm }, { dtype = ct[1] })
      local b = gm.rand({ S.mm, S.mm }, { dtype = ct[1] })
      local c = gm.zeros({ S.mm, S.mm }, { dtype = ct[1] })
      return function() gm.gemm_(1, a, b, 0, c) end, function() gm.free(a); gm.free(b); gm.free(c) end
    end)
  end
  local function fft_case(key, x, f)
    case(key, function()
      return function() gm.free(f(x)) end, function() gm.free(x) end
    end)
  end
  fft_case("fft_c64", gm.rand(S.fft, { dtype = "float32" }):as("complex64"), gm.fft.fft)
  fft_case("fft2_c64", gm.rand({ S.fft2, S.fft2 }, { dtype = "float32" }):as("complex64"), gm.fft.fftn)
  fft_case("rfft_f64", gm.rand(S.rfft, { dtype = "float64" }), gm.fft.rfft)
  case("sort_f32", function()
    local x = gm.rand(S.sort, { dtype = "float32" })
    return function()
      local v, i = gm.sort(x)
      gm.free(v); gm.free(i)
    end, function() gm.free(x) end
  end)
  case("argsort_f32", function()
    local x = gm.rand(S.sort, { dtype = "float32" })
    return function() gm.free(gm.argsort(x)) end, function() gm.free(x) end
  end)
  case("cumsum_f64", function()
    local x = gm.rand(S.sort, { dtype = "float64" })
    return function() gm.free(gm.cumulative_sum(x)) end, function() gm.free(x) end
  end)
  case("take_f32", function()
    local x = gm.rand(S.take_from, { dtype = "float32" })
    local idx = (gm.rand(S.take, { dtype = "float64" }) * S.take_from):floor():as("int64") + 1
    return function() gm.free(gm.take(x, idx)) end, function() gm.free(x); gm.free(idx) end
  end)
  case("bmm_f32", function()
    local a = gm.rand({ S.bmm, 16, 16 }, { dtype = "float32" })
    local b = gm.rand({ S.bmm, 16, 16 }, { dtype = "float32" })
    return function() gm.free(gm.matmul(a, b)) end, function() gm.free(a); gm.free(b) end
  end)
  case("bsolve_f64", function()
    local a = gm.rand({ S.bsolve, 8, 8 }, { dtype = "float64" }) + gm.eye(8, { dtype = "float64" }) * 8
    local b = gm.rand({ S.bsolve, 8, 1 }, { dtype = "float64" })
    return function() gm.free(gm.linalg.solve(a, b)) end, function() gm.free(a); gm.free(b) end
  end)
  case("solve_f64", function()
    local a = gm.rand({ S.solve, S.solve }, { dtype = "float64" }) + gm.eye(S.solve, { dtype = "float64" }) * S.solve
    local b = gm.rand(S.solve, { dtype = "float64" })
    return function() gm.free(gm.linalg.solve(a, b)) end, function() gm.free(a); gm.free(b) end
  end)
  return t
end

if DRY then
  local t = gm.with_cuda({ backend = "emulated" }, function() return measure_extra({}) end)
  local bad = 0
  for _, c in ipairs(EXTRA) do
    local v = t[c[2]]
    print(("%-50s %s"):format(c[1], type(v) == "number" and ("%.3g s"):format(v) or tostring(v)))
    if type(v) ~= "number" then bad = bad + 1 end
  end
  os.exit(bad == 0 and 0 or 1)
end

local okm, t = true, {}
if not EXTRA_ONLY then okm, t = pcall(gm.with_cuda, CUDA, measure) end
if not okm then
  emit(("| (gpumat cases) | error | | | | %s |"):format((tostring(t):gsub("|", "/"))))
  t = {}
end
local oke, te = pcall(gm.with_cuda, CUDA, function() return measure_extra(t) end)
if not oke then emit(("| (extra cases) | error | | | | %s |"):format((tostring(te):gsub("|", "/")))) end
local direct = {}
if not EXTRA_ONLY then
  for _, ct in ipairs { "float", "double" } do
    local b = baseline(("gemm %s 4096 5"):format(ct:sub(1, 1)))
    direct["gemm_" .. ct] = b and b[1]
  end
  for _, kind in ipairs { "pinned", "pageable" } do
    local b = baseline(("h2d %d %s 5"):format(N, kind))
    direct["h2d_" .. kind] = b and b[1]
  end
  local bm = baseline(("malloc %d 20"):format(N))
  direct.pool = bm and bm[1]
end

if EXTRA_ONLY then CASES = {} end
for _, c in ipairs(EXTRA) do CASES[#CASES + 1] = c end
for _, c in ipairs(CASES) do
  local key, note = c[2], c[5]
  if c[3] == "GB/s" and peak[1] and t[key] then
    note = ("%s%s%.2f of peak %.0f GB/s"):format(note, note ~= "" and "; " or "", c[4] / t[key] / 1e9 / peak[1], peak[1])
  end
  emit(("| %s | %s | %s | %s | %s | %s |"):format(c[1], rate(c, t[key]), pycell("cupy", c), pycell("torch", c),
    direct[key] and rate(c, direct[key]) or "", note))
end
if #py_note > 0 then emit(""); emit("Python baselines: " .. table.concat(py_note, "; ")) end
if peak[2] then emit(""); emit(("Device-to-device cudaMemcpy: %.0f GB/s."):format(peak[2])) end
finish()
