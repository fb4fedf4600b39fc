-- Broadcasting ops on a real CUDA device (backend "cuda", kernels/strided_ew.cu):
-- every binary op and where, on row, column, number, transposed-view and
-- 3-d operands, agrees with the host run of the same op; a space of more
-- rows than one grid dimension holds (70000 x 3 against a column) checks
-- the kernels' row loop.  Pending when gm.cuda_available() is false.
-- #outermost: not wrapped by spec/helper.lua's GPUMAT_DEVICE context.
local gm = require "gpumat"
local need_gpu, CUDA = require("gpu_case")(_ENV)

local TOL = { float = 1e-5, double = 1e-12 }
local OPS = { "add", "sub", "cmul", "cdiv", "pow", "cmax", "cmin", "gt", "ge", "lt", "le", "eq", "ne" }

-- a mat of dims with values in [0.25, 4.25], multiples of 1/4
local function mat(ct, dims, seed)
  local n = 1
  for _, d in ipairs(dims) do n = n * d end
  local m = gm.mat(dims, { ctype = ct })
  for k = 1, n do m[k] = ((k * 7 + seed * 13) % 17) / 4 + 0.25 end
  return m
end

local function flat(m)
  local t = {}
  for k = 1, #m do t[k] = m[k] end
  return t
end

local function agree(host, dev, ct, what)
  assert.are.same(host:dims(), dev:dims(), what)
  local h, d = flat(host), flat(dev)
  for k = 1, #h do
    local ok = h[k] == d[k] or (h[k] ~= h[k] and d[k] ~= d[k])
      or math.abs(h[k] - d[k]) <= TOL[ct] * math.max(1, math.abs(h[k]))
    assert.is_true(ok, ("%s: element %d: host %s, cuda %s"):format(what, k, h[k], d[k]))
  end
end

-- operand pairs: a, b (mats or numbers)
local function cases(ct)
  local m = mat(ct, { 6, 5 }, 1)
  return {
    { "row", m, mat(ct, { 5 }, 2) },
    { "column", m, mat(ct, { 6, 1 }, 3) },
    { "number right", m, 1.5 },
    { "number left", 2.5, m },
    { "transposed", mat(ct, { 5, 6 }, 4):t(), m },
    { "3-d", mat(ct, { 2, 1, 5 }, 5), mat(ct, { 3, 1 }, 6) },
    { "many rows", mat(ct, { 70000, 3 }, 7), mat(ct, { 70000, 1 }, 8) },
  }
end

describe("broadcasting ops on a real GPU", function()
  for _, ct in ipairs({ "float", "double" }) do
    it("every op agrees with the host (" .. ct .. ") #outermost", function()
      if not need_gpu() then return end
      for _, c in ipairs(cases(ct)) do
        for _, op in ipairs(OPS) do
          local host = gm[op](c[2], c[3])
          local dev = gm.with_cuda(CUDA, function() return gm[op](c[2], c[3]) end)
          agree(host, dev, ct, op .. " " .. c[1])
        end
      end
    end)

    it("where and {out = a} agree with the host (" .. ct .. ") #outermost", function()
      if not need_gpu() then return end
      local cond = mat(ct, { 5 }, 9):gt(2)
      local a, b = mat(ct, { 6, 5 }, 10), mat(ct, { 6, 1 }, 11)
      local host = gm.where(cond, a, b)
      local dev = gm.with_cuda(CUDA, function() return gm.where(cond, a, b) end)
      agree(host, dev, ct, "where")
      local x, y = mat(ct, { 6, 5 }, 12), mat(ct, { 6, 5 }, 12)
      gm.sub(x, b, { out = x })
      gm.with_cuda(CUDA, function() gm.sub(y, b, { out = y }) end)
      agree(x, y, ct, "sub into a")
    end)
  end
end)
