-- Checks for the findings of the CUDA backend review (docs/GPU.md,
-- "Review findings"), run on the emulated device, which models what the
-- CUDA runtime does there: cudart's per-thread last-error slot and sticky
-- error, a device memory size whose exhaustion fails raw allocations as
-- cudaMalloc does, and cuSOLVER's column-major argument mapping.
-- #outermost: each test opens its own context.
local gm = require "gpumat"

local EMU = { backend = "emulated" }
local MiB = 1 << 20

describe("cudart's last-error slot on the emulated device", function()
  after_each(function() gm.emulated_device({ memory = 0, sticky_error = false, last_error = "none" }) end)

  it("a stale error fails the next device call once, as a launch's cudaGetLastError would #outermost", function()
    gm.with_cuda(EMU, function()
      local m = gm.mat(4)
      gm.emulated_device({ last_error = "out_of_memory" })
      local ok, err = pcall(gm.fill_, 1, m)
      assert.is_false(ok)
      assert.matches("stale error", tostring(err))
      assert.are.equal("none", gm.emulated_device().last_error)
      gm.fill_(2, m) -- cudaGetLastError cleared the slot
      assert.are.same({ 2, 2, 2, 2 }, m:to_table())
    end)
  end)

  it("an out-of-memory error recovered by the reclaim cascade does not fail the next launch #outermost", function()
    gm.with_cuda(EMU, function()
      gm.collect()
      local base = gm.emulated_device().allocated
      gm.emulated_device({ memory = base + 5 * MiB })
      local a = gm.mat(2 * MiB // 8, { ctype = "double" })
      gm.fill_(1, a)               -- 2 MiB block
      a:free()
      gm.collect()                 -- the block is cached in the pool
      local b = gm.mat(3 * MiB // 8, { ctype = "double" })
      local n_ooms = gm.counters().n_ooms
      gm.fill_(7, b)               -- 4 MiB: cudaMalloc fails, trim, retry succeeds
      assert.are.equal(n_ooms, gm.counters().n_ooms) -- recovered, not reported
      assert.are.equal("none", gm.emulated_device().last_error)
      gm.scal_(2, b)               -- the next launch sees no stale error
      assert.are.equal(14, b[1])
      assert.are.equal(14, b[3 * MiB // 8])
    end)
  end)

  it("a real out-of-memory error is reported and the pool keeps working #outermost", function()
    gm.with_cuda(EMU, function()
      gm.collect()
      local base = gm.emulated_device().allocated
      gm.emulated_device({ memory = base + 2 * MiB })
      local big = gm.mat(3 * MiB // 8, { ctype = "double" })
      local ok, err = pcall(gm.fill_, 1, big)
      assert.is_false(ok)
      assert.are.equal("cuda_out_of_memory", type(err) == "table" and err.kind or tostring(err))
      local small = gm.mat(16)
      gm.fill_(3, small)
      assert.are.equal(3, small[16])
    end)
  end)

  it("a sticky error fails every device call until reset #outermost", function()
    gm.with_cuda(EMU, function()
      local m = gm.mat(4)
      gm.emulated_device({ sticky_error = true })
      for _ = 1, 2 do
        local ok, err = pcall(gm.fill_, 1, m)
        assert.is_false(ok)
        assert.matches("sticky error", tostring(err))
      end
      gm.emulated_device({ sticky_error = false })
      gm.fill_(5, m)
      assert.are.equal(5, m[4])
    end)
  end)

  it("validates its options", function()
    assert.has_error(function() gm.emulated_device({ last_error = "boom" }) end,
      "bad argument #1 to 'emulated_device' (option 'last_error' must be \"none\" or \"out_of_memory\", got boom)")
    assert.has_error(function() gm.emulated_device({ memory = -1 }) end)
    assert.has_error(function() gm.emulated_device({ colour = 1 }) end)
  end)
end)

describe("copy-stream ordering (the emulated copy stream runs behind the host)", function()
  it("device work in the body sees to_cuda copies, host reads see to_cuda_host copies (safe = false) #outermost", function()
    gm.with_cuda(EMU, function()
      local x = gm.mat(1000, { ctype = "double", initial_element = 1 })
      x[1] = 1                      -- host facet first
      gm.fill_(5, x)                -- device facet newer, host stale
      local y = gm.mat(1000, { ctype = "double", initial_element = 0 })
      y[1] = 3; y[1000] = 4         -- host facet only
      local z = gm.mat(1000, { ctype = "double", initial_element = 0 })
      gm.fill_(0, z)
      gm.with_syncing_cuda_facets({ y }, { x }, { safe = false }, function()
        assert.are.equal(5, x[1])   -- a host read of x's cuda_host facet
        assert.are.equal(5, x[1000])
        gm.axpy_(1, y, z)           -- a kernel reading y's cuda facet
      end)
      assert.are.equal(3, z[1])
      assert.are.equal(4, z[1000])
      assert.are.equal(0, z[2])
    end)
  end)

  it("safe mode still refuses access and the copies land at the end #outermost", function()
    gm.with_cuda(EMU, function()
      local x = gm.mat(8, { initial_element = 0 })
      x[1] = 0
      gm.fill_(2, x)
      gm.with_syncing_cuda_facets({}, { x }, { safe = true }, function()
        assert.has_error(function() return x[1] end)
      end)
      assert.are.equal(2, x[8])
    end)
  end)
end)

describe("H2D from page-locked memory waits for the copy, not the compute stream", function()
  -- the emulated copy stream runs behind the host: copies_in_flight counts
  -- what is queued on it and not landed
  local function in_flight() return gm.emulated_device().copies_in_flight end
  local function with_strategy(s, fn)
    local old = gm.foreign_array_strategy
    gm.foreign_array_strategy = s
    local ok, err = pcall(fn)
    gm.foreign_array_strategy = old
    assert(ok, err)
  end

  -- the queueing itself (in flight until a host access, a device call or
  -- a release waits for it) is checked in C: tests/h2d_queue_test.c
  it("with page-locked host memory, device ops see the host's values and later host writes #outermost", function()
    gm.with_cuda(EMU, function()
      with_strategy("cuda_host", function()
        local x = gm.mat(1000, { ctype = "double", initial_element = 0 })
        gm.with_facet(x, "cuda_host", "io", function() end) -- host storage page-locked from birth
        for i = 1, 1000 do x[i] = i end
        assert.is_truthy(x:facets():find("H", 1, true), x:facets())
        local y = gm.mat(1000, { ctype = "double", initial_element = 0 })
        gm.axpy_(2, x, y)                  -- the copy of x is queued, the kernel waits for it
        assert.are.equal(2, y[1])          -- reading y waits for the kernel, hence the copy
        assert.are.equal(0, in_flight())
        assert.are.equal(2000, y[1000])
        x[5] = -1                          -- the device copy of x is stale now
        gm.fill_(0, y)
        gm.axpy_(1, x, y)
        assert.are.equal(-1, y[5])
        assert.are.equal(6, y[6])
      end)
    end)
  end)

  it("a pageable source is copied at once, as before #outermost", function()
    gm.with_cuda(EMU, function()
      with_strategy("static", function()
        local x = gm.mat(100, { ctype = "double", initial_element = 0 })
        x[1] = 4
        gm.with_facet(x, "cuda", "input", function() assert.are.equal(0, in_flight()) end)
        local y = gm.mat(100, { ctype = "double", initial_element = 0 })
        gm.axpy_(1, x, y)
        assert.are.equal(4, y[1])
      end)
    end)
  end)
end)

describe("gm.cuda_stream", function()
  it("is nil outside a CUDA context and on the emulated device #outermost", function()
    assert.is_nil(gm.cuda_stream())
    gm.with_cuda(EMU, function() assert.is_nil(gm.cuda_stream()) end)
  end)
end)

describe("cuSOLVER's argument mapping for invert and logdet (emulated device)", function()
  require("solver_cases")(it, EMU, function() return true end)
end)

describe("the pool with many live blocks", function()
  it("finds every block on free (hash) and returns to the baseline #outermost", function()
    gm.with_cuda(EMU, function()
      collectgarbage()
      gm.collect()
      local base = gm.counters()
      local ms = {}
      for i = 1, 400 do
        ms[i] = gm.mat(1 + i % 7)
        gm.fill_(i, ms[i])
      end
      assert.are.equal(base.n_device_arrays + 400, gm.counters().n_device_arrays)
      -- free in an order unrelated to allocation
      for k = 0, 2 do
        for i = 1 + k, 400, 3 do ms[i]:free() end
      end
      ms = nil -- luacheck: ignore
      gm.collect()
      local c = gm.counters()
      assert.are.equal(base.n_device_arrays, c.n_device_arrays)
      assert.are.equal(base.device_bytes_in_use, c.device_bytes_in_use)
      assert.are.equal(0, c.device_bytes_pooled)
    end)
  end)
end)

describe("device random fills are the host's Philox values", function()
  it("the emulated device draws exactly the host's samples for the same seed #outermost", function()
    local function draw(opts, ctype)
      return gm.with_cuda(opts, function()
        gm.seed(77)
        local u = gm.mat(1003, { ctype = ctype })
        gm.uniform_random_(u, { limit = 2 })
        local g = gm.mat(1001, { ctype = ctype })
        gm.gaussian_random_(g, { mean = 1, stddev = 3 })
        return u:to_table(), g:to_table(), gm.use_cuda_p(u)
      end)
    end
    for _, ctype in ipairs { "float", "double" } do
      local hu, hg, on_host_dev = draw({ enabled = false }, ctype)
      local du, dg, on_dev = draw(EMU, ctype)
      assert.is_false(on_host_dev)
      assert.is_true(on_dev)
      assert.are.same(hu, du)
      assert.are.same(hg, dg)
      local distinct = {}
      for _, v in ipairs(du) do distinct[v] = true end
      assert.is_true(next(distinct) ~= nil and du[1] ~= du[2])
    end
  end)
end)

describe("outputs that share storage with inputs", function()
  it("sum_ refuses a y inside x", function()
    local base = gm.mat(12, { initial_element = 1 })
    local x = gm.mat({ 3, 4 }, { displaced_to = base })
    local y = gm.mat(4, { displaced_to = base, displacement = 8 })
    assert.has_error(function() gm.sum_(x, y, { axis = 1 }) end, "sum_: y shares storage with x")
    assert.are.same({ 1, 1, 1, 1 }, y:to_table()) -- unchanged
    local y2 = gm.mat(4)
    gm.sum_(x, y2, { axis = 1 })
    assert.are.same({ 3, 3, 3, 3 }, y2:to_table())
  end)

  it("NN ops refuse outputs overlapping their inputs, naming both", function()
    local base = gm.mat(40, { initial_element = 1 })
    local x = gm.mat({ 4, 5 }, { displaced_to = base })
    local w = gm.mat({ 3, 3 }, { initial_element = 1 })
    local y = gm.mat({ 4, 5 }, { displaced_to = base, displacement = 10 })
    assert.has_error(function() gm.convolve_(x, w, y) end,
      "bad argument #3 to 'convolve_' (y shares storage with x)")
    local xd = gm.mat({ 4, 5 }, { displaced_to = base, displacement = 20 })
    local yd = gm.mat({ 4, 5 }, { displaced_to = base, displacement = 15 })
    local wd = gm.mat({ 3, 3 }, { initial_element = 0 })
    assert.has_error(function() gm.derive_convolve_(x, xd, w, wd, yd) end,
      "bad argument #2 to 'derive_convolve_' (xd shares storage with yd)")
    local yp = gm.mat({ 2, 3 }, { displaced_to = base, displacement = 0 })
    assert.has_error(function() gm.max_pool_(x, yp, { pool_dimensions = { 2, 2 }, stride = { 2, 2 } }) end)
  end)
end)

describe("gm.cuda_allow_tf32", function()
  it("defaults to false, takes booleans only, and leaves host/emulated gemm exact", function()
    assert.is_false(gm.cuda_allow_tf32)
    assert.has_error(function() gm.cuda_allow_tf32 = 1 end, "gpumat.cuda_allow_tf32 must be a boolean, got number")
    gm.cuda_allow_tf32 = true
    local ok, err = pcall(function()
      gm.with_cuda(EMU, function()
        local a = gm.mat({ 2, 2 }, { ctype = "float", initial_contents = { { 1 + 2 ^ -20, 0 }, { 0, 1 } } })
        local c = gm.mat({ 2, 2 }, { ctype = "float", initial_element = 0 })
        gm.gemm_(1, a, a, 0, c)
        assert.are.equal(gm.mat({ 1 }, { ctype = "float", initial_element = (1 + 2 ^ -20) ^ 2 })[1], c[1])
      end)
    end)
    gm.cuda_allow_tf32 = false
    assert(ok, err)
  end)
end)
