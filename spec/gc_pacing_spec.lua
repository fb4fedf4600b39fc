-- The collector knows what mats cost: the bytes mats
-- allocate pace Lua's collector (src/lua/util.c, gml_pushmat), so a loop
-- of temporaries with no collectgarbage() in it stays in bounded memory,
-- and the host caching allocator (src/core/mem/hostpool.c) reuses the
-- blocks the finalizers give back.
--
-- Peak resident memory is a measurement, not a timing: each loop runs in
-- a fresh lua5.4 (its VmHWM is its own), and the bound is generous.
-- Without the pacing the 300 temporaries of 4 MB stay resident until
-- Lua's own pacing, which sees only the small userdata, finds them:
-- ~1.2 GB of growth; with it, about its 8 MB threshold.
local gm = require "gpumat"

local MB = 1024 * 1024

-- The growth of VmHWM over VmRSS before the loop, in a child process.
local function child_growth(where, n, iters)
  -- (the child gets this process's search paths: LUA_PATH_5_4, which the
  -- GPU kit's prefix sets, would hide the build from it)
  local code = ([[
    package.path, package.cpath = %q, %q
    local gm = require "gpumat"
    local function rss(k)
      for l in io.lines("/proc/self/status") do
        local v = l:match("^" .. k .. ":%%s+(%%d+)")
        if v then return tonumber(v) * 1024 end
      end
    end
    local function run()
      local a = gm.mat({%d}, {ctype = "float", initial_element = 1})
      local s = a + 1
      s = nil
      local base = rss("VmRSS")
      for _ = 1, %d do local b = a + 1 end
      gm.synchronize()
      local c = gm.counters()
      io.write(rss("VmHWM") - base, " ", c.host_pool_hits, " ", gm.sum(a), "\n")
    end
    if %q == "emulated" then gm.with_cuda({backend = "emulated"}, run) else run() end
  ]]):format(package.path, package.cpath, n, iters, where)
  local p = assert(io.popen(("lua5.4 -e %q 2>&1"):format(code)))
  local out = p:read("a")
  p:close()
  local growth, hits, sum = out:match("^(%d+) (%d+) (%S+)")
  assert(growth, "child failed: " .. out)
  return tonumber(growth), tonumber(hits), tonumber(sum)
end

local function proc_ok()
  local f = io.open("/proc/self/status")
  if f then f:close() end
  return f ~= nil
end

describe("GC pacing", function()
  it("a loop of 300 temporaries of 4 MB grows the peak by far less than 1.2 GB #host", function()
    if not proc_ok() then pending("needs /proc/self/status") return end
    local growth, hits, sum = child_growth("host", 1 << 20, 300)
    assert.are.equal(1 << 20, sum) -- the loop really ran on a (all ones)
    assert.is_true(growth < 256 * MB, ("peak grew by %d MB"):format(growth // MB))
    -- the results' blocks came back through the finalizers and were reused
    assert.is_true(hits >= 200, ("only %d host pool hits"):format(hits))
  end)

  it("the same loop on the emulated device stays bounded too", function()
    if not proc_ok() then pending("needs /proc/self/status") return end
    local growth = child_growth("emulated", 1 << 20, 300)
    assert.is_true(growth < 256 * MB, ("peak grew by %d MB"):format(growth // MB))
  end)

  it("host blocks are reused: a loop of temporaries makes few fresh allocations #host", function()
    -- in a fresh process: the pacing threshold grows with the live bytes,
    -- and the suite's earlier files leave an unknown amount alive here
    local code = [[
      local gm = require "gpumat"
      collectgarbage()
      local c0 = gm.counters()
      local a = gm.mat({ 1 << 18 }, { ctype = "float", initial_element = 2 })
      local ok = true
      for _ = 1, 200 do
        local b = a * 3
        ok = ok and b[1] == 6
      end
      local c1 = gm.counters()
      io.write(tostring(ok), " ", c1.host_pool_hits - c0.host_pool_hits, " ",
        c1.host_pool_misses - c0.host_pool_misses, "\n")
    ]]
    code = ("package.path, package.cpath = %q, %q\n"):format(package.path, package.cpath) .. code
    local p = assert(io.popen(("lua5.4 -e %q 2>&1"):format(code)))
    local out = p:read("a")
    p:close()
    local ok, hits, misses = out:match("^(%a+) (%d+) (%d+)")
    assert(ok, "child failed: " .. out)
    assert.are.equal("true", ok)
    assert.are.equal(201, tonumber(hits) + tonumber(misses))
    -- 200 MB allocated in 1 MB results: collections every 8 MB at most
    -- (32 MB before branch smallops; the bound kept that margin), so few
    -- blocks are ever fresh (200 without the pacing)
    assert.is_true(tonumber(misses) <= 60, ("%d fresh allocations"):format(misses))
  end)

  -- Tiny results allocate few bytes: the step also comes after 256 new
  -- mats (src/lua/util.c, STEP_MATS_MAX), so their count stays bounded;
  -- paced by bytes alone, up to 4,000 (1 element) and 1,700 (32 elements)
  -- were alive at once here, past the thread's 1,024 spare structs.  The
  -- counters are read every 50 calls: their tables are Lua garbage, which
  -- would pace Lua's own collector.  In gpumat's generational mode, where
  -- a step is a minor collection (the incremental one of
  -- GPUMAT_TEST_GC=aggressive is bounded by bytes: the full collections).
  it("a loop of tiny temporaries keeps a bounded number of mats alive #host", function()
    local mode = collectgarbage("generational")
    local ok, err = pcall(function()
      for _, n in ipairs { 1, 32 } do
        collectgarbage()
        local a = gm.mat({ n }, { ctype = "float", initial_element = 1 })
        local base, most, right = gm.counters().n_host_arrays, 0, true
        for i = 1, 10000 do
          local b = a + 1
          right = right and b[n] == 2
          if i % 50 == 0 then most = math.max(most, gm.counters().n_host_arrays - base) end
        end
        assert.is_true(right)
        assert.is_true(most <= 400, ("%d-element results: %d mats alive at once"):format(n, most))
      end
    end)
    collectgarbage(mode)
    assert(ok, err)
  end)

  it("a collector the user stopped stays stopped #host", function()
    collectgarbage()
    gm.collect()
    collectgarbage("stop")
    local ok, err = pcall(function()
      local a = gm.mat({ 1 << 18 }, { ctype = "float", initial_element = 1 })
      local before = gm.counters().host_pool_bytes_in_use
      for _ = 1, 64 do local b = a + 1 end
      -- 64 MB of garbage results, none collected
      assert.is_true(gm.counters().host_pool_bytes_in_use - before >= 64 * MB)
      assert.is_false(collectgarbage("isrunning"))
    end)
    collectgarbage("restart")
    collectgarbage()
    assert(ok, err)
  end)

  it("gm.collect() gives the host pool's cached blocks back #host", function()
    local a = gm.mat({ 1 << 18 }, { ctype = "float", initial_element = 1 })
    local b = a + 1
    b = nil
    collectgarbage()
    assert.is_true(gm.counters().host_pool_bytes_cached >= 1 * MB)
    local trims = gm.counters().host_pool_trims
    gm.collect()
    local c = gm.counters()
    assert.are.equal(0, c.host_pool_bytes_cached)
    assert.is_true(c.host_pool_trims > trims)
    assert.are.equal(1, a[1])
  end)

  it("a small mat's cuda_host facet gets a page of its own: no two registered blocks share a page", function()
    local function addr(p) return tonumber(string.format("%p", p):match("0x(%x+)"), 16) end
    gm.with_cuda({ backend = "emulated" }, function()
      local ms, pages = {}, {}
      for i = 1, 3 do ms[i] = gm.mat({ 5 }, { initial_element = i }) end
      for i = 1, 3 do
        gm.with_facet(ms[i], "foreign", "input", function() end) -- a 64-byte host block
        gm.with_facet(ms[i], "cuda_host", "input", function(p)
          assert.are.equal(0, addr(p) % 4096)
          local page = addr(p) // 4096
          assert.is_nil(pages[page])
          pages[page] = true
        end)
        assert.are.same({ i, i, i, i, i }, gm.mat_to_array(ms[i])) -- moved with its contents
      end
    end)
  end)

  it("page-locked blocks are reused from the device's pinned pool", function()
    local saved = gm.foreign_array_strategy
    gm.foreign_array_strategy = "cuda_host" -- cuda_host facets from cudaHostAlloc (page-locked blocks)
    local ok, err = pcall(gm.with_cuda, { backend = "emulated" }, function()
      local hits = gm.counters().pinned_host_pool_hits
      for i = 1, 20 do
        local m = gm.mat({ 1000 }, { initial_element = i })
        gm.with_facet(m, "cuda_host", "input", function() end)
        assert.are.equal(1000 * i, m:asum())
        m = nil
        collectgarbage()
      end
      local c = gm.counters()
      -- the first block is fresh; each later one takes the block the last freed
      assert.is_true(c.pinned_host_pool_hits - hits >= 18, tostring(c.pinned_host_pool_hits - hits))
      assert.is_true(c.pinned_host_bytes <= 2 * 8192)
      gm.collect()
      assert.are.equal(0, gm.counters().pinned_host_bytes_cached)
    end)
    gm.foreign_array_strategy = saved
    assert(ok, err)
  end)
end)
