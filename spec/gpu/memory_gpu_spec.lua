-- The memory layer on a real CUDA device (backend "cuda"): pitched arrays
-- (cudaMallocPitch, cudaMemcpy2D), page-locked mapped memory
-- (cudaHostAlloc with flags, cudaHostGetDevicePointer), managed memory
-- (cudaMallocManaged), staging mats.  Pending without a GPU, like
-- cuda_device_spec.lua; the same behaviour runs on the emulated device in
-- spec/buffer_spec.lua, memory_space_spec.lua and staging_spec.lua.
local gm = require "gpumat"
local need_gpu, CUDA = require("gpu_case")(_ENV)

local function flat(b)
  local t = {}
  for k = 1, gm.buffer_size(b) do t[k] = gm.row_major_bref(b, k) end
  return t
end

describe("memory layer on a real GPU", function()
  it("pitched arrays: padded rows, 2-d copies both ways #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local d = gm.make_cuda_array({ 5, 7 }, { element_type = "float", pitch_elt_size = 4 })
      local pitch = gm.buffer_pitch(d)
      assert.is_true(pitch >= 28 and pitch % 4 == 0)
      local h = gm.make_foreign_array({ 5, 7 }, { element_type = "float" })
      for k = 1, 35 do gm.set_row_major_bref(h, k, k) end
      local c0 = gm.counters()
      gm.copy_full_buffer(h, d)
      assert.are.equal(c0.n_memcpy_host_to_device + 1, gm.counters().n_memcpy_host_to_device)
      local back = gm.make_foreign_array({ 5, 7 }, { element_type = "float" })
      gm.copy_full_buffer(d, back)
      for k = 1, 35 do assert.are.equal(k, gm.row_major_bref(back, k)) end
      local row = gm.buffer_displace(d, { offset = 14, size = 7 })
      assert.are.same({ 15, 16, 17, 18, 19, 20, 21 }, flat(row))
    end)
  end)

  it("mapped pinned memory: device ops in place, zero copies #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local c0 = gm.counters()
      local x = gm.mat(1000, { mapped = true, initial_element = 2 })
      gm.scal_(3, x)
      assert.are.equal(6, gm.mref(x, 1000))
      local c1 = gm.counters()
      assert.are.equal(c0.n_memcpy_host_to_device, c1.n_memcpy_host_to_device)
      assert.are.equal(c0.n_memcpy_device_to_host, c1.n_memcpy_device_to_host)
      local p = gm.make_cuda_host_array(4, { flags = { "mapped", "portable" }, initial_element = 1 })
      assert.are.equal("device", gm.buffer_displace(p, { mapping = "device" }):mem_type())
    end)
  end)

  it("managed memory: host and device use it in place #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local b = gm.make_managed_array(100, { element_type = "double", initial_element = 1 })
      local m = gm.mat_from_buffer(b)
      gm.scal_(5, m)
      assert.are.equal(5, gm.row_major_bref(b, 100))
    end)
  end)

  it("pinned staging mats copy directly #outermost", function()
    if not need_gpu() then return end
    gm.with_cuda(CUDA, function()
      local m = gm.mat(1000, { pinned = true, initial_element = 1 })
      assert.are.equal("FH", m:facets())
      gm.scal_(2, m)
      assert.are.equal(2, gm.mref(m, 1))
    end)
  end)
end)
