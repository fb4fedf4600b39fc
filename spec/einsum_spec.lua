-- gm.einsum, gm.matmul and `*` on stacks against NumPy's np.einsum and
-- np.matmul (python3 with numpy, run once per ctype for the whole table;
-- pending without it), and their argument errors.  Under
-- GPUMAT_DEVICE=emulated every test runs on the emulated device
-- (spec/helper.lua).
local gm = require "gpumat"

-- per-ctype tolerance relative to the largest expected magnitude
local TOL = { float = 1e-5, double = 1e-12, exact = 0 }

-- NumPy, values and mats: spec/numpy_ref.lua
local R = require "numpy_ref"
local PYTHON, vals, count, flat, mk, numpy = R.python, R.vals, R.count, R.flat, R.mk, R.numpy

-- the shape and |actual - expected| <= tol * max(1, max |expected|)
local function close(actual, expected, ct, what)
  local shape = type(actual) == "number" and {} or actual:dims()
  assert.are.same(expected[1], shape, what .. ": shape")
  local a, e = flat(actual), expected[2]
  assert(#a == #e, string.format("%s: %d values, expected %d", what, #a, #e))
  local scale = 1
  for _, x in ipairs(e) do scale = math.max(scale, math.abs(x)) end
  for i, x in ipairs(e) do
    if math.abs(a[i] - x) > (TOL[ct] or ct) * scale then
      error(string.format("%s[%d]: expected %.17g, got %.17g (%s)", what, i, x, a[i], ct), 2)
    end
  end
end

-- spec, operand shapes
local EINSUM = {
  { "ij,jk->ik", { 3, 4 }, { 4, 5 } },
  { "ij,jk", { 3, 4 }, { 4, 5 } },
  { "ij,kj->ik", { 3, 4 }, { 5, 4 } },
  { "ji,jk->ik", { 4, 3 }, { 4, 5 } },
  { "ii->i", { 4, 4 } },
  { "ii", { 4, 4 } },
  { "iij->ij", { 3, 3, 2 } },
  { "jii->ij", { 2, 3, 3 } },
  { "iii->i", { 3, 3, 3 } },
  { "iijj->ij", { 2, 2, 3, 3 } },
  { "ij->", { 3, 4 } },
  { "ij->j", { 3, 4 } },
  { "ijk->ik", { 2, 3, 4 } },
  { "ij->ji", { 3, 4 } },
  { "ij", { 3, 4 } },
  { "ba", { 3, 4 } },
  { "Ab,bC", { 2, 3 }, { 3, 4 } },
  { "i,j->ij", { 3 }, { 4 } },
  { "i,j", { 3 }, { 4 } },
  { "ij,kl->ijkl", { 2, 3 }, { 2, 2 } },
  { "i,i", { 5 }, { 5 } },
  { "i,i->i", { 5 }, { 5 } },
  { "ij,ij->ij", { 3, 4 }, { 3, 4 } },
  { "ij,ij->", { 3, 4 }, { 3, 4 } },
  { "ij,ij->i", { 3, 4 }, { 3, 4 } },
  { "ij,ij->ij", { 1, 4 }, { 3, 4 } },
  { "bij,bjk->bik", { 2, 3, 4 }, { 2, 4, 5 } },
  { "bij,bkj->bik", { 3, 2, 4 }, { 3, 5, 4 } },
  { "bij,bjk->ik", { 2, 3, 4 }, { 2, 4, 5 } },
  -- more than 1024 multiplications per matrix: one gemm per matrix
  { "bij,bjk->bik", { 2, 12, 10 }, { 2, 10, 11 } },
  { "bji,bkj->bki", { 3, 10, 12 }, { 3, 11, 10 } },
  { "bij,jk->bik", { 2, 3, 4 }, { 4, 5 } },
  { "ijk,jil->kl", { 3, 4, 2 }, { 4, 3, 5 } },
  { "ij,jk,kl->il", { 2, 3 }, { 3, 4 }, { 4, 5 } },
  { "bn,anm,bm->ba", { 2, 3 }, { 4, 3, 5 }, { 2, 5 } },
  { "i,i,i->", { 4 }, { 4 }, { 4 } },
  { "ij,j->i", { 3, 4 }, { 4 } },
  { "ii,i->i", { 3, 3 }, { 3 } },
  { "...ij,...jk->...ik", { 2, 1, 3, 4 }, { 5, 4, 2 } },
  { "...ij,...jk", { 2, 3, 4 }, { 4, 5 } },
  { "i...->...", { 2, 3 } },
  { "...ii->...i", { 2, 3, 3 } },
  { "ab...,b...->a...", { 2, 3, 4 }, { 3, 1 } },
  { "...,...->...", { 2, 3 }, { 3 } },
  { " i j , j k -> i k ", { 2, 3 }, { 3, 2 } },
  { "ij,jk->ik", { 2, 0 }, { 0, 3 } },
  { "ij,jk->ik", { 0, 3 }, { 3, 2 } },
}

-- x, y shapes for `*` (and gm.matmul) on stacks
local MATMUL = {
  { { 2, 3, 4 }, { 2, 4, 5 } },
  { { 2, 1, 3, 4 }, { 3, 4, 2 } },
  { { 3, 4 }, { 2, 4, 5 } },
  { { 2, 3, 4 }, { 4, 5 } },
  { { 2, 3, 4 }, { 4 } },
  { { 4 }, { 2, 4, 5 } },
  { { 1, 2, 3, 4 }, { 3, 1, 4, 2 } },
}

local function operands(ct, shapes, seed)
  local ms, vars, names = {}, {}, {}
  for i, d in ipairs(shapes) do
    local v = vals(count(d), seed + i)
    ms[i], names[i], vars["X" .. i] = mk(ct, d, v), "X" .. i, { d, v }
  end
  return ms, vars, names
end

-- pcall's message without a position prefix
local function message(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "no error")
  return (tostring(e):gsub("^[^\n]-:%d+: ", ""))
end

describe("gm.einsum and gm.matmul", function()
  for _, ct in ipairs { "float", "double" } do
    describe(ct, function()
      local function pend() if not PYTHON then pending("python3 with numpy is not installed") end return PYTHON end

      it("einsum as np.einsum for a table of specs", function()
        if not pend() then return end
        local vars, exprs, args = {}, {}, {}
        for c, case in ipairs(EINSUM) do
          local shapes = { table.unpack(case, 2) }
          local ms, vs, names = operands(ct, shapes, 10 * c)
          for i, n in ipairs(names) do
            names[i] = n .. "_" .. c
            vars[names[i]] = vs[n]
          end
          exprs[c] = string.format("np.einsum('%s', %s)", case[1], table.concat(names, ", "))
          args[c] = ms
        end
        local ref = numpy(vars, exprs)
        for c, case in ipairs(EINSUM) do
          close(gm.einsum(case[1], table.unpack(args[c])), ref[c], ct, case[1])
        end
      end)

      it("random specs (repeated labels, size-1 broadcasting, implicit and explicit outputs) as np.einsum", function()
        if not pend() then return end
        local rng = 12345
        local function rand(n) -- deterministic, 1..n
          rng = (rng * 1103515245 + 12345) % 2147483648
          return (rng // 65536) % n + 1
        end
        local letters, vars, exprs, cases = { "a", "b", "c", "d", "e" }, {}, {}, {}
        for c = 1, 40 do
          local size = {}
          for _, l in ipairs(letters) do size[l] = rand(3) + 1 end
          local terms, shapes, used = {}, {}, {}
          for k = 1, rand(3) do
            local t, d, one = {}, {}, {}
            for i = 1, rand(4) - 1 do
              local l = letters[rand(#letters)]
              if one[l] == nil then one[l] = rand(5) == 1 end
              t[i], d[i], used[l] = l, one[l] and 1 or size[l], true
            end
            terms[k], shapes[k] = table.concat(t), d
          end
          local spec = table.concat(terms, ",")
          if rand(2) == 1 then
            local out = {}
            for _, l in ipairs(letters) do
              if used[l] and rand(2) == 1 then table.insert(out, rand(#out + 1), l) end
            end
            spec = spec .. "->" .. table.concat(out)
          end
          local ms, vs, names = operands(ct, shapes, 1000 + 10 * c)
          for i, n in ipairs(names) do
            names[i] = "R" .. n .. "_" .. c
            vars[names[i]] = vs[n]
          end
          exprs[c] = string.format("np.einsum('%s', %s)", spec, table.concat(names, ", "))
          cases[c] = { spec, ms }
        end
        local ref = numpy(vars, exprs)
        for c, case in ipairs(cases) do
          close(gm.einsum(case[1], table.unpack(case[2])), ref[c], ct, case[1])
        end
      end)

      it("the result shares nothing with the operands, which stay unchanged", function()
        local a = mk(ct, { 2, 3 }, vals(6, 1))
        local r = gm.einsum("ij->ij", a)
        r:fill_(7)
        assert.are.same(flat(mk(ct, { 2, 3 }, vals(6, 1))), flat(a))
        local t = gm.einsum("ij->ji", a)
        assert.are.same({ 3, 2 }, t:dims())
        assert.are.equal(a[{ 1, 2 }], t[{ 2, 1 }])
        -- a transposed view in, its transpose (contiguous again) out
        local u = gm.einsum("ij->ji", a:permute({ 2, 1 }))
        assert.are.same(flat(a), flat(u))
        u:fill_(5)
        local b = gm.einsum("...->...", a:narrow(2, 2, 2))
        b:fill_(6)
        assert.are.same(flat(mk(ct, { 2, 3 }, vals(6, 1))), flat(a))
        assert.are.same({ 2, 2 }, b:dims())
      end)

      it("0-d operands and results", function()
        local z, v = gm.full({}, 3, { ctype = ct }), mk(ct, { 3 }, { 1, 2, 4 })
        assert.are.same({ 3, 6, 12 }, flat(gm.einsum(",i->i", z, v)))
        assert.are.equal(3, gm.einsum("", z))
        assert.are.equal(21, gm.einsum("i,i", v, v))
        assert.are.equal(21, gm.einsum("i,i->", v, v))
        assert.are.equal(7, gm.einsum("i->", v))
      end)

      it("`*`, gm.matmul and m:matmul on stacks as np.matmul", function()
        if not pend() then return end
        local vars, exprs, args = {}, {}, {}
        for c, case in ipairs(MATMUL) do
          local ms, vs = operands(ct, case, 100 + 10 * c)
          vars["A" .. c], vars["B" .. c] = vs.X1, vs.X2
          exprs[c] = string.format("np.matmul(A%d, B%d)", c, c)
          args[c] = ms
        end
        local ref = numpy(vars, exprs)
        for c, case in ipairs(MATMUL) do
          local x, y = args[c][1], args[c][2]
          local what = table.concat(case[1], "x") .. " * " .. table.concat(case[2], "x")
          if #case[1] > 2 or #case[2] > 2 then close(x * y, ref[c], ct, what) end
          close(gm.matmul(x, y), ref[c], ct, "gm.matmul " .. what)
          close(x:matmul(y), ref[c], ct, "m:matmul " .. what)
        end
      end)

      it("`*` keeps the 2-d product, matrix x vector and scaling", function()
        local a, b, v = mk(ct, { 2, 3 }, vals(6, 2)), mk(ct, { 3, 2 }, vals(6, 3)), mk(ct, { 3 }, vals(3, 4))
        assert.are.same(flat(gm.m_mul(a, b)), flat(a * b))
        assert.are.same({ 2 }, (a * v):dims())
        assert.are.same(flat(gm.m_mul(a, v:view(3, 1))), flat(a * v))
        local s = mk(ct, { 2, 2, 2 }, vals(8, 5))
        local d = flat(s)
        for i, x in ipairs(flat(s * 2)) do assert.are.equal(2 * d[i], x) end
        for i, x in ipairs(flat(0.5 * s)) do assert.are.equal(0.5 * d[i], x) end
        assert.are.equal(gm.vecdot(v, v), gm.matmul(v, v))
        assert.matches("^bad argument #2 to '__mul' %(", message(function() return a * a end))
      end)

      it("`*` on stacks: shape and ctype errors", function()
        local s, t = mk(ct, { 2, 3, 4 }, vals(24, 6)), mk(ct, { 2, 3, 4 }, vals(24, 7))
        assert.are.equal("matmul: inner dimensions differ: 4 vs 3", message(function() return s * t end))
        local other = ct == "float" and "double" or "float"
        -- mixed ctypes promote (float with double: double)
        local p = s * mk(other, { 2, 4, 3 }, vals(24, 7))
        assert.are.equal("double", p:ctype())
        assert.are.same({ 2, 3, 3 }, p:dims())
        local u = mk(ct, { 3, 3, 4, 4 }, vals(144, 8))
        assert.are.equal("matmul: cannot broadcast stacks 2 and 3x3",
          message(function() return mk(ct, { 2, 3, 4 }, vals(24, 9)) * u end))
      end)
    end)
  end

  -- every other element type, and mixed ones, promoted as NumPy's
  -- einsum: complex (real and imaginary parts compared), integers whose
  -- products and sums wrap, bool (or of ands), float16, int32 x float32
  it("einsum on complex, integer, bool, float16 and mixed operands as np.einsum", function()
    if not PYTHON then pending("python3 with numpy is not installed") return end
    local specs = { "ij,jk->ik", "ii", "ij->j", "bij,bjk->bik", "i,j->ij", "ij,ij->" }
    local shapes = { { { 3, 4 }, { 4, 5 } }, { { 4, 4 } }, { { 3, 4 } }, { { 2, 3, 4 }, { 2, 4, 5 } }, { { 3 }, { 4 } },
      { { 3, 4 }, { 3, 4 } } }
    -- ctype of each operand, NumPy's conversion of its (integer) values,
    -- the comparison tolerance (relative to the largest magnitude)
    local types = {
      { { "complex64", "complex64" }, { "np.complex64", "np.complex64" }, 1e-5 },
      { { "complex128", "complex128" }, { "np.complex128", "np.complex128" }, 1e-12 },
      { { "int8", "int8" }, { "np.int8", "np.int8" }, 0 },
      { { "uint8", "int32" }, { "np.uint8", "np.int32" }, 0 },
      { { "int64", "int64" }, { "np.int64", "np.int64" }, 0 },
      { { "bool", "bool" }, { "bool", "bool" }, 0 },
      { { "float16", "float16" }, { "np.float16", "np.float16" }, 2e-3 },
      { { "int32", "float" }, { "np.int32", "np.float32" }, 1e-6 },
    }
    local i_unit = gm.complex(0, 1)
    local vars, exprs, cases = {}, {}, {}
    for t, ty in ipairs(types) do
      for c, spec in ipairs(specs) do
        local ms, names = {}, {}
        for i, d in ipairs(shapes[c]) do
          local re, im = vals(count(d), 100 * t + 10 * c + i), vals(count(d), 100 * t + 10 * c + i + 5)
          local name = string.format("X%d_%d_%d", t, c, i)
          for k = 1, #re do re[k], im[k] = re[k] * 64, im[k] * 64 end
          vars[name .. "r"], vars[name .. "i"] = { d, re }, { d, im }
          local ct = ty[1][i]
          if ct:find("complex") then
            ms[i] = mk("double", d, re):as(ct) + mk("double", d, im):as(ct) * i_unit
            names[i] = string.format("(%sr + 1j * %si).astype(%s)", name, name, ty[2][i])
          else
            -- (negative values wrap into the unsigned types, as NumPy's astype)
            ms[i] = mk("double", d, re):as("int64"):as(ct)
            names[i] = string.format("%sr.astype(np.int64).astype(%s)", name, ty[2][i])
          end
        end
        local e = string.format("np.einsum('%s', %s)", spec, table.concat(names, ", "))
        exprs[#exprs + 1] = "np.real(" .. e .. ")"
        exprs[#exprs + 1] = "np.imag(" .. e .. ")"
        cases[#cases + 1] = { spec, ms, ty }
      end
    end
    local ref = numpy(vars, exprs)
    for k, case in ipairs(cases) do
      local r = gm.einsum(case[1], table.unpack(case[2]))
      local ty = case[3]
      local what = case[1] .. " " .. table.concat(ty[1], "x")
      local want = gm.result_type(table.unpack(case[2]))
      assert.are.equal(want, type(r) == "userdata" and r:dtype() or want, what .. ": dtype")
      local re, im
      if type(r) == "userdata" then
        re = r:dtype():find("complex") and gm.real(r) or r:as("float64")
        im = r:dtype():find("complex") and gm.imag(r) or gm.zeros(r:dims())
      elseif type(r) == "table" then
        re, im = r.re, r.im
      else
        re, im = (r == true and 1) or (r == false and 0) or r, 0
      end
      close(re, ref[2 * k - 1], ty[3] == 0 and "exact" or ty[3], what .. " (real part)")
      close(im, ref[2 * k], ty[3] == 0 and "exact" or ty[3], what .. " (imaginary part)")
    end
  end)

  it("raises 'bad argument #n to einsum' for malformed specs and operands", function()
    local a, b = gm.zeros({ 2, 3 }), gm.zeros({ 3, 4 })
    local cases = {
      { "bad argument #1 to 'einsum' (subscripts string expected, got number)", 1, a },
      { "bad argument #3 to 'einsum' ('ij,jk->ik' names 2 operands, got 1)", "ij,jk->ik", a },
      { "bad argument #3 to 'einsum' ('ij' names 1 operands, got 2)", "ij", a, b },
      { "bad argument #1 to 'einsum' (the output 'ii' repeats 'i')", "ij->ii", a },
      { "bad argument #1 to 'einsum' (the output's 'k' is in no operand)", "ij->k", a },
      { "bad argument #2 to 'einsum' (operand has 2 dimensions, its subscripts 'ijk' name 3)", "ijk", a },
      { "bad argument #2 to 'einsum' (operand has 2 dimensions, its subscripts 'i' name 1)", "i", a },
      { "bad argument #1 to 'einsum' (operand 'i.j': '.' outside an ellipsis '...')", "i.j", a },
      { "bad argument #1 to 'einsum' (operand '...i...' has more than one ellipsis)", "...i...", a },
      { "bad argument #1 to 'einsum' (operand 'i$': '$' is not a subscript (letters and one '...'))", "i$", a },
      { "bad argument #1 to 'einsum' ('ij->i->j': one '->' at most, and '-' and '>' only in it)", "ij->i->j", a },
      { "bad argument #1 to 'einsum' ('i>j': one '->' at most, and '-' and '>' only in it)", "i>j", a },
      { "bad argument #1 to 'einsum' ('ij->i,j': the output is one term)", "ij->i,j", a },
      { "bad argument #3 to 'einsum' ('j' has size 2 here and 3 in operand 1)", "ij,jk", a, a },
      { "bad argument #2 to 'einsum' ('i' is repeated in 'ii' with sizes 2 and 3)", "ii", a },
      { "bad argument #1 to 'einsum' (the output 'i' has no '...' for the 1 broadcast dimensions)", "...i->i", a },
      { "bad argument #3 to 'einsum' (gpumat.mat expected, got table)", "ij,jk", a, {} },
    }
    for _, c in ipairs(cases) do
      assert.are.equal(c[1], message(gm.einsum, table.unpack(c, 2)))
    end
  end)
end)
