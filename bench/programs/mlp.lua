-- A 64-64-10 MLP (tanh hidden layer, softmax output, cross-entropy) on
-- the digits-shaped data, 300 full-batch Adam steps, written the way the
-- docs teach: every expression allocates its result, no out= buffers, no
-- collectgarbage().  mlp.py is the same program in numpy.
local gm = require "gpumat"
local C = dofile(arg[0]:match("^(.*)/[^/]*$") .. "/common.lua")

gm.with_cuda({}, function()
  local X, T = C.load("digits_X"), C.load("digits_T")
  local W1, W2 = C.load("mlp_W1"), C.load("mlp_W2")
  local n = X:dim(1)
  local b1, b2 = gm.zeros(1, 64), gm.zeros(1, 10)
  local params = { W1, b1, W2, b2 }
  local m, v = {}, {}
  for i, p in ipairs(params) do m[i], v[i] = gm.zeros_like(p), gm.zeros_like(p) end
  local lr, beta1, beta2, eps = 0.01, 0.9, 0.999, 1e-8
  local t0 = C.now()
  local P
  for t = 1, 300 do
    local H = gm.tanh(X * W1 + b1)
    P = gm.softmax(H * W2 + b2, 2)
    local G = (P - T) / n                          -- d loss / d logits
    local dH = gm.cmul(G * W2:t(), 1 - gm.cmul(H, H))
    local grads = { X:t() * dH, dH:sum(1, { keepdims = true }), H:t() * G, G:sum(1, { keepdims = true }) }
    local c = lr * math.sqrt(1 - beta2 ^ t) / (1 - beta1 ^ t)
    for i, g in ipairs(grads) do
      m[i] = beta1 * m[i] + (1 - beta1) * g
      v[i] = beta2 * v[i] + (1 - beta2) * gm.cmul(g, g)
      params[i] = params[i] - c * m[i] / (gm.sqrt(v[i]) + eps)
    end
    W1, b1, W2, b2 = params[1], params[2], params[3], params[4]
  end
  local loss = -gm.cmul(T, gm.log(P)):sum() / n
  C.report(t0, loss)
end)
