-- Checks for the findings of the CUDA backend review (docs/GPU.md,
-- "Review findings"), run on the emulated device, which models what the
-- CUDA runtime does there: cudart's per-thread last-error slot and sticky
-- error, a device memory size whose exhaustion fails raw allocations as
-- cudaMalloc does, and cuSOLVER's column-major argument mapping.
-- #outermost: each test opens its own context.
local gm = require "gpumat"

local EMU = { backend = "emulated" }
local MiB = 1 << 20

describe("review #1: cudart's last-error slot on the emulated device", function()
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
