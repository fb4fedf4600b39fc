-- Runs op families of spec/device_ops.lua on non-contiguous operands:
-- gm.mat is replaced, while fn runs, by a maker of strided views with the
-- requested contents, and the results are compared with a contiguous run
-- (spec/views_spec.lua on the host and the emulated device,
-- spec/gpu/views_gpu_spec.lua on a real GPU).
--   "stepped": each mat is the [..., 1] half of a storage with a trailing
--     axis of 2 whose other half holds a sentinel that no op may touch;
--   "transposed": each mat of rank >= 2 is the reversed-axes view of a
--     storage of the reversed dims (1-d mats stay plain).
local gm = require "gpumat"
local ops = require "device_ops"
local assert = require "luassert"

local M = {}
local SENTINEL = 4321

local function fill(v, opts)
  if opts.initial_contents then
    v:replace_(opts.initial_contents)
  elseif opts.initial_element ~= false then
    v:fill_(opts.initial_element or 0)
  end
end

local function maker(orig, mode, sentinels)
  return function(dims, opts)
    opts = opts or {}
    local d = type(dims) == "number" and { dims } or dims
    if opts.displaced_to or #d == 0 or (mode == "transposed" and #d < 2) then return orig(dims, opts) end
    local o = {}
    for k, v in pairs(opts) do o[k] = v end
    o.initial_contents, o.initial_element = nil, SENTINEL
    if mode == "transposed" then
      local rev, perm = {}, {}
      for i = 1, #d do rev[i], perm[i] = d[#d + 1 - i], #d + 1 - i end
      local v = orig(rev, o):permute(perm)
      fill(v, opts)
      return v
    end
    local big = { table.unpack(d) }
    big[#big + 1] = 2
    local storage = orig(big, o)
    local sel = {}
    for i = 1, #d do sel[i] = {} end
    sel[#d + 1] = 1
    local v = storage[sel]
    fill(v, opts)
    sel[#d + 1] = 2
    sentinels[#sentinels + 1] = storage[sel]
    return v
  end
end

-- fn() with gm.mat making strided views; checks the sentinels after.
function M.with_strided_mats(mode, fn)
  local orig, sentinels = gm.mat, {}
  gm.mat = maker(orig, mode, sentinels)
  local r = table.pack(pcall(fn))
  gm.mat = orig
  if not r[1] then error(r[2], 0) end
  for _, s in ipairs(sentinels) do
    -- luassert only on a mismatch: one assertion per element costs
    -- minutes under the aggressive collector
    for k = 1, #s do
      if s[k] ~= SENTINEL then assert.are.equal(SENTINEL, s[k], "an op wrote outside its view") end
    end
  end
  return table.unpack(r, 2, r.n)
end

-- the numbers of a nested table in row-major order
local flat = require("numpy_ref").flatten
M.flat = flat

-- launches of the strided gather/scatter copy (staged operands) so far
function M.staged_copies()
  local n = 0
  for name, k in pairs(gm.emulated_kernel_launches()) do
    if name:find("strided_copy", 1, true) then n = n + k.launches end
  end
  return n
end

local function close(a, b, ctype)
  if a ~= a then return b ~= b end
  if a == b then return true end
  return math.abs(a - b) <= ops.TOL[ctype] * math.max(1, math.abs(a), math.abs(b))
end

local function same_results(f, ctype, h, s, where)
  assert.are.equal(h.n, s.n)
  for i = 1, h.n do
    local what = ("%s %s %s: result %d"):format(f.name, ctype, where, i)
    if type(h[i]) == "number" then
      assert.is_true(close(h[i], s[i], ctype), what)
    else
      local a, b = flat(h[i]:to_table()), flat(s[i]:to_table())
      assert.are.equal(#a, #b, what)
      for k = 1, #a do
        if not close(a[k], b[k], ctype) then
          assert.is_true(false, ("%s: element %d: %s vs %s"):format(what, k, a[k], b[k]))
        end
      end
    end
  end
end

-- families whose displaced_to operands mean storage offsets, which differ
-- once the operands are strided
local storage_based = { ["m_eq and mat_as_scalar (host facet by design)"] = true, ["displaced views"] = true }
function M.families()
  local out = {}
  for _, f in ipairs(ops.families) do
    if not storage_based[f.name] then out[#out + 1] = f end
  end
  return out
end

-- Family f on strided operands in gm.with_cuda(cfg) agrees with the
-- contiguous host run, for both ctypes and both modes.
function M.agree(f, cfg)
  for _, ctype in ipairs { "float", "double" } do
    local plain = table.pack(gm.with_cuda({ enabled = false }, function() return f.build(ctype) end))
    for _, mode in ipairs { "stepped", "transposed" } do
      local r = table.pack(gm.with_cuda(cfg, function()
        return M.with_strided_mats(mode, function() return f.build(ctype) end)
      end))
      same_results(f, ctype, plain, r, (cfg.backend or "host") .. " " .. mode)
    end
  end
end

return M
