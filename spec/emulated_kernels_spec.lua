-- The emulated device runs the library's own CUDA kernels: kernels/*.cu
-- compiled at build time for the CPU model of CUDA (cmake/EmulatedKernels.cmake,
-- kernels/cpu/emu_kernels.h).  Every op family the CUDA backend runs as a
-- kernel must (1) launch the matching .cu kernel on the emulated device,
-- counted by gm.emulated_kernel_launches(), and (2) give the host's values.
-- The host path never counts a launch.  Runs in every suite pass (the
-- device part opens the emulated device explicitly, as device_spec does).
local gm = require "gpumat"
local ops = require "device_ops"

local EMU = { backend = "emulated" }
local CTYPES = { "float", "double" }

-- kernels whose blocks synchronize (gm_block_sum, shared-memory merges): the launch
-- sites say GM_LAUNCH_SYNC, so they run as fibers with a real barrier
local SYNC = {
  reduce_axis_kernel = true, gm_transpose_kernel = true,
  -- the sort's per-thread digit counters in shared memory (kernels/radix.cu)
  radix_scatter_kernel = true, pair_split_kernel = true, pair_buckets_kernel = true, pair_lines_kernel = true,
  key_lines_kernel = true,
}

local function launches()
  local t = {}
  for k, v in pairs(gm.emulated_kernel_launches()) do t[k] = v.launches end
  return t
end

-- Runs fn and returns {kernel = launches during fn}.
local function count(fn)
  local before = launches()
  fn()
  local d = {}
  for k, n in pairs(launches()) do
    if n ~= (before[k] or 0) then d[k] = n - (before[k] or 0) end
  end
  return d
end

local function family(name)
  for _, f in ipairs(ops.families) do
    if f.name == name then return f end
  end
  error("no family " .. name)
end

local function read(path)
  -- a kernel's __FILE__ is relative to the build directory when ccache's
  -- base_dir rewrites the compiler's paths
  local f = io.open(path, "rb") or io.open((os.getenv("GPUMAT_BUILD_DIR") or "build") .. "/" .. path, "rb")
  assert(f, path .. ": No such file")
  local s = f:read("a")
  f:close()
  return s
end

-- max |h - d| / max(1, max |h|) over the elements of two mats of equal
-- shape, computed on the host (no Lua tables: the suite's aggressive-GC
-- pass makes big tables slow); NaN if either holds a NaN.
local function maxdiff(h, d)
  return gm.with_cuda({ enabled = false }, function()
    assert.are.same({ h:dims() }, { d:dims() })
    local diff = gm.m_sub(h, d)
    local e = math.max(diff:max(), -diff:min())
    return e / math.max(1, h:max(), -h:min())
  end)
end

-- Runs run() on the host and on the emulated device and asserts that its
-- i-th results agree within tol (maxdiff), label naming the case in the
-- message; returns the emulated device's launches during its run (count).
local function agree(run, tol, label)
  local h = table.pack(gm.with_cuda({ enabled = false }, run))
  local dv
  local k = count(function() dv = table.pack(gm.with_cuda(EMU, run)) end)
  for i = 1, h.n do
    local e = maxdiff(h[i], dv[i])
    assert.is_true(e <= tol, ("%s result %d: relative difference %s"):format(label, i, e))
  end
  return k
end

-- The body of function `name` in C++ source src (from its first "{"
-- after "name(" to the matching "}"), or nil.
local function body(src, name)
  local from = 1
  while true do
    local i, j = src:find("[%s%*]" .. name .. "%(", from)
    if not i then return nil end
    local open = src:find("[{;]", j)
    if open and src:sub(open, open) == "{" then
      local depth, k = 0, open
      while k <= #src do
        local c = src:sub(k, k)
        if c == "{" then depth = depth + 1 elseif c == "}" then depth = depth - 1; if depth == 0 then break end end
        k = k + 1
      end
      return src:sub(open, k)
    end
    from = j + 1
  end
end

-- A kernel's name as src defines it: base itself, or the NAME##ARG of a
-- macro that pastes base together (gm_imatmul_kernel_##N gives
-- gm_imatmul_kernel_int8), or nil where src defines neither.
local function source_name(src, base)
  if src:find("__global__ void " .. base .. "(", 1, true) then return base end
  for prefix, arg in src:gmatch("__global__ void ([%w_]+)##([%w_]+)%(") do
    if #base > #prefix and base:sub(1, #prefix) == prefix then return prefix .. "##" .. arg end
  end
end

-- Whether function `name` of src reaches __syncthreads() through the
-- functions src defines (depth-limited: our kernels nest one level).
local function syncs(src, name, depth)
  depth = depth or 0
  local b = body(src, name)
  if not b then return false end
  if b:find("__syncthreads()", 1, true) then return true end
  if depth >= 3 then return false end
  for callee in b:gmatch("([%a_][%w_]*)%s*%(") do
    if callee ~= name and callee ~= "if" and callee ~= "for" and callee ~= "while" and callee ~= "switch"
        and callee ~= "return" and syncs(src, callee, depth + 1) then
      return true
    end
  end
  return false
end

-- The kernels (base name -> .cu file) each family must launch; "<T>" is
-- replaced by the ctype.
local FAMILIES = {
  { "fill_", { ["gm_fill_kernel<T>"] = "fill" } },
  { "unary elementwise", { ["unary_kernel<T>"] = "elementwise" } },
  { "binary and scalar elementwise", {
    ["scalar_kernel<T>"] = "elementwise", ["geem_kernel<T>"] = "elementwise", ["lt_kernel<T>"] = "elementwise",
    ["add_sign_kernel<T>"] = "elementwise", ["geerv_kernel<T>"] = "elementwise" } },
  { "sum_, scale_rows_, scale_columns_", {
    ["colsum_part_kernel<T>"] = "elementwise", ["rowsum_kernel<T>"] = "elementwise",
    ["sum_regroup_kernel"] = "elementwise", ["scale_kernel<T>"] = "elementwise" } },
  { "NN (convolve_, derive_convolve_, max_pool_, derive_max_pool_)", {
    ["convolve_kernel<T>"] = "nn", ["conv_dx_kernel<T>"] = "nn", ["conv_dw_part_kernel<T>"] = "nn",
    ["conv_dw_finish_kernel<T>"] = "nn",
    ["max_pool_kernel<T>"] = "nn", ["pool_dx_kernel<T>"] = "nn" } },
  { "reductions along an axis (rows, column tiles, middle axes, whole mats)", {
    ["reduce_axis_kernel<T>"] = "reduce_axis", ["reduce_axis_items<T>"] = "reduce_axis",
    ["reduce_axis_tiles<T>"] = "reduce_axis", ["reduce_axis_softmax_rows<T>"] = "reduce_axis" } },
}

describe("kernels/*.cu on the emulated device", function()
  for _, spec in ipairs(FAMILIES) do
    local name, kernels = spec[1], spec[2]
    it(name .. " launches the .cu kernels and agrees with the host", function()
      local f = family(name)
      for _, ctype in ipairs(CTYPES) do
        local d = count(function() ops.agree(f, ctype, EMU) end)
        for k in pairs(kernels) do
          local kt = k:gsub("<T>", "<" .. ctype .. ">")
          assert.is_true((d[kt] or 0) >= 1, ("%s %s: %s was not launched"):format(name, ctype, kt))
        end
      end
    end)
  end

  it("random fills launch random.cu and give the host's samples", function()
    for _, ctype in ipairs(CTYPES) do
      for _, n in ipairs { 1, 7, 20001 } do -- 20001: many Philox blocks and thread blocks, a partial last one
        local function fill()
          local u, g = gm.mat(n, { ctype = ctype }), gm.mat(n, { ctype = ctype })
          gm.seed(42)
          gm.uniform_random_(u, { limit = 3 })
          gm.gaussian_random_(g, { mean = 2, stddev = 0.5 })
          return u, g
        end
        local hu, hg = gm.with_cuda({ enabled = false }, fill)
        local du, dg
        local d = count(function()
          du, dg = gm.with_cuda(EMU, function()
            local u, g = fill()
            assert.is_truthy(u:facets():find("C", 1, true))
            return u, g
          end)
        end)
        assert.are.equal(1, d["gm_uniform_kernel<" .. ctype .. ">"], ctype)
        assert.are.equal(1, d["gm_gaussian_kernel<" .. ctype .. ">"], ctype)
        assert.are.equal(0, maxdiff(hu, du), ("uniform %s n=%d"):format(ctype, n))
        assert.is_true(maxdiff(hg, dg) <= ops.TOL[ctype], ("gaussian %s n=%d"):format(ctype, n))
      end
    end
  end)

  -- Passes of reduce.cu over n values: slots of 8 pieces of 16 values,
  -- at most 1024 x 256 of them, down to one value.
  local function reduce_passes(n)
    local passes = 1
    while n > 1 do
      n = math.min(math.ceil(n / 128), 1024 * 256)
      if n > 1 then passes = passes + 1 end
    end
    return passes
  end
  assert(reduce_passes(1) == 1 and reduce_passes(128) == 1 and reduce_passes(129) == 2)

  it("sum, min and max launch reduce.cu (every pass) and agree with the host", function()
    for _, ctype in ipairs(CTYPES) do
      for _, n in ipairs { 1, 255, 70001, 4194307 } do -- one to four passes, ragged pieces and slots
        local function reduce()
          local m = gm.mat(n, { ctype = ctype })
          gm.seed(n)
          gm.uniform_random_(m, { limit = 8 })
          gm.add_scalar_(-4, m)
          return m:sum(), m:min(), m:max()
        end
        local h = table.pack(gm.with_cuda({ enabled = false }, reduce))
        local dv
        local d = count(function() dv = table.pack(gm.with_cuda(EMU, reduce)) end)
        -- one pass over the mat, then passes over the (double) partials
        local later = 3 * (reduce_passes(n) - 1)
        if ctype == "float" then
          assert.are.equal(3, d["reduce_pass<float>"], ctype)
          assert.are.equal(later, d["reduce_pass<double>"] or 0, ctype)
        else
          assert.are.equal(3 + later, d["reduce_pass<double>"], ctype)
        end
        for i = 1, 3 do
          assert.is_true(math.abs(h[i] - dv[i]) <= 1e-9 * math.max(1, math.abs(h[i])),
            ("%s n=%d result %d: %s vs %s"):format(ctype, n, i, h[i], dv[i]))
        end
      end
      -- NaN anywhere gives NaN for min and max, through the partial passes too
      local t = {}
      for i = 1, 3000 do t[i] = i end
      t[2999] = 0 / 0
      local mn, mx = gm.with_cuda(EMU, function()
        local m = gm.mat(3000, { ctype = ctype, initial_contents = t })
        return m:min(), m:max()
      end)
      assert.is_true(mn ~= mn and mx ~= mx, ctype)
    end
  end)

  it("multi-block grids: row and column sums, broadcasts and unary ops agree with the host", function()
    for _, ctype in ipairs(CTYPES) do
      local function run()
        local rows, cols = 37, 5000 -- rowsum: 37 rows x chunks of the columns on grid.x
        local x = gm.mat({ rows, cols }, { ctype = ctype })
        gm.seed(7)
        gm.uniform_random_(x)
        local rs = gm.mat(rows, { ctype = ctype, initial_element = 1 })
        gm.sum_(x, rs, { axis = 2, alpha = 0.5, beta = 2 })
        local cs = gm.mat({ 1, cols }, { ctype = ctype, initial_element = 0 })
        gm.sum_(x, cs, { axis = 1 })
        local tall = gm.mat({ 3000, 7 }, { ctype = ctype })
        gm.uniform_random_(tall)
        local tcs = gm.mat({ 1, 7 }, { ctype = ctype, initial_element = 0 })
        gm.sum_(tall, tcs, { axis = 1 })
        gm.tanh_(x)
        local b = gm.mat({ rows, cols }, { ctype = ctype, initial_element = 1 })
        local v = gm.mat(cols, { ctype = ctype })
        gm.uniform_random_(v)
        gm.geerv_(2, x, v, -1, b)
        return rs, cs, tcs, b
      end
      local k = agree(run, ops.TOL[ctype], ctype)
      -- 5000-wide rows in 40 slots each and 3000 rows in 24 chunks: partials
      -- and a finish pass; 37 rows in one chunk: no partials
      assert.are.equal(1, k["rowsum_slots_kernel<" .. ctype .. ">"], ctype)
      assert.are.equal(2, k["colsum_part_kernel<" .. ctype .. ">"], ctype)
      assert.are.equal(2, k["sum_finish_kernel<" .. ctype .. ">"], ctype)
    end
  end)

  -- Row-structured kernels (ROWS_2D: several rows per block for narrow
  -- rows; range launches on the emulated device) and the sums' chunking
  -- on narrow, 28-wide, wide, single-row and single-column shapes, with
  -- row lengths around the one-pass limit of row sums (32 columns).
  it("row geometries: narrow, wide, one row, one column agree with the host", function()
    local shapes = { { 1000, 3 }, { 999, 10 }, { 300, 28 }, { 50, 32 }, { 50, 33 }, { 3, 5000 }, { 1, 777 },
                     { 777, 1 }, { 1, 1 } }
    for _, ctype in ipairs(CTYPES) do
      for _, d in ipairs(shapes) do
        local function run()
          gm.seed(d[1] * 7 + d[2])
          local x = gm.mat(d, { ctype = ctype })
          gm.uniform_random_(x, { limit = 2 })
          local v = gm.mat(d[2], { ctype = ctype })
          gm.uniform_random_(v)
          local s = gm.mat(d[1], { ctype = ctype })
          gm.uniform_random_(s)
          local b = gm.mat(d, { ctype = ctype, initial_element = 1 })
          gm.geerv_(0.5, x, v, -2, b)
          local r = gm.mat(d, { ctype = ctype, initial_element = 0 })
          gm.scale_rows_(s, x, { result = r })
          local c = gm.copy_mat(x)
          gm.scale_columns_(v, c)
          local rs = gm.mat(d[1], { ctype = ctype, initial_element = 1 })
          gm.sum_(x, rs, { axis = 2, alpha = 0.5, beta = 2 })
          local cs = gm.mat({ 1, d[2] }, { ctype = ctype, initial_element = 1 })
          gm.sum_(x, cs, { axis = 1, alpha = 2, beta = -1 })
          return b, r, c, rs, cs, gm.transpose(x)
        end
        local k = agree(run, ops.TOL[ctype], ("%s %dx%d"):format(ctype, d[1], d[2]))
        -- rows of up to 32 elements are summed in one pass (a thread a row), longer ones by slots
        local one = d[2] <= 32
        assert.are.equal(one, (k["rowsum_kernel<" .. ctype .. ">"] or 0) == 1, ("%dx%d one pass"):format(d[1], d[2]))
        assert.are.equal(not one, (k["rowsum_slots_kernel<" .. ctype .. ">"] or 0) == 1, ("%dx%d slots"):format(
          d[1], d[2]))
      end
    end
  end)

  it("NN ops on 28-wide batched images agree with the host", function()
    for _, ctype in ipairs(CTYPES) do
      local function run()
        gm.seed(28)
        local x = gm.mat({ 5, 28, 28 }, { ctype = ctype })
        gm.uniform_random_(x)
        local w = gm.mat({ 3, 3 }, { ctype = ctype })
        gm.uniform_random_(w)
        local opts = { batched = true, anchor = { 2, 2 } }
        local y = gm.mat({ 5, 28, 28 }, { ctype = ctype, initial_element = 0 })
        gm.convolve_(x, w, y, opts)
        local xd = gm.mat({ 5, 28, 28 }, { ctype = ctype, initial_element = 0 })
        local wd = gm.mat({ 3, 3 }, { ctype = ctype, initial_element = 0 })
        gm.derive_convolve_(x, xd, w, wd, y, opts)
        local popts = { pool_dimensions = { 2, 2 }, stride = { 2, 2 }, batched = true }
        local py = gm.mat({ 5, 14, 14 }, { ctype = ctype, initial_element = 0 })
        gm.max_pool_(x, py, popts)
        local pxd = gm.mat({ 5, 28, 28 }, { ctype = ctype, initial_element = 0 })
        gm.derive_max_pool_(x, pxd, py, py, popts)
        return y, xd, wd, py, pxd
      end
      agree(run, ops.TOL[ctype] * 10, ctype)
    end
  end)

  -- An empty long dimension: the sums of nothing are 0, so y := beta * y
  -- (the launcher used to divide by a chunk length of 0: SIGFPE).
  it("sum_ over an empty dimension gives beta * y as the host does", function()
    for _, ctype in ipairs(CTYPES) do
      local function run()
        local y1 = gm.mat({ 1, 5 }, { ctype = ctype, initial_contents = { { 1, 2, 3, 4, 5 } } })
        gm.sum_(gm.mat({ 0, 5 }, { ctype = ctype }), y1, { axis = 1, alpha = 3, beta = 0.5 })
        local y2 = gm.mat(5, { ctype = ctype, initial_contents = { 1, -2, 3, -4, 5 } })
        gm.sum_(gm.mat({ 5, 0 }, { ctype = ctype }), y2, { axis = 2, beta = 2 })
        return y1, y2
      end
      local h1, h2 = gm.with_cuda({ enabled = false }, run)
      local d1, d2 = gm.with_cuda(EMU, function()
        local a, b = run()
        assert.is_truthy(a:facets():find("C", 1, true))
        return a, b
      end)
      assert.are.same({ { 0.5, 1, 1.5, 2, 2.5 } }, h1:to_table())
      assert.are.same(h1:to_table(), d1:to_table())
      assert.are.same({ 2, -4, 6, -8, 10 }, h2:to_table())
      assert.are.same(h2:to_table(), d2:to_table())
    end
  end)

  -- scal by 0 and geam with beta 0 run as kernels (fill.cu) on both
  -- devices, so NaN and Inf behave as on the host whatever the BLAS
  -- library does with a zero coefficient.
  it("scal by 0 and geam with beta 0 run as kernels and keep IEEE results", function()
    local inf, nan = math.huge, 0 / 0
    local function same(x, y) return (x ~= x and y ~= y) or x == y end
    for _, ctype in ipairs(CTYPES) do
      local function run()
        local z = gm.mat(5, { ctype = ctype, initial_contents = { nan, inf, -inf, 2, -0.5 } })
        gm.scal_(0, z)
        local s = gm.mat(6, { ctype = ctype, initial_contents = { inf, 1, nan, 1, 3, 1 } })
        gm.scal_(0, s, { n = 3, incx = 2 }) -- every other element
        local a = gm.mat({ 2, 3 }, { ctype = ctype, initial_contents = { { inf, 1, 2 }, { -inf, nan, 3 } } })
        -- above 64K elements the CPU model transposes with the plain kernel
        local t = {}
        for i = 1, 300 * 300 do t[i] = i % 97 - 48 end
        t[5] = nan
        local w = gm.mat({ 300, 300 }, { ctype = ctype, initial_contents = t })
        return z, s, gm.transpose(a), 2 * a, -a, gm.transpose(w)
      end
      local h = table.pack(gm.with_cuda({ enabled = false }, run))
      local dv
      local k = count(function() dv = table.pack(gm.with_cuda(EMU, run)) end)
      assert.is_true((k["gm_scal_kernel<" .. ctype .. ">"] or 0) >= 2, ctype .. ": scal kernel")
      assert.is_true((k["gm_geam0_kernel<" .. ctype .. ">"] or 0) >= 1, ctype .. ": geam kernel (big transpose)")
      -- a small transpose runs the tiled kernel (32 x 33 tiles, barriers)
      assert.is_true((k["gm_transpose_kernel<" .. ctype .. ">"] or 0) >= 1, ctype .. ": tiled transpose kernel")
      for i = 1, h.n do
        local ht, dt = h[i]:to_table(), dv[i]:to_table()
        local flat_h, flat_d = {}, {}
        local function flat(t, out) for _, v in ipairs(t) do if type(v) == "table" then flat(v, out) else out[#out + 1] = v end end end
        flat(ht, flat_h)
        flat(dt, flat_d)
        assert.are.equal(#flat_h, #flat_d)
        for j = 1, #flat_h do
          assert.is_true(same(flat_h[j], flat_d[j]), ("%s result %d element %d: %s vs %s"):format(
            ctype, i, j, flat_h[j], flat_d[j]))
        end
      end
      local z = h[1]:to_table()
      assert.is_true(z[1] ~= z[1] and z[2] ~= z[2] and z[3] ~= z[3], "0 * NaN, 0 * Inf are NaN")
      assert.are.equal(0, z[4])
      local s = h[2]:to_table()
      assert.is_true(s[1] ~= s[1] and s[3] ~= s[3] and s[5] == 0 and s[2] == 1 and s[6] == 1)
      assert.are.equal(inf, h[3]:to_table()[1][1])
    end
  end)

  -- Blocks over the cores (cuda_cpu.h with GMCPU_PAR_FOR: gm_par_for):
  -- big grids, range launches and with barriers (reduce_axis_kernel:
  -- fibers), must run on
  -- more than one OS thread and still give the host's values.
  local function cores()
    local env = tonumber(os.getenv("GPUMAT_NUM_THREADS") or "")
    if env then return env end
    local p = io.popen("nproc 2>/dev/null")
    local n = p and tonumber(p:read("a")) or 1
    if p then p:close() end
    return n
  end
  it("big grids run their blocks on several cores and agree with the host", function()
    if cores() < 2 then
      pending("one core (nproc or GPUMAT_NUM_THREADS): blocks cannot run in parallel")
      return
    end
    local function par()
      local t = {}
      for k, v in pairs(gm.emulated_kernel_launches()) do t[k] = v.parallel end
      return t
    end
    for _, ctype in ipairs(CTYPES) do
      local function run()
        local m = gm.mat(1 << 20, { ctype = ctype })
        gm.seed(3)
        gm.uniform_random_(m, { limit = 2 })
        gm.add_scalar_(-1, m)
        gm.tanh_(m)
        return m, m:sum(), m:max()
      end
      local hm, hs, hx = gm.with_cuda({ enabled = false }, run)
      local dm, ds, dx = gm.with_cuda(EMU, run)
      assert.is_true(maxdiff(hm, dm) <= ops.TOL[ctype], ctype)
      -- float: the two sum in different orders (1M terms)
      local rel = ctype == "float" and 1e-6 or 1e-12
      assert.is_true(math.abs(hs - ds) <= rel * math.max(1, math.abs(hs)), ("%s sum %s vs %s"):format(ctype, hs, ds))
      assert.are.equal(hx, dx, ctype)
      -- Whether the other cores take a chunk before the calling thread
      -- has done them all depends on the schedule (gm_par_for starts its
      -- threads per call; the launches are vector loops of a few
      -- milliseconds): 4M elements, up to 300 tries each (a loaded machine
      -- starts the helper threads late).
      gm.with_cuda(EMU, function()
        local m = gm.mat(1 << 22, { ctype = ctype, initial_element = 0.5 })
        local keys = gm.mat(1 << 20, { ctype = ctype }) -- 1M distinct keys: every radix pass runs
        gm.uniform_random_(keys)
        for k, op in pairs {
          ["unary_kernel<" .. ctype .. ">"] = function() gm.tanh_(m) end,
          ["reduce_pass<" .. ctype .. ">"] = function() return m:sum() end,
          ["gm_uniform_kernel<" .. ctype .. ">"] = function() gm.uniform_random_(m) end,
          ["reduce_axis_tiles<" .. ctype .. ">"] = function() return m:reshape({ 64, 65536 }):sum(1) end,
          ["reduce_axis_items<" .. ctype .. ">"] = function() return m:reshape({ 1048576, 4 }):sum(2) end,
          -- a kernel with barriers (a fiber per CUDA thread): the sort's
          -- (kernels/radix.cu; reductions take barrier-free forms on the
          -- CPU model above 8K elements, GM_AX_CPU_GPU_FORM)
          [ctype == "float" and "pair_lines_kernel<T>" or "radix_scatter_kernel<K>"] = function()
            return ctype == "float" and gm.sort(keys:reshape({ 1024, 1024 }), 2) or gm.sort(keys)
          end,
        } do
          local before = par()[k] or 0
          for _ = 1, 300 do
            op()
            gm.synchronize() -- the launch is queued on the compute stream
            if (par()[k] or 0) > before then break end
          end
          assert.is_true((par()[k] or 0) > before, ("%s: no launch ran its blocks in parallel"):format(k))
        end
      end)
    end
    -- a small grid stays on the calling thread
    local before = par()["gm_fill_kernel<double>"] or 0
    gm.with_cuda(EMU, function() gm.mat(100, { ctype = "double" }):fill_(1) end)
    assert.are.equal(before, par()["gm_fill_kernel<double>"] or 0)
  end)

  it("every counted kernel was compiled from its kernels/*.cu file", function()
    -- make sure each family ran at least once in this process
    for _, spec in ipairs(FAMILIES) do ops.agree(family(spec[1]), "float", EMU) end
    gm.with_cuda(EMU, function()
      local m = gm.mat(9, { ctype = "double" })
      gm.uniform_random_(m)
      gm.gaussian_random_(m)
      assert.is_number(m:sum())
      -- a kernel named by a macro (imatmul.cu's one per integer type)
      local i8 = gm.ones({ 2, 2 }, { dtype = "int8" })
      assert.are.equal(2, gm.matmul(i8, i8)[{ 1, 1 }])
    end)
    local seen, names = {}, {}
    for k, v in pairs(gm.emulated_kernel_launches()) do
      local base = k:match("^([%w_]+)")
      local file = v.file:match("kernels/([%w_]+)%.cu$")
      assert.is_truthy(file, k .. ": file " .. v.file)
      local src = read(v.file)
      -- the kernel is defined there as a __global__ function, by its name
      -- or by a macro that pastes it (gm_imatmul_kernel_##N)
      local name = source_name(src, base)
      assert.is_truthy(name, k .. " not defined in " .. v.file)
      assert.are.equal(SYNC[base] or false, v.sync, k .. ": barrier flag")
      assert.is_true(v.launches >= 1, k)
      seen[base], names[base] = file, name
    end
    -- the barrier flag agrees with the source: a kernel runs as fibers iff
    -- its body calls __syncthreads() or a __device__ function that does
    for base, file in pairs(seen) do
      local path
      for k, v in pairs(gm.emulated_kernel_launches()) do
        if k:match("^([%w_]+)") == base then path = v.file end
      end
      local src = read(path) .. read(path:gsub("[%w_]+%.cu$", "launch_cuda.cuh"))
      assert.are.equal(SYNC[base] or false, syncs(src, names[base]), base .. " in " .. file .. ".cu")
    end
    for _, spec in ipairs(FAMILIES) do
      for k, file in pairs(spec[2]) do
        local base = k:match("^([%w_]+)")
        assert.are.equal(file, seen[base], base)
      end
    end
    assert.are.equal("random", seen.gm_uniform_kernel)
    assert.are.equal("random", seen.gm_gaussian_kernel)
    assert.are.equal("reduce", seen.reduce_pass)
    assert.are.equal("imatmul", seen.gm_imatmul_kernel_int8)
  end)

  it("scratch arrays are emulated device memory: their failure is the launcher's error path #outermost", function()
    gm.with_cuda(EMU, function()
      local x = gm.mat({ 37, 5000 }, { ctype = "float", initial_element = 1 })
      local y = gm.mat(37, { ctype = "float", initial_element = 3 })
      gm.scal_(1, x) -- both on the device before the limit
      gm.scal_(1, y)
      gm.collect() -- no cached block the scratch allocation could get back
      local st = gm.emulated_device()
      local ok, e1, e2 = pcall(function()
        gm.emulated_device({ memory = st.allocated }) -- no room for one more block
        local _, a = pcall(gm.sum_, x, y, { axis = 2 })
        local _, b = pcall(function() return x:sum() end)
        return a, b
      end)
      gm.emulated_device({ memory = 0 })
      assert.is_true(ok, tostring(e1))
      assert.are.equal("cuda_out_of_memory", e1.kind)
      assert.matches("sum_: emulated sum kernel: out of device memory for scratch space", tostring(e1), 1, true)
      assert.matches("sum: emulated reduce kernel: out of device memory for scratch space", tostring(e2), 1, true)
      -- nothing changed, nothing leaked, no stale error for the next launch
      assert.are.equal(st.allocated, gm.emulated_device().allocated)
      assert.are.equal("none", gm.emulated_device().last_error)
      assert.are.equal(3, y[1])
      gm.sum_(x, y, { axis = 2 })
      assert.are.equal(5000, y[37])
      assert.are.equal(185000, x:sum())
    end)
  end)

  -- A scratch allocation that does not fit gives memory back and tries
  -- once more, as CUDA's does (src/device/cuda/memory.c): x and y are the
  -- operands, z a 400 KB block that `release(z)` hands back in the way
  -- under test; the device is then limited to what was allocated, so the
  -- sum's scratch fits only once z's block is back.
  local function scratch_retry(release, what)
    gm.with_cuda(EMU, function()
      gm.collect()
      local x = gm.mat({ 37, 5000 }, { ctype = "float", initial_element = 1 })
      local y = gm.mat(37, { ctype = "float", initial_element = 3 })
      gm.scal_(1, x)
      gm.scal_(1, y)
      local z = gm.mat(100000, { ctype = "float", initial_element = 0 })
      gm.scal_(1, z)
      local before = release(z)
      local ok, e1, s = pcall(function()
        gm.emulated_device({ memory = before })
        gm.sum_(x, y, { axis = 2 })
        return nil, x:sum()
      end)
      gm.emulated_device({ memory = 0 })
      assert.is_true(ok, tostring(e1))
      assert.are.equal(5000, y[37])
      assert.are.equal(185000, s)
      assert.is_true(gm.emulated_device().allocated < before, what)
      assert.are.equal("none", gm.emulated_device().last_error)
    end)
  end

  -- ... the pool's cached blocks (no GC: the op's operands are held)
  it("a scratch array that does not fit gets the pool's cached blocks back #outermost", function()
    scratch_retry(function(z)
      z:free()
      gm.scal_(1, gm.mat(8, { ctype = "float", initial_element = 0 })) -- drains the queue: z's block is cached
      return gm.emulated_device().allocated
    end, "the cached block went back")
  end)

  -- ... and first the device blocks of garbage mats still on the
  -- deferred-free queue: freed, not yet drained by an
  -- allocation, they are reclaimable memory the retry must get back.
  it("a scratch array that does not fit gets queued frees back #outermost", function()
    scratch_retry(function(z)
      local before = gm.emulated_device().allocated
      z:free() -- queued: no device allocation drains it before the sum's scratch
      return before
    end, "the queued block went back")
  end)

  it("the host path launches no emulated kernel #host", function()
    local d = count(function()
      gm.with_cuda({ enabled = false }, function()
        for _, spec in ipairs(FAMILIES) do
          local f = family(spec[1])
          for _, ctype in ipairs(CTYPES) do f.build(ctype) end
        end
        local m = gm.mat(100, { ctype = "float" })
        gm.uniform_random_(m)
        gm.gaussian_random_(m)
        assert.is_number(m:sum() + m:min() + m:max())
      end)
    end)
    assert.are.same({}, d)
  end)
end)

-- The CPU model keeps a kernel's __shared__ variables as thread_local
-- statics (kernels/cpu/cuda_cpu.h), one per template instantiation, in
-- the library's thread-local block: every thread that touches any of the
-- library's thread-locals (a stream worker, a pool thread, a user's thread
-- calling the C API) allocates and zeroes the whole block.  The sort's
-- counters, declared in each of 42 instantiations, made it 1.5 MB (370
-- page faults per new thread); kernels/radix.cu now shares one array.
describe("the library's thread-local block", function()
  -- PT_TLS's p_memsz from the ELF64 program headers of path
  local function tls_bytes(path)
    local s = read(path)
    assert(s:sub(1, 4) == "\127ELF" and s:byte(5) == 2, path .. " is not an ELF64 file")
    local phoff = string.unpack("<I8", s, 0x20 + 1)
    local phentsize, phnum = string.unpack("<I2I2", s, 0x36 + 1)
    for i = 0, phnum - 1 do
      local at = phoff + i * phentsize + 1
      if string.unpack("<I4", s, at) == 7 then return string.unpack("<I8", s, at + 0x28) end -- PT_TLS
    end
    return 0
  end

  it("stays under 256 KiB #host", function()
    local path = assert(package.searchpath("gpumat.core", package.cpath), "gpumat/core.so not on package.cpath")
    local bytes = tls_bytes(path)
    assert.is_true(bytes > 0, "core.so has thread-locals (GM's error state): the parse found no PT_TLS")
    assert.is_true(bytes < 256 * 1024, ("core.so's thread-local block is %d bytes"):format(bytes))
  end)
end)
