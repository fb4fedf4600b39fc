-- PCA of 5000 x 64 data: the covariance by a gemm of the centered data,
-- then the top 5 components by power iteration (100 steps each) with
-- deflation.  Many small ops: this one measures fixed costs per call.
-- pca.py is the numpy twin.
local gm = require "gpumat"
local C = dofile(arg[0]:match("^(.*)/[^/]*$") .. "/common.lua")

gm.with_cuda({}, function()
  local X, v0 = C.load("pca_X"), C.load("pca_V0")
  local t0 = C.now()
  local Xc = X - X:mean(1)
  local S = Xc:t() * Xc / (X:dim(1) - 1)
  local total = 0
  for _ = 1, 5 do
    local v = v0 / v0:nrm2()
    local lambda
    for _ = 1, 100 do
      local w = S * v
      lambda = gm.dot(v, w)
      v = w / w:nrm2()
    end
    total = total + lambda
    S = S - lambda * (v * v:t())
  end
  C.report(t0, total)
end)
