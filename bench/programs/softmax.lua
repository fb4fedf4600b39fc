-- Softmax regression as in examples/softmax.lua (float, 5000 x 16, 10
-- classes, 400 steps of full-batch gradient descent), allocating
-- expressions only.  softmax.py is the numpy twin.
local gm = require "gpumat"
local C = dofile(arg[0]:match("^(.*)/[^/]*$") .. "/common.lua")

gm.with_cuda({}, function()
  local X, T = C.load("softmax_X"), C.load("softmax_T")
  local n, lr = X:dim(1), 0.5
  local W = gm.zeros(16, 10, { ctype = "float" })
  local b = gm.zeros(1, 10, { ctype = "float" })
  local t0 = C.now()
  local P
  for _ = 1, 400 do
    P = gm.softmax(X * W + b, 2)
    local G = (P - T) / n
    W = W - lr * (X:t() * G)
    b = b - lr * G:sum(1, { keepdims = true })
  end
  local loss = -gm.cmul(T, gm.log(P + 1e-7)):sum() / n
  C.report(t0, loss)
end)
