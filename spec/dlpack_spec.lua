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
    -- an expanded view is exported read-only: taken as a copy, unless copy = false
    local x = gm.array_to_mat({ 1, 2, 3 })
    local ro = gm.from_dlpack(x:expand({ 2, 3 }))
    assert.are.same({ { 1, 2, 3 }, { 1, 2, 3 } }, ro:to_table())
    ro[1] = 9
    assert.are.same({ 9, 1, 1 }, { ro[1], ro[4], x[1] })
    assert.has_error(function() gm.from_dlpack(x:expand({ 2, 3 }), { copy = false }) end,
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
    assert.has_error(function() m:__dlpack({ stream = 1 }) end,
      "__dlpack: stream 1: an export of host (kDLCPU) memory takes no stream")
    assert.has_error(function() m:__dlpack({ copy = "yes" }) end,
      "bad argument #2 to '__dlpack' (option 'copy' must be a boolean or nil, got string)")
    assert.has_error(function() m:__dlpack({ colour = 1 }) end, "bad argument #2 to '__dlpack' (unknown option 'colour')")
  end)

  it("takes the array API's __dlpack__ and from_dlpack options", function()
    local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
    -- max_version: 1.x (the capsule is DLPack 1.x whatever later major is asked); below 1 refused
    for _, v in ipairs { { 1, 0 }, { 1, 3 }, { 2, 0 } } do
      local n = gm.from_dlpack(m:__dlpack({ max_version = v }))
      n[1] = n[1] + 10 -- shared
    end
    assert.are.equal(31, m[1])
    assert.has_error(function() m:__dlpack({ max_version = { 0, 8 } }) end,
      "bad argument #2 to '__dlpack' (max_version {0, 8}: gpumat exports DLPack 1.x (DLManagedTensorVersioned) "
        .. "only, not the legacy unversioned struct)")
    assert.has_error(function() m:__dlpack({ max_version = { 1 } }) end,
      "bad argument #2 to '__dlpack' (option 'max_version' must be a pair of integers {major, minor}, got table)")
    -- dl_device: {1, 0} (kDLCPU) is where a host mat is; other devices raise
    local c = m:__dlpack({ dl_device = { 1, 0 }, stream = -1 })
    assert.are.same({ 1, 0 }, { c:device() })
    local shared = gm.from_dlpack(c, { device = { 1, 0 } })
    shared[2] = 20
    assert.are.equal(20, m[2])
    assert.has_error(function() m:__dlpack({ dl_device = { 7, 0 } }) end,
      "__dlpack: dl_device type 7: gpumat exports kDLCPU (1), kDLCUDA (2), kDLCUDAHost (3) and kDLCUDAManaged (13)")
    assert.has_error(function() m:__dlpack({ dl_device = { 3, 0 } }) end,
      "__dlpack: dl_device kDLCUDAHost: m's memory is kDLCPU memory (only a copy could be kDLCUDAHost, and gpumat "
        .. "makes none there)")
    assert.has_error(function() m:__dlpack({ dl_device = { 1, 2 } }) end, "__dlpack: dl_device (kDLCPU, 2): the CPU is device 0")
    assert.has_error(function() m:__dlpack({ dl_device = "cpu" }) end,
      "bad argument #2 to '__dlpack' (option 'dl_device' must be a pair of integers {device type, device id}, got string)")
    assert.has_error(function() m:__dlpack({ dl_device = { 1, 0 }, device = "host" }) end,
      "bad argument #2 to '__dlpack' (options 'device' and 'dl_device' given together (give one))")
    -- stream: nil, or -1 on the host; 0 is ambiguous, below -1 none
    assert.has_error(function() m:__dlpack({ stream = 0 }) end,
      "bad argument #2 to '__dlpack' (stream 0 is ambiguous (the array API disallows it: nil or 1 the legacy "
        .. "default stream, 2 the per-thread one, -1 no synchronization))")
    assert.has_error(function() m:__dlpack({ stream = -2 }) end, "bad argument #2 to '__dlpack' (stream -2 is not a stream (at least -1))")
    assert.has_error(function() m:__dlpack({ stream = 1.5 }) end,
      "bad argument #2 to '__dlpack' (option 'stream' must be an integer or nil, got number)")
    -- copy: true copies (producer or consumer), false never, nil shares
    local cp = gm.from_dlpack(m, { copy = true })
    cp[1] = -1
    assert.are.same({ -1, 31 }, { cp[1], m[1] })
    local cap = m:__dlpack()
    local cp2 = gm.from_dlpack(cap, { copy = true }) -- a capsule: the consumer copies, the deleter runs at once
    cp2[1] = -2
    assert.are.same({ -2, 31 }, { cp2[1], m[1] })
    assert.are.equal("#<DLPACK CAPSULE (consumed)>", tostring(cap))
    local sh = gm.from_dlpack(m, { copy = false })
    sh[1] = 41
    assert.are.equal(41, m[1])
    -- from_dlpack's device: the tensor's own, or refused (gpumat moves no tensor)
    assert.has_error(function() gm.from_dlpack(m:__dlpack(), { device = { 2, 0 } }) end,
      "from_dlpack: the tensor is kDLCPU memory (device 0); gpumat does not move it to kDLCUDA (device 0): import it "
        .. "where it is")
    assert.are.same(m:to_table(), gm.from_dlpack(m, { device = "host" }):to_table())
    assert.has_error(function() gm.from_dlpack(m, { device = "gpu" }) end,
      "bad argument #2 to 'from_dlpack' (option 'device' must be a pair of integers {device type, device id}, got string)")
    assert.has_error(function() gm.from_dlpack(m, { copy = 1 }) end,
      "bad argument #2 to 'from_dlpack' (option 'copy' must be a boolean or nil, got number)")
    assert.has_error(function() gm.from_dlpack(m, { stream = 1 }) end,
      "bad argument #2 to 'from_dlpack' (unknown option 'stream')")
    -- the protocol hands the options to the producer's __dlpack
    local seen
    local obj = { __dlpack = function(_, o) seen = o return m:__dlpack(o) end }
    gm.from_dlpack(obj, { copy = false, device = { 1, 0 } })
    assert.are.same({ max_version = { 1, 1 }, dl_device = { 1, 0 }, copy = false }, seen)
  end)

  it("frees an imported copy and its producer in both orders", function()
    for _, producer_first in ipairs { true, false } do
      local m = gm.array_to_mat({ 1, 2, 3 })
      local copy = gm.from_dlpack(m:expand({ 2, 3 })) -- read-only: copied, the capsule's deleter already run
      if producer_first then
        m:free()
        collectgarbage()
        assert.are.same({ { 1, 2, 3 }, { 1, 2, 3 } }, copy:to_table())
      else
        copy:free()
        collectgarbage()
        assert.are.same({ 1, 2, 3 }, m:to_table())
      end
    end
  end)

  it("exports the emulated device's data through the host, never as CUDA memory", function()
    gm.with_cuda({ backend = "emulated" }, function()
      local m = gm.mat({ 3 }, { ctype = "float", initial_element = 1 })
      gm.scal_(3, m) -- on the emulated device: its cuda facet alone is current
      assert.has_error(function() m:__dlpack({ device = "cuda" }) end,
        "__dlpack: the emulated device's memory is not CUDA memory: export with device \"host\" (its data is "
          .. "brought to the host first)")
      assert.has_error(function() m:__dlpack({ dl_device = { 2, 0 } }) end,
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
