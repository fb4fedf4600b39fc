-- Broadcasting elementwise ops (gm.add ... gm.cmin, gm.gt ... gm.ne,
-- gm.where, the operators + - / ^ and m * v) against a plain-Lua
-- reference of NumPy's broadcasting rule, on the host and on the emulated
-- device (R.places), for every ctype.  Shapes are chosen so the strided
-- engine's coalescing both merges axes and must keep them apart.
local gm = require "gpumat"
local R = require "blas_ref"

local unpack = table.unpack

-- ---- reference ----

-- the references: one table keyed by op name (spec/op_refs.lua); the
-- comparisons' booleans as 1/0
local refs = require "op_refs"
local ref_ops = {}
for _, name in ipairs { "add", "sub", "cmul", "cdiv", "pow", "cmax", "cmin" } do ref_ops[name] = refs[name] end
for _, name in ipairs { "gt", "ge", "lt", "le", "eq", "ne" } do
  ref_ops[name] = function(a, b) return refs[name](a, b) and 1 or 0 end
end
local CMP = { gt = true, ge = true, lt = true, le = true, eq = true, ne = true }
local op_names = { "add", "sub", "cmul", "cdiv", "pow", "cmax", "cmin", "gt", "ge", "lt", "le", "eq", "ne" }

local function count(dims)
  local n = 1
  for _, d in ipairs(dims) do n = n * d end
  return n
end

-- NumPy's rule on plain dims lists (numbers are {})
local function bdims(...)
  local out = {}
  for _, d in ipairs({ ... }) do
    local r = math.max(#out, #d)
    local new = {}
    for i = 1, r do
      local x = out[#out - r + i] or 1
      local y = d[#d - r + i] or 1
      assert(x == y or x == 1 or y == 1, "reference: shapes do not broadcast")
      new[i] = x == 1 and y or x
    end
    out = new
  end
  return out
end

-- operand value at result position (0-based row-major index k of dims)
local function at(op, dims, k)
  if type(op) == "number" then return op end
  local od, ov = op.dims, op.vals
  local idx, stride = 0, 1
  for i = #dims, 1, -1 do
    local sub = k % dims[i]
    k = k // dims[i]
    local j = #od - (#dims - i)
    if j >= 1 then
      if od[j] ~= 1 then idx = idx + sub * stride end
      stride = stride * od[j]
    end
  end
  return ov[idx + 1]
end

-- expected flat values of f over the operands' broadcast (operand values
-- are multiples of 1/4, exact in every ctype)
local function expect(f, ops)
  local dl = {}
  for _, o in ipairs(ops) do dl[#dl + 1] = type(o) == "number" and {} or o.dims end
  local dims = bdims(unpack(dl))
  local out = {}
  for k = 0, count(dims) - 1 do
    local args = {}
    for i, o in ipairs(ops) do args[i] = at(o, dims, k) end -- exact in every ctype
    out[k + 1] = f(unpack(args))
  end
  return out, dims
end

-- values: multiples of 1/4 in [-2, 2]; `positive` shifts them to [0.25, 4.25]
local function operand(ct, dims, seed, positive)
  local vals = R.vals(count(dims), seed)
  if positive then for i, v in ipairs(vals) do vals[i] = v + 2.25 end end
  local m = gm.mat(dims, { ctype = ct, initial_contents = vals })
  return { m = m, dims = dims, vals = vals }
end

local function same(actual, expected, ct, what)
  assert(#actual == #expected, string.format("%s: %d elements, expected %d", what, #actual, #expected))
  for i = 1, #expected do
    local e, a = expected[i], actual[i]
    local ok
    if e ~= e then
      ok = a ~= a
    elseif e == math.huge or e == -math.huge then
      ok = a == e
    else
      ok = math.abs(a - e) <= R.tol[ct] * math.max(1, math.abs(e))
    end
    if not ok then
      error(string.format("%s[%d]: expected %.17g, got %.17g (%s)", what, i, e, a, ct), 2)
    end
  end
end

-- row-major values of m (element access: faster than to_table at size);
-- a bool mat's as 1 and 0
local function flat(m)
  local t = {}
  for k = 1, #m do
    local x = m[k]
    t[k] = x == true and 1 or x == false and 0 or x
  end
  return t
end

local function arg(o) return type(o) == "number" and o or o.m end

-- the operands (a, b) of one shape case for op
local function case_operands(ct, name, da, db, k)
  local pos = name == "pow" or name == "cdiv"
  local a = da and operand(ct, da, 3 + k, name == "pow") or 1.5
  local b = db and operand(ct, db, 5 + k, pos) or (pos and 0.5 or -0.75)
  if name == "pow" and db then -- small exponents, some negative
    for i, v in ipairs(b.vals) do b.vals[i] = v - 2.25 end
    b.m = gm.mat(db, { ctype = ct, initial_contents = b.vals })
  end
  return a, b
end

-- shape cases: a's dims, b's dims (nil: a number)
local shapes = {
  { { 2, 3 }, { 2, 3 } },       -- same dims: one flat loop
  { { 2, 3 }, { 3 } },          -- row vector
  { { 2, 3 }, { 2, 1 } },       -- column
  { { 2, 3 }, { 1, 1 } },       -- scalar-like 1x1
  { { 4 }, { 2, 3, 4 } },       -- leading axes missing on the left
  { { 2, 3, 4 }, { 4 } },       -- outer axes merge, b repeats
  { { 2, 3, 4 }, { 3, 1 } },    -- b's axes must not merge with a's
  { { 2, 1, 4 }, { 3, 1 } },    -- both stretch
  { { 1, 5 }, { 3, 1 } },       -- outer product
  { { 2, 3, 1, 2 }, { 1, 3, 4, 1 } },
  { { 2, 3 }, nil },            -- mat and number
  { nil, { 2, 3 } },            -- number and mat
}

describe("broadcasting ops", function()
  for _, ct in ipairs(R.ctypes) do
    describe(ct, function()
      for _, name in ipairs(op_names) do
        it(name .. " over every shape case, numbers on either side", function()
          R.places(function(place)
            for k, sh in ipairs(shapes) do
              local a, b = case_operands(ct, name, sh[1], sh[2], k)
              local want, dims = expect(ref_ops[name], { a, b })
              local r = gm[name](arg(a), arg(b))
              assert.same(dims, r:dims())
              assert.equal(CMP[name] and "bool" or ct, r:ctype()) -- comparisons give bool
              same(flat(r), want, ct, string.format("%s %s case %d", place, name, k))
              if type(a) ~= "number" then -- method form, same result
                same(flat(a.m[name](a.m, arg(b))), want, ct, place .. " method " .. name)
                same(flat(a.m), a.vals, ct, place .. " a untouched")
              end
            end
          end)
        end)
      end

      it("{out = m} writes into m, which may be a or b", function()
        R.places(function(place)
          local a, row = operand(ct, { 3, 4 }, 1), operand(ct, { 4 }, 2)
          local want = expect(ref_ops.add, { a, row })
          local r = gm.add(a.m, row.m, { out = a.m })
          assert.equal(a.m, r)
          same(flat(a.m), want, ct, place .. " out = a")
          same(flat(row.m), row.vals, ct, place .. " b untouched")
          local x, y = operand(ct, { 2, 3 }, 3), operand(ct, { 2, 3 }, 4)
          want = expect(ref_ops.sub, { x, y })
          assert.equal(y.m, gm.sub(x.m, y.m, { out = y.m }))
          same(flat(y.m), want, ct, place .. " out = b")
          local z = operand(ct, { 2, 3 }, 5)
          want = expect(ref_ops.cmul, { z, z })
          gm.cmul(z.m, z.m, { out = z.m })
          same(flat(z.m), want, ct, place .. " out = a = b")
          local o = gm.mat({ 2, 3 }, { ctype = ct })
          want = expect(ref_ops.cmax, { x, 0 })
          assert.equal(o, x.m:cmax(0, { out = o }))
          same(flat(o), want, ct, place .. " method with out")
        end)
      end)

      it("comparisons give bool mats; m:gt(0)", function()
        R.places(function(place)
          local m = gm.mat({ 2, 3 }, { ctype = ct, initial_contents = { { -1, 0, 2 }, { 0.5, 0, -3 } } })
          local T, F = true, false
          assert.same({ { F, F, T }, { T, F, F } }, m:gt(0):to_table())
          assert.same({ { F, T, T }, { T, T, F } }, m:ge(0):to_table())
          assert.same({ { T, F, F }, { F, F, T } }, gm.lt(m, 0):to_table())
          assert.same({ { T, T, F }, { F, T, T } }, gm.le(m, 0):to_table())
          assert.same({ { F, T, F }, { F, T, F } }, gm.eq(0, m):to_table())
          assert.same({ { T, F, T }, { T, F, T } }, gm.ne(0, m):to_table())
          assert.equal("bool", gm.gt(1, m):ctype())
          local nan = gm.mat({ 2 }, { ctype = ct, initial_contents = { 0 / 0, 1 } })
          assert.same({ F, T }, gm.eq(nan, nan):to_table())
          assert.same({ T, F }, gm.ne(nan, nan):to_table())
          local mx = gm.cmax(nan, 5):to_table()
          assert.is_true(mx[1] ~= mx[1], place .. " cmax propagates NaN")
          assert.equal(5, mx[2])
        end)
      end)

      it("comparisons over long rows: the 32-element blocks of the SIMD loops and their tails", function()
        -- the host's double comparisons pack 32 results at a time
        -- (src/host/strided_ew.c): rows of 31..100 elements, several rows
        -- with a row or column stretched, a number on either side, and
        -- NaN, infinities, -0 and ties with the other operand among them
        local special = { 0 / 0, math.huge, -math.huge, -0.0, 0, 0.5, -0.5 }
        local function vals(n, seed)
          local t = {}
          for i = 1, n do
            local k = (i * 7 + seed * 13) % 23
            t[i] = k < #special and special[k + 1] or ((i * 37 + seed) % 11 - 5) / 2
          end
          return t
        end
        R.places(function(place)
          for _, sh in ipairs({ { { 31 }, { 31 } }, { { 32 }, { 32 } }, { { 33 }, nil }, { nil, { 71 } },
                                { { 3, 100 }, { 100 } }, { { 3, 1 }, { 3, 45 } }, { { 2, 64 }, { 2, 64 } } }) do
            local a, b = 0.5, 0.5
            if sh[1] then
              local v = vals(count(sh[1]), 1)
              a = { dims = sh[1], m = gm.mat({ #v }, { ctype = ct, initial_contents = v }):reshape(sh[1]) }
              a.vals = flat(a.m)
            end
            if sh[2] then
              local v = vals(count(sh[2]), 2)
              b = { dims = sh[2], m = gm.mat({ #v }, { ctype = ct, initial_contents = v }):reshape(sh[2]) }
              b.vals = flat(b.m)
            end
            for _, name in ipairs { "gt", "ge", "lt", "le", "eq", "ne" } do
              local want = expect(ref_ops[name], { a, b })
              local r = gm[name](arg(a), arg(b))
              assert.are.same(want, flat(r), string.format("%s %s %s of %s", place, ct, name,
                                                           table.concat(sh[1] or sh[2], "x")))
            end
          end
        end)
      end)

      it("where(cond, a, b) broadcasts all three", function()
        R.places(function(place)
          local cond = gm.mat({ 3 }, { ctype = ct, initial_contents = { 1, 0, 2 } })
          local a = operand(ct, { 2, 3 }, 7)
          local col = operand(ct, { 2, 1 }, 8)
          local c = { m = cond, dims = { 3 }, vals = { 1, 0, 2 } }
          local f = function(x, y, z) if x ~= 0 then return y end return z end
          same(flat(gm.where(cond, a.m, col.m)), expect(f, { c, a, col }), ct, place .. " where")
          same(flat(gm.where(cond, a.m, -1)), expect(f, { c, a, -1 }), ct, place .. " where number b")
          same(flat(gm.where(cond, 7, col.m)), expect(f, { c, 7, col }), ct, place .. " where number a")
          local w = gm.where(a.m:gt(0), a.m, 0)
          same(flat(w), expect(function(x) return x > 0 and x or 0 end, { a }), ct, place .. " relu by where")
          local o = gm.mat({ 2, 3 }, { ctype = ct })
          assert.equal(o, gm.where(cond, a.m, col.m, { out = o }))
          assert.equal(a.m, gm.where(cond, a.m, 0, { out = a.m }))
          same(flat(a.m), expect(f, { c, a, 0 }), ct, place .. " where out = a")
        end)
      end)

      it("operators + - / ^ broadcast; * stays the matrix product, m * v is matrix x vector", function()
        R.places(function(place)
          local m, row, col = operand(ct, { 2, 3 }, 9), operand(ct, { 3 }, 10), operand(ct, { 2, 1 }, 11, true)
          same(flat(m.m + row.m), expect(ref_ops.add, { m, row }), ct, place .. " m + row")
          same(flat(row.m - m.m), expect(ref_ops.sub, { row, m }), ct, place .. " row - m")
          same(flat(m.m / col.m), expect(ref_ops.cdiv, { m, col }), ct, place .. " m / col")
          same(flat(3 / col.m), expect(ref_ops.cdiv, { 3, col }), ct, place .. " 3 / col")
          same(flat(col.m ^ 2), expect(ref_ops.pow, { col, 2 }), ct, place .. " col ^ 2")
          same(flat(m.m ^ 0.5), expect(ref_ops.pow, { m, 0.5 }), ct, place .. " m ^ 0.5")
          same(flat(2 ^ m.m), expect(ref_ops.pow, { 2, m }), ct, place .. " 2 ^ m")
          same(flat(m.m + 1), expect(ref_ops.add, { m, 1 }), ct, place .. " m + 1")
          same(flat(1 - m.m), expect(ref_ops.sub, { 1, m }), ct, place .. " 1 - m")
          local v = operand(ct, { 3 }, 12)
          local mv = m.m * v.m
          assert.same({ 2 }, mv:dims())
          local want = {}
          for i = 1, 2 do
            local s = 0
            for j = 1, 3 do s = s + m.vals[(i - 1) * 3 + j] * v.vals[j] end
            want[i] = s
          end
          same(flat(mv), want, ct, place .. " m * v")
          assert.same({ 2, 1 }, (m.m * gm.mat({ 3, 1 }, { ctype = ct })):dims())
          local w = gm.mat({ 3, 2 }, { ctype = ct, initial_contents = { { 0, v.vals[1] }, { 0, v.vals[2] }, { 0, v.vals[3] } } })
          same(flat(m.m * w:select(2, 2)), want, ct, place .. " m * strided v")
          same(flat(m.m), m.vals, ct, place .. " operands untouched")
        end)
      end)

      it("coalescing: a big row broadcast over the cores, and a chain of axes that merge", function()
        R.places(function(place)
          local a, row = operand(ct, { 520, 512 }, 13), operand(ct, { 512 }, 14)
          local colv = operand(ct, { 520, 1 }, 15)
          local d, p = gm.sub(a.m, row.m), gm.cmul(a.m, colv.m)
          -- every 7th element and the whole last row (Lua loops over all
          -- 266240 are slow under busted's hooks)
          for k = 1, 520 * 512 do
            if k % 7 == 1 or k > 519 * 512 then
              local i, j = (k - 1) // 512, (k - 1) % 512 + 1
              local av = a.vals[k]
              if d[k] ~= av - row.vals[j] or p[k] ~= av * colv.vals[i + 1] then
                error(string.format("%s %s: element %d: %g, %g", place, ct, k, d[k], p[k]))
              end
            end
          end
          if ct == "double" then
            -- short rows (62) of three axes that do not merge, split over
            -- the cores mid-row: the host hands whole rows to one loop call
            -- and carries the outer axes itself (src/host/strided_ew.c)
            local c, col = gm.range(1, 66 * 65 * 62, { ctype = ct }):reshape(66, 65, 62), operand(ct, { 65, 1 }, 19)
            local s = gm.add(c, col.m)
            for k = 1, 66 * 65 * 62, 61 do -- a different column in each row
              local e = k + col.vals[(k - 1) // 62 % 65 + 1]
              if s[k] ~= e then error(string.format("%s: 3-d element %d: %g, expected %g", place, k, s[k], e)) end
            end
          end
          local x, y = operand(ct, { 3, 1, 4, 1, 5 }, 16), operand(ct, { 3, 2, 4, 1, 5 }, 17)
          same(flat(gm.add(x.m, y.m)), expect(ref_ops.add, { x, y }), ct, place .. " size-1 axes")
          local e = gm.add(gm.mat({ 0, 3 }, { ctype = ct }), gm.mat({ 3 }, { ctype = ct }))
          assert.same({ 0, 3 }, e:dims())
        end)
      end)
    end)
  end

  for _, ct in ipairs(R.ctypes) do
    it("strided views in and out, walked in place (" .. ct .. ")", function()
      R.places(function(place)
        local m = operand(ct, { 3, 4 }, 21)
        local t = m.m:t() -- 4x3, strides {1, 4}
        local tv = { dims = { 4, 3 }, vals = {} }
        for i = 1, 4 do for j = 1, 3 do tv.vals[(i - 1) * 3 + j] = m.vals[(j - 1) * 4 + i] end end
        local row = operand(ct, { 3 }, 22)
        same(flat(t + row.m), expect(ref_ops.add, { tv, row }), ct, place .. " transposed + row")
        same(flat(gm.cmul(t, t)), expect(ref_ops.cmul, { tv, tv }), ct, place .. " transposed .* itself")
        local col = operand(ct, { 4, 1 }, 23)
        same(flat(gm.cmax(col.m:expand({ 4, 3 }), t)), expect(ref_ops.cmax, { col, tv }), ct, place .. " expanded input")
        -- big enough for the host's 128x128 tiles of a transposed operand,
        -- with partial tiles on both axes
        local big = operand(ct, { 150, 290 }, 24)
        local bt = { dims = { 290, 150 }, vals = {} }
        for i = 1, 290 do for j = 1, 150 do bt.vals[(i - 1) * 150 + j] = big.vals[(j - 1) * 290 + i] end end
        local r150 = operand(ct, { 150 }, 25)
        same(flat(big.m:t() - r150.m), expect(ref_ops.sub, { bt, r150 }), ct, place .. " 290x150 transposed - row")
        local cube = operand(ct, { 3, 130, 140 }, 26)
        local pv = { dims = { 3, 140, 130 }, vals = {} }
        for a3 = 0, 2 do
          for i = 0, 139 do
            for j = 0, 129 do pv.vals[a3 * 18200 + i * 130 + j + 1] = cube.vals[a3 * 18200 + j * 140 + i + 1] end
          end
        end
        local o3 = gm.mat({ 3, 140, 130 }, { ctype = ct })
        gm.cmul(cube.m:permute(1, 3, 2), 2, { out = o3 })
        same(flat(o3), expect(ref_ops.cmul, { pv, 2 }), ct, place .. " permuted 3-d into out")
        -- a column of m as out: only those elements change
        local c2 = m.m:select(2, 2)
        gm.sub(c2, 1, { out = c2 })
        local want = {}
        for k, v in ipairs(m.vals) do want[k] = (k - 1) % 4 == 1 and v - 1 or v end
        same(flat(m.m), want, ct, place .. " select as out")
        -- out overlapping an input shifted by one element: the input is read first
        local base = gm.mat(7, { ctype = ct, initial_contents = { 1, 2, 3, 4, 5, 6, 7 } })
        local lo = gm.mat({ 6 }, { displaced_to = base, displacement = 0 })
        local hi = gm.mat({ 6 }, { displaced_to = base, displacement = 1 })
        gm.add(lo, 10, { out = hi })
        assert.same({ 1, 11, 12, 13, 14, 15, 16 }, base:to_table())
        -- columns of one mat as input and out
        local sq = gm.mat({ 2, 2 }, { ctype = ct, initial_contents = { { 1, 2 }, { 3, 4 } } })
        gm.cmul(sq:select(2, 2), 10, { out = sq:select(2, 1) })
        assert.same({ { 20, 2 }, { 40, 4 } }, sq:to_table())
      end)
    end)
  end

  it("x ^ 0.5 is a square root with pow's special cases: +0 for -0, +inf for -inf (the standard's pow)", function()
    -- (the element function takes sqrt for an exponent of 0.5; -0 and -inf are where sqrt differs)
    local x = { -0.0, 0.0, -math.huge, math.huge, -1, 4, 0 / 0, 2.25, 1e-30, 3 }
    for _, ct in ipairs { "float32", "float64", "float16", "bfloat16" } do
      R.places(function(place)
        local m = gm.asarray(x, { dtype = ct })
        local e = gm.full_like(m, 0.5)
        for _, r in ipairs { { m ^ 0.5, "m ^ 0.5" }, { gm.pow(m, 0.5), "gm.pow(m, 0.5)" }, { gm.pow(m, e), "gm.pow(m, e)" } } do
          local y, what = r[1], ct .. " " .. place .. " " .. r[2]
          for i, v in ipairs(x) do
            local want = gm.asarray({ v ^ 0.5 }, { dtype = ct })[1] -- C's pow, rounded to the type
            local got = y[i]
            if want ~= want then
              assert(got ~= got, what .. ": NaN expected at " .. i)
            else
              assert.are.equal(want, got, what .. " at " .. i)
              assert.are.equal(1 / want, 1 / got, what .. ": the sign of zero at " .. i)
            end
          end
        end
      end)
    end
  end)

  it("run on the emulated device as the kernels of kernels/strided_ew.cu", function()
    local function launches(name)
      local n = 0
      for k, c in pairs(gm.emulated_kernel_launches()) do
        if c.file:find("strided_ew.cu", 1, true) and k:find(name, 1, true) then n = n + c.launches end
      end
      return n
    end
    local ok, why = pcall(gm.with_cuda, { backend = "emulated" }, function() end)
    if not ok then pending("no emulated device: " .. tostring(why)) return end
    gm.with_cuda({ backend = "emulated" }, function()
      local a = gm.mat({ 2, 3 }, { initial_element = 2 })
      local b0, w0 = launches("binary_kernel"), launches("where_kernel")
      local r = gm.add(a, gm.mat(3, { initial_element = 1 }))
      local w = gm.where(a, r, 0)
      assert.equal(b0 + 1, launches("binary_kernel"))
      assert.equal(w0 + 1, launches("where_kernel"))
      assert.same({ { 3, 3, 3 }, { 3, 3, 3 } }, w:to_table())
      -- a transposed view goes through the engine itself, not a staging copy
      local copies = 0
      for k, c in pairs(gm.emulated_kernel_launches()) do
        if k:find("strided_copy", 1, true) then copies = copies + c.launches end
      end
      local b1 = launches("binary_kernel")
      local s = a:t() + gm.mat({ 3, 1 }, { initial_element = 1 })
      assert.same({ { 3, 3 }, { 3, 3 }, { 3, 3 } }, s:to_table())
      assert.equal(b1 + 1, launches("binary_kernel"))
      local after = 0
      for k, c in pairs(gm.emulated_kernel_launches()) do
        if k:find("strided_copy", 1, true) then after = after + c.launches end
      end
      assert.equal(copies, after)
    end)
  end)

  describe("errors name the function and the shapes; nothing changes", function()
    local function err(f, ...)
      local ok, e = pcall(f, ...)
      assert.is_false(ok)
      return tostring(type(e) == "table" and e.message or e)
    end

    it("shapes that do not broadcast", function()
      R.places(function()
        local a = gm.mat({ 2, 3 }, { initial_element = 1 })
        local b = gm.mat({ 3, 2 }, { initial_element = 2 })
        assert.matches("^add: cannot broadcast 2x3 with 3x2$", err(gm.add, a, b))
        assert.matches("add: cannot broadcast 2x3 with 3x2", err(function() return a + b end))
        assert.matches("sub: cannot broadcast 2x3 with 3x2", err(function() return a - b end))
        assert.matches("^where: cannot broadcast 2x3 with 3x2$", err(gm.where, a, a, b))
        assert.matches("^gt: cannot broadcast 2x3x4 with 3x2$", err(gm.gt, gm.mat({ 2, 3, 4 }), b))
        assert.matches("^cmul: cannot broadcast 2x3 with 2$", err(gm.cmul, a, gm.mat(2)))
        assert.same({ { 1, 1, 1 }, { 1, 1, 1 } }, a:to_table())
        assert.same({ { 2, 2 }, { 2, 2 }, { 2, 2 } }, b:to_table())
      end)
    end)

    it("out with the wrong dims, ctype or storage", function()
      R.places(function()
        local a = gm.mat({ 2, 3 }, { initial_element = 1 })
        local o = gm.mat({ 3, 2 }, { initial_element = 7 })
        assert.matches("^add: out is 3x2 but the result is 2x3$", err(gm.add, a, 1, { out = o }))
        assert.matches("^add: out is 3 but the result is 2x3$", err(gm.add, a, gm.mat(3), { out = gm.mat(3) }))
        local f = gm.mat({ 2, 3 }, { ctype = "float", initial_element = 7 })
        assert.matches("^pow: out's ctype is float but the result's is double$", err(gm.pow, a, 2, { out = f }))
        local e = gm.mat({ 1, 3 }, { initial_element = 5 }):expand({ 2, 3 })
        assert.matches("^add: cannot write into a view whose elements overlap", err(gm.add, a, 1, { out = e }))
        assert.same({ { 7, 7 }, { 7, 7 }, { 7, 7 } }, o:to_table())
        assert.same({ { 7, 7, 7 }, { 7, 7, 7 } }, f:to_table())
        assert.same({ { 5, 5, 5 }, { 5, 5, 5 } }, e:to_table())
        assert.same({ { 1, 1, 1 }, { 1, 1, 1 } }, a:to_table())
      end)
    end)

    it("float mats' one-pass path: outs that overlap an input, strided ones, freed ones", function()
      R.places(function(place)
        for _, ct in ipairs { "float", "double" } do
          local function seven() return gm.mat({ 7 }, { ctype = ct, initial_contents = { 1, 2, 3, 4, 5, 6, 7 } }) end
          local a = seven() -- out one element on from x: every x read before it is written
          gm.add(a:narrow(1, 1, 6), 10, { out = a:narrow(1, 2, 6) })
          assert.same({ 1, 11, 12, 13, 14, 15, 16 }, a:to_table(), place .. " " .. ct)
          a = seven()
          gm.cmul(a:narrow(1, 2, 6), a:narrow(1, 2, 6), { out = a:narrow(1, 1, 6) })
          assert.same({ 4, 9, 16, 25, 36, 49, 7 }, a:to_table(), place .. " " .. ct)
          local b = gm.mat({ 2, 3 }, { ctype = ct, initial_contents = { { 1, 2, 3 }, { 4, 5, 6 } } })
          local o = gm.mat({ 3, 2 }, { ctype = ct, initial_element = 0 })
          local ot = o:t()
          assert.equal(ot, gm.sub(b, 1, { out = ot }))
          assert.same({ { 0, 3 }, { 1, 4 }, { 2, 5 } }, o:to_table())
          assert.same({ { 2, 5, 8 }, { 11, 14, 17 } }, (o:t() + b + b:cmax(0)):to_table())
          assert.same({ { false, false, false }, { true, true, true } }, gm.gt(o:t(), 2):to_table())
          local freed = gm.mat({ 2, 3 }, { ctype = ct })
          freed:free()
          assert.equal("bad argument #3 to 'add' (option 'out' is a freed mat)", err(gm.add, b, 1, { out = freed }))
          assert.equal("bad argument #3 to 'gt' (option 'out' is a freed mat)", err(gm.gt, b, b, { out = freed }))
          assert.same({ { 1, 2, 3 }, { 4, 5, 6 } }, b:to_table())
        end
      end)
    end)

    it("bad operands and options #host", function()
      local a = gm.mat({ 2, 3 })
      assert.equal("bad argument #2 to 'add' (mat or number expected, got string)", err(gm.add, a, "1"))
      assert.equal("bad argument #1 to 'cdiv' (mat or number expected, got table)", err(gm.cdiv, {}, a))
      assert.equal("double", gm.add(a, gm.mat(3, { ctype = "float" })):ctype()) -- promotes
      assert.equal("bad argument #2 to 'sub' (mat expected, got number (one operand must be a mat))", err(gm.sub, 1, 2))
      assert.equal("bad argument #3 to 'add' (unknown option 'output')", err(gm.add, a, 1, { output = a }))
      assert.equal("bad argument #3 to 'add' (option 'out' must be a mat, got number)", err(gm.add, a, 1, { out = 1 }))
      assert.equal("bad argument #4 to 'add' (no value expected)", err(gm.add, a, 1, nil, 5))
      assert.equal("bad argument #5 to 'where' (no value expected)", err(gm.where, a, 1, 2, nil, 5))
      assert.equal("float", gm.where(a, gm.mat(3, { ctype = "float" }), 0):ctype())
      assert.same({ { 1, 1, 1 }, { 1, 1, 1 } }, (a + true):to_table()) -- a weak bool
      assert.matches("bad argument #2 to '__mul' %(inner dimensions differ: 3 vs 2%)", err(function() return a * gm.mat(2) end))
      local freed = gm.mat(3)
      freed:free()
      assert.equal("bad argument #2 to 'gt' (attempt to use a freed mat)", err(gm.gt, a, freed))
    end)
  end)
end)
