-- A 10-class softmax classifier written as a NumPy or Torch7 user would
-- write it: broadcasting for the bias, a stable gm.softmax along the class
-- axis, argmax along that axis for the predictions, axis sums for the
-- gradient of the bias, and constructors (gm.randn, gm.zeros).
--
-- The data: 10 gaussian clusters in 16 dimensions (class c has its mean
-- at a random point; the clusters overlap a little).  Training is plain
-- full-batch gradient descent on the mean cross-entropy.
--
-- Runs unchanged on the host, on the emulated device
-- (GPUMAT_DEVICE=emulated) and on a GPU: everything happens inside
-- gm.with_cuda{}.
--   lua5.4 examples/softmax.lua [--quick]
-- Prints the loss and accuracy every few steps and ends with the line
-- "accuracy A" (training accuracy) and "test accuracy T".
local gm = require "gpumat"

local quick = arg and arg[1] == "--quick" or os.getenv("GPUMAT_SOFTMAX_QUICK") == "1"
local classes, features = 10, 16
local n_train, n_test = quick and 1000 or 5000, 1000
local steps, lr = quick and 150 or 400, 0.5
local ctype = "float"

-- n points: labels 1..classes in a (n x 1) double mat, features X (n x features)
local function dataset(n, centers)
  local labels, one_hot = {}, {}
  for i = 1, n do
    local c = (i - 1) % classes + 1
    labels[i] = { c }
    local row = {}
    for k = 1, classes do row[k] = k == c and 1 or 0 end
    one_hot[i] = row
  end
  local Y = gm.mat({ n, 1 }, { ctype = "double", initial_contents = labels })
  local T = gm.mat({ n, classes }, { ctype = ctype, initial_contents = one_hot })
  -- X = centers[label] + noise: the one-hot rows pick the centers (a gemm)
  local X = gm.randn(n, features, { ctype = ctype }) * 1.5
  X = X + T * centers
  return X, T, Y
end

local function accuracy(W, b, X, Y)
  local pred = (X * W + b):argmax(2, { keepdims = true }) -- 1-based class indices (int64)
  return gm.eq(pred, Y):mean() -- the mean of a bool mat: the fraction of matches
end

local function train()
  gm.seed(11)
  local centers = gm.randn(classes, features, { ctype = ctype }) * 1.2
  local X, T, Y = dataset(n_train, centers)
  local Xt, _, Yt = dataset(n_test, centers)
  local W = gm.zeros(features, classes, { ctype = ctype })
  local b = gm.zeros(1, classes, { ctype = ctype })
  local Xtr = X:t() -- a transposed view: the gradient's gemm reads it in place
  for step = 1, steps do
    local P = gm.softmax(X * W + b, 2)           -- row-wise class probabilities
    local G = (P - T) / n_train                  -- d loss / d logits
    W = W - lr * (Xtr * G)
    b = b - lr * G:sum(1, { keepdims = true })   -- the bias gradient: column sums
    if step == 1 or step % 50 == 0 or step == steps then
      local loss = -(gm.cmul(T, gm.log(P + 1e-7))):sum() / n_train
      print(("step %4d  loss %.4f  accuracy %.3f"):format(step, loss, accuracy(W, b, X, Y)))
    end
  end
  return accuracy(W, b, X, Y), accuracy(W, b, Xt, Yt)
end

local placement = require("gpumat.repl").placement
local acc, test_acc = gm.with_cuda({}, function()
  print("gpumat " .. gm.version .. ": " .. placement(gm))
  return train()
end)
print(("accuracy %.3f"):format(acc))
print(("test accuracy %.3f"):format(test_acc))
