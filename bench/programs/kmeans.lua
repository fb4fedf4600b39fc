-- k-means (Lloyd's algorithm, 30 iterations) on 20000 points in 16
-- dimensions, 10 clusters: squared distances by broadcasting and a gemm,
-- argmin along the cluster axis, new centers as a one-hot gemm over the
-- counts.  kmeans.py is the numpy twin.
local gm = require "gpumat"
local C = dofile(arg[0]:match("^(.*)/[^/]*$") .. "/common.lua")

gm.with_cuda({}, function()
  local X, Cs = C.load("kmeans_X"), C.load("kmeans_C0")
  local K = Cs:dim(1)
  local ks = gm.range(1, K)
  local t0 = C.now()
  local D
  for _ = 1, 30 do
    -- |x|^2 - 2 x.c + |c|^2: N x 1, N x K and a row of K
    D = X:pow(2):sum(2, { keepdims = true }) - 2 * (X * Cs:t()) + Cs:pow(2):sum(2)
    local labels = D:argmin(2, { keepdims = true })   -- N x 1, 1-based
    local onehot = labels:eq(ks):as(X:dtype())          -- N x K, 1/0 in X's type
    Cs = (onehot:t() * X) / onehot:sum(1):view(K, 1)
  end
  C.report(t0, D:min(2):sum())
end)
