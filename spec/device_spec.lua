-- The device path on the emulated device: copies only when stale, results
-- that agree with the host, the caching pool, its limit, out-of-memory
-- errors, deferred frees and with_syncing_cuda_facets.  Tests tagged
-- #outermost open their own outermost context (limits, counter binding)
-- and are not wrapped by spec/helper.lua in the GPUMAT_DEVICE run.
local gm = require "gpumat"

local EMU = { backend = "emulated" }
local ops = require "device_ops"

describe("device copies", function()
  it("a chain of device ops copies nothing until the host reads", function()
    gm.with_cuda(EMU, function()
      local c0 = gm.counters()
      local x = gm.mat(1000, { initial_element = 1 })
      local y = gm.mat(1000, { initial_element = 2 })
      gm.fill_(3, x)
      gm.scal_(2, x)
      gm.axpy_(0.5, x, y)
      gm.copy_(y, x)
      local c1 = gm.counters()
      assert.are.equal(c0.n_memcpy_host_to_device, c1.n_memcpy_host_to_device)
      assert.are.equal(c0.n_memcpy_device_to_host, c1.n_memcpy_device_to_host)
      assert.are.equal(5, x[1])
      assert.are.equal(5, x[1000])
      local c2 = gm.counters()
      assert.are.equal(c0.n_memcpy_device_to_host + 1, c2.n_memcpy_device_to_host)
      assert.are.same(5, x[7]) -- host facet is up to date now: no copy
      assert.are.equal(c2.n_memcpy_device_to_host, gm.counters().n_memcpy_device_to_host)
      x[1] = 1 -- host write: the next device op copies once
      gm.scal_(2, x)
      gm.scal_(2, x)
      assert.are.equal(c2.n_memcpy_host_to_device + 1, gm.counters().n_memcpy_host_to_device)
      assert.are.equal(4, x[1])
    end)
  end)

  it("a view's device write keeps invisible elements", function()
    gm.with_cuda(EMU, function()
      local base = gm.mat(6, { initial_contents = { 1, 2, 3, 4, 5, 6 } })
      local view = gm.mat(2, { displaced_to = base, displacement = 2 })
      gm.fill_(9, view)
      assert.are.same({ 1, 2, 9, 9, 5, 6 }, base:to_table())
    end)
  end)
end)

describe("device and host agree", function()
  for _, f in ipairs(ops.families) do
    it(f.name, function()
      for _, ctype in ipairs { "float", "double" } do ops.agree(f, ctype, EMU) end
    end)
  end

  it("random samples stay in range on the device", function()
    for _, ctype in ipairs { "float", "double" } do
      gm.with_cuda(EMU, function()
        local m = gm.mat(4000, { ctype = ctype })
        gm.uniform_random_(m, { limit = 3 })
        assert.is_truthy(m:facets():find("C", 1, true))
        local sum, lo, hi = 0, math.huge, -math.huge
        for _, v in ipairs(m:to_table()) do
          sum, lo, hi = sum + v, math.min(lo, v), math.max(hi, v)
        end
        assert.is_true(lo >= 0 and hi < 3, ctype)
        assert.is_true(math.abs(sum / 4000 - 1.5) < 0.1, ctype)
        gm.gaussian_random_(m, { mean = 2, stddev = 0.5 })
        local s, s2 = 0, 0
        for _, v in ipairs(m:to_table()) do s, s2 = s + v, s2 + v * v end
        local mean = s / 4000
        assert.is_true(math.abs(mean - 2) < 0.05, ctype)
        assert.is_true(math.abs(math.sqrt(s2 / 4000 - mean * mean) - 0.5) < 0.05, ctype)
      end)
    end
  end)
end)

describe("emulated device memory", function()
  -- The device address of m's cuda facet, and the permissions of the
  -- mapping that holds it ("---s": /proc/self/maps' column).
  local function cuda_address(m)
    local addr
    gm.with_facet(m, "cuda", "input", function(p) addr = tonumber(tostring(p):match("0x(%x+)"), 16) end)
    return addr
  end
  local function perms_at(addr)
    local perms
    for line in io.lines("/proc/self/maps") do
      local a, b, perm = line:match("^(%x+)-(%x+) (%S+)")
      if addr >= tonumber(a, 16) and addr < tonumber(b, 16) then perms = perm end
    end
    return perms
  end
  local function have_maps()
    local f = io.open("/proc/self/maps")
    if f then f:close() end
    return f ~= nil
  end

  -- GPUMAT_EMULATED_PROTECT (on by default): device pages are PROT_NONE
  -- at the host's address outside device calls, so stray host access
  -- crashes as on a GPU, even while a stream's worker runs.
  it("is inaccessible to host code outside device calls", function()
    if not have_maps() then pending("no /proc/self/maps") return end
    gm.with_cuda(EMU, function()
      local m = gm.mat(10000)
      gm.fill_(1, m)
      -- no access; shared ("s"): the same pages are mapped a second time,
      -- read-write, for the device's worker threads (src/device/emulated/alias.h)
      assert.are.equal("---s", perms_at(cuda_address(m)))
      gm.scal_(2, m) -- device calls still work
      assert.are.equal(2, m[10000])
    end)
  end)

  -- Blocks over 2 MiB are private memory advised huge, 2 MiB aligned,
  -- outside the arena (src/device/emulated/device.c, map_huge): read-write
  -- at the host's address, and every op on them as right as elsewhere.
  it("keeps blocks over 2 MiB in huge-page memory, aligned, and computes on them", function()
    if not have_maps() then pending("no /proc/self/maps") return end
    gm.with_cuda(EMU, function()
      local n = 3 * 2 ^ 20 / 8 -- 3 MiB of doubles: its own raw block
      local m = gm.mat(n)
      gm.fill_(1.5, m)
      local addr = cuda_address(m)
      assert.are.equal(0, addr % (2 * 2 ^ 20))
      assert.are.equal("rw-p", perms_at(addr))
      gm.scal_(2, m)
      assert.are.equal(3, m[1])
      assert.are.equal(3, m[n])
      assert.are.equal(3 * n, m:sum())
    end)
  end)
end)

describe("the device pool", function()
  it("reuses freed blocks and returns to its baseline after collect", function()
    gm.with_cuda(EMU, function()
      collectgarbage()
      gm.collect()
      local base = gm.counters()
      local live_pooled
      do
        local m = gm.mat(1000)
        gm.fill_(1, m)
        local c = gm.counters()
        assert.are.equal(base.device_bytes_in_use + 8192, c.device_bytes_in_use)
        assert.are.equal(base.n_device_arrays + 1, c.n_device_arrays)
        live_pooled = c.device_bytes_pooled -- the rest of its 2 MiB segment
        m:free()
      end
      -- the next allocation drains the deferred free: the block is cached,
      -- and a request of the same size class reuses it
      local m2 = gm.mat(900)
      gm.fill_(2, m2)
      local c = gm.counters()
      assert.are.equal(base.device_bytes_in_use + 8192, c.device_bytes_in_use)
      assert.are.equal(live_pooled, c.device_bytes_pooled) -- no new device memory
      m2:free()
      local m3 = gm.mat(1000) -- and again, without gm.collect()
      gm.fill_(3, m3)
      assert.are.equal(live_pooled, gm.counters().device_bytes_pooled)
      m3:free()
      m2 = nil -- luacheck: ignore
      for _ = 1, 20 do gm.fill_(1, gm.mat(100)) end
      collectgarbage()
      collectgarbage()
      gm.collect()
      assert.are.equal(base.device_bytes_in_use, gm.counters().device_bytes_in_use)
      assert.are.equal(base.n_device_arrays, gm.counters().n_device_arrays)
    end)
  end)

  it("keeps its cache across contexts; gm.collect() gives everything back #outermost", function()
    gm.with_cuda(EMU, function()
      for _ = 1, 5 do gm.fill_(1, gm.mat(5000)) end
    end)
    collectgarbage()
    local c = gm.counters()
    assert.are.equal(0, c.device_bytes_in_use)
    assert.is_true(c.device_bytes_pooled >= 40448) -- no cudaMalloc churn per context
    gm.with_cuda(EMU, function()
      local before = gm.counters().device_bytes_pooled
      gm.fill_(1, gm.mat(5000)) -- served from the cache
      assert.are.equal(before - 40448, gm.counters().device_bytes_pooled)
    end)
    gm.collect()
    c = gm.counters()
    assert.are.equal(0, c.device_bytes_in_use)
    assert.are.equal(0, c.device_bytes_pooled)
  end)

  it("128 mats of 8 MiB fit a 500 MiB limit when dropped #outermost", function()
    local ooms = gm.counters().n_ooms
    gm.with_cuda({ backend = "emulated", n_pool_bytes = 500 * 2 ^ 20 // 1 }, function()
      for i = 1, 128 do
        local m = gm.mat(2 ^ 20 // 1) -- 8 MiB of doubles
        gm.fill_(i, m)
      end
    end)
    assert.are.equal(ooms, gm.counters().n_ooms)
  end)

  it("raises cuda_out_of_memory below one mat and keeps working #outermost", function()
    gm.with_cuda({ backend = "emulated", n_pool_bytes = 4096 }, function()
      local small = gm.mat(100, { initial_element = 1 })
      gm.scal_(2, small) -- one 1024-byte block
      local big = gm.mat(1000)
      local ooms = gm.counters().n_ooms
      local ok, e = pcall(gm.fill_, 1, big)
      assert.is_false(ok)
      assert.are.equal("table", type(e))
      assert.are.equal("cuda_out_of_memory", e.kind)
      assert.are.equal(8000, e.n_bytes)
      assert.are.equal(4096, e.limit)
      assert.are.equal(1024, e.reserved)
      assert.are.equal(1024, e.in_use)
      assert.matches("^fill_: cuda out of memory", tostring(e))
      assert.are.equal(ooms + 1, gm.counters().n_ooms)
      assert.are.equal("-", big:facets()) -- the failed op changed nothing
      local other = gm.mat(200, { initial_element = 3 })
      gm.scal_(2, other)
      assert.are.equal(6, other[200])
      assert.are.equal(2, small[1])
    end)
  end)

  it("nudges the Lua GC with device allocations", function()
    gm.with_cuda(EMU, function()
      collectgarbage("stop") -- only the nudges (LUA_GCSTEP) can collect
      local ok, err = pcall(function()
        for i = 1, 64 do gm.fill_(i, gm.mat(2 ^ 20 // 1)) end -- 512 MiB in total
      end)
      gm.collect()
      local in_use = gm.counters().device_bytes_in_use
      collectgarbage("restart")
      assert.is_true(ok, tostring(err))
      assert.is_true(in_use <= 128 * 2 ^ 20, "device bytes in use: " .. in_use)
    end)
  end)

  it("reclaims garbage mats through the GC when the limit is reached #outermost", function()
    gm.with_cuda({ backend = "emulated", n_pool_bytes = 64 * 1024 }, function()
      collectgarbage("stop") -- only the reclaim cascade's full GC can free them
      local ok, err = pcall(function()
        for _ = 1, 50 do gm.fill_(1, gm.mat(1000)) end -- 50 * 8 KiB > 64 KiB
      end)
      collectgarbage("restart")
      assert.is_true(ok, tostring(err))
    end)
  end)
end)

describe("the reclaim GC and vec locks", function()
  -- The cascade's full GC runs finalizers; a new cuda facet's block is
  -- allocated without the vec lock held, so a finalizer may touch the
  -- very mat being allocated (this hung before: the lock is not
  -- recursive).
  it("lets a finalizer read the mat whose device memory is being allocated #outermost", function()
    gm.with_cuda({ backend = "emulated", n_pool_bytes = 64 * 1024 }, function()
      local m = gm.mat(1000, { initial_element = 1, synchronization = true })
      local seen
      collectgarbage("stop")
      local ok, err = pcall(function()
        for _ = 1, 8 do gm.fill_(1, gm.mat(1000)) end -- 8 garbage blocks of 8 KiB: the limit
        setmetatable({}, { __gc = function() seen = m[1] end })
        gm.fill_(2, m) -- over the limit: drain, trim, full GC (finalizers), retry
      end)
      collectgarbage("restart")
      collectgarbage()
      assert.is_true(ok, tostring(err))
      -- the finalizer ran inside the cascade (before fill_ wrote m), except
      -- under GPUMAT_TEST_GC=aggressive, where the GC nudges may already
      -- have freed the garbage blocks so that no cascade was needed
      if os.getenv("GPUMAT_TEST_GC") ~= "aggressive" then assert.are.equal(1, seen) end
      assert.is_truthy(seen == 1 or seen == 2)
      assert.are.equal(2, m[1])
    end)
  end)

  it("lets a finalizer run ops on other mats during the GC nudge #outermost", function()
    gm.with_cuda({ backend = "emulated", n_pool_bytes = 16 * 2 ^ 20 // 1 }, function()
      local other = gm.mat(10, { initial_element = 1, synchronization = true })
      local n = 0
      collectgarbage("stop")
      local ok, err = pcall(function()
        for i = 1, 16 do
          setmetatable({}, { __gc = function() gm.scal_(2, other) n = n + 1 end })
          gm.fill_(i, gm.mat(2 ^ 17 // 1)) -- 1 MiB each: a nudge every 2 MiB
        end
      end)
      collectgarbage("restart")
      assert.is_true(ok, tostring(err))
      assert.is_true(n > 0)
      assert.are.equal(2 ^ n, other[1])
    end)
  end)
end)

describe("with_syncing_cuda_facets", function()
  it("leaves to_cuda on the device and to_cuda_host without device facets", function()
    gm.with_cuda(EMU, function()
      local a = gm.mat(4, { initial_element = 1 })
      local b = gm.mat(4, { initial_element = 1 })
      a[1] = 2
      gm.scal_(3, b)
      gm.with_syncing_cuda_facets({ a, a }, { b }, { safe = false }, function()
        assert.are.equal("C", a:facets():sub(1, 1))
      end)
      assert.is_truthy(a:facets():find("C", 1, true))
      assert.is_nil(b:facets():find("C", 1, true))
      assert.are.same({ 3, 3, 3, 3 }, b:to_table())
      assert.are.same({ 2, 1, 1, 1 }, a:to_table())
    end)
  end)

  it("locks the listed mats in safe mode, also when the body errors", function()
    gm.with_cuda(EMU, function()
      local a = gm.mat(4, { initial_element = 1 })
      local ok, err = pcall(gm.with_syncing_cuda_facets, { a }, {}, { safe = true }, function()
        gm.scal_(2, a)
      end)
      assert.is_false(ok)
      assert.matches("with_syncing_cuda_facets is syncing", tostring(err))
      gm.scal_(2, a) -- unlocked after the error
      assert.are.equal(2, a[1])
      local ok2 = pcall(gm.with_syncing_cuda_facets, {}, { a }, function() error("x") end)
      assert.is_false(ok2)
      assert.is_nil(a:facets():find("C", 1, true))
      assert.are.equal(2, a[4])
    end)
  end)

  it("just runs the body without a device", function()
    gm.with_cuda({ enabled = false }, function()
      local a = gm.mat(2)
      assert.are.equal(7, gm.with_syncing_cuda_facets({ a }, {}, function() gm.fill_(1, a) return 7 end))
    end)
  end)

  it("checks its arguments", function()
    local a = gm.mat(2)
    local f = function() end
    assert.has_error(function() gm.with_syncing_cuda_facets({ a }, { a }, {}, f) end,
      "bad argument #2 to 'with_syncing_cuda_facets' (element 1 is also in to_cuda)")
    assert.has_error(function() gm.with_syncing_cuda_facets({ 1 }, {}, {}, f) end,
      "bad argument #1 to 'with_syncing_cuda_facets' (element 1 is not a mat (number))")
    assert.has_error(function() gm.with_syncing_cuda_facets({}, {}, { saf = true }, f) end,
      "bad argument #3 to 'with_syncing_cuda_facets' (unknown option 'saf')")
    assert.has_error(function() gm.with_syncing_cuda_facets({}, {}, {}, nil) end,
      "bad argument #4 to 'with_syncing_cuda_facets' (function expected, got nil)")
  end)
end)

describe("foreign_array_strategy cuda_host", function()
  it("allocates page-locked host memory through the device", function()
    gm.with_cuda(EMU, function()
      local old = gm.foreign_array_strategy
      gm.foreign_array_strategy = "cuda_host"
      local m = gm.mat(16, { initial_element = 1 })
      local ok, err = pcall(function()
        gm.with_facet(m, "cuda_host", "io", function() end)
        gm.scal_(2, m)
        assert.are.equal(2, m[16])
      end)
      gm.foreign_array_strategy = old
      assert.is_true(ok, tostring(err))
    end)
  end)
end)
