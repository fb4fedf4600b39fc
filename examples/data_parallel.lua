-- Data-parallel training with gpumat.dist.
--
--   mpirun -np 3 lua5.4 examples/data_parallel.lua      (or plain lua5.4: one process)
--
-- Every rank generates the same data set (same seed), trains the same
-- linear model y = X w by gradient descent on its own shard of the rows,
-- and averages the gradients with dist.allreduce_ before each step, so
-- every rank takes the same step as one process on the whole batch.  At
-- the end each rank compares its weights with rank 0's (identical) and
-- with a single-process run on the whole batch (equal within float
-- tolerance), and prints "data_parallel: ok".
local gm = require "gpumat"
local dist = require "gpumat.dist"

dist.init()
local rank, size = dist.rank(), dist.size()

local n_rows, n_features, steps, lr = 240, 8, 60, 0.1
assert(n_rows % size == 0, "the example wants n_rows divisible by the world size")

-- generated data set: a fixed linear rule plus deterministic "noise"
local true_w = {}
for j = 1, n_features do true_w[j] = (j % 3) - 1 + 0.25 * j end
local X, Y = {}, {}
for i = 1, n_rows do
  local row, y = {}, 0
  for j = 1, n_features do
    row[j] = math.sin(i * 0.37 + j * 1.3)
    y = y + row[j] * true_w[j]
  end
  X[i], Y[i] = row, { y + 0.01 * math.cos(i) }
end

local function rows(t, first, last)
  local out = {}
  for i = first, last do out[#out + 1] = t[i] end
  return out
end

-- gradient of the mean squared error over the whole batch: shard rows
-- contribute (2 / n_rows) X_s^T (X_s w - y_s)
local function train(x, y, average_across_ranks)
  local w = gm.mat({ n_features, 1 }, { ctype = "float", initial_element = 0 })
  local k = x:dim(1)
  local resid = gm.mat({ k, 1 }, { ctype = "float" })
  local grad = gm.mat({ n_features, 1 }, { ctype = "float" })
  for _ = 1, steps do
    gm.copy_(y, resid)                                     -- resid = y
    gm.gemm_(1, x, w, -1, resid)                           -- resid = X w - y
    -- local share of the batch gradient, scaled so that the average over
    -- ranks is the whole-batch gradient
    local scale = average_across_ranks and 2 * size / n_rows or 2 / n_rows
    gm.gemm_(scale, x, resid, 0, grad, { transpose_a = true })
    if average_across_ranks then dist.allreduce_(grad, { average = true }) end
    gm.axpy_(-lr, grad, w)                                 -- w -= lr * grad
  end
  return w
end

local shard = n_rows // size
local first = rank * shard + 1
local xs = gm.mat({ shard, n_features }, { ctype = "float", initial_contents = rows(X, first, first + shard - 1) })
local ys = gm.mat({ shard, 1 }, { ctype = "float", initial_contents = rows(Y, first, first + shard - 1) })
local w = train(xs, ys, true)

-- identical on every rank: compare with rank 0's weights
local w0 = gm.mat({ n_features, 1 }, { ctype = "float" })
gm.copy_(w, w0)
dist.broadcast_(w0, 0)
local identical = true
local wt, w0t = w:to_table(), w0:to_table()
for j = 1, n_features do identical = identical and wt[j][1] == w0t[j][1] end

-- equal (float tolerance) to one process on the whole batch
local xa = gm.mat({ n_rows, n_features }, { ctype = "float", initial_contents = X })
local ya = gm.mat({ n_rows, 1 }, { ctype = "float", initial_contents = Y })
local wa = train(xa, ya, false):to_table()
local max_diff = 0
for j = 1, n_features do max_diff = math.max(max_diff, math.abs(wt[j][1] - wa[j][1])) end

local flag = gm.mat(1, { ctype = "double", initial_element = (identical and max_diff <= 1e-4) and 0 or 1 })
dist.allreduce_(flag, { op = "max" })
local ok = flag:to_table()[1] == 0
if rank == 0 then
  print(string.format("ranks %d, rows %d, steps %d: identical on every rank: %s, max |w - w_single| = %.3g",
    size, n_rows, steps, tostring(identical), max_diff))
  print(ok and "data_parallel: ok" or "data_parallel: MISMATCH")
end
dist.finalize()
if not ok then os.exit(1) end
