-- Every op family of spec/device_ops.lua on mats of at least 1M elements,
-- timed on the host and on the emulated device in the same run, with the
-- ratio emulated / host.  The emulated device runs kernels/*.cu through
-- the CPU model of CUDA (kernels/cpu/cuda_cpu.h) and BLAS/LAPACK on its
-- own memory, so the ratio is the price of the kernels' shape on a CPU:
-- the goal is at most 3 for every op.
--
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' \
--     lua5.4 bench/emulated_bench.lua [--repeats N] [--markdown FILE] [filter ...]
--
-- A standalone script, not a case file of bench/run.lua (it needs an open
-- emulated device for the whole run): loaded by run.lua it gives no cases.
-- Timing: the host and the device side of a case alternate repeat by
-- repeat (load from other processes hits both alike); each repeat
-- restores the inputs (outside the timed region), runs the op a fixed
-- number of times and, on the device, waits for it (gm.synchronize); the
-- minimum over the repeats is reported (the machine is shared: the
-- minimum is the least disturbed repeat).
if rawget(_G, "GPUMAT_BENCH_HARNESS") then return {} end
local bench_dir = (arg[0]:match("^(.*)/[^/]*$") or ".")
package.path = bench_dir .. "/lib/?.lua;" .. package.path
local gm = require "gpumat"
local timing = require "bench_timing"

local opts = { repeats = 7, filters = {} }
do
  local i = 1
  while i <= #arg do
    local a = arg[i]
    if a == "--repeats" then opts.repeats = assert(tonumber(arg[i + 1]), "--repeats needs a number"); i = i + 1
    elseif a == "--markdown" then opts.markdown = assert(arg[i + 1], "--markdown needs a file"); i = i + 1
    elseif a:sub(1, 2) == "--" then error("unknown option " .. a)
    else opts.filters[#opts.filters + 1] = a:lower() end
    i = i + 1
  end
end

os.execute("mkdir -p " .. bench_dir .. "/out")
timing.init(bench_dir, bench_dir .. "/out")

-- Operands: `dev` says whether the mat may go to the device.  Contents in
-- [0.25, 0.75) (safe for log, sqrt, inv), from a fixed seed.
local function mk(dev, dims, ct, lo)
  local m = gm.mat(dims, { ctype = ct, cuda_enabled = dev })
  gm.uniform_random_(m, { limit = 0.5, state = gm.random_state() })
  gm.add_scalar_(lo or 0.25, m)
  return m
end
local function zeros(dev, dims, ct) return gm.mat(dims, { ctype = ct, cuda_enabled = dev, initial_element = 0 }) end

local SQ = { 1024, 1024 }
local N = 1024 * 1024

-- A case: make(dev, ct) builds the operands and returns run() (one op)
-- and optionally restore() (puts mutated inputs back, untimed).
local cases = {}
local function case(family, name, make, iters) cases[#cases + 1] = { family = family, name = name, make = make, iters = iters } end

-- Restores x from a pristine copy on the same side.
local function keep(dev, x)
  local orig = gm.copy_mat(x)
  return function() gm.copy_(orig, x) end
end

case("fill_", "fill_ 1M", function(dev, ct)
  local x = zeros(dev, N, ct)
  return function() gm.fill_(1.5, x) end
end)

for _, op in ipairs({ "asum", "nrm2" }) do
  case("BLAS level 1", op .. " 1M", function(dev, ct)
    local x = mk(dev, N, ct)
    return function() return gm[op](x) end
  end)
end
case("BLAS level 1", "dot 1M", function(dev, ct)
  local x, y = mk(dev, N, ct), mk(dev, N, ct)
  return function() return gm.dot(x, y) end
end)
case("BLAS level 1", "axpy_ 1M", function(dev, ct)
  local x, y = mk(dev, N, ct), mk(dev, N, ct)
  return function() gm.axpy_(0.5, x, y) end, keep(dev, y)
end)
case("BLAS level 1", "copy_ 1M", function(dev, ct)
  local x, y = mk(dev, N, ct), zeros(dev, N, ct)
  return function() gm.copy_(x, y) end
end)
case("BLAS level 1", "scal_ 1M", function(dev, ct)
  local x = mk(dev, N, ct)
  return function() gm.scal_(1.0001, x) end, keep(dev, x)
end)
case("BLAS level 1", "scal_ by 0, 1M", function(dev, ct)
  local x = mk(dev, N, ct)
  return function() gm.scal_(0, x) end, keep(dev, x)
end)

case("gemm_", "gemm_ 1024x1024", function(dev, ct)
  local a, b, c = mk(dev, SQ, ct), mk(dev, SQ, ct), zeros(dev, SQ, ct)
  return function() gm.gemm_(1, a, b, 0, c) end
end, 2)

case("geam users", "transpose 1024x1024", function(dev, ct)
  local a = mk(dev, SQ, ct)
  return function() return gm.transpose(a) end
end)
case("geam users", "m_add 1024x1024", function(dev, ct)
  local a, b = mk(dev, SQ, ct), mk(dev, SQ, ct)
  return function() return gm.m_add(a, b) end
end)
case("geam users", "2 * a 1024x1024", function(dev, ct)
  local a = mk(dev, SQ, ct)
  return function() return 2 * a end
end)

for _, f in ipairs({ "square", "sqrt", "log", "exp", "inv", "logistic", "sin", "cos", "tan", "sinh", "cosh", "tanh" }) do
  case("unary elementwise", f .. "_ 1M", function(dev, ct)
    local x = mk(dev, N, ct)
    return function() gm[f .. "_"](x) end, keep(dev, x)
  end)
end

case("binary and scalar", "add_scalar_ 1M", function(dev, ct)
  local x = mk(dev, N, ct)
  return function() gm.add_scalar_(0.001, x) end, keep(dev, x)
end)
case("binary and scalar", "expt_ 1M", function(dev, ct)
  local x = mk(dev, N, ct)
  return function() gm.expt_(x, 1.5) end, keep(dev, x)
end)
case("binary and scalar", "min_ 1M", function(dev, ct)
  local x = mk(dev, N, ct)
  return function() gm.min_(0.5, x) end
end)
case("binary and scalar", "mul_ 1M", function(dev, ct)
  local x, y = mk(dev, N, ct), mk(dev, N, ct, 0.9)
  return function() gm.mul_(x, y) end, keep(dev, y)
end)
case("binary and scalar", "lt_ 1M", function(dev, ct)
  local x, y = mk(dev, N, ct), mk(dev, N, ct)
  return function() gm.lt_(x, y) end, keep(dev, y)
end)
case("binary and scalar", "geem_ 1M", function(dev, ct)
  local a, b, c = mk(dev, N, ct), mk(dev, N, ct), mk(dev, N, ct)
  return function() gm.geem_(1, a, b, 0.5, c) end, keep(dev, c)
end)
case("binary and scalar", "add_sign_ 1M", function(dev, ct)
  local a, b = mk(dev, N, ct, -0.5), mk(dev, N, ct)
  return function() gm.add_sign_(0.5, a, 0.5, b) end, keep(dev, b)
end)

-- Row-broadcast ops and sums on square, narrow and wide shapes.
local SHAPES = { { 1024, 1024 }, { 349526, 3 }, { 104858, 10 }, { 37450, 28 }, { 4, 262144 } }
local function shape_name(d) return d[1] .. "x" .. d[2] end
for _, d in ipairs(SHAPES) do
  case("binary and scalar", "geerv_ " .. shape_name(d), function(dev, ct)
    local a, x, b = mk(dev, d, ct), mk(dev, d[2], ct), mk(dev, d, ct)
    return function() gm.geerv_(0.5, a, x, 0.5, b) end, keep(dev, b)
  end)
end
for _, d in ipairs(SHAPES) do
  for axis = 1, 2 do
    case("sum_, scale_rows_, scale_columns_", ("sum_ axis %d %s"):format(axis, shape_name(d)), function(dev, ct)
      local x, y = mk(dev, d, ct), zeros(dev, d[3 - axis], ct)
      return function() gm.sum_(x, y, { axis = axis }) end
    end)
  end
  case("sum_, scale_rows_, scale_columns_", "scale_rows_ " .. shape_name(d), function(dev, ct)
    local s, a, r = mk(dev, d[1], ct), mk(dev, d, ct), zeros(dev, d, ct)
    return function() gm.scale_rows_(s, a, { result = r }) end
  end)
  case("sum_, scale_rows_, scale_columns_", "scale_columns_ " .. shape_name(d), function(dev, ct)
    local s, a, r = mk(dev, d[2], ct), mk(dev, d, ct), zeros(dev, d, ct)
    return function() gm.scale_columns_(s, a, { result = r }) end
  end)
end

-- NN: 1024 images of 32x32 (1M elements), a 3x3 kernel, 2x2 pools.
local NN = { 1024, 32, 32 }
local copts = { batched = true, anchor = { 2, 2 } }
local popts = { pool_dimensions = { 2, 2 }, stride = { 2, 2 }, batched = true }
case("NN", "convolve_ 1024x32x32, 3x3", function(dev, ct)
  local x, w, y = mk(dev, NN, ct), mk(dev, { 3, 3 }, ct), zeros(dev, NN, ct)
  return function() gm.convolve_(x, w, y, copts) end
end)
case("NN", "derive_convolve_ 1024x32x32, 3x3", function(dev, ct)
  local x, w, y = mk(dev, NN, ct), mk(dev, { 3, 3 }, ct), mk(dev, NN, ct)
  local xd, wd = zeros(dev, NN, ct), zeros(dev, { 3, 3 }, ct)
  return function() gm.derive_convolve_(x, xd, w, wd, y, copts) end
end)
case("NN", "max_pool_ 1024x32x32, 2x2", function(dev, ct)
  local x, y = mk(dev, NN, ct), zeros(dev, { 1024, 16, 16 }, ct)
  return function() gm.max_pool_(x, y, popts) end
end)
case("NN", "derive_max_pool_ 1024x32x32, 2x2", function(dev, ct)
  local x, y = mk(dev, NN, ct), zeros(dev, { 1024, 16, 16 }, ct)
  gm.max_pool_(x, y, popts)
  local yd, xd = mk(dev, { 1024, 16, 16 }, ct), zeros(dev, NN, ct)
  return function() gm.derive_max_pool_(x, xd, y, yd, popts) end
end)

case("non-destructive", "copy_mat 1024x1024", function(dev, ct)
  local a = mk(dev, SQ, ct)
  return function() return gm.copy_mat(a) end
end)
case("non-destructive", "copy_column 1048576x2", function(dev, ct)
  local a = mk(dev, { N, 2 }, ct)
  return function() return gm.copy_column(a, 2) end
end)
case("non-destructive", "m_mul 1024x1024", function(dev, ct)
  local a, b = mk(dev, SQ, ct), mk(dev, SQ, ct)
  return function() return gm.m_mul(a, b) end
end, 2)

case("stack", "stack 2 x 1024x512", function(dev, ct)
  local a, b = mk(dev, { 1024, 512 }, ct), mk(dev, { 1024, 512 }, ct)
  local out = zeros(dev, SQ, ct)
  return function() gm.stack_(2, { a, b }, out) end
end)

case("invert and logdet", "invert 1024x1024", function(dev, ct)
  local a = mk(dev, SQ, ct)
  return function() return gm.invert(a) end
end, 1)
case("invert and logdet", "logdet 1024x1024", function(dev, ct)
  local a = mk(dev, SQ, ct)
  return function() return gm.logdet(a) end
end, 1)

case("random", "uniform_random_ 1M", function(dev, ct)
  local x = zeros(dev, N, ct)
  return function() gm.uniform_random_(x) end
end)
case("random", "gaussian_random_ 1M", function(dev, ct)
  local x = zeros(dev, N, ct)
  return function() gm.gaussian_random_(x) end
end)

for _, op in ipairs({ "sum", "min", "max" }) do
  case("whole-mat reductions", "m:" .. op .. "() 1M", function(dev, ct)
    local x = mk(dev, N, ct)
    return function() return x[op](x) end
  end)
end

-- Reductions along an axis on narrow and square shapes: short rows
-- (sum(2) of 60000x3, 180K elements: a new user timed it at 40x the host
-- when each row ran as a block of fibers), long narrow axes (sum(1),
-- mean(1)), softmax and var.
local AXIS_CASES = {
  { "sum", { 60000, 3 }, 2 }, { "sum", { 60000, 3 }, 1 }, { "sum", { 1000000, 3 }, 2 },
  { "mean", { 1000000, 3 }, 1 }, { "var", { 1000000, 3 }, 1 }, { "max", { 1000000, 3 }, 2 },
  { "softmax", { 349526, 3 }, 1 }, { "softmax", { 349526, 3 }, 2 }, { "logsumexp", { 104858, 10 }, 2 },
  { "sum", { 1024, 1024 }, 1 }, { "sum", { 1024, 1024 }, 2 }, { "argmax", { 1024, 1024 }, 1 },
  { "sum", { 4, 262144 }, 2 }, { "mean", { 104858, 10 }, 1 },
}
for _, c in ipairs(AXIS_CASES) do
  local op, d, axis = c[1], c[2], c[3]
  case("reductions along an axis", ("%s(%d) %s"):format(op, axis, shape_name(d)), function(dev, ct)
    local x = mk(dev, d, ct)
    return function() return x[op](x, axis) end
  end)
end

-- Broadcasting with a short innermost axis, and narrow transposes.
case("broadcasting", "(N,3) + (N,1), N = 349526", function(dev, ct)
  local a, b = mk(dev, { 349526, 3 }, ct), mk(dev, { 349526, 1 }, ct)
  return function() return gm.add(a, b) end
end)
case("broadcasting", "(N,3) * (1,3), N = 349526", function(dev, ct)
  local a, b = mk(dev, { 349526, 3 }, ct), mk(dev, { 1, 3 }, ct)
  return function() return gm.cmul(a, b) end
end)
case("geam users", "transpose 349526x3", function(dev, ct)
  local a = mk(dev, { 349526, 3 }, ct)
  return function() return gm.transpose(a) end
end)
case("geam users", "transpose 3x349526", function(dev, ct)
  local a = mk(dev, { 3, 349526 }, ct)
  return function() return gm.transpose(a) end
end)

case("displaced views", "exp_ of a view at displacement 1, 1M", function(dev, ct)
  local base = mk(dev, N + 1, ct)
  local v = gm.mat(N, { displaced_to = base, displacement = 1 })
  return function() gm.exp_(v) end, keep(dev, base)
end)

-- Sorting, selection, sets and search (bench/ordering_bench.lua's rows):
-- hashed values h(k) = (k * 2654435761) % 2^32 (h / 2^32, or int32 h % 1000).
local function hashed(dev, n, ct, unique)
  local h = gm.cmul(gm.arange(n), 2654435761) % 4294967296
  local v = unique and (h % 1000) or (h:astype("float64") * (1 / 4294967296))
  local m = gm.mat(n, { ctype = unique and "int32" or ct, cuda_enabled = dev })
  gm.copy_(v:astype(m:dtype()), m)
  return m
end
local N16 = 4096 * 4096
case("ordering", "sort 16M", function(dev, ct)
  local a = hashed(dev, N16, ct)
  return function() return gm.sort(a) end
end, 1)
case("ordering", "argsort 4M", function(dev, ct)
  local a = hashed(dev, N16 // 4, ct)
  return function() return gm.argsort(a) end
end, 1)
case("ordering", "sort along axis 2 of 4096x4096", function(dev, ct)
  local a = hashed(dev, N16, ct):view(4096, 4096)
  return function() return gm.sort(a) end
end, 1)
case("ordering", "topk 10 of 16M", function(dev, ct)
  local a = hashed(dev, N16, ct)
  return function() return gm.topk(a, 10) end
end, 1)
case("ordering", "unique_values of 4M int32 (1000 distinct)", function(dev)
  local a = hashed(dev, N16 // 4, nil, true)
  return function() return gm.unique_values(a) end
end, 1)
case("ordering", "searchsorted 1M into 16M", function(dev, ct)
  local s, q = gm.sort(hashed(dev, N16, ct)), hashed(dev, 1048576, ct)
  return function() return gm.searchsorted(s, q) end
end, 1)

---------------------------------------------------------------------------

local function selected(c)
  if #opts.filters == 0 then return true end
  local id = (c.family .. "/" .. c.name):lower()
  for _, f in ipairs(opts.filters) do
    if id:find(f, 1, true) then return true end
  end
  return false
end

-- Seconds per op of `iters` calls, after restore(); the device side waits
-- for its work before the clock stops.
local function one_repeat(side)
  if side.restore then side.restore() end
  collectgarbage()
  local t0 = timing.now()
  for _ = 1, side.iters do side.run() end
  if side.dev then gm.synchronize() end
  return (timing.now() - t0) / side.iters
end

-- Iterations for a repeat of about 50 ms (at least 1, at most 50).
local function calibrate(side, fixed)
  if side.restore then side.restore() end
  side.run() -- warm-up: first-touch, device copies
  if side.dev then gm.synchronize() end
  side.iters = 1
  local t = one_repeat(side)
  side.iters = fixed or math.max(1, math.min(50, math.floor(0.05 / math.max(t, 1e-9))))
end

local function fmt(t)
  if t >= 1 then return ("%.2f s"):format(t) end
  if t >= 1e-3 then return ("%.2f ms"):format(t * 1e3) end
  return ("%.1f us"):format(t * 1e6)
end

local rows = {}
local worst = 0
gm.with_cuda({ backend = "emulated" }, function()
  for _, c in ipairs(cases) do
    if selected(c) then
      for _, ct in ipairs({ "float", "double" }) do
        local sides = {}
        for i, dev in ipairs({ false, true }) do
          local run, restore = c.make(dev, ct)
          sides[i] = { dev = dev, run = run, restore = restore }
          calibrate(sides[i], c.iters)
        end
        local best = { math.huge, math.huge }
        for r = 1, opts.repeats do
          for k = 0, 1 do
            local i = (r + k) % 2 + 1
            best[i] = math.min(best[i], one_repeat(sides[i]))
          end
        end
        local ratio = best[2] / best[1]
        worst = math.max(worst, ratio)
        local row = { c.family, c.name, ct, fmt(best[1]), fmt(best[2]), ("%.2f"):format(ratio),
                      ratio <= 3 and "met" or "MISSED" }
        rows[#rows + 1] = row
        print(("%-34s %-38s %-6s host %10s  emulated %10s  ratio %6s  %s"):format(table.unpack(row)))
        io.stdout:flush()
        sides = nil
        collectgarbage()
      end
    end
  end
end)
print(("worst ratio %.2f"):format(worst))

if opts.markdown then
  local f = assert(io.open(opts.markdown, "w"))
  f:write("| family | op | ctype | host | emulated | ratio | ≤ 3× |\n|---|---|---|---|---|---|---|\n")
  for _, r in ipairs(rows) do f:write("| " .. table.concat(r, " | ") .. " |\n") end
  f:close()
end
