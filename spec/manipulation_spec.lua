-- The standard's creation and manipulation functions (lua/gpumat/
-- manipulation.lua, constructors.lua) against NumPy: every case's values
-- and shape from one python3 process (pending without numpy), the result
-- dtypes against the contract, views staying views, and argument errors.
-- Under GPUMAT_DEVICE=emulated every test runs on the emulated device
-- (spec/helper.lua).
local gm = require "gpumat"
local R = require "numpy_ref"

local A_DIMS, B_DIMS = { 2, 3, 4 }, { 3, 4 }
local AV, BV, VV = R.vals(24, 1), R.vals(12, 2), { 1, 2, 3, 4, 5 }
local function A() return R.mk("double", A_DIMS, AV) end
local function B() return R.mk("double", B_DIMS, BV) end
local function V() return R.mk("double", { 5 }, VV) end

-- {label, gpumat thunk, NumPy expression over A, B, V (float64)}
local CASES = {
  { "concat axis 1", function() return gm.concat({ A(), A() }) end, "np.concatenate([A, A], 0)" },
  { "concat axis -1", function() return gm.concat({ A(), A() }, { axis = -1 }) end, "np.concatenate([A, A], -1)" },
  { "concat flattened", function() return gm.concat({ A(), B() }, { axis = false }) end,
    "np.concatenate([A, B], axis=None)" },
  { "cat(a, b, 2)", function() return gm.cat(B(), B(), 2) end, "np.concatenate([B, B], 1)" },
  { "stack axis 1", function() return gm.stack({ B(), B() }) end, "np.stack([B, B])" },
  { "stack axis -1", function() return gm.stack({ B(), B() }, { axis = -1 }) end, "np.stack([B, B], -1)" },
  { "expand_dims -1", function() return gm.expand_dims(A(), { axis = -1 }) end, "np.expand_dims(A, -1)" },
  { "unsqueeze 2", function() return B():unsqueeze(2) end, "np.expand_dims(B, 1)" },
  { "squeeze", function() return gm.squeeze(B():reshape(3, 1, 4), { axis = 2 }) end, "B" },
  { "moveaxis", function() return gm.moveaxis(A(), 1, -1) end, "np.moveaxis(A, 0, -1)" },
  { "moveaxis lists", function() return gm.moveaxis(A(), { 1, 2 }, { 3, 1 }) end, "np.moveaxis(A, [0, 1], [2, 0])" },
  { "swapaxes", function() return gm.swapaxes(A(), 1, 3) end, "np.swapaxes(A, 0, 2)" },
  { "permute_dims", function() return gm.permute_dims(A(), { 3, 1, 2 }) end, "np.transpose(A, (2, 0, 1))" },
  { "broadcast_to", function() return gm.broadcast_to(B(), { 2, 3, 4 }) end, "np.broadcast_to(B, (2, 3, 4))" },
  { "roll flat", function() return gm.roll(B(), 5) end, "np.roll(B, 5)" },
  { "roll axes", function() return gm.roll(A(), { 1, -2 }, { axis = { 1, 3 } }) end, "np.roll(A, (1, -2), (0, 2))" },
  { "repeat axis", function() return gm["repeat"](B(), 2, { axis = 2 }) end, "np.repeat(B, 2, 1)" },
  { "repeat flat", function() return gm.repeat_interleave(B(), 3) end, "np.repeat(B, 3)" },
  { "repeat counts", function() return gm["repeat"](V(), { 1, 0, 2, 3, 1 }) end, "np.repeat(V, [1, 0, 2, 3, 1])" },
  { "tile", function() return gm.tile(B(), { 2, 1, 3 }) end, "np.tile(B, (2, 1, 3))" },
  { "tile short", function() return gm.tile(A(), { 2 }) end, "np.tile(A, 2)" },
  { "tile more reps than axes", function() return gm.tile(A(), { 2, 3, 1, 2 }) end, "np.tile(A, (2, 3, 1, 2))" },
  { "array_split 3", function() return gm.array_split(V(), 3)[1] end, "np.array_split(V, 3)[0]" },
  { "array_split points", function() return gm.array_split(A(), { 1, 3 }, { axis = 3 })[2] end,
    "np.array_split(A, [1, 3], 2)[1]" },
  { "split sizes", function() return gm.split(V(), 2)[3] end, "V[4:]" },
  { "chunk", function() return gm.chunk(B(), 2, 2)[2] end, "B[:, 2:]" },
  { "pad constant", function() return gm.pad(B(), { { 1, 0 }, { 2, 1 } }, { value = 7 }) end,
    "np.pad(B, ((1, 0), (2, 1)), constant_values=7)" },
  { "pad edge", function() return gm.pad(A(), 2, { mode = "edge" }) end, "np.pad(A, 2, mode='edge')" },
  { "pad reflect", function() return gm.pad(B(), { 2, 1 }, { mode = "reflect" }) end,
    "np.pad(B, (2, 1), mode='reflect')" },
  { "diag 2-d k=1", function() return gm.diag(B(), 1) end, "np.diag(B, 1)" },
  { "diag 2-d k=-2", function() return gm.diag(B(), -2) end, "np.diag(B, -2)" },
  { "diag 1-d k=-1", function() return gm.diag(V(), -1) end, "np.diag(V, -1)" },
  { "diag of a view", function() return gm.diag(B():t()) end, "np.diag(B.T)" },
  { "tril stack", function() return gm.tril(A(), { k = 1 }) end, "np.tril(A, 1)" },
  { "triu", function() return gm.triu(B(), -1) end, "np.triu(B, -1)" },
  { "clip", function() return gm.clip(A(), -0.25, 0.5) end, "np.clip(A, -0.25, 0.5)" },
  { "clip min only", function() return gm.clip(A(), 0) end, "np.maximum(A, 0)" },
  { "arange", function() return gm.arange(2, 17, 3) end, "np.arange(2, 17, 3)" },
  { "arange float", function() return gm.arange(-1, 1, 0.3) end, "np.arange(-1, 1, 0.3)" },
  { "arange down", function() return gm.arange(5, -4, -2) end, "np.arange(5, -4, -2)" },
  { "linspace int32", function() return gm.linspace(0, 10, 6, { dtype = "int32" }) end,
    "np.linspace(0, 10, 6).astype(np.int32)" },
  { "eye k=2", function() return gm.eye(3, 5, { k = 2 }) end, "np.eye(3, 5, 2)" },
  { "eye k=-1", function() return gm.eye(4, { k = -1 }) end, "np.eye(4, k=-1)" },
  { "meshgrid xy", function() return gm.meshgrid(V(), B():reshape(12))[2] end,
    "np.meshgrid(V, B.ravel())[1]" },
  { "meshgrid ij", function() return gm.meshgrid(V(), V(), V(), { indexing = "ij" })[3] end,
    "np.meshgrid(V, V, V, indexing='ij')[2]" },
  { "asarray nested", function() return gm.asarray({ { 1, 2 }, { 3, 4 } }) end, "np.asarray([[1, 2], [3, 4]])" },
}

describe("creation and manipulation functions", function()
  local ref
  local function numpy()
    if not R.python then return nil end
    if not ref then
      local exprs = {}
      for i, c in ipairs(CASES) do exprs[i] = c[3] end
      local r = R.numpy({ A = { A_DIMS, AV }, B = { B_DIMS, BV }, V = { { 5 }, VV } }, exprs)
      ref = {}
      for i, c in ipairs(CASES) do ref[c[1]] = r[i] end
    end
    return ref
  end

  for _, c in ipairs(CASES) do
    it(c[1] .. " as NumPy", function()
      local r = numpy()
      if not r then return pending(R.why) end
      local got, want = c[2](), r[c[1]]
      assert.are.same(want[1], got:dims(), c[1] .. ": dims")
      local flat = R.flat(got)
      assert.are.equal(#want[2], #flat)
      for i, w in ipairs(want[2]) do
        assert(math.abs(flat[i] - w) <= 1e-12, string.format("%s[%d]: %s, NumPy %s", c[1], i, flat[i], w))
      end
    end)
  end

  it("keeps element types: integer and bool mats, promotion in concat, arange and asarray dtypes", function()
    local i8 = gm.asarray({ { 1, -2 }, { 3, 4 } }, { dtype = "int8" })
    assert.are.equal("int8", gm.concat({ i8, i8 }):dtype())
    assert.are.equal("float64", gm.concat({ i8, gm.zeros({ 1, 2 }) }):dtype())
    assert.are.same({ { -2, 3, 4, 1 } }, gm.roll(i8:reshape(1, 4), -1):to_table())
    assert.are.same({ 1, 1, -2, -2 }, gm["repeat"](i8[{ 1 }], 2):to_table())
    local b = gm.asarray({ true, false, true })
    assert.are.equal("bool", b:dtype())
    assert.are.same({ false, true, false, true, false }, gm.pad(b, 1):to_table())
    assert.are.equal("int64", gm.arange(4):dtype())
    assert.are.equal("float64", gm.arange(0, 1, 0.5):dtype())
    assert.are.equal("float32", gm.arange(3, { dtype = "float32" }):dtype())
    -- integer sequences are exact beyond 2^53
    assert.are.same({ 1 << 62, (1 << 62) + 3 }, gm.arange(1 << 62, (1 << 62) + 5, 3):to_table())
    assert.are.same({ 253, 255, 1 }, gm.arange(-3, 3, 2, { dtype = "uint8" }):to_table())
    assert.are.same({ 1, 2, 3 }, gm.range(1, 3, 1, { dtype = "int16" }):to_table())
    assert.are.equal(3, gm.asarray(3):to_table())
    assert.are.same({}, gm.asarray(3):dims())
    assert.are.equal("int32", gm.zeros_like(i8, { dtype = "int32" }):dtype())
    assert.are.same({ { 7, 7 }, { 7, 7 } }, gm.full_like(i8, 7):to_table())
    assert.are.same({ { 0, 1, 0 }, { 0, 0, 1 } }, gm.eye(2, 3, { k = 1, dtype = "uint8" }):to_table())
    assert.are.same({ 1, 1, 2, 3, 3 }, gm.clip(gm.arange(5), 1, 3):to_table())
    assert.are.equal("int64", gm.clip(gm.arange(5), 1, 3):dtype())
    assert.are.equal("float64", gm.clip(gm.arange(5), 1.5, 3):dtype())
    -- NumPy's clip on signed zeros and NaN, in every float type (the
    -- upper bound is applied in place in the lower bound's result), and
    -- x itself untouched
    for _, dt in ipairs { "float32", "float64", "float16", "bfloat16" } do
      local x = gm.mat({ 6 }, { dtype = dt, initial_contents = { -0.0, 0 / 0, -1, 2, 0.5, 0 } })
      local function show(m)
        local t = {}
        for i = 1, m:size() do t[i] = m[i] ~= m[i] and "nan" or (1 / m[i] < 0 and "-" or "") .. math.abs(m[i]) end
        return table.concat(t, " ")
      end
      assert.equal("0.0 nan 0.0 1.0 0.5 0.0", show(gm.clip(x, 0, 1)), dt)
      assert.equal("-0.0 nan -1.0 -0.0 -0.0 -0.0", show(gm.clip(x, -1, -0.0)), dt)
      assert.equal("0.0 nan 0.0 2.0 0.5 0.0", show(gm.clip(x, 0)), dt)
      assert.equal("-0.0 nan -1.0 1.0 0.5 0.0", show(gm.clip(x, nil, 1)), dt)
      assert.equal("-0.0 nan -1.0 2.0 0.5 0.0", show(x), dt .. " x unchanged")
      assert.equal(dt, gm.clip(x, 0, 1):dtype())
    end
  end)

  it("gives views where NumPy does, and new mats elsewhere", function()
    local b = B()
    for _, v in ipairs { gm.expand_dims(b, { axis = 1 }), gm.squeeze(b:reshape(1, 3, 4)), gm.swapaxes(b, 1, 2),
      gm.broadcast_to(b, { 2, 3, 4 }), gm.unstack(b)[1], gm.split(b, 2)[1] } do
      b[{ 1, 1 }] = 0
      local before = R.flat(v)
      b[{ 1, 1 }] = 42
      local after, changed = R.flat(v), false
      for i = 1, #after do changed = changed or after[i] ~= before[i] end
      assert.is_true(changed)
    end
    for _, m in ipairs { gm.concat({ b }), gm.tile(b, { 1 }), gm.roll(b, 0), gm.clip(b), gm.pad(b, 0) } do
      local before = R.flat(m)
      b[{ 1, 1 }] = -42
      assert.are.same(before, R.flat(m))
    end
  end)

  it("tril and triu keep the type (bool, int16, complex), take any k, and leave x as it was", function()
    -- reference: element (i, j) kept where j <= i + k (tril) or j >= i + k (triu)
    local function ref(m, n, k, lower, v, zero)
      local t = {}
      for i = 1, m do
        for j = 1, n do
          local keep = lower and j <= i + k * 1.0 or not lower and j >= i + k * 1.0 -- (no integer wrap)
          t[#t + 1] = keep and v(i, j) or zero
        end
      end
      return t
    end
    local m, n = 3, 4
    for _, k in ipairs { 0, 1, -1, 2, -2, 4, -3, 100, -100, math.maxinteger, math.mininteger } do
      for _, lower in ipairs { true, false } do
        local f = lower and gm.tril or gm.triu
        local x = gm.arange(1, m * n + 1):astype("int16"):reshape({ m, n })
        local r = f(x, k)
        assert.are.equal("int16", r:dtype())
        assert.are.same(ref(m, n, k, lower, function(i, j) return (i - 1) * n + j end, 0), r:reshape({ m * n }):to_table())
        assert.are.same(gm.arange(1, m * n + 1):to_table(), x:reshape({ m * n }):astype("int64"):to_table())
        local b = f(gm.ones({ 2, m, n }, { dtype = "bool" }), { k = k })
        assert.are.equal("bool", b:dtype())
        local want = ref(m, n, k, lower, function() return true end, false)
        assert.are.same(want, b[{ 2 }]:reshape({ m * n }):to_table(), "a stack's second matrix")
      end
    end
    local c = gm.tril(gm.ones({ 2, 2 }, { dtype = "complex64" }))
    assert.are.equal("complex64", c:dtype())
    assert.are.same({ 2, 0 }, { gm.tril(gm.zeros({ 2, 0 })):dims()[1], gm.tril(gm.zeros({ 2, 0 })):dims()[2] })
  end)

  it("raises bad argument errors naming the function", function()
    local b = B()
    local cases = {
      { function() gm.concat({ b, gm.zeros({ 2, 5 }) }) end, "bad argument #1 to 'concat' (mat 2 has dims 2x5" },
      { function() gm.concat({}) end, "bad argument #1 to 'concat' (a non-empty list of mats expected)" },
      { function() gm.concat({ b }, { axis = 3 }) end, "bad argument #2 to 'concat' (axis 3 is out of range" },
      { function() gm.stack({ b, gm.zeros({ 4, 3 }) }) end, "bad argument #1 to 'stack' (mat 2 has dims 4x3" },
      { function() gm.squeeze(b, { axis = 1 }) end, "bad argument #2 to 'squeeze' (axis 1 has length 3, not 1)" },
      { function() gm.permute_dims(b, { 1, 1 }) end, "bad argument #2 to 'permute_dims' (axis 1 appears twice)" },
      { function() gm.broadcast_to(b, { 2, 4 }) end, "bad argument #2 to 'broadcast_to' (cannot broadcast 3x4 to 2x4)" },
      { function() gm.broadcast_shapes({ 2, 3 }, { 4 }) end, "bad argument #2 to 'broadcast_shapes' (cannot broadcast" },
      { function() gm["repeat"](b, { 1, 2 }, { axis = 1 }) end, "bad argument #2 to 'repeat' (2 repeat counts for 3" },
      { function() gm.pad(b, { 3, 0 }, { mode = "reflect" }) end, "bad argument #2 to 'pad' (reflect padding" },
      { function() gm.pad(b, 1, { mode = "wrap" }) end, "bad argument #3 to 'pad' (mode must be" },
      { function() gm.tril(V()) end, "bad argument #1 to 'tril' (needs at least 2 dimensions, has 1)" },
      { function() gm.arange(0, 1, 0) end, "bad argument #3 to 'arange' (step must not be zero)" },
      { function() gm.arange(0, 1e300, 1e-300) end, "bad argument #2 to 'arange' (too many values" },
      { function() gm.eye(3, { k = 0.5 }) end, "bad argument #3 to 'eye' (option 'k' must be an integer" },
      { function() gm.asarray(b, { dtype = "int32", copy = false }) end, "bad argument #2 to 'asarray' (copy = false" },
      { function() gm.split(b, 0) end, "bad argument #2 to 'split' (size must be a positive integer)" },
      { function() gm.array_split(b, math.maxinteger) end,
        "bad argument #2 to 'array_split' (9223372036854775807 sections of 3 elements: at most max(n, 16777216))" },
      { function() gm.meshgrid(b) end, "bad argument #1 to 'meshgrid' (a 1-d mat expected)" },
    }
    for _, c in ipairs(cases) do
      local ok, err = pcall(c[1])
      assert.is_false(ok)
      assert(tostring(err):find(c[2], 1, true), tostring(err) .. "\n  expected: " .. c[2])
    end
  end)
end)
