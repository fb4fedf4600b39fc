-- DLPack interchange in Lua (docs/API.md "DLPack"): m:__dlpack() hands out
-- a capsule, gm.from_dlpack takes one (or an object with a __dlpack
-- method) without a copy.  Every ctype round-trips with its values and
-- shares its memory; views keep their strides; the storage outlives
-- either side (free orders, collectgarbage); hostile capsules and options
-- raise.  Under GPUMAT_DEVICE=emulated the bodies run on the emulated
-- device, whose memory is exported through the host.  The C side (every
-- refusal, DLPack versions, a C producer) is tests/dlpack_test.c;
-- pinned, managed and CUDA memory spec/gpu/dlpack_gpu_spec.lua.
local gm = require "gpumat"
local core = require "gpumat.core"

-- small values every ctype holds exactly (bool: 0/1)
local function contents(ct)
  local t = {}
  for i = 1, 2 do
    t[i] = {}
    for j = 1, 3 do t[i][j] = core._ctypes[ct].kind == "bool" and (i + j) % 2 or i * 3 + j - 4 end
  end
  return t
end

describe("DLPack", function()
  it("round-trips every ctype through a capsule, sharing the memory", function()
    for ct in pairs(core._ctypes) do
      local m = gm.mat({ 2, 3 }, { ctype = ct, initial_contents = contents(ct) })
      local c = m:__dlpack()
      assert.are.equal(1, (c:device())) -- kDLCPU: the emulated device's data comes to the host
      local n = gm.from_dlpack(c)
      assert.are.equal(ct, n:ctype(), ct)
      assert.are.same(m:to_table(), n:to_table(), ct)
      n[6] = 0
      m[1] = 1
      assert.are.same({ n[1], m[6] }, { m[1], n[6] }, ct)
    end
  end)

  it("exports views with their strides (transposed, narrowed, backwards)", function()
    local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
    for _, v in ipairs { m:t(), m:narrow(2, 2, 2), m[{ { -1, 1, -1 }, { 3, 1, -2 } }] } do
      local n = gm.from_dlpack(v)
      assert.are.same(v:strides(), n:strides())
      assert.are.same(v:to_table(), n:to_table())
    end
    local r = gm.from_dlpack(m[{ { -1, 1, -1 } }])
    r[1] = 40 -- element (2, 1) of m
    assert.are.equal(40, m[4])
    assert.has_error(function() gm.from_dlpack(gm.mat({ 3 }):expand({ 2, 3 })) end,
      "from_dlpack: the tensor is read-only (gpumat's mats are writable): import a copy")
    local e = gm.from_dlpack(gm.mat({ 0, 3 }))
    assert.are.same({ 0, 3 }, e:dims())
  end)

  it("keeps the storage while either side lives, freed in both orders", function()
    local m = gm.mat({ 4 }, { ctype = "int32", initial_contents = { 1, 2, 3, 4 } })
    local c = m:__dlpack()
    m:free()
    m = nil
    collectgarbage()
    collectgarbage()
    local n = gm.from_dlpack(c) -- the producer is gone: the capsule held its memory
    assert.are.same({ 1, 2, 3, 4 }, n:to_table())
    local k = gm.from_dlpack(n)
    n:free()
    assert.are.same({ 1, 2, 3, 4 }, k:to_table())
    local copy = gm.from_dlpack(k:__dlpack({ copy = true }))
    k[1] = 9
    assert.are.same({ 1, 9 }, { copy[1], k[1] })
    gm.from_dlpack(copy:__dlpack()) -- consumed, then collected before the producer
    collectgarbage()
    assert.are.equal(1, copy[1])
    local unused = k:__dlpack()
    unused = nil -- never consumed: its __gc calls the deleter
    collectgarbage()
    assert.are.equal(9, k[1])
  end)

  it("takes objects with a __dlpack method, and refuses hostile input", function()
    local m = gm.array_to_mat({ 1, 2 })
    assert.are.same({ 1, 2 }, gm.from_dlpack({ __dlpack = function() return m:__dlpack() end }):to_table())
    local c = m:__dlpack()
    gm.from_dlpack(c)
    assert.are.equal("#<DLPACK CAPSULE (consumed)>", tostring(c))
    assert.has_error(function() gm.from_dlpack(c) end,
      "bad argument #1 to 'from_dlpack' (the DLPack capsule was already consumed)")
    assert.has_error(function() c:device() end, "bad argument #1 to 'device' (the DLPack capsule was already consumed)")
    assert.has_error(function() gm.from_dlpack(io.stdout) end,
      "bad argument #1 to 'from_dlpack' (DLPack capsule or object with a __dlpack method expected, got userdata)")
    assert.has_error(function() gm.from_dlpack(7) end,
      "bad argument #1 to 'from_dlpack' (DLPack capsule or object with a __dlpack method expected, got number)")
    assert.has_error(function() gm.from_dlpack({ __dlpack = function() return 1 end }) end,
      "bad argument #1 to 'from_dlpack' (its __dlpack method returned number, not a DLPack capsule)")
    assert.has_error(function() gm.from_dlpack() end)
    assert.has_error(function() m:__dlpack({ device = "gpu" }) end,
      "bad argument #2 to '__dlpack' (option 'device' must be \"host\" or \"cuda\")")
    assert.has_error(function() m:__dlpack({ stream = 1 }) end, "bad argument #2 to '__dlpack' (unknown option 'stream')")
    assert.has_error(function() m:__dlpack({ copy = "yes" }) end)
  end)

  it("exports the emulated device's data through the host, never as CUDA memory", function()
    gm.with_cuda({ backend = "emulated" }, function()
      local m = gm.mat({ 3 }, { ctype = "float", initial_element = 1 })
      gm.scal_(3, m) -- on the emulated device: its cuda facet alone is current
      assert.has_error(function() m:__dlpack({ device = "cuda" }) end,
        "__dlpack: the emulated device's memory is not CUDA memory: export with device \"host\" (its data is "
          .. "brought to the host first)")
      local n = gm.from_dlpack(m)
      assert.are.same({ 3, 3, 3 }, n:to_table())
      n[1] = 5 -- the consumer writes the exported (host) facet, now the current one
      gm.scal_(2, m)
      assert.are.same({ 10, 6, 6 }, m:to_table())
    end)
  end)
end)
