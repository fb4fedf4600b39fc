-- Scoped allocation caches: gm.cached(cache, fn, ...) takes every
-- facet block (host and device) from the cache when it holds one of that
-- size and gives every block of the scope back when fn ends; mats and
-- buffers fn returns survive, any other raises "memory returned to an
-- alloc cache" on use (never a read of recycled memory).  Nesting,
-- uncached, stats, free, <close>.
local gm = require "gpumat"

local EMU = { backend = "emulated" }
local function on_device(fn) return gm.with_cuda(EMU, fn) end

describe("alloc caches", function()
  it("the second iteration hits the cache for every block #host", function()
    local cache <close> = gm.alloc_cache()
    local function step(i)
      local a = gm.mat(1000, { initial_element = i })
      local b = gm.make_foreign_array(300, { element_type = "int32", initial_element = i })
      gm.scal_(2, a)
      return gm.mref(a, 1000) + gm.row_major_bref(b, 300)
    end
    assert.are.equal(3, gm.cached(cache, step, 1))
    -- host size classes (hostpool.h): 8000 bytes -> 8192 (pages), 1200 -> 1280 (64-byte steps)
    assert.are.same({ n_blocks = 2, n_bytes = 8192 + 1280, n_hits = 0, n_misses = 2 }, cache:stats())
    for i = 2, 5 do assert.are.equal(3 * i, gm.cached(cache, step, i)) end
    assert.are.same({ n_blocks = 2, n_bytes = 8192 + 1280, n_hits = 8, n_misses = 2 }, cache:stats())
    cache:free()
    assert.are.same({ n_blocks = 0, n_bytes = 0, n_hits = 8, n_misses = 2 }, cache:stats())
  end)

  it("device blocks come from and return to the cache: device bytes stay flat #outermost", function()
    on_device(function()
      local cache <close> = gm.alloc_cache()
      collectgarbage()
      collectgarbage()
      gm.collect()
      local base = gm.counters().device_bytes_in_use
      local peak = base
      for i = 1, 20 do
        gm.cached(cache, function()
          local x = gm.mat(100000, { ctype = "float", initial_element = 1 })
          gm.scal_(i, x) -- a cuda facet: one device block
          local d = gm.make_cuda_array(5000, { element_type = "double" })
          gm.buffer_fill(d, i)
          peak = math.max(peak, gm.counters().device_bytes_in_use)
        end)
      end
      local s = cache:stats()
      assert.are.equal(2, s.n_misses) -- x's cuda block (its first facet: no host block), d
      assert.are.equal(38, s.n_hits)
      assert.are.equal(2, s.n_blocks)
      -- all iterations fit in one iteration's device memory
      assert.is_true(peak - base <= 400000 + 40960 + 2 * 512)
      assert.is_true(gm.counters().device_bytes_in_use - base <= 400000 + 40960 + 2 * 512)
      cache:free()
      gm.collect()
      assert.are.equal(base, gm.counters().device_bytes_in_use)
    end)
  end)

  it("returned mats and buffers survive; the others raise on use", function()
    local cache <close> = gm.alloc_cache()
    local leaked, leaked_b, leaked_view
    local m, b = gm.cached(cache, function()
      local keep = gm.mat(4, { initial_element = 5 })
      gm.scal_(2, keep)
      local kb = gm.make_foreign_array(2, { element_type = "uint8", initial_element = 9 })
      leaked = gm.mat(4, { initial_element = 1 })
      gm.scal_(3, leaked)
      leaked_b = gm.make_foreign_array(2, { initial_element = 1 })
      leaked_view = gm.mat(2, { displaced_to = leaked, displacement = 1 })
      return keep, kb
    end)
    assert.are.equal(10, gm.mref(m, 4))
    gm.scal_(2, m)
    assert.are.equal(20, gm.mref(m, 1))
    assert.are.equal(9, gm.row_major_bref(b, 2))
    assert.has_error(function() gm.mref(leaked, 1) end, "mref: memory returned to an alloc cache")
    assert.has_error(function() gm.scal_(2, leaked) end, "scal_: memory returned to an alloc cache")
    assert.has_error(function() gm.mref(leaked_view, 1) end, "mref: memory returned to an alloc cache")
    assert.has_error(function() gm.row_major_bref(leaked_b, 1) end, "row_major_bref: memory returned to an alloc cache")
    assert.is_nil(gm.buffer_refcnt(leaked_b))
    -- the next scope reuses that memory; the leaked mats still raise
    gm.cached(cache, function()
      local fresh = gm.mat(4, { initial_element = 7 })
      gm.scal_(1, fresh)
      assert.are.equal(7, gm.mref(fresh, 1))
    end)
    assert.has_error(function() gm.mref(leaked, 1) end, "mref: memory returned to an alloc cache")
  end)

  it("blocks also return when fn errors", function()
    local cache <close> = gm.alloc_cache()
    local leaked
    assert.has_error(function()
      gm.cached(cache, function()
        leaked = gm.mat(10, { initial_element = 1 })
        gm.scal_(2, leaked)
        error("boom", 0)
      end)
    end, "boom")
    assert.is_true(cache:stats().n_blocks >= 1)
    assert.has_error(function() gm.mref(leaked, 1) end, "mref: memory returned to an alloc cache")
  end)

  it("scopes nest (innermost wins) and uncached allocates as usual #host", function()
    local outer <close> = gm.alloc_cache()
    local inner <close> = gm.alloc_cache()
    local survivor
    gm.cached(outer, function()
      gm.scal_(1, gm.mat(10, { initial_element = 1 })) -- outer: 1 block
      gm.cached(inner, function()
        gm.scal_(1, gm.mat(20, { initial_element = 1 })) -- inner: 1 block
        survivor = gm.uncached(function()
          local s = gm.mat(30, { initial_element = 4 })
          gm.scal_(1, s)
          return s
        end)
        local plain = gm.uncached(function()
          local p = gm.mat(40, { initial_element = 1 })
          gm.scal_(1, p)
          return p
        end)
        assert.are.equal(1, gm.mref(plain, 40))
      end)
    end)
    assert.are.equal(1, outer:stats().n_blocks)
    assert.are.equal(128, outer:stats().n_bytes) -- host blocks are 64-byte multiples
    assert.are.equal(1, inner:stats().n_blocks)
    assert.are.equal(192, inner:stats().n_bytes)
    assert.are.equal(4, gm.mref(survivor, 30)) -- uncached memory outlives both scopes
  end)

  it("free raises inside its own scope; closed caches refuse scopes #host", function()
    local cache = gm.alloc_cache()
    gm.cached(cache, function()
      assert.has_error(function() cache:free() end, "free: cannot free an alloc cache inside its own scope")
    end)
    assert.has_no_error(function() cache:free() end)
    local closed
    do
      local c <close> = gm.alloc_cache()
      closed = c
    end
    assert.has_error(function() gm.cached(closed, function() end) end,
      "bad argument #1 to 'cached' (the alloc cache is closed)")
    assert.has_error(function() gm.cached({}, function() end) end,
      "bad argument #1 to 'cached' (alloc cache expected, got table)")
    assert.has_error(function() gm.cached(gm.alloc_cache(), 3) end,
      "bad argument #2 to 'cached' (function expected, got number)")
  end)

  it("a garbage cache frees its blocks #outermost", function()
    on_device(function()
      collectgarbage()
      collectgarbage()
      gm.collect()
      local base = gm.counters().device_bytes_in_use
      local cache = gm.alloc_cache()
      gm.cached(cache, function() gm.make_cuda_array(4096, { element_type = "double" }) end)
      assert.are.equal(base + 32768, gm.counters().device_bytes_in_use)
      cache = nil
      collectgarbage()
      collectgarbage()
      gm.collect()
      assert.are.equal(base, gm.counters().device_bytes_in_use)
    end)
  end)
end)
