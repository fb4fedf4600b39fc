-- gpumat.dist on a real CUDA device: collectives on the cuda facet through
-- NCCL, no host copy.  Pending without a GPU (as on the machines this
-- project is developed on), in a build without MPI (gpumat.dist raises
-- at require) and in a build without NCCL (dist.nccl false: its device
-- collectives go through the host; cmake says so, set NCCL_ROOT).  As one
-- process this is the NCCL world of one; under
-- `mpirun -np K` each rank takes the device of its local rank
-- (dist.init sets gm.cuda_default_device_id) and the expected values are
-- the same formulas as spec/dist_spec.lua's.
local gm = require "gpumat"
local have_dist, dist = pcall(require, "gpumat.dist")

local function need_gpu()
  if not have_dist then pending("gpumat.dist unavailable: " .. tostring(dist)) return false end
  if not dist.nccl then pending("built without NCCL (cmake found none: set NCCL_ROOT)") return false end
  return require("gpu_case")(_ENV)()
end

describe("dist on a real GPU", function()
  it("allreduce_, broadcast_ and allgather run through NCCL without host copies #outermost", function()
    if not need_gpu() then return end
    dist.init()
    local r, n = dist.rank(), dist.size()
    assert.are.equal(dist.local_rank() % gm.device_count(), gm.cuda_default_device_id)
    gm.with_cuda({ backend = "cuda" }, function()
      for _, ct in ipairs({ "float", "double" }) do
        local m = gm.mat(4, { ctype = ct, initial_element = r + 1 })
        gm.scal_(1, m) -- make the cuda facet the up-to-date one
        local d2h = gm.counters().n_memcpy_device_to_host
        dist.allreduce_(m)
        dist.allreduce_(m, { op = "max" })
        local v = gm.mat(3, { ctype = ct, initial_element = r })
        gm.scal_(1, v)
        dist.broadcast_(v, n - 1)
        local g = dist.allgather(v)
        assert.are.equal(d2h, gm.counters().n_memcpy_device_to_host)
        local s = n * (n + 1) / 2
        assert.are.same({ s, s, s, s }, m:to_table())
        assert.are.same({ n - 1, n - 1, n - 1 }, v:to_table())
        assert.are.same({ n, 3 }, g:dims())
      end
    end)
  end)

  it("sendrecv_ around a ring on the cuda facet (one NCCL group) #outermost", function()
    if not need_gpu() then return end
    dist.init()
    local r, n = dist.rank(), dist.size()
    if n == 1 then pending("needs more than one rank") return end
    gm.with_cuda({ backend = "cuda" }, function()
      local k = 1 << 20
      local m = gm.mat(k, { ctype = "float", initial_element = r + 1 })
      local into = gm.mat(k, { ctype = "float", initial_element = -1 })
      gm.scal_(1, m)
      gm.scal_(1, into)
      local d2h = gm.counters().n_memcpy_device_to_host
      dist.sendrecv_(m, (r + 1) % n, into, (r - 1) % n)
      assert.are.equal(d2h, gm.counters().n_memcpy_device_to_host)
      assert.are.equal(k * ((r - 1) % n + 1), gm.asum(into))
    end)
  end)
end)
