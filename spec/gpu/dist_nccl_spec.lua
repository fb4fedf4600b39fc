-- gpumat.dist on a real CUDA device: collectives on the cuda facet through
-- NCCL, no host copy.  Pending without a GPU (as on the machines this
-- project is developed on).  As one process this is the NCCL world of one;
-- under `mpirun -np K` (one GPU per rank, device id = local rank) the
-- expected values are the same formulas as spec/dist_spec.lua's.
local gm = require "gpumat"
local dist = require "gpumat.dist"

local function need_gpu()
  local ok, why = gm.cuda_available()
  if not ok then pending("no CUDA device: " .. tostring(why)) end
  return ok
end

describe("dist on a real GPU", function()
  it("allreduce_, broadcast_ and allgather run through NCCL without host copies #outermost", function()
    if not need_gpu() then return end
    dist.init()
    local r, n = dist.rank(), dist.size()
    local dev = tonumber(os.getenv("OMPI_COMM_WORLD_LOCAL_RANK") or "0")
    gm.with_cuda({ backend = "cuda", device_id = dev }, function()
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
end)
