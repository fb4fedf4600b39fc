-- A two-layer network (one hidden tanh layer, a logistic output) trained
-- end to end with gpumat on two interleaved spirals: gemm for the layers,
-- elementwise ops for activations, gradients and the Adam optimizer,
-- gaussian random initialization, and the REPL conveniences (m:sum(),
-- m:mean(), scalar operands) for the loss and accuracy.
--
-- The same file runs on the host, on the emulated device
-- (GPUMAT_DEVICE=emulated) and on a CUDA GPU: training runs inside
-- gm.with_cuda{}, which uses the device when there is one and the host
-- otherwise.  The convolution/pooling ops have no place in a dense MLP.
--
--   lua5.4 examples/mlp.lua [--quick] [--plot FILE.png | --no-plot]
--   (from the source tree: bin/gpumat examples/mlp.lua, or set LUA_PATH /
--    LUA_CPATH as in examples/tour.lua)
-- Prints the loss every few hundred steps, the final training accuracy,
-- and where the loss curve was plotted (gnuplot, when installed).
local gm = require "gpumat"

local quick, plot = false, "mlp_loss.png"
do
  local i = 1
  while arg and arg[i] do
    local a = arg[i]
    if a == "--quick" then quick = true
    elseif a == "--no-plot" then plot = nil
    elseif a == "--plot" then i = i + 1; plot = assert(arg[i], "--plot needs a file name")
    else error("usage: mlp.lua [--quick] [--plot FILE.png | --no-plot]") end
    i = i + 1
  end
end
if os.getenv("GPUMAT_MLP_QUICK") == "1" then quick = true end

local ctype = "float"
local n_per_class = quick and 150 or 400
local hidden = quick and 48 or 64
local steps = quick and 400 or 2500
local lr = 0.02
local N = 2 * n_per_class

-- Two spirals of 1.75 turns, class 1 rotated by pi, with a little noise.
local function spirals(noise)
  local x, y = {}, {}
  for c = 0, 1 do
    for i = 1, n_per_class do
      local r = i / n_per_class
      local t = 3.5 * math.pi * r + c * math.pi
      x[#x + 1] = { 3 * r * math.cos(t), 3 * r * math.sin(t) }
      y[#y + 1] = { c }
    end
  end
  local X = gm.mat({ N, 2 }, { ctype = ctype, initial_contents = x })
  X:axpy_(1, noise) -- noise: N x 2 gaussian mat
  return X, gm.mat({ N, 1 }, { ctype = ctype, initial_contents = y })
end

local function train()
  gm.seed(7)
  local noise = gm.mat({ N, 2 }, { ctype = ctype }):gaussian_random_({ stddev = 0.05 })
  local X, Y = spirals(noise)
  local function zeros(dims) return gm.mat(dims, { ctype = ctype, initial_element = 0 }) end

  -- Parameters W1 (2 x H), b1 (1 x H), W2 (H x 1), b2 (1 x 1) are views into
  -- one flat mat, and so are their gradients: Adam then updates all of
  -- them with a handful of elementwise ops on the flat mats.
  local shapes = { { 2, hidden }, { 1, hidden }, { hidden, 1 }, { 1, 1 } }
  local total = 0
  for _, d in ipairs(shapes) do total = total + d[1] * d[2] end
  local theta, grad = zeros(total), zeros(total)
  local function views(flat)
    local t, off = {}, 0
    for i, d in ipairs(shapes) do
      t[i] = gm.mat(d, { displaced_to = flat, displacement = off })
      off = off + d[1] * d[2]
    end
    return t
  end
  local W1, b1, W2, b2 = table.unpack(views(theta))
  local grads = views(grad)
  -- random initialization (scales that keep tanh out of saturation)
  W1:gaussian_random_({ stddev = 1.0 })
  b1:gaussian_random_({ stddev = 0.5 })
  W2:gaussian_random_({ stddev = 1 / math.sqrt(hidden) })
  -- Adam state
  local m1, m2, tmp = zeros(total), zeros(total), zeros(total)
  local beta1, beta2, eps = 0.9, 0.999, 1e-8

  -- activations and scratch
  local H = zeros({ N, hidden })   -- tanh(X W1 + b1)
  local dH = zeros({ N, hidden })
  local D = zeros({ N, hidden })   -- 1 - H^2
  local P = zeros({ N, 1 })        -- logistic(H W2 + b2)
  local dZ = zeros({ N, 1 })
  local notY = 1 - Y               -- a scalar operand: a new mat
  local Q1, Q2 = zeros({ N, 1 }), zeros({ N, 1 })
  local tiny = 1e-6
  -- Every step reuses these mats: no allocation in the loop (on a device a
  -- new mat per step would cost an allocation each time).

  local function forward()
    -- H := tanh(X W1 + b1): the 1 x H bias row is broadcast over the N rows
    H:gemm_(1, X, W1, 0)
    gm.add(H, b1, { out = H }):tanh_()
    P:gemm_(1, H, W2, 0)
    gm.add(P, b2, { out = P }):logistic_()
  end

  -- binary cross-entropy, mean over the points
  local function loss()
    Q1:copy_(P):max_(tiny):min_(1 - tiny)         -- clip away from 0 and 1
    Q2:copy_(Q1):scal_(-1):add_scalar_(1):log_()  -- log(1 - p)
    Q1:log_()                                     -- log p
    return -(gm.dot(Y, Q1) + gm.dot(notY, Q2)) / N
  end

  local function accuracy()
    -- the predicted class is P > 0.5; the share of points where it is Y
    -- (bool comparisons, counted as 1.0/0.0)
    return gm.eq(P:gt(0.5), Y):as(P:dtype()):mean()
  end

  local function backward()
    -- dZ = (P - Y) / N
    dZ:copy_(P):axpy_(-1, Y):scal_(1 / N)
    grads[3]:gemm_(1, H, dZ, 0, { transpose_a = true })          -- dW2 = H' dZ
    dZ:sum(1, { keepdims = true, out = grads[4] })                 -- db2: column sums
    dH:gemm_(1, dZ, W2, 0, { transpose_b = true })               -- dH = dZ W2'
    D:copy_(H):square_():scal_(-1):add_scalar_(1)                  -- 1 - H^2
    dH:mul_(D)                                                     -- through tanh
    grads[1]:gemm_(1, X, dH, 0, { transpose_a = true })            -- dW1 = X' dH
    dH:sum(1, { keepdims = true, out = grads[2] })                 -- db1
  end

  local function adam(t)
    local c = lr * math.sqrt(1 - beta2 ^ t) / (1 - beta1 ^ t)
    m1:scal_(beta1):axpy_(1 - beta1, grad)
    tmp:copy_(grad):square_()
    m2:scal_(beta2):axpy_(1 - beta2, tmp)
    tmp:copy_(m2):sqrt_():add_scalar_(eps):inv_():mul_(m1) -- m / (sqrt(v) + eps)
    theta:axpy_(-c, tmp)
  end

  local curve = {}
  local every = quick and 100 or 250
  for t = 1, steps do
    forward()
    if t == 1 or t % 10 == 0 then curve[#curve + 1] = { t, loss() } end
    if t == 1 or t % every == 0 then
      print(("step %5d  loss %.4f  accuracy %.3f"):format(t, curve[#curve][2], accuracy()))
    end
    backward()
    adam(t)
  end
  forward()
  local acc, l = accuracy(), loss()
  print(("final: loss %.4f, training accuracy %.3f (%d points, %d hidden units, %d steps)"):format(
    l, acc, N, hidden, steps))
  print(("output range: P:min() %.3f, P:max() %.3f, P:mean() %.3f"):format(P:min(), P:max(), P:mean()))
  return acc, curve
end

local placement = require("gpumat.repl").placement
local t0 = os.clock()
local acc, curve = gm.with_cuda({}, function()
  print("gpumat " .. gm.version .. ": " .. placement(gm))
  return train()
end)
print(("training took %.1f s of CPU time"):format(os.clock() - t0))

if plot then
  -- gm.plot draws through gnuplot; without it the run goes on, unplotted
  local steps_, losses = {}, {}
  for i, p in ipairs(curve) do steps_[i], losses[i] = p[1], p[2] end
  local ok, err = pcall(gm.plot, steps_, losses, { file = plot, logscale = "y", xlabel = "step",
    ylabel = "loss", labels = { "training loss" } })
  print(ok and ("loss curve plotted to " .. plot .. " (gnuplot)") or ("no loss plot: " .. err))
end
print(("accuracy %.3f"):format(acc))
