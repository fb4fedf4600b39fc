-- Logistic regression, 10000 x 32, 300 steps of full-batch gradient
-- descent on the mean log loss.  logreg.py is the numpy twin.
local gm = require "gpumat"
local C = dofile(arg[0]:match("^(.*)/[^/]*$") .. "/common.lua")

gm.with_cuda({}, function()
  local X, y = C.load("logreg_X"), C.load("logreg_y")
  local n, lr = X:dim(1), 0.5
  local w, b = gm.zeros(32, 1), 0
  local t0 = C.now()
  local p
  for _ = 1, 300 do
    p = gm.logistic(X * w + b)
    local e = p - y
    w = w - lr * (X:t() * e) / n
    b = b - lr * e:mean()
  end
  local loss = -(gm.cmul(y, gm.log(p)) + gm.cmul(1 - y, gm.log(1 - p))):mean()
  C.report(t0, loss)
end)
