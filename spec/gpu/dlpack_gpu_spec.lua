-- DLPack on a real CUDA device (docs/API.md "DLPack"): a mat whose data is
-- current only on the device exports its cuda facet (kDLCUDA, the device
-- id), device = "host" brings it to the host (kDLCPU), a pinned staging
-- mat exports page-locked memory (kDLCUDAHost) and a mat over managed
-- memory kDLCUDAManaged; gpumat imports each back without a copy (the
-- import of device memory has only a cuda facet) and the values agree.
-- Pending when gm.cuda_available() is false.  #outermost: they open the
-- real device themselves.
local gm = require "gpumat"
local need_gpu, CUDA = require("gpu_case")(_ENV)

describe("DLPack on a real GPU", function()
  it("exports and imports cuda, page-locked and managed memory in place #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local m = gm.mat({ 2, 3 }, { ctype = "float", initial_element = 1 })
      gm.scal_(3, m) -- only the cuda facet is current
      local c = m:__dlpack()
      assert.are.same({ 2, 0 }, { c:device() })
      local c0 = gm.counters()
      local n = gm.from_dlpack(c)
      assert.are.equal("C", n:facets())
      gm.scal_(2, n) -- on the device, in m's memory
      local c1 = gm.counters()
      assert.are.equal(c0.n_memcpy_host_to_device, c1.n_memcpy_host_to_device)
      assert.are.same({ { 6, 6, 6 }, { 6, 6, 6 } }, m:to_table())
      local h = m:__dlpack({ device = "host" })
      assert.are.same({ 1, 0 }, { h:device() })
      assert.are.same({ 6, 6 }, gm.from_dlpack(h):t():to_table()[1]) -- (3 x 2: a row of 2)
      assert.are.same({ 2, 0 }, { m:__dlpack({ device = "cuda" }):device() })
      local p = gm.mat(4, { pinned = true, initial_element = 2 })
      local pc = p:__dlpack({ device = "host" })
      assert.are.same({ 3, 0 }, { pc:device() })
      assert.are.same({ 2, 2, 2, 2 }, gm.from_dlpack(pc):to_table())
      local b = gm.make_managed_array(5, { element_type = "double", initial_element = 4 })
      local mm = gm.mat_from_buffer(b)
      local mc = mm:__dlpack({ device = "host" })
      assert.are.same({ 13, 0 }, { mc:device() })
      local back = gm.from_dlpack(mc)
      gm.scal_(0.5, back)
      assert.are.equal(2, gm.row_major_bref(b, 5))
    end)
    collectgarbage()
    collectgarbage()
    gm.collect() -- the deferred deleters of the device imports run here
  end)

  it("takes the array API's dl_device, stream and copy on device memory #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local m = gm.mat({ 2, 3 }, { ctype = "float", initial_element = 1 })
      gm.scal_(3, m) -- only the cuda facet is current
      for _, stream in ipairs { 1, 2, -1 } do
        assert.are.same({ 2, 0 }, { m:__dlpack({ dl_device = { 2, 0 }, stream = stream }):device() })
      end
      assert.has_error(function() m:__dlpack({ dl_device = { 2, 1 } }) end,
        "__dlpack: dl_device (kDLCUDA, 1): the active context is on CUDA device 0")
      assert.are.same({ 1, 0 }, { m:__dlpack({ dl_device = { 1, 0 } }):device() })
      local p = gm.mat(4, { pinned = true, initial_element = 2 })
      assert.are.same({ 1, 0 }, { p:__dlpack({ dl_device = { 1, 0 } }):device() }) -- page-locked is CPU memory
      assert.are.same({ 3, 0 }, { p:__dlpack({ dl_device = { 3, 0 }, stream = 1 }):device() })
      -- from_dlpack: the tensor's own device, or refused; copy = true copies on the device
      gm.scal_(2, m)
      local n = gm.from_dlpack(m, { device = { 2, 0 } })
      assert.are.equal("C", n:facets())
      assert.has_error(function() gm.from_dlpack(m:__dlpack(), { device = { 1, 0 } }) end,
        "from_dlpack: the tensor is kDLCUDA memory (device 0); gpumat does not move it to kDLCPU (device 0): import "
          .. "it where it is")
      local cp = gm.from_dlpack(m, { copy = true })
      gm.scal_(0, m)
      assert.are.same({ { 6, 6, 6 }, { 6, 6, 6 } }, cp:to_table())
      assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 } }, n:to_table())
    end)
    collectgarbage()
    collectgarbage()
    gm.collect()
  end)
end)
