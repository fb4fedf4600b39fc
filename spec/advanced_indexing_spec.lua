-- Integer-array and boolean-mask indexing (docs/API.md "Indexing"):
-- m[{idx}], m[mask] and both in one subscript, reads (copies) and writes,
-- and the indexing functions (take, take_along_axis, put_along_axis,
-- index_select, gather, scatter_, scatter_add_, scatter_reduce with every
-- reduce and include_self, index_add_, index_fill_, index_copy_,
-- masked_select, masked_fill_, masked_scatter_, nonzero, argwhere) against
-- NumPy (one python3 process) and plain-Lua references, over a few
-- ctypes; hostile index mats raise before any element is touched.
local gm = require "gpumat"
local R = require "numpy_ref"

local CTYPES = { "double", "float", "int64", "uint8" }

-- a mat of ctype ct and dims with the values 1..n (exact in every ctype)
local function seq(ct, dims)
  local v = {}
  for i = 1, R.count(dims) do v[i] = i end
  return R.mk(ct, dims, v)
end

local function ints(v, dims, ct)
  return R.mk(ct or "int64", dims or { #v }, v)
end

-- a bool mat of dims, true where the flat list v is truthy (1)
local function mask(v, dims)
  local m = gm.zeros(dims, { dtype = "bool" })
  for i, b in ipairs(v) do if b == 1 then m[i] = true end end
  return m
end

local function clone(m) return m:astype(m:dtype()) end

-- m's elements as strings of their bits (NaN, -0.0, int64 beyond 2^53
-- compare exactly), row-major
local function bits(m)
  local t = R.flat(m)
  for i, v in ipairs(t) do
    t[i] = math.type(v) == "integer" and string.pack("j", v) or math.type(v) == "float" and string.pack("n", v)
      or tostring(v)
  end
  return t
end

local function check(got, want, what)
  assert.are.same(want[1], got:dims(), what)
  local g = R.flat(got)
  assert.are.equal(#want[2], #g, what)
  for i = 1, #g do assert.are.equal(want[2][i], tonumber(g[i]), what .. " at " .. i) end
end

describe("advanced indexing", function()
  local ref -- NumPy's results, one process for the whole file
  local exprs = {
    "x[[2,0,-1,2]]", "x[:, [3,0]]", "x[1, [3,0,0]]", "x[::-1, [1,2]]",
    "y[[1,0], :, 1]", "y[:, [0,2], 1]", "y[1, :, [0,3]]", "y[:, [[0,1],[2,2]]]",
    "x[x % 3 == 0]", "y[np.array([[True,False,True],[False,True,False]])]", "x[:, [True, False, True, True]]",
    "np.take(x, [[0,11],[5,5]])", "np.take_along_axis(x, np.array([[0,3],[2,2],[1,0]]), 1)",
    "np.argwhere(x % 5 == 0)", "x[[0,2,-1],[3,1,1]]", "y[[[0],[1]], :, [0,3]]", "y[:, [0,2], [[1],[3]]]",
    -- a mask among index mats: its nonzero() coordinates, broadcast with them
    "y[np.array([False,True]), :, [1,3]]", "y[np.array([[True,False,True],[False,True,True]]), [0,3,1,2]]",
    "y[[1,0], np.array([True,False,True])]", "y[:, np.array([False,True,True]), [[0],[3]]]",
    "y[np.array([True,True]), 1, np.array([True,False,False,True])]",
    "(lambda z: (z.__setitem__((np.array([False,True]), slice(None), [3,0]), 0), z)[1])(y.copy())",
    "(lambda z: (z.__setitem__(([1,0], np.array([True,False,True])), 100 + np.arange(8.).reshape(2,4)), z)[1])(y.copy())",
  }
  setup(function()
    if not R.python then return end
    local x, y = {}, {}
    for i = 1, 12 do x[i] = i end
    for i = 1, 24 do y[i] = i end
    ref = R.numpy({ x = { { 3, 4 }, x }, y = { { 2, 3, 4 }, y } }, exprs)
  end)

  it("m[{...}] with an index mat or a mask reads as NumPy, in every ctype", function()
    if not ref then pending(R.why) return end
    for _, ct in ipairs(CTYPES) do
      local x, y = seq(ct, { 3, 4 }), seq(ct, { 2, 3, 4 })
      local i3 = ints({ 3, 1, -1, 3 }, nil, "int16")
      check(x[{ i3 }], ref[1], ct .. " x[idx]")
      check(x[{ {}, ints({ 4, 1 }, nil, "uint8") }], ref[2], ct .. " x[:, idx]")
      check(x[{ 2, ints({ 4, 1, 1 }) }], ref[3], ct .. " x[1, idx]")
      check(x[{ { -1, 1, -1 }, ints({ 2, 3 }) }], ref[4], ct .. " reversed rows")
      check(y[{ ints({ 2, 1 }), {}, 2 }], ref[5], ct .. " non-adjacent: first")
      check(y[{ {}, ints({ 1, 3 }), 2 }], ref[6], ct .. " adjacent: in place")
      check(y[{ 2, {}, ints({ 1, 4 }) }], ref[7], ct .. " int and index apart")
      check(y[{ {}, ints({ 1, 2, 3, 3 }, { 2, 2 }) }], ref[8], ct .. " 2-d index")
      check(x[mask({ 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1 }, { 3, 4 })], ref[9], ct .. " x[mask]")
      check(y[mask({ 1, 0, 1, 0, 1, 0 }, { 2, 3 })], ref[10], ct .. " leading mask")
      check(x[{ {}, mask({ 1, 0, 1, 1 }, { 4 }) }], ref[11], ct .. " x[:, mask]")
      check(gm.take(x, ints({ 1, 12, 6, 6 }, { 2, 2 })), ref[12], ct .. " take flat")
      check(gm.take_along_axis(x, ints({ 1, 4, 3, 3, 2, 1 }, { 3, 2 }), 2), ref[13], ct .. " take_along_axis")
      check(y[{ mask({ 0, 1 }, { 2 }), {}, ints({ 2, 4 }) }], ref[18], ct .. " mask, slice, index: first")
      check(y[{ mask({ 1, 0, 1, 0, 1, 1 }, { 2, 3 }), ints({ 1, 4, 2, 3 }, nil, "int32") }], ref[19], ct .. " 2-d mask, index")
      check(y[{ ints({ 2, 1 }), mask({ 1, 0, 1 }, { 3 }) }], ref[20], ct .. " index, mask")
      check(y[{ {}, mask({ 0, 1, 1 }, { 3 }), ints({ 1, 4 }, { 2, 1 }) }], ref[21], ct .. " mask, 2-d index broadcast")
      check(y[{ mask({ 1, 1 }, { 2 }), 2, mask({ 1, 0, 0, 1 }, { 4 }) }], ref[22], ct .. " two masks and an integer")
      local w = clone(y)
      w[{ mask({ 0, 1 }, { 2 }), {}, ints({ 4, 1 }) }] = 0
      check(w, ref[23], ct .. " write through a mask and an index")
      w = clone(y)
      w[{ ints({ 2, 1 }), mask({ 1, 0, 1 }, { 3 }) }] = R.mk(ct, { 2, 4 }, { 100, 101, 102, 103, 104, 105, 106, 107 })
      check(w, ref[24], ct .. " write a mat through an index and a mask")
    end
    local fives = {}
    for i = 1, 12 do fives[i] = i % 5 == 0 and 1 or 0 end
    local aw = {}
    for i, v in ipairs(ref[14][2]) do aw[i] = v + 1 end
    check(gm.argwhere(R.mk("double", { 3, 4 }, fives)), { ref[14][1], aw }, "argwhere 1-based")
    local y = seq("int32", { 2, 3, 4 })
    check(seq("double", { 3, 4 })[{ ints({ 1, 3, -1 }), ints({ 4, 2, 2 }, nil, "uint16") }], ref[15], "two index mats")
    check(y[{ ints({ 1, 2 }, { 2, 1 }), {}, ints({ 1, 4 }) }], ref[16], "broadcast apart: first")
    check(y[{ {}, ints({ 1, 3 }), ints({ 2, 4 }, { 2, 1 }) }], ref[17], "broadcast adjacent: in place")
  end)

  it("reads are copies; writes go through index mats and masks, last repeated index wins", function()
    for _, ct in ipairs(CTYPES) do
      local x = seq(ct, { 3, 4 })
      local c = x[{ ints({ 1 }) }]
      c[1] = 99
      assert.are.equal(1, tonumber(x[1]), ct)
      x[mask({ 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1 }, { 3, 4 })] = 0
      assert.are.same({ 0, 2, 3, 4, 5, 0, 7, 8, 9, 10, 11, 0 }, R.flat(x), ct)
      x[{ {}, ints({ 2, -1 }) }] = R.mk(ct, { 2 }, { 50, 60 }) -- broadcast over rows
      assert.are.same({ 0, 50, 3, 60, 5, 50, 7, 60, 9, 50, 11, 60 }, R.flat(x), ct)
      x[{ 1, ints({ 1, 1, 3 }) }] = R.mk(ct, { 3 }, { 5, 7, 9 })
      assert.are.same({ 7, 50, 9, 60 }, R.flat(x[{ 1, {} }]), ct)
      x[{ ints({ 2, 3 }), ints({ 1, -1 }) }] = 4
      assert.are.same({ 4, 50, 7, 60, 9, 50, 11, 4 }, R.flat(x[{ { 2, 3 }, {} }]), ct)
      local v = x[{ { 3, 1, -1 }, {} }] -- a view with a negative stride
      v[{ ints({ 1 }) }] = 1
      assert.are.same({ 1, 1, 1, 1 }, R.flat(x[{ 3, {} }]), ct)
    end
  end)

  it("the Torch7 and NumPy functions give the plain-Lua references", function()
    for _, ct in ipairs(CTYPES) do
      local x = seq(ct, { 3, 4 })
      assert.are.same({ 2, 4, 6, 8, 10, 12 }, R.flat(x:index_select(2, { 2, 4 })), ct)
      assert.are.same({ 9, 10, 11, 12, 1, 2, 3, 4 }, R.flat(gm.take(x, { 3, -3 }, { axis = 1 })), ct)
      assert.are.same({ 2, 1, 7, 7, 12, 9 }, R.flat(x:gather(2, { { 2, 1 }, { 3, 3 }, { 4, 1 } })), ct)
      local g = clone(x)
      assert.are.equal(g, g:scatter_(2, ints({ 4, 4, 1 }, { 3, 1 }), R.mk(ct, { 3, 2 }, { 20, 0, 21, 0, 22, 0 })))
      assert.are.same({ 1, 2, 3, 20, 5, 6, 7, 21, 22, 10, 11, 12 }, R.flat(g), ct)
      g = clone(x):scatter_add_(1, ints({ 1, 1, 1, 1, 1, 1, 3, 1 }, { 2, 4 }), 1) -- duplicates accumulate
      assert.are.same({ 3, 4, 4, 6, 5, 6, 7, 8, 9, 10, 12, 12 }, R.flat(g), ct)
      g = x:scatter_reduce(1, ints({ 3, 3, 3, 3 }, { 1, 4 }), R.mk(ct, { 1, 4 }, { 20, 1, 30, 2 }), "amax")
      assert.are.same({ 20, 10, 30, 12 }, R.flat(g[{ 3, {} }]), ct)
      assert.are.same({ 1, 2, 3, 4 }, R.flat(x[{ 1, {} }]), ct .. " scatter_reduce copies")
      g = clone(x):index_add_(1, { 2, 2 }, R.mk(ct, { 2, 4 }, { 1, 1, 1, 1, 2, 2, 2, 2 }))
      assert.are.same({ 8, 9, 10, 11 }, R.flat(g[{ 2, {} }]), ct)
      g = clone(x):index_fill_(2, { 1, -1 }, 0):index_copy_(1, { 3 }, R.mk(ct, { 1, 4 }, { 4, 3, 2, 1 }))
      assert.are.same({ 0, 2, 3, 0, 0, 6, 7, 0, 4, 3, 2, 1 }, R.flat(g), ct)
      local mk = mask({ 1, 0, 0, 1 }, { 4 }) -- broadcast over the rows
      assert.are.same({ 1, 4, 5, 8, 9, 12 }, R.flat(x:masked_select(mk)), ct)
      g = clone(x):masked_fill_(mk, 0):masked_scatter_(mask({ 0, 1, 1, 0 }, { 4 }), seq(ct, { 7 }))
      assert.are.same({ 0, 1, 2, 0, 0, 3, 4, 0, 0, 5, 6, 0 }, R.flat(g), ct)
      g = gm.put_along_axis(clone(x), ints({ 2, 1, 1 }, { 3, 1 }), 0, 2)
      assert.are.same({ 1, 0, 3, 4, 0, 6, 7, 8, 0, 10, 11, 12 }, R.flat(g), ct)
      local nz = gm.nonzero(g)
      assert.are.same({ 1, 1, 1, 2, 2, 2, 3, 3, 3 }, R.flat(nz[1]), ct)
      assert.are.same({ 1, 3, 4, 2, 3, 4, 2, 3, 4 }, R.flat(nz[2]), ct)
      assert.are.equal("int64", nz[1]:dtype(), ct)
    end
  end)

  it("masked fills in one pass (where) agree with the positions path on every ctype and value", function()
    -- masked_fill_ and m[mask] = v on real non-16-bit mats are one
    -- elementwise pass (gm.where); the reference is index_fill_ of the same
    -- value at the mask's true positions (the scatter planner's path, with
    -- astype's conversion), element for element (bits: NaN, -0.0, int64
    -- beyond 2^53, wrapping and saturating conversions)
    local n = 70
    local mv = {}
    for i = 1, n do mv[i] = (i * 7) % 3 == 0 and 1 or 0 end
    local pos = {}
    for i = 1, n do if mv[i] == 1 then pos[#pos + 1] = i end end
    local values = { 0.75, -0.0, 0 / 0, 3.7, -3.7, 1e300, -1e300, 2 ^ 40 + 3, 255, 256, -1, true, false,
      math.maxinteger, math.mininteger, (1 << 53) + 1, 1 << 53, 2 }
    for _, ct in ipairs { "double", "float", "int64", "int32", "int8", "uint8", "uint16", "uint64", "bool",
      "float16", "complex64" } do
      for _, v in ipairs(values) do
        local base = gm.zeros({ 7, 10 }, { dtype = ct }) + 1
        local m = mask(mv, { 7, 10 })
        local want = base:reshape(n):index_fill_(1, ints(pos), v)
        local got = clone(base):masked_fill_(m, v)
        local got2 = clone(base)
        got2[m] = v
        local what = ct .. " " .. tostring(v)
        assert.are.same(bits(want), bits(got:reshape(n)), what .. " masked_fill_")
        assert.are.same(bits(want), bits(got2:reshape(n)), what .. " m[mask] = v")
      end
    end
    -- a mask broadcast over rows, a transposed view as the mat, the mask
    -- the mat itself
    local x = gm.zeros({ 4, 3 }, { dtype = "float" })
    x:t():masked_fill_(mask({ 0, 1, 0, 1 }, { 4 }), 5)
    assert.are.same({ 0, 0, 0, 5, 5, 5, 0, 0, 0, 5, 5, 5 }, R.flat(x))
    local b = mask({ 1, 0, 1, 1, 0 }, { 5 })
    b:masked_fill_(b, false)
    assert.are.same({ false, false, false, false, false }, R.flat(b))
    local y = seq("double", { 2, 3 })
    y[y:gt(4)] = -1
    assert.are.same({ 1, 2, 3, 4, -1, -1 }, R.flat(y))
  end)

  it("masked_scatter_ is the compaction's inverse: every ctype, chunked, converting src, refusing a short src", function()
    -- src's leading elements land where the mask is true, in row-major
    -- order (plain-Lua reference); chunks of 7 elements (many chunks, some
    -- without a true element) as well as the default
    local core = require "gpumat.core"
    local n = 70
    local mv = {}
    for i = 1, n do mv[i] = (i * 7) % 3 == 0 and 1 or (i > 40 and i < 55 and 0 or i % 5 == 0 and 1 or 0) end
    finally(function() core._set_chunk(0) end)
    for _, chunk in ipairs { 0, 7 } do
      core._set_chunk(chunk)
      for _, ct in ipairs { "double", "float", "int64", "int32", "int16", "uint8", "bool", "float16", "complex64",
        "complex128" } do
        local base = ct == "bool" and gm.zeros({ 7, 10 }, { dtype = "bool" }) or seq(ct, { 7, 10 })
        local vals = {}
        for i = 1, n do vals[i] = ct == "bool" and i % 2 or 100 + i end
        local src = R.mk(ct, { n }, vals)
        local want, k = R.flat(base), 0
        for i = 1, n do
          if mv[i] == 1 then
            k = k + 1
            want[i] = R.flat(src)[k]
          end
        end
        local got = clone(base):masked_scatter_(mask(mv, { 7, 10 }), src)
        assert.are.same(want, R.flat(got), ct .. " chunk " .. chunk)
      end
    end
    core._set_chunk(0)
    -- src of another ctype converts as astype does; a transposed view as
    -- the mat (staged and written back); src aliasing the mat
    local x = gm.zeros({ 4, 3 }, { dtype = "int32" })
    x:t():masked_scatter_(mask({ 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1 }, { 3, 4 }), R.mk("double", { 5 }, { 1.9, -2.9, 3, 4, 5 }))
    assert.are.same({ 1, 3, 0, 0, 0, 0, 0, 0, 0, -2, 0, 4 }, R.flat(x)) -- t(1,1) t(1,4) t(2,1) t(3,4)
    local y = seq("double", { 6 })
    y:masked_scatter_(mask({ 0, 1, 1, 0, 1, 1 }, { 6 }), y)
    assert.are.same({ 1, 1, 2, 4, 3, 4 }, R.flat(y))
    -- too few source elements: an error naming the function, the mat unchanged
    local z = seq("float", { 6 })
    local ok, err = pcall(z.masked_scatter_, z, mask({ 1, 1, 1, 0, 0, 1 }, { 6 }), seq("float", { 3 }))
    assert.is_false(ok)
    assert.matches("masked_scatter_", tostring(err))
    assert.matches("the source has 3 elements, the mask selects 4", tostring(err))
    assert.are.same({ 1, 2, 3, 4, 5, 6 }, R.flat(z))
  end)

  it("m[mask] = src with one element per selected one is the compaction's inverse; it agrees with the positions path", function()
    -- the reference writes src through integer positions (the scatter
    -- planner, astype's conversion) into a flat view of the same mat; bits
    -- compared (NaN, -0.0, wrapping and saturating conversions)
    local n = 70
    local mv, pos = {}, {}
    for i = 1, n do
      mv[i] = (i * 7) % 3 == 0 and 1 or 0
      if mv[i] == 1 then pos[#pos + 1] = i end
    end
    local vals = {}
    for k = 1, #pos do vals[k] = ({ 0.75, -0.0, 0 / 0, 3.7, -3.7, 1e300, -1e300, 2 ^ 40 + 3, 255, 256, -1 })[k % 11 + 1] end
    for _, ct in ipairs { "double", "float", "int64", "int32", "int8", "uint8", "uint64", "bool", "float16",
      "complex64" } do
      for _, sct in ipairs { "double", "float32", "int64" } do
        local src = gm.asarray(vals, { dtype = sct == "int64" and "double" or sct })
        if sct == "int64" then src = gm.asarray(R.flat(src:as("int64")), { dtype = "int64" }) end
        local base = gm.zeros({ 7, 10 }, { dtype = ct }) + 1
        local want = clone(base)
        want:reshape(n)[{ ints(pos) }] = src
        local got = clone(base)
        got[mask(mv, { 7, 10 })] = src
        assert.are.same(bits(want), bits(got), ct .. " from " .. sct)
      end
    end
    -- a src of another count broadcasts (one element) or raises, as NumPy
    local x = seq("double", { 3, 4 })
    local m = mask({ 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0 }, { 3, 4 })
    x[m] = gm.asarray({ -1 })
    assert.are.same({ -1, 2, 3, -1, 5, 6, -1, 8, 9, -1, 11, 12 }, R.flat(x))
    local ok, err = pcall(function() x[m] = gm.asarray({ 1, 2, 3 }) end)
    assert.is_false(ok)
    assert.matches("does not broadcast", tostring(err))
    assert.are.same({ -1, 2, 3, -1, 5, 6, -1, 8, 9, -1, 11, 12 }, R.flat(x))
    -- src aliasing the mat, and a transposed view as the mat
    local y = seq("double", { 6 })
    y[mask({ 0, 1, 1, 0, 1, 1 }, { 6 })] = y[{ { 1, 4 } }]
    assert.are.same({ 1, 1, 2, 4, 3, 4 }, R.flat(y))
    local z = gm.zeros({ 4, 3 }, { dtype = "int32" })
    z:t()[mask({ 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1 }, { 3, 4 })] = gm.asarray({ 1.9, -2.9, 3, 4 })
    assert.are.same({ 1, 3, 0, 0, 0, 0, 0, 0, 0, -2, 0, 4 }, R.flat(z))
  end)

  it("long masks: the host's 32-element vector steps (4- and 8-byte values) and the scalar tails agree", function()
    -- 5000 elements in chunks of 1024 (the default) and of 100: runs of
    -- all true (a chunk's vector steps stop 32 short of its output end),
    -- all false, alternating and a hashed mix; every element size
    local core = require "gpumat.core"
    local n, mv = 5000, {}
    for i = 1, n do
      local seg = (i - 1) // 700
      mv[i] = seg == 0 and 1 or seg == 1 and 0 or seg == 2 and i % 2 or ((i * 2654435761) % 4294967296) >= 2147483648 and 1 or 0
    end
    local m = mask(mv, { n })
    finally(function() core._set_chunk(0) end)
    for _, chunk in ipairs({ 0, 100 }) do
      core._set_chunk(chunk)
      for _, ct in ipairs({ "float", "int32", "uint32", "double", "int64", "uint64", "int16", "uint8" }) do
        local vals, want = {}, {}
        for i = 1, n do
          vals[i] = i % 200
          if mv[i] == 1 then want[#want + 1] = vals[i] end
        end
        local got = R.flat(R.mk(ct, { n }, vals)[m])
        for i = 1, #got do got[i] = tonumber(got[i]) end
        -- one comparison of the whole lists (an assertion per element made
        -- this test take minutes under GPUMAT_TEST_GC=aggressive)
        assert.are.same(want, got, ct .. " chunk " .. chunk)
      end
    end
  end)

  it("masks, nonzero and argwhere compact in many chunks (core._set_chunk), in every ctype", function()
    local core = require "gpumat.core"
    local ALL = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float", "double" }
    local dims, mv, zv = { 5, 7 }, {}, {}
    for i = 1, 35 do
      mv[i] = (i * 7) % 3 == 0 and 1 or 0
      zv[i] = (i * 5) % 4 == 0 and 0 or i % 3
    end
    local function nums(m)
      local t = R.flat(m)
      for i, v in ipairs(t) do t[i] = v == true and 1 or v == false and 0 or tonumber(v) end
      return t
    end
    finally(function() core._set_chunk(0) end)
    for _, chunk in ipairs({ 3, 0 }) do -- 3: twelve chunks, the last partial; 0: the default
      core._set_chunk(chunk)
      for _, ct in ipairs(ALL) do
        local vals, z, want, nz, aw = {}, {}, {}, { {}, {} }, {}
        for i = 1, 35 do
          vals[i] = ct == "bool" and i % 2 or i
          z[i] = zv[i]
          if mv[i] == 1 then want[#want + 1] = vals[i] end
        end
        if ct == "float" or ct == "double" then z[4] = 0 / 0 end -- NaN is nonzero
        for i = 1, 35 do
          if z[i] ~= 0 then
            local r, c = (i - 1) // 7 + 1, (i - 1) % 7 + 1
            nz[1][#nz[1] + 1], nz[2][#nz[2] + 1], aw[#aw + 1], aw[#aw + 2] = r, c, r, c
          end
        end
        local x, m, what = R.mk(ct, dims, vals), mask(mv, dims), ct .. " chunk " .. chunk
        assert.are.same(want, nums(x[m]), what .. " x[mask]")
        assert.are.same(want, nums(x:masked_select(m)), what .. " masked_select")
        local got = gm.nonzero(R.mk(ct, dims, z))
        assert.are.same(nz, { nums(got[1]), nums(got[2]) }, what .. " nonzero")
        check(gm.argwhere(R.mk(ct, dims, z)), { { #aw // 2, 2 }, aw }, what .. " argwhere")
      end
      -- rank 1 (every position written up to a chunk's last nonzero, no branch) and rank 3 (an
      -- odometer from each chunk's first position), trailing zeros in the last chunks
      for _, d in ipairs({ { 35 }, { 2, 3, 6 }, { 3, 1, 4, 3 } }) do
        local n, t = 1, {}
        for _, v in ipairs(d) do n = n * v end
        for i = 1, n do t[i] = (i * 5) % 4 == 0 and 0 or (i < n - 4 and i % 3 or 0) end
        local coords, flat = {}, {}
        for a = 1, #d do coords[a] = {} end
        for i = 1, n do
          if t[i] ~= 0 then
            local r, c = i - 1, {}
            for a = #d, 1, -1 do c[a], r = r % d[a] + 1, r // d[a] end
            for a = 1, #d do coords[a][#coords[a] + 1] = c[a]; flat[#flat + 1] = c[a] end
          end
        end
        local m = R.mk("int32", d, t)
        local got = gm.nonzero(m)
        for a = 1, #d do assert.are.same(coords[a], nums(got[a]), "rank " .. #d .. " axis " .. a .. " chunk " .. chunk) end
        check(gm.argwhere(m), { { #coords[1], #d }, flat }, "rank " .. #d .. " argwhere chunk " .. chunk)
      end
      local x = seq("double", dims)[{ { -1, 1, -1 }, {} }] -- a strided view: staged for the compaction
      local want = {}
      for i = 1, 35 do if mv[i] == 1 then want[#want + 1] = ((5 - (i - 1) // 7) - 1) * 7 + (i - 1) % 7 + 1 end end
      assert.are.same(want, R.flat(x[mask(mv, dims)]), "reversed rows, chunk " .. chunk)
      assert.are.same({}, R.flat(x[gm.zeros(dims, { dtype = "bool" })]), "an all-false mask")
    end
  end)

  -- PyTorch's scatter_reduce along axis ax of the 2-d x (flat values xv,
  -- dims xd) with index iv (dims id) and source sv (dims sd), plain Lua
  local function ref_scatter_reduce(xv, xd, ax, iv, id, sv, sd, reduce, self, int)
    local out, groups = { table.unpack(xv) }, {}
    for i = 1, id[1] do
      for j = 1, id[2] do
        local rc, t = { i, j }, iv[(i - 1) * id[2] + j]
        rc[ax] = t < 0 and t + xd[ax] + 1 or t
        local key = (rc[1] - 1) * xd[2] + rc[2]
        groups[key] = groups[key] or (self and { xv[key] } or {})
        table.insert(groups[key], sv[(i - 1) * sd[2] + j])
      end
    end
    for key, list in pairs(groups) do
      local acc = list[1]
      for k = 2, #list do
        local v = list[k]
        if reduce == "sum" or reduce == "mean" then acc = acc + v
        elseif reduce == "prod" then acc = acc * v
        elseif reduce == "amax" then acc = math.max(acc, v)
        else acc = math.min(acc, v) end
      end
      if reduce == "mean" then acc = int and acc // #list or acc / #list end
      out[key] = acc
    end
    return out
  end

  it("scatter_reduce: every reduce, with and without the mat's own elements, against a plain-Lua reference", function()
    local cases = { -- axis, index (dims), source dims: repeated and negative indices
      { 1, { 3, 1, -1, 2, 3, 1, 1, 2 }, { 2, 4 }, { 2, 4 } },
      { 2, { 4, 4, 1, 2, -1, 1 }, { 3, 2 }, { 3, 3 } },
    }
    for _, ct in ipairs(CTYPES) do
      local signed = ct ~= "uint8"
      local xv, sv = {}, {}
      for i = 1, 12 do xv[i] = signed and i - 6 or i end
      for i = 1, 9 do sv[i] = signed and ({ 3, -2, 5, 1, -4, 2, 7, -1, 6 })[i] or ({ 1, 2, 3, 2, 1, 3, 2, 2, 1 })[i] end
      local int = ct:match("int") ~= nil
      for _, c in ipairs(cases) do
        local ax, iv, id, sd = c[1], c[2], c[3], c[4]
        local x, src = R.mk(ct, { 3, 4 }, xv), R.mk(ct, sd, { table.unpack(sv, 1, sd[1] * sd[2]) })
        local sflat = {}
        for i = 1, sd[1] * sd[2] do sflat[i] = sv[i] end
        for _, reduce in ipairs({ "sum", "prod", "mean", "amax", "amin" }) do
          for _, self in ipairs({ true, false }) do
            local what = string.format("%s axis %d %s include_self=%s", ct, ax, reduce, tostring(self))
            local got = R.flat(x:scatter_reduce(ax, ints(iv, id), src, reduce, { include_self = self }))
            local want = ref_scatter_reduce(xv, { 3, 4 }, ax, iv, id, sflat, sd, reduce, self, int)
            for i = 1, 12 do
              local tol = ct == "float" and 1e-6 * (1 + math.abs(want[i])) or 0
              assert(math.abs(tonumber(got[i]) - want[i]) <= tol,
                string.format("%s at %d: got %s, want %s", what, i, tostring(got[i]), tostring(want[i])))
            end
          end
        end
        assert.are.same(xv, R.flat(x), ct .. " scatter_reduce copies")
      end
    end
    -- the in-place form, and a mean's floor of negative integer sums
    local x = R.mk("int32", { 1, 3 }, { 0, 0, 5 })
    assert.are.equal(x, x:scatter_reduce_(2, ints({ 1, 1, 2 }, { 1, 3 }), R.mk("int32", { 1, 3 }, { -7, 0, -3 }), "mean",
      { include_self = false }))
    assert.are.same({ -4, -3, 5 }, R.flat(x))
  end)

  it("long index lists: every position form, and one bad value anywhere (the vectorized range check)", function()
    -- core/ops/index_args.c checks a chunk's positions in one branch-free
    -- pass and falls back to the per-element loop (which finds the first
    -- bad one) only when the chunk has one
    local n, len = 10007, 1000
    local v = gm.arange(len):as("float64")
    local pos, want = {}, {}
    local forms = { 1, len, -1, -len, 2, -2, 500, -500 }
    for i = 1, n do
      local p = forms[i % #forms + 1]
      pos[i] = p
      want[i] = p > 0 and p - 1 or len + p
    end
    local got = gm.take(v, gm.array_to_mat(pos, { dtype = "int64" }))
    for i = 1, n, 97 do assert.equal(want[i], got[i], "position " .. i) end
    assert.equal(want[n], got[n])
    local t = got:to_table()
    for i = 1, n do if t[i] ~= want[i] then error(string.format("take [%d] = %s, want %s", i, t[i], want[i])) end end
    for _, bad in ipairs { 0, len + 1, -len - 1, math.mininteger, math.maxinteger } do
      for _, at in ipairs { 1, 7777, n } do
        local p = { table.unpack(pos) }
        p[at] = bad
        assert.has_error(function() gm.take(v, gm.array_to_mat(p, { dtype = "int64" })) end,
          string.format("bad argument #2 to 'take' (index %d is out of range for length %d (1..%d, or -%d..-1 from the end))",
            bad, len, len, len))
      end
    end
  end)

  it("hostile and wrong-shaped indices raise naming the function, and change nothing", function()
    local x = seq("double", { 3, 4 })
    local before = R.flat(x)
    local MIN, MAX = math.mininteger, math.maxinteger
    for _, bad in ipairs({ MIN, MAX, 0, 4, -4 }) do
      assert.has_error(function() x[{ ints({ 1, bad }) }] = 0 end,
        string.format("bad argument #2 to 'set' (index %d is out of range for length 3 (1..3, or -3..-1 from the end))", bad))
      assert.error_matches(function() return x:index_select(1, { bad }) end, "'index_select'.*out of range")
      assert.error_matches(function() x:scatter_add_(1, ints({ bad, 1, 1, 1 }, { 1, 4 }), 1) end, "'scatter_add_'.*out of range")
    end
    assert.error_matches(function() return x[{ ints({ -1 }, nil, "uint64") }] end, "index 9223372036854775807 is out of range")
    assert.error_matches(function() return x[{ R.mk("float", { 1 }, { 1 }) }] end, "index mat must have an integer ctype, got float")
    assert.error_matches(function() return x[mask({ 1, 0 }, { 2 })] end, "'index'.*the mask's axis 1 has length 2, the indexed axis 3")
    assert.error_matches(function() return gm.take_along_axis(x, ints({ 1 }), 1) end, "must have the rank of the mat")
    assert.error_matches(function() return x:masked_select(x) end, "'masked_select'.*mask must be a bool mat, got double")
    assert.error_matches(function() return x:gather(3, { { 1 } }) end, "'gather'")
    assert.error_matches(function() return x:index_select(1, { 1.5 }) end, "index 1 must be an integer")
    assert.error_matches(function() x[{ ints({ 1, 2 }) }] = gm.zeros(3) end, "does not broadcast")
    assert.error_matches(function() return x[{ ints({ 1, 2 }), ints({ 1, 2, 3 }) }] end, "do not broadcast together")
    assert.error_matches(function() x[{ ints({ 1 }), ints({ 5 }) }] = 0 end, "'set'.*index 5 is out of range for length 4")
    assert.error_matches(function() return x[{ mask({ 1, 0 }, { 2 }), ints({ 1 }) }] end,
      "'index'.*the mask's axis 1 has length 2, the indexed axis 3")
    assert.error_matches(function() return x[{ mask({ 1, 0, 1 }, { 3 }), ints({ 1, 2, 3 }) }] end, "do not broadcast together")
    assert.error_matches(function() x[{ mask({ 1, 0, 1 }, { 3 }), ints({ MIN }) }] = 1 end, "'set'.*out of range for length 4")
    assert.error_matches(function() return x[{ mask({ 1, 0, 1 }, { 3 }), R.mk("float", { 1 }, { 1 }) }] end,
      "index mat must have an integer ctype, got float")
    assert.error_matches(function() x:scatter_reduce_(1, ints({ 1 }, { 1, 1 }), 1, "max") end,
      "reduce must be \"sum\", \"prod\", \"mean\", \"amax\" or \"amin\", got \"max\"")
    assert.error_matches(function() gm.zeros({ 2 }, { dtype = "bool" }):scatter_reduce_(1, { 1 }, true, "mean") end,
      "bad argument #1 to 'scatter_reduce_' %(reduce \"mean\" of a bool mat")
    assert.error_matches(function() x:scatter_reduce(1, { { 1 } }, 1, "sum", { include_self = 0 }) end, "'scatter_reduce'.*include_self")
    assert.are.same(before, R.flat(x))
  end)
end)
