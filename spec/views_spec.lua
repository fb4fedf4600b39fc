-- Strided views (narrow, select, m[{...}], t, permute, expand, view,
-- reshape forms, contiguous) against plain-Lua references on nested
-- tables; writes through views; every op family of spec/device_ops.lua on
-- non-contiguous operands, on the host and on the emulated device;
-- facet rules for partial strided views; errors.
local gm = require "gpumat"
local strided = require "strided_mats"

local EMU = { backend = "emulated" }

-- ---- plain-Lua reference ----

-- 2x3x4 with distinct values 100i + 10j + k
local function ref3()
  local t = {}
  for i = 1, 2 do
    t[i] = {}
    for j = 1, 3 do
      t[i][j] = {}
      for k = 1, 4 do t[i][j][k] = 100 * i + 10 * j + k end
    end
  end
  return t
end

local function get(t, idx)
  for _, i in ipairs(idx) do t = t[i] end
  return t
end

-- Nested table of dims whose element at idx is f(idx).
local function build(dims, f)
  local function rec(axis, idx)
    if axis > #dims then return f(idx) end
    local out = {}
    for i = 1, dims[axis] do
      idx[axis] = i
      out[i] = rec(axis + 1, idx)
      idx[axis] = nil
    end
    return out
  end
  if #dims == 0 then return f({}) end
  return rec(1, {})
end

local function copy_idx(idx) return { table.unpack(idx) } end

local flat = strided.flat

-- reference of m[{subs...}] (subs: integer, {a, b, step}, {}) on t of dims
local function ref_index(t, dims, subs)
  local out_dims, map = {}, {}
  for a = 1, #dims do
    local s = subs[a] or {}
    local function pos(i) return i < 0 and dims[a] + i + 1 or i end
    if type(s) == "number" then
      map[a] = { fixed = pos(s) }
    else
      local first, last, step = pos(s[1] or 1), pos(s[2] or s[1] or dims[a]), s[3] or 1
      if #s == 0 then first, last = 1, dims[a] end
      out_dims[#out_dims + 1] = math.max(0, (last - first) // step + 1)
      map[a] = { first = first, step = step, out = #out_dims }
    end
  end
  return build(out_dims, function(r)
    local src = {}
    for a = 1, #dims do
      local m = map[a]
      src[a] = m.fixed or m.first + (r[m.out] - 1) * m.step
    end
    return get(t, src)
  end), out_dims
end

local function check_view(v, expected, dims)
  assert.are.same(dims, v:dims())
  assert.are.same(expected, v:to_table())
  local f = flat(expected)
  assert.are.equal(#f, #v)
  for k = 1, #f do assert.are.equal(f[k], v[k]) end -- m[k]: row-major in the view
end

local function m3(opts)
  opts = opts or {}
  return gm.array_to_mat(ref3(), opts)
end

describe("views against a plain-Lua reference", function()
  it("narrow and select on every axis", function()
    local t, dims = ref3(), { 2, 3, 4 }
    local m = m3()
    for axis = 1, 3 do
      for first = 1, dims[axis] do
        for n = 0, dims[axis] - first + 1 do
          local d = copy_idx(dims)
          d[axis] = n
          local e = build(d, function(idx)
            local s = copy_idx(idx)
            s[axis] = s[axis] + first - 1
            return get(t, s)
          end)
          if n > 0 then check_view(m:narrow(axis, first, n), e, d) end
        end
        local d = copy_idx(dims)
        table.remove(d, axis)
        local e = build(d, function(idx)
          local s = copy_idx(idx)
          table.insert(s, axis, first)
          return get(t, s)
        end)
        check_view(m:select(axis, first), e, d)
        check_view(gm.select(m, axis, first - dims[axis] - 1), e, d) -- negative from the end
      end
    end
    assert.are.same({ 0, 3, 4 }, m:narrow(1, 3, 0):dims())
  end)

  it("subscripts: integers, ranges with steps, negative ends, {} and missing axes", function()
    local t, dims = ref3(), { 2, 3, 4 }
    local m = m3()
    local cases = {
      { {}, 2 }, { 2 }, { 1, {}, { 1, 4, 2 } }, { {}, { 2, 3 }, { 2, -1 } }, { -1, -1 },
      { { 1, 2 }, { 1, 3, 2 }, { -3, 4, 2 } }, { {}, {}, { 4, 4 } }, { { 2 } }, { {}, { 3, 2 } },
      { {}, 1, { 1, 4, 3 } },
    }
    for _, subs in ipairs(cases) do
      local e, d = ref_index(t, dims, subs)
      check_view(m[subs], e, d)
    end
    assert.are.equal(234, m[{ 2, 3, 4 }]) -- one element: a number
    assert.are.equal(234, m[{ -1, -1, -1 }])
    assert.are.equal(134, m[{ 1.0, -1.0, 4 }]) -- integral floats too
    m[{ -1, -1, -1 }] = 0
    assert.are.equal(0, m[24])
    assert.are.equal(123, m[{ 1, { 2, 3 }, 3 }][1])
  end)

  it("t, permute and their strides", function()
    local t = ref3()
    local m = m3()
    for _, p in ipairs { { 1, 2, 3 }, { 3, 1, 2 }, { 2, 3, 1 }, { 3, 2, 1 }, { 1, 3, 2 } } do
      local dims = { 2, 3, 4 }
      local d = { dims[p[1]], dims[p[2]], dims[p[3]] }
      local e = build(d, function(r)
        local s = {}
        for a = 1, 3 do s[p[a]] = r[a] end
        return get(t, s)
      end)
      check_view(m:permute(p[1], p[2], p[3]), e, d)
      check_view(m:permute(p), e, d)
    end
    assert.are.same({ 1, 12, 4 }, m:permute(3, 1, 2):strides())
    local a = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
    check_view(a:t(), { { 1, 4 }, { 2, 5 }, { 3, 6 } }, { 3, 2 })
    assert.are.same({ 1, 3 }, a:t():strides())
    assert.are.same({ 3, 1 }, a:strides())
    assert.is_true(a:is_contiguous())
    assert.is_false(a:t():is_contiguous())
    assert.is_true(a:t():t():is_contiguous())
    assert.are.same({ { 1, 4 }, { 2, 5 }, { 3, 6 } }, a:transpose():to_table()) -- still a copy
  end)

  it("expand and expand_as stretch size-1 and missing axes with stride 0", function()
    local r = gm.array_to_mat({ 10, 20, 30 })
    check_view(r:expand({ 2, 3 }), { { 10, 20, 30 }, { 10, 20, 30 } }, { 2, 3 })
    check_view(r:expand(2, -1), { { 10, 20, 30 }, { 10, 20, 30 } }, { 2, 3 })
    assert.are.same({ 0, 1 }, r:expand(2, 3):strides())
    local c = r:view(3, 1)
    check_view(c:expand(3, 2), { { 10, 10 }, { 20, 20 }, { 30, 30 } }, { 3, 2 })
    check_view(c:expand_as(gm.mat({ 2, 3, 2 })),
      { { { 10, 10 }, { 20, 20 }, { 30, 30 } }, { { 10, 10 }, { 20, 20 }, { 30, 30 } } }, { 2, 3, 2 })
  end)

  it("view and reshape: new dims, -1, several integers; non-contiguous when strides allow", function()
    local m = m3()
    local f = flat(ref3())
    check_view(m:view(4, 6), build({ 4, 6 }, function(i) return f[(i[1] - 1) * 6 + i[2]] end), { 4, 6 })
    check_view(m:view({ -1, 8 }), build({ 3, 8 }, function(i) return f[(i[1] - 1) * 8 + i[2]] end), { 3, 8 })
    check_view(m:reshape(6, -1), build({ 6, 4 }, function(i) return f[(i[1] - 1) * 4 + i[2]] end), { 6, 4 })
    assert.are.same({ 2, 12 }, m:reshape(2, 12):dims())
    -- a stepped view merges its contiguous trailing axes and splits axes
    local s = m[{ {}, { 1, 3, 2 } }] -- 2x2x4, strides {12, 8, 1}
    local e = flat((ref_index(ref3(), { 2, 3, 4 }, { {}, { 1, 3, 2 } })))
    check_view(s:view(2, 2, 2, 2), build({ 2, 2, 2, 2 }, function(i)
      return e[(i[1] - 1) * 8 + (i[2] - 1) * 4 + (i[3] - 1) * 2 + i[4]]
    end), { 2, 2, 2, 2 })
    assert.has_error(function() s:view(4, 4) end) -- axes 1 and 2 (strides 12, 8) do not merge
    local s2 = m[{ {}, {}, { 1, 4, 2 } }] -- 2x3x2, strides {12, 4, 2}: axes 1 and 2 merge
    local e2 = flat((ref_index(ref3(), { 2, 3, 4 }, { {}, {}, { 1, 4, 2 } })))
    check_view(s2:view(6, 2), build({ 6, 2 }, function(i) return e2[(i[1] - 1) * 2 + i[2]] end), { 6, 2 })
    check_view(s2:reshape(-1, 2), build({ 6, 2 }, function(i) return e2[(i[1] - 1) * 2 + i[2]] end), { 6, 2 })
    assert.are.same({ 4, 2 }, s2:view(6, 2):strides())
    -- MGL's reshape keeps its meaning on contiguous mats: any size the storage holds
    assert.are.same({ 111, 112 }, m:reshape({ 2 }):to_table())
  end)

  it("contiguous: the mat itself, or a contiguous copy", function()
    local m = m3()
    assert.are.equal(m, m:contiguous())
    local t = m:permute(3, 2, 1)
    local c = t:contiguous()
    assert.is_true(c:is_contiguous())
    assert.are.same(t:to_table(), c:to_table())
    c[1] = -1
    assert.are.equal(111, m[1]) -- a copy
    local row = m:narrow(1, 2, 1) -- contiguous: a block at a displacement
    assert.is_true(row:is_contiguous())
    assert.are.equal(12, row:displacement())
    assert.are.equal(row, row:contiguous())
  end)

  it("copies of column blocks, reversed views and transposes, every dtype (the strided copy's row loops)", function()
    -- src/host/strided.c moves a row contiguous on both sides at once, a
    -- reversed one in a constant-stride loop, the rest element by element
    local function fmt(v) return type(v) == "table" and (v.re .. "," .. v.im) or tostring(v) end
    local function flat(m)
      local t = {}
      for i = 1, m:size() do t[i] = fmt(m[i]) end
      return table.concat(t, " ")
    end
    local function joined(list)
      local t = {}
      for i, v in ipairs(list) do t[i] = fmt(v) end
      return table.concat(t, " ")
    end
    for _, dt in ipairs { "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                          "bool", "float16", "bfloat16", "complex64", "complex128" } do
      local rows, cols = 7, 301
      local vals = {}
      for i = 1, rows * cols do vals[i] = dt == "bool" and (i % 3 == 0 and 1 or 0) or (i * 7) % 97 end
      local X = gm.mat({ rows, cols }, { dtype = dt, initial_contents = vals })
      local function at(r, c) return X[(r - 1) * cols + c] end
      -- a column block: rows of 250 contiguous elements
      local B = X[{ {}, { 2, 251 } }]:copy()
      local want = {}
      for r = 1, rows do for c = 2, 251 do want[#want + 1] = at(r, c) end end
      assert.equal(joined(want), flat(B), dt .. " column block")
      -- reversed: gm.flip of a row and of the whole mat
      local F = gm.flip(X[{ 3 }]):copy()
      want = {}
      for c = cols, 1, -1 do want[#want + 1] = at(3, c) end
      assert.equal(joined(want), flat(F), dt .. " reversed row")
      local G = gm.flip(X):copy()
      want = {}
      for r = rows, 1, -1 do for c = cols, 1, -1 do want[#want + 1] = at(r, c) end end
      assert.equal(joined(want), flat(G), dt .. " reversed mat")
      -- transposed: strided on both sides
      local T = X:t():copy()
      want = {}
      for c = 1, cols do for r = 1, rows do want[#want + 1] = at(r, c) end end
      assert.equal(joined(want), flat(T), dt .. " transpose")
    end
  end)

  it("views of views compose (narrow of a transposed, stepped view of a permuted one)", function()
    local t = ref3()
    local m = m3()
    local p = m:permute(3, 1, 2) -- 4x2x3
    local e = build({ 2, 2, 2 }, function(r) return get(t, { r[2], 1 + (r[3] - 1) * 2, 1 + (r[1] - 1) * 3 }) end)
    check_view(p[{ { 1, 4, 3 }, {}, { 1, 3, 2 } }], e, { 2, 2, 2 })
    local tt = m:select(1, 2):t() -- 4x3
    check_view(tt:narrow(2, 2, 2), build({ 4, 2 }, function(r) return get(t, { 2, r[2] + 1, r[1] }) end), { 4, 2 })
    check_view(tt:narrow(2, 2, 2):t(), build({ 2, 4 }, function(r) return get(t, { 2, r[1] + 1, r[2] }) end), { 2, 4 })
    local x = gm.array_to_mat({ 5, 6 }):view(2, 1):expand(2, 3):select(2, 3) -- stride-0 axis selected away
    check_view(x, { 5, 6 }, { 2 })
  end)

  it("empty views: no elements, every op a no-op", function()
    local m = m3()
    local z = m[{ {}, { 2, 1 } }] -- 2x0x4
    assert.are.same({ 2, 0, 4 }, z:dims())
    assert.are.equal(0, #z)
    assert.are.same({ {}, {} }, z:to_table())
    z:fill_(1)
    z:exp_()
    m[{ {}, { 3, 2 } }] = 5
    assert.are.equal(0, z:sum())
    assert.are.same(ref3(), m:to_table())
    for _, cfg in ipairs { { enabled = false }, EMU } do
      gm.with_cuda(cfg, function() -- row sums of a 2x0 view: zeros (beta scales y)
        local y = gm.mat(2, { initial_element = 3 })
        gm.sum_(gm.mat({ 2, 3 })[{ {}, { 2, 1 } }], y, { axis = 2 })
        assert.are.same({ 0, 0 }, y:to_table())
        gm.fill_(3, y)
        gm.sum_(gm.mat({ 2, 0 }), y, { axis = 2, beta = 0.5 })
        assert.are.same({ 1.5, 1.5 }, y:to_table())
      end)
    end
  end)

  it("prints and formats the view's elements", function()
    local a = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
    assert.are.equal("#<MAT 3x2 double F {{1, 4}, {2, 5}, {3, 6}}>", tostring(a:t()))
    assert.are.equal("#<MAT 1+2+1 double F {2, 5}>", tostring(a[{ {}, 2 }]))
    assert.is_truthy(gm.format_mat(a:t()):find("3", 1, true))
    local s = gm.format_mat(a[{ {}, { 1, 3, 2 } }])
    assert.is_truthy(s:find("1", 1, true) and s:find("6", 1, true))
    assert.is_falsy(s:find("5", 1, true))
    gm.with_cuda(EMU, function()
      local d = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
      d:scal_(2)
      assert.are.equal("Cf", d:facets())
      assert.are.equal("#<MAT 3x2 double Cf {{2, 8}, {4, 10}, {6, 12}}>", tostring(d:t()))
      assert.are.equal("Cf", d:facets()) -- printing changed nothing
    end)
  end)
end)

describe("writes through views", function()
  it("are seen by the mat and by every other view", function()
    local m = m3()
    local col = m[{ {}, 2, 3 }] -- 2 elements, stride 12
    local t = m:permute(3, 2, 1)
    col[2] = -5
    assert.are.equal(-5, m[{ 2, 2, 3 }])
    assert.are.equal(-5, t[{ 3, 2, 2 }])
    t:set(1, 1, 1, 7)
    assert.are.equal(7, m[1])
    m:narrow(3, 2, 2):fill_(0)
    local e = build({ 2, 3, 4 }, function(i)
      if i[3] == 2 or i[3] == 3 then return 0 end
      if i[1] == 1 and i[2] == 1 and i[3] == 1 then return 7 end
      return 100 * i[1] + 10 * i[2] + i[3]
    end)
    assert.are.same(e, m:to_table())
  end)

  it("slice assignment: numbers, same-shape mats, stretched rows and columns", function()
    local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } })
    m[{ {}, 2 }] = 0
    assert.are.same({ { 1, 0, 3 }, { 4, 0, 6 }, { 7, 0, 9 } }, m:to_table())
    m[{ 2 }] = gm.array_to_mat({ -1, -2, -3 })
    assert.are.same({ { 1, 0, 3 }, { -1, -2, -3 }, { 7, 0, 9 } }, m:to_table())
    m[{ { 1, 3, 2 }, { 1, 3, 2 } }] = gm.array_to_mat({ { 10, 20 } }) -- a row stretched over 2 rows
    assert.are.same({ { 10, 0, 20 }, { -1, -2, -3 }, { 10, 0, 20 } }, m:to_table())
    m[{ {}, { 2, 3 } }] = gm.array_to_mat({ { 5 }, { 6 }, { 7 } }) -- a column stretched
    assert.are.same({ { 10, 5, 5 }, { -1, 6, 6 }, { 10, 7, 7 } }, m:to_table())
    m[{ {}, 1 }] = gm.array_to_mat({ 1, 2, 3 }):view(1, 3) -- leading size-1 axis dropped
    assert.are.same({ { 1, 5, 5 }, { 2, 6, 6 }, { 3, 7, 7 } }, m:to_table())
    m[{ {}, { 1, 2 } }] = m[{ {}, { 2, 3 } }] -- overlapping source: copied first
    assert.are.same({ { 5, 5, 5 }, { 6, 6, 6 }, { 7, 7, 7 } }, m:to_table())
    m[{ 1, 1 }] = 9 -- one element, as before
    m:t()[{ 1 }] = gm.array_to_mat({ 0, 0, 0 }) -- through a transposed view: column 1
    assert.are.same({ { 0, 5, 5 }, { 0, 6, 6 }, { 0, 7, 7 } }, m:to_table())
  end)

  it("view into view in one pass: blocks, transposed and reversed sources, every dtype, host and device", function()
    -- gm_copy_views (core/exec/stage.c): both views walked through their
    -- own strides by the place's strided copy, nothing outside the
    -- destination touched
    local function fmt(v) return type(v) == "table" and (v.re .. "," .. v.im) or tostring(v) end
    local function run(dt)
      local R_, C_ = 9, 11
      local xs, ys = {}, {}
      for i = 1, R_ * C_ do
        xs[i] = dt == "bool" and (i % 2) or (i % 50)
        ys[i] = dt == "bool" and (i % 3 == 0 and 1 or 0) or (100 + i) % 120
      end
      local X = gm.mat({ R_, C_ }, { dtype = dt, initial_contents = xs })
      local Y = gm.mat({ C_, R_ }, { dtype = dt, initial_contents = ys })
      local function x_at(r, c) return X[(r - 1) * C_ + c] end
      local function y_at(r, c) return Y[(r - 1) * R_ + c] end
      local want = {}
      for r = 1, R_ do
        want[r] = {}
        for c = 1, C_ do want[r][c] = fmt(x_at(r, c)) end
      end
      -- rows 2..5, columns 3..9 from Y's transpose (rows 1..4 -> Y's columns)
      for r = 2, 5 do for c = 3, 9 do want[r][c] = fmt(y_at(c - 2, r - 1)) end end
      X[{ { 2, 5 }, { 3, 9 } }] = Y:t()[{ { 1, 4 }, { 1, 7 } }]
      -- row 7 from Y's first row reversed (and its first elements again)
      local rev = gm.flip(Y[{ 1 }])
      local row = gm.mat({ C_ }, { dtype = dt })
      row[{ { 1, R_ } }] = rev
      row[{ { R_ + 1, C_ } }] = gm.flip(Y[{ 1 }])[{ { 1, C_ - R_ } }]
      for c = 1, C_ do want[7][c] = fmt(row[c]) end
      X[{ 7 }] = row
      -- a strided column block, every other column
      for r = 1, R_ do want[r][1] = fmt(x_at(r, 11)) end
      X[{ {}, 1 }] = X[{ {}, 11 }]
      for r = 1, R_ do
        for c = 1, C_ do
          assert.equal(want[r][c], fmt(X[(r - 1) * C_ + c]), string.format("%s [%d][%d]", dt, r, c))
        end
      end
      -- the reversed row itself against Y
      for c = 1, R_ do assert.equal(fmt(y_at(1, R_ - c + 1)), fmt(row[c]), dt .. " reversed row") end
    end
    for _, dt in ipairs { "float32", "float64", "int8", "uint16", "int32", "int64", "bool", "float16", "complex64",
                          "complex128" } do
      run(dt)
      gm.with_cuda(EMU, function() run(dt) end)
    end
  end)

  it("on the emulated device (staged on the device, written back there)", function()
    gm.with_cuda(EMU, function()
      local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
      m:scal_(1) -- on the device
      m[{ {}, 2 }] = 0
      m:t()[{ 3 }] = gm.array_to_mat({ -1, -2 })
      m[{ 1 }]:exp_()
      assert.is_truthy(m:facets():find("C", 1, true))
      local e = math.exp
      local r = m:to_table()
      assert.are.same({ 4, 0, -2 }, r[2])
      assert.is_true(math.abs(r[1][1] - e(1)) < 1e-12 and r[1][2] == 1 and math.abs(r[1][3] - e(-1)) < 1e-12)
    end)
  end)
end)

describe("every op family on non-contiguous operands agrees with contiguous ones", function()
  for _, f in ipairs(strided.families()) do
    it(f.name, function()
      strided.agree(f, { enabled = false })
      strided.agree(f, EMU)
    end)
  end

  it("random fills of a strided view write exactly its elements", function()
    for _, cfg in ipairs { { enabled = false }, EMU } do
      gm.with_cuda(cfg, function()
        local m = gm.mat({ 50, 4 }, { initial_element = -7 })
        local v = m[{ {}, { 1, 4, 3 } }]
        gm.uniform_random_(v, { limit = 2 })
        gm.gaussian_random_(m[{ {}, 2 }])
        for i = 1, 50 do
          assert.is_true(m[{ i, 1 }] >= 0 and m[{ i, 1 }] < 2 and m[{ i, 4 }] >= 0 and m[{ i, 4 }] < 2)
          assert.are.equal(-7, m[{ i, 3 }])
          assert.are_not.equal(-7, m[{ i, 2 }])
        end
      end)
    end
  end)

  it("reductions and BLAS on transposed and expanded (read-only) inputs", function()
    for _, cfg in ipairs { { enabled = false }, EMU } do
      gm.with_cuda(cfg, function()
        local a = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
        local b = gm.array_to_mat({ { 1, 0 }, { 2, 1 } })
        assert.are.equal(21, a:t():sum())
        assert.are.equal(6, a:t():max())
        assert.are.same({ { 9, 12, 15 }, { 4, 5, 6 } }, (b:t() * a):to_table()) -- b^T a
        local ones = gm.array_to_mat({ 1 }):expand(3)
        assert.are.equal(6, gm.dot(ones, a[{ 1 }]))
        assert.are.same({ { 2, 3, 4 }, { 5, 6, 7 } }, gm.m_add(a, gm.array_to_mat({ 1 }):expand(2, 3)):to_table())
        assert.are.equal(3, gm.asum(a:t(), { n = 2, incx = 2 })) -- the view's elements 1 and 3: 1 and 2
      end)
    end
  end)

  it("write_mat and save_npy write the view's elements in row-major order", function()
    local a = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    gm.write_mat(a:t(), f)
    f:close()
    local back = gm.mat({ 3, 2 })
    f = assert(io.open(path, "rb"))
    gm.read_mat(back, f)
    f:close()
    assert.are.same({ { 1, 4 }, { 2, 5 }, { 3, 6 } }, back:to_table())
    a:t():save_npy(path)
    assert.are.same({ { 1, 4 }, { 2, 5 }, { 3, 6 } }, gm.load_npy(path):to_table())
    -- read_mat into a strided view writes only its elements
    local m = gm.mat({ 3, 3 }, { initial_element = 0 })
    f = assert(io.open(path, "wb"))
    gm.write_mat(gm.array_to_mat({ 7, 8, 9 }), f)
    f:close()
    f = assert(io.open(path, "rb"))
    gm.read_mat(m[{ {}, 3 }], f)
    f:close()
    os.remove(path)
    assert.are.same({ { 0, 0, 7 }, { 0, 0, 8 }, { 0, 0, 9 } }, m:to_table())
  end)
end)

-- plain-Lua reference product
local function mm(a, b)
  local c = {}
  for i = 1, #a do
    c[i] = {}
    for j = 1, #b[1] do
      local s = 0
      for k = 1, #b do s = s + a[i][k] * b[k][j] end
      c[i][j] = s
    end
  end
  return c
end

local strided_copies = strided.staged_copies

describe("gemm_ on 2-d views with a unit stride (in place, no staging)", function()
  local function grid(r, c, f)
    local t = {}
    for i = 1, r do
      t[i] = {}
      for j = 1, c do t[i][j] = f(i, j) end
    end
    return t
  end

  for _, cfg in ipairs { { enabled = false }, EMU } do
    it("row blocks and transposed blocks as a, b and c " .. (cfg.backend or "host"), function()
      gm.with_cuda(cfg, function()
        local A = gm.array_to_mat(grid(5, 6, function(i, j) return i * 10 + j end))
        local B = gm.array_to_mat(grid(6, 5, function(i, j) return (i - j) % 4 - 1.5 end))
        local a = A[{ { 2, 4 }, { 2, 5 } }] -- 3x4, strides {6, 1}
        local bt = B[{ { 2, 5 }, { 1, 3 } }]:t() -- 3x4 transposed view, strides {1, 5}
        local C = gm.mat({ 4, 7 }, { initial_element = 9 })
        local c = C[{ { 1, 3 }, { 2, 4 } }] -- 3x3, strides {7, 1}
        local before = strided_copies()
        gm.gemm_(1, a, bt, 0, c, { transpose_b = true }) -- a (3x4) * bt^T (4x3)
        if cfg.backend then assert.are.equal(before, strided_copies()) end
        local e = mm(a:to_table(), B[{ { 2, 5 }, { 1, 3 } }]:to_table())
        local ct = C:to_table()
        for i = 1, 4 do
          for j = 1, 7 do
            local want = (i <= 3 and j >= 2 and j <= 4) and e[i][j - 1] or 9
            assert.are.equal(want, ct[i][j])
          end
        end
        -- a transposed a, c written with beta
        local c2 = gm.mat({ 4, 3 }, { initial_element = 1 })
        gm.gemm_(2, A[{ { 1, 3 }, { 1, 4 } }]:t(), A[{ { 1, 3 }, { 4, 6 } }], 0.5, c2)
        local e2 = mm(A[{ { 1, 3 }, { 1, 4 } }]:t():to_table(), A[{ { 1, 3 }, { 4, 6 } }]:to_table())
        assert.are.same(grid(4, 3, function(i, j) return 2 * e2[i][j] + 0.5 end), c2:to_table())
      end)
    end)

    it("a view overlapping the written block is staged, giving the product of the old values " .. (cfg.backend or "host"), function()
      gm.with_cuda(cfg, function()
        local M = gm.array_to_mat(grid(3, 6, function(i, j) return i + j / 10 end))
        local old = M:to_table()
        local c = M[{ {}, { 1, 3 } }] -- 3x3 in place
        local a = M[{ {}, { 3, 5 } }] -- shares column 3 with c
        gm.gemm_(1, a, gm.array_to_mat(grid(3, 3, function(i, j) return i == j and 1 or 0 end)), 0, c)
        for i = 1, 3 do
          for j = 1, 3 do assert.are.equal(old[i][j + 2], M[{ i, j }]) end
          for j = 4, 6 do assert.are.equal(old[i][j], M[{ i, j }]) end
        end
        local N = gm.array_to_mat(grid(4, 4, function(i, j) return i * j end))
        local oldn = N:to_table()
        gm.gemm_(1, N:narrow(1, 1, 2), N[{ {}, { 1, 2 } }], 0, N[{ { 1, 2 }, { 3, 4 } }]) -- c inside a's rows
        local e = mm({ oldn[1], oldn[2] }, grid(4, 2, function(i, j) return oldn[i][j] end))
        assert.are.same({ { oldn[1][1], oldn[1][2], e[1][1], e[1][2] }, { oldn[2][1], oldn[2][2], e[2][1], e[2][2] } },
          { N:to_table()[1], N:to_table()[2] })
      end)
    end)
  end
end)

describe("facets of strided views", function()
  it("a partial view written on the device keeps the rest (output -> io)", function()
    gm.with_cuda(EMU, function()
      local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
      local c0 = gm.counters()
      gm.fill_(9, m[{ {}, 2 }]) -- output, but the view does not see all storage
      assert.are.equal(c0.n_memcpy_host_to_device + 1, gm.counters().n_memcpy_host_to_device)
      assert.are.equal("Cf", m:facets())
      assert.are.same({ { 1, 9, 3 }, { 4, 9, 6 } }, m:to_table())
    end)
  end)

  it("a permutation of the whole storage is written as output (no copy in)", function()
    gm.with_cuda(EMU, function()
      local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
      local c0 = gm.counters()
      gm.fill_(2, m:t())
      assert.are.equal(c0.n_memcpy_host_to_device, gm.counters().n_memcpy_host_to_device)
      assert.are.same({ { 2, 2, 2 }, { 2, 2, 2 } }, m:to_table())
    end)
  end)

  it("input views read on the device copy once, change nothing", function()
    gm.with_cuda(EMU, function()
      local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
      local c0 = gm.counters()
      assert.are.equal(5, m[{ {}, 1 }]:sum())
      assert.are.equal(7, m[{ {}, 2 }]:sum())
      assert.are.equal(21, m:t():sum())
      assert.are.equal(c0.n_memcpy_host_to_device + 1, gm.counters().n_memcpy_host_to_device)
      assert.are.equal("CF", m:facets())
    end)
  end)

  it("with_facet works on a contiguous narrow view and raises on a non-contiguous one", function()
    local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
    local row = m:narrow(1, 2, 1)
    gm.with_facet(row, "foreign", "input", function(p) assert.are.equal("userdata", type(p)) end)
    assert.has_error(function() gm.with_facet(m:t(), "foreign", "input", function() end) end,
      "with_facet: the elements of a non-contiguous 3x2 view (strides {1, 3}) are not one block of memory; use m:contiguous()")
    assert.are.equal("F", m:facets())
  end)
end)

describe("view errors", function()
  local function unchanged(m)
    assert.are.same({ { 1, 2, 3 }, { 4, 5, 6 } }, m:to_table())
    assert.are.same({ 2, 3 }, m:dims())
  end

  it("out of range views and bad steps", function()
    local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
    assert.has_error(function() m:narrow(3, 1, 1) end, "bad argument #2 to 'narrow' (axis 3 is out of range 1..2 of a 2x3 mat)")
    assert.has_error(function() m:narrow(2, 2, 3) end,
      "bad argument #4 to 'narrow' (n 3 is out of range 0..2 (from 2 on axis 2 of a 2x3 mat))")
    assert.has_error(function() m:narrow(1, 0, 1) end, "bad argument #3 to 'narrow' (first 0 is out of range 1..2 on axis 1 of a 2x3 mat)")
    assert.has_error(function() m:select(1, 3) end, "bad argument #3 to 'select' (index 3 is out of range 1..2 on axis 1 of a 2x3 mat)")
    assert.has_error(function() return m[{ {}, { 1, 3, 0 } }] end,
      "bad argument #2 to 'index' (step must not be 0 (axis 2))")
    assert.has_error(function() return m[{ {}, { 1, 3, -1 } }] end,
      "bad argument #2 to 'index' (range 1..3 (step -1) is out of range 1..3 on axis 2 of a 2x3 mat)")
    assert.has_error(function() return m[{ { 1, 3 } }] end,
      "bad argument #2 to 'index' (range 1..3 is out of range 1..2 on axis 1 of a 2x3 mat)")
    assert.has_error(function() return m[{ 3, {} }] end,
      "bad argument #2 to 'index' (subscript 3 is out of range 1..2 on axis 1 of a 2x3 mat)")
    assert.has_error(function() return m[{ {}, "x" }] end,
      "bad argument #2 to 'index' (subscript 2 must be an integer, a {first, last, step} table, an index mat, a bool mask, gm.newaxis or \"...\", got string)")
    assert.has_error(function() m[{ {}, { 1, 4 } }] = 0 end,
      "bad argument #2 to 'set' (range 1..4 is out of range 1..3 on axis 2 of a 2x3 mat)")
    assert.has_error(function() m:permute(1, 1) end,
      "bad argument #2 to 'permute' (axis 1 at position 2: axes must be a permutation of 1..2)")
    assert.has_error(function() m:permute(1) end,
      "bad argument #2 to 'permute' (expected 2 axes (a permutation of 1..2), got 1)")
    assert.has_error(function() gm.mat({ 2, 2, 2 }):t() end, "bad argument #1 to 't' (mat must be 2-dimensional, got rank 3)")
    assert.has_error(function() m:expand(4, 3) end, "expand: cannot expand a 2x3 mat to 4x3 (axis 1 has size 2, not 1)")
    assert.has_error(function() m:view(4, 2) end, "view: a 2x3 mat (6 elements) cannot be viewed as 4x2 (8 elements)")
    assert.has_error(function() m:view(4, -1) end,
      "bad argument #2 to 'view' (cannot infer dimension 2: 6 elements do not divide into 4)")
    assert.has_error(function() m:view(-1, -1) end, "bad argument #3 to 'view' (only one dimension can be -1)")
    unchanged(m)
  end)

  it("writes into expanded views raise and change nothing", function()
    local r = gm.array_to_mat({ 1, 2, 3 })
    local e = r:expand(2, 3)
    local msg = "cannot write into a view whose elements overlap (an expanded 2x3 view, strides {0, 1})"
    assert.has_error(function() e[1] = 5 end, "set: " .. msg)
    assert.has_error(function() e:set(2, 2, 5) end, "set: " .. msg)
    assert.has_error(function() e[{ {}, 1 }] = 5 end, "set: cannot write into a view whose elements overlap (an expanded 2 view, strides {0})")
    assert.has_error(function() e:exp_() end, "exp_: " .. msg)
    assert.has_error(function() gm.copy_(gm.mat({ 2, 3 }), e) end, "copy_: " .. msg)
    gm.with_cuda(EMU, function()
      assert.has_error(function() e:fill_(0) end, "fill_: " .. msg)
    end)
    assert.are.same({ 1, 2, 3 }, r:to_table())
  end)

  it("viewing, reshaping and displacing a non-contiguous view name m:contiguous()", function()
    local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
    local t = m:t()
    assert.has_error(function() t:view(6) end,
      "view: a non-contiguous 3x2 view (strides {1, 3}) cannot be viewed as 6 without a copy; use m:contiguous() first")
    assert.has_error(function() t:reshape(6) end,
      "reshape: a non-contiguous 3x2 view (strides {1, 3}) cannot be viewed as 6 without a copy; use m:contiguous() first")
    local msg = "(a non-contiguous 3x2 view (strides {1, 3}) cannot be reshaped or displaced; use m:contiguous() first)"
    assert.has_error(function() t:reshape_(6) end, "bad argument #1 to 'reshape_' " .. msg)
    assert.has_error(function() t:displace(1) end, "bad argument #1 to 'displace' " .. msg)
    assert.has_error(function() t:reshape_and_displace({ 2 }, 0) end, "bad argument #1 to 'reshape_and_displace' " .. msg)
    assert.has_error(function() gm.with_shape_and_displacement(t, { 6 }, 0, function() end) end,
      "bad argument #1 to 'with_shape_and_displacement' " .. msg)
    assert.are.same({ 3, 2 }, t:dims())
    assert.are.same({ 6 }, t:contiguous():view(6):dims())
    unchanged(m)
  end)
end)

describe("indexing forms: negative steps, gm.newaxis, \"...\", broadcasting writes", function()
  local function iota(...) -- 1, 2, 3, ... in the given dims
    local m = gm.mat({ ... })
    for k = 1, m:size() do m[k] = k end
    return m
  end

  -- reversed rows and columns of a plain table
  local function rev(t)
    local r = {}
    for i = #t, 1, -1 do r[#r + 1] = t[i] end
    return r
  end

  it("{-1, 1, -1} reverses an axis as a view with a negative stride", function()
    local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
    local r = m[{ { -1, 1, -1 } }]
    assert.are.same({ -3, 1 }, r:strides())
    assert.are.same({ { 4, 5, 6 }, { 1, 2, 3 } }, r:to_table())
    local c = m[{ {}, { -1, 1, -1 } }]
    assert.are.same({ { 3, 2, 1 }, { 6, 5, 4 } }, c:to_table())
    assert.are.same({ { 2, 1 } }, m[{ { 1, 1 }, { 2, 1, -1 } }]:to_table())
    assert.are.same({ 6, 4 }, m[{ 2, { 3, 1, -2 } }]:to_table())
    assert.are.same({ 0 }, m[{ 1, { 1, 2, -1 } }]:dims()) -- last = first + 1 backwards: empty
    m[{ { -1, 1, -1 }, 1 }] = 9 -- a write through the backward view
    assert.are.same({ { 9, 2, 3 }, { 9, 5, 6 } }, m:to_table())
  end)

  it("negative-step views through every consumer, on the host and the emulated device", function()
    local function check()
      local m = iota(3, 4)
      local t = m:to_table()
      local want = {}
      for i = 1, 3 do want[i] = rev(t[4 - i]) end -- both axes reversed
      local v = m[{ { -1, 1, -1 }, { -1, 1, -1 } }]
      assert.are.same(want, v:to_table())
      assert.are.same(want, v:contiguous():to_table())
      assert.are.equal(78, v:sum())
      assert.are.same({ 42, 26, 10 }, v:sum(2):to_table())
      assert.are.same({ 24, 21, 18, 15 }, v:sum(1):to_table())
      local p = v + 1
      assert.are.equal(want[1][1] + 1, p[{ 1, 1 }])
      assert.are.equal(want[3][4] + 1, p[{ 3, 4 }])
      assert.are.same({ { 24, 16, 8 } }, (v[{ {}, { 1, 1 } }]:t() * 2):to_table())
      assert.are.equal(want[2][3], v[{ 2, 3 }])
      assert.matches("{{12, 11, 10, 9}, {8, 7, 6, 5}, {4, 3, 2, 1}}", tostring(v), 1, true)
      v[{ 1, {} }] = gm.array_to_mat({ 1, 2, 3, 4 }) -- row 1 of v is m's last row, backwards
      assert.are.same({ 4, 3, 2, 1 }, m[{ 3, {} }]:to_table())
      local w = gm.zeros(2, 3)
      w[{ {}, { -1, 1, -1 } }] = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
      assert.are.same({ { 3, 2, 1 }, { 6, 5, 4 } }, w:to_table())
    end
    check()
    gm.with_cuda(EMU, check)
  end)

  it("negative-step views through products, in-place ops, stack, copy and .npy", function()
    local function check()
      local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
      local v = gm.array_to_mat({ 1, 2, 3 })
      assert.are.same({ 10, 28 }, (m * v[{ { -1, 1, -1 } }]):to_table())
      assert.are.same({ 32, 14 }, (m[{ { -1, 1, -1 }, { -1, 1, -1 } }] * v[{ { -1, 1, -1 } }]):to_table())
      assert.are.same({ { 27, 36, 45 }, { 22, 29, 36 }, { 17, 22, 27 } }, (m[{ {}, { -1, 1, -1 } }]:t() * m):to_table())
      assert.are.same({ { 6, 3 }, { 5, 2 }, { 4, 1 } }, m[{ { -1, 1, -1 }, { -1, 1, -1 } }]:transpose():to_table())
      assert.are.same({ 3, 2, 1 }, v[{ { -1, 1, -1 } }]:copy():to_table())
      assert.are.same({ { 4, 5, 6 }, { 1, 2, 3 }, { 1, 2, 3 }, { 4, 5, 6 } },
        gm.stack(1, { m[{ { -1, 1, -1 } }], m }):to_table())
      local w = gm.array_to_mat({ 1, 2, 3, 4 })
      gm.scal_(2, w[{ { -1, 1, -2 } }]) -- elements 4 and 2, in place
      assert.are.same({ 1, 4, 3, 8 }, w:to_table())
      local f = os.tmpname()
      gm.save_npy(m[{ {}, { -1, 1, -1 } }], f)
      assert.are.same({ { 3, 2, 1 }, { 6, 5, 4 } }, gm.load_npy(f):to_table())
      os.remove(f)
    end
    check()
    gm.with_cuda(EMU, check)
  end)

  it("printing a negative-step view shows its span", function()
    local m = iota(5)
    local v = m[{ { 4, 2, -1 } }]
    assert.are.same({ 4, 3, 2 }, v:to_table())
    assert.matches("^#<MAT 1%+3%+1 double F {4, 3, 2}>$", tostring(v))
    assert.matches("4    3    2", gm.format_mat(v), 1, true)
  end)

  it("printing a negative-step view of a mat only the device holds reads the device copy", function()
    gm.with_cuda(EMU, function()
      local m = gm.mat({ 3, 4 })
      m:fill_(0)
      local w = m + gm.range(1, 12):view(3, 4) -- written on the device only
      assert.are.equal("C", w:facets())
      local v = w[{ { -1, 1, -1 }, { -1, 1, -2 } }]
      assert.are.equal("#<MAT 1+3x2+0 double C {{12, 10}, {8, 6}, {4, 2}}>", tostring(v))
      assert.matches("12   10\n  8    6\n  4    2", gm.format_mat(v), 1, true)
      assert.are.equal("C", w:facets())
    end)
  end)

  it("gm.newaxis inserts a size-1 axis, \"...\" stands for the missing {}", function()
    local m = iota(2, 3, 4)
    assert.are.same({ 1, 2, 3, 4 }, m[{ gm.newaxis }]:dims())
    assert.are.same({ 2, 1, 3, 4 }, m[{ {}, gm.newaxis }]:dims())
    assert.are.same({ 2, 3, 4, 1 }, m[{ "...", gm.newaxis }]:dims())
    assert.are.same({ 2, 3 }, m[{ "...", 2 }]:dims())
    assert.are.same({ { 2, 6, 10 }, { 14, 18, 22 } }, m[{ "...", 2 }]:to_table())
    assert.are.same({ 3 }, m[{ 1, "...", -1 }]:dims())
    assert.are.same({ 4, 8, 12 }, m[{ 1, "...", -1 }]:to_table())
    assert.are.same({ 2, 3, 4 }, m[{ "..." }]:dims())
    -- newaxis, select axis 1, newaxis, "..." (axis 2), newaxis, {1, 2} on axis 3
    local v = m[{ gm.newaxis, 1, gm.newaxis, "...", gm.newaxis, { 1, 2 } }]
    assert.are.same({ 1, 1, 3, 1, 2 }, v:dims())
    assert.are.same({ { { { { 1, 2 } }, { { 5, 6 } }, { { 9, 10 } } } } }, v:to_table())
  end)

  it("writes broadcast: a missing leading axis repeats, a size-1 axis stretches", function()
    local w = gm.zeros(2, 3)
    w[{}] = gm.array_to_mat({ 1, 2, 3 })
    assert.are.same({ { 1, 2, 3 }, { 1, 2, 3 } }, w:to_table())
    w[{ "..." }] = gm.array_to_mat({ { 7 }, { 8 } })
    assert.are.same({ { 7, 7, 7 }, { 8, 8, 8 } }, w:to_table())
    w[{ "...", { -1, 1, -1 } }] = gm.array_to_mat({ 1, 2, 3 })
    assert.are.same({ { 3, 2, 1 }, { 3, 2, 1 } }, w:to_table())
    assert.has_error(function() w[{}] = gm.array_to_mat({ 1, 2 }) end,
      "set: cannot broadcast a 2 mat into a 2x3 view")
  end)

  it("hostile forms raise before touching memory", function()
    local m = gm.array_to_mat({ { 1, 2, 3 }, { 4, 5, 6 } })
    assert.has_error(function() return m[{ "...", "..." }] end,
      "bad argument #2 to 'index' (\"...\" may appear only once among the subscripts)")
    assert.has_error(function() return m[{ { 3, 1, -1 } }] end,
      "bad argument #2 to 'index' (range 3..1 (step -1) is out of range 1..2 on axis 1 of a 2x3 mat)")
    assert.has_error(function() m[{ {}, { 4, 1, -1 } }] = 0 end,
      "bad argument #2 to 'set' (range 4..1 (step -1) is out of range 1..3 on axis 2 of a 2x3 mat)")
    assert.has_error(function() return m[{ 1, 1, 1 }] end)
    assert.has_error(function() return m[{ "...", 1, 1, 1 }] end,
      "bad argument #2 to 'index' (too many subscripts (3) for a 2x3 mat)")
    assert.has_error(function() return m[{ {}, { 1, 3, math.mininteger } }] end)
    assert.are.same({ { 1 }, { 4 } }, m[{ {}, { 1, 3, math.maxinteger } }]:to_table())
    assert.are.same({ { 3 }, { 6 } }, m[{ {}, { 3, 1, math.mininteger } }]:to_table())
    assert.has_error(function() return m[{ "....." }] end)
    assert.has_error(function() return m[{ { math.maxinteger, 1, -1 } }] end)
    assert.has_error(function() return m[{ { math.maxinteger, math.mininteger, -1 } }] end)
    assert.has_error(function() return m[{ { math.mininteger, math.maxinteger, 1 } }] end)
    local deep = { gm.newaxis, gm.newaxis, gm.newaxis, gm.newaxis, gm.newaxis, gm.newaxis, gm.newaxis }
    assert.has_error(function() return m[deep] end, "bad argument #2 to 'index' (the view would have rank 9, more than 8)")
    assert.are.same({ { 1, 2, 3 }, { 4, 5, 6 } }, m:to_table())
  end)
end)
