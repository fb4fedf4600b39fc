-- NN ops (MGL-MAT §12): convolve_, derive_convolve_, max_pool_ and
-- derive_max_pool_ against a plain-Lua transcription of MGL-MAT's lisp
-- kernels (scatter form), batched and unbatched, with non-trivial start,
-- stride and anchor, on float and double, plus finite differences for the
-- convolution gradient and bad inputs.
local gm = require "gpumat"
local R = require "blas_ref"

-- deterministic values, multiples of 1/8 in [-2, 2]
local function vals(n, seed)
  local t = {}
  for i = 1, n do t[i] = ((i * 5 + seed * 11) % 33 - 16) / 8 end
  return t
end

local function prod(dims)
  local n = 1
  for _, d in ipairs(dims) do n = n * d end
  return n
end

-- geometry of a case in 0-based terms: dims {B, H, W}
local function geom(xdims, kdims, o)
  local st = { (o.start or { 1, 1 })[1] - 1, (o.start or { 1, 1 })[2] - 1 }
  local sd = o.stride or { 1, 1 }
  local an = { (o.anchor or { 1, 1 })[1] - 1, (o.anchor or { 1, 1 })[2] - 1 }
  local g = { B = xdims[1], xh = xdims[2], xw = xdims[3], kh = kdims[1], kw = kdims[2], st = st, sd = sd, an = an }
  g.yh = 1 + (g.xh - 1 - st[1]) // sd[1]
  g.yw = 1 + (g.xw - 1 - st[2]) // sd[2]
  return g
end

-- calls visit(b, oy, ox, yi, {xi, ki}...) for each output and each
-- kernel element inside x (1-based flat indices)
local function each_window(g, visit)
  for b = 0, g.B - 1 do
    for oy = 0, g.yh - 1 do
      for ox = 0, g.yw - 1 do
        local p0, p1 = g.st[1] + oy * g.sd[1], g.st[2] + ox * g.sd[2]
        local pairs_ = {}
        for k0 = 0, g.kh - 1 do
          local i = p0 + k0 - g.an[1]
          if i >= 0 and i < g.xh then
            for k1 = 0, g.kw - 1 do
              local j = p1 + k1 - g.an[2]
              if j >= 0 and j < g.xw then
                pairs_[#pairs_ + 1] = { (b * g.xh + i) * g.xw + j + 1, k0 * g.kw + k1 + 1 }
              end
            end
          end
        end
        visit((b * g.yh + oy) * g.yw + ox + 1, pairs_)
      end
    end
  end
end

local function ref_conv(g, x, w, y)
  each_window(g, function(yi, ps)
    local s = 0
    for _, p in ipairs(ps) do s = s + w[p[2]] * x[p[1]] end
    y[yi] = y[yi] + s
  end)
end

local function ref_dconv(g, x, xd, w, wd, yd)
  each_window(g, function(yi, ps)
    for _, p in ipairs(ps) do
      wd[p[2]] = wd[p[2]] + yd[yi] * x[p[1]]
      xd[p[1]] = xd[p[1]] + yd[yi] * w[p[2]]
    end
  end)
end

local function ref_pool(g, x, y)
  each_window(g, function(yi, ps)
    local m
    for _, p in ipairs(ps) do if m == nil or x[p[1]] > m then m = x[p[1]] end end
    y[yi] = m or 0
  end)
end

local function ref_dpool(g, x, xd, y, yd)
  each_window(g, function(yi, ps)
    for _, p in ipairs(ps) do
      if x[p[1]] == y[yi] then xd[p[1]] = xd[p[1]] + yd[yi] end
    end
  end)
end

local function rounded(ct, t)
  local out = {}
  for i, v in ipairs(t) do out[i] = gm.coerce_to_ctype(v, ct) end
  return out
end

-- mat of dims holding flat values, displaced by 3 inside padded storage
local function padded(ct, flat, dims)
  local t = { 9.5, 9.5, 9.5 }
  for _, v in ipairs(flat) do t[#t + 1] = v end
  t[#t + 1] = 9.5
  local base = gm.mat(#t, { ctype = ct, initial_contents = t })
  local m = gm.mat(dims, { displaced_to = base, displacement = 3 })
  return m, function()
    local all = base:to_table()
    assert.same({ 9.5, 9.5, 9.5, 9.5 }, { all[1], all[2], all[3], all[#all] })
  end
end

-- inputs are displaced views too (only their visible part may be read)
local function mk(ct, t, dims)
  local m = padded(ct, t, dims)
  return m
end

local cases = {
  { name = "MGL's example (start (0 0), stride (1 2), anchor (1 1))", x = { 1, 2, 7 }, k = { 3, 3 },
    o = { start = { 1, 1 }, stride = { 1, 2 }, anchor = { 2, 2 } } },
  { name = "start {2, 3}, stride {2, 3}, anchor {1, 3}", x = { 2, 6, 10 }, k = { 2, 3 },
    o = { start = { 2, 3 }, stride = { 2, 3 }, anchor = { 1, 3 }, batched = true } },
  { name = "start {3, 1}, stride {1, 2}, anchor {3, 2}", x = { 3, 5, 6 }, k = { 3, 2 },
    o = { start = { 3, 1 }, stride = { 1, 2 }, anchor = { 3, 2 }, batched = true } },
  { name = "defaults (start {1, 1}, stride {1, 1}, anchor {1, 1})", x = { 1, 4, 5 }, k = { 2, 2 }, o = {} },
}

local function dims_of(c, which, g)
  local d = which == "x" and { g.B, g.xh, g.xw } or { g.B, g.yh, g.yw }
  if not c.o.batched then table.remove(d, 1) end
  return d
end

local function flat(m) return R.flatten(m:to_table()) end

describe("nn", function()
  for _, ct in ipairs(R.ctypes) do
    describe(ct, function()
      for ci, c in ipairs(cases) do
        local g = geom(c.x, c.k, c.o)
        local nx, ny, nk = prod(c.x), g.B * g.yh * g.yw, prod(c.k)
        it("convolve_ adds conv(x, w) to y: " .. c.name, function()
          R.places(function(place)
            local xv, wv, yv = rounded(ct, vals(nx, ci)), rounded(ct, vals(nk, ci + 1)), rounded(ct, vals(ny, ci + 2))
            local x, w = mk(ct, xv, dims_of(c, "x", g)), mk(ct, wv, c.k)
            local y, check_pad = padded(ct, yv, dims_of(c, "y", g))
            assert.equal(y, gm.convolve_(x, w, y, c.o))
            local expected = { table.unpack(yv) }
            ref_conv(g, xv, wv, expected)
            R.same_list(flat(y), expected, ct, place .. " y")
            check_pad()
            -- the method on y gives the same (accumulating once more)
            y:convolve_(x, w, c.o)
            ref_conv(g, xv, wv, expected)
            R.same_list(flat(y), expected, ct, place .. " y (method)")
          end)
        end)

        it("derive_convolve_ accumulates dF/dx and dF/dw: " .. c.name, function()
          R.places(function(place)
            local xv, wv = rounded(ct, vals(nx, ci)), rounded(ct, vals(nk, ci + 1))
            local ydv, xdv, wdv = rounded(ct, vals(ny, ci + 3)), rounded(ct, vals(nx, ci + 4)), rounded(ct, vals(nk, ci + 5))
            local x, w, yd = mk(ct, xv, dims_of(c, "x", g)), mk(ct, wv, c.k), mk(ct, ydv, dims_of(c, "y", g))
            local xd, check_xd = padded(ct, xdv, dims_of(c, "x", g))
            local wd, check_wd = padded(ct, wdv, c.k)
            local rx, rw = gm.derive_convolve_(x, xd, w, wd, yd, c.o)
            assert.equal(xd, rx)
            assert.equal(wd, rw)
            local exd, ewd = { table.unpack(xdv) }, { table.unpack(wdv) }
            ref_dconv(g, xv, exd, wv, ewd, ydv)
            R.same_list(flat(xd), exd, ct, place .. " xd")
            R.same_list(flat(wd), ewd, ct, place .. " wd")
            check_xd()
            check_wd()
          end)
        end)

        it("max_pool_ overwrites y with window maxima: " .. c.name, function()
          R.places(function(place)
            local xv = rounded(ct, vals(nx, ci + 6))
            local o = { start = c.o.start, stride = c.o.stride, anchor = c.o.anchor, batched = c.o.batched,
                        pool_dimensions = c.k }
            local x = mk(ct, xv, dims_of(c, "x", g))
            local y, check_pad = padded(ct, vals(ny, 99), dims_of(c, "y", g))
            assert.equal(y, gm.max_pool_(x, y, o))
            local expected = {}
            ref_pool(g, xv, expected)
            R.same_list(flat(y), expected, ct, place .. " y")
            check_pad()
            -- the method overwrites again (no accumulation)
            assert.equal(y, y:max_pool_(x, o))
            R.same_list(flat(y), expected, ct, place .. " y (method)")
          end)
        end)

        it("derive_max_pool_ routes yd to the maxima (ties all, overlaps add up): " .. c.name, function()
          R.places(function(place)
            -- few distinct values: many ties within and across windows
            local xv = {}
            for i = 1, nx do xv[i] = (i * 7) % 3 end
            local o = { start = c.o.start, stride = c.o.stride, anchor = c.o.anchor, batched = c.o.batched,
                        pool_dimensions = c.k }
            local x = mk(ct, xv, dims_of(c, "x", g))
            local y = gm.mat(dims_of(c, "y", g), { ctype = ct })
            gm.max_pool_(x, y, o)
            local yv = flat(y)
            local ydv = rounded(ct, vals(ny, ci + 7))
            local xdv = rounded(ct, vals(nx, ci + 8))
            local yd = mk(ct, ydv, dims_of(c, "y", g))
            local xd, check_pad = padded(ct, xdv, dims_of(c, "x", g))
            assert.equal(xd, gm.derive_max_pool_(x, xd, y, yd, o))
            local expected = { table.unpack(xdv) }
            ref_dpool(g, xv, expected, yv, ydv)
            R.same_list(flat(xd), expected, ct, place .. " xd")
            check_pad()
            -- the method accumulates once more
            assert.equal(xd, xd:derive_max_pool_(x, y, yd, o))
            ref_dpool(g, xv, expected, yv, ydv)
            R.same_list(flat(xd), expected, ct, place .. " xd (method)")
          end)
        end)
      end

      it("max_pool_ propagates NaN within a window", function()
        R.places(function()
          local x = gm.mat({ 2, 4 }, { ctype = ct, initial_contents = { { 1, 0 / 0, 3, 4 }, { 5, 6, 7, 8 } } })
          local y = gm.mat({ 1, 2 }, { ctype = ct })
          gm.max_pool_(x, y, { stride = { 2, 2 }, pool_dimensions = { 2, 2 } })
          local t = y:to_table()[1]
          assert.is_true(t[1] ~= t[1])
          assert.equal(8, t[2])
        end)
      end)
    end)
  end

  it("derive_convolve_ matches finite differences of F = sum(yd .* conv(x, w))", function()
    local c = cases[2]
    local g = geom(c.x, c.k, c.o)
    local nx, ny, nk = prod(c.x), g.B * g.yh * g.yw, prod(c.k)
    local xv, wv, ydv = vals(nx, 3), vals(nk, 4), vals(ny, 5)
    local function F(xs, ws)
      local x, w = mk("double", xs, c.x), mk("double", ws, c.k)
      local y = gm.mat({ g.B, g.yh, g.yw }, { initial_element = 0 })
      gm.convolve_(x, w, y, c.o)
      local s, yy = 0, flat(y)
      for i = 1, ny do s = s + ydv[i] * yy[i] end
      return s
    end
    local x, w, yd = mk("double", xv, c.x), mk("double", wv, c.k), mk("double", ydv, { g.B, g.yh, g.yw })
    local xd, wd = gm.mat(c.x, { initial_element = 0 }), gm.mat(c.k, { initial_element = 0 })
    gm.derive_convolve_(x, xd, w, wd, yd, c.o)
    local h, dx, dw = 0.5, flat(xd), flat(wd)
    for i = 1, nx, 7 do
      local xp, xm = { table.unpack(xv) }, { table.unpack(xv) }
      xp[i], xm[i] = xv[i] + h, xv[i] - h
      R.close(dx[i], (F(xp, wv) - F(xm, wv)) / (2 * h), "double", "dF/dx[" .. i .. "]")
    end
    for i = 1, nk do
      local wp, wm = { table.unpack(wv) }, { table.unpack(wv) }
      wp[i], wm[i] = wv[i] + h, wv[i] - h
      R.close(dw[i], (F(xv, wp) - F(xv, wm)) / (2 * h), "double", "dF/dw[" .. i .. "]")
    end
  end)

  describe("bad inputs", function()
    local x = gm.mat({ 2, 7 })
    local w = gm.mat({ 3, 3 })
    local y = gm.mat({ 2, 4 })
    local o = { stride = { 1, 2 }, anchor = { 2, 2 } }
    it("checks y's shape against the application points, naming the dimension", function()
      assert.has_error(function() gm.convolve_(x, w, gm.mat({ 2, 3 }), o) end,
        "bad argument #3 to 'convolve_' (y has 3 elements along dimension 2 but there are 4 application " ..
        "points (1 + floor((7 - 1) / 2) for x's dimension 2, start 1, stride 2))")
      assert.has_error(function() gm.convolve_(x, w, y, { start = { 1, 2 }, stride = { 1, 2 } }) end,
        "bad argument #3 to 'convolve_' (y has 4 elements along dimension 2 but there are 3 application " ..
        "points (1 + floor((7 - 2) / 2) for x's dimension 2, start 2, stride 2))")
    end)
    it("checks every start component against x's spatial dims and anchor against w", function()
      assert.has_error(function() gm.convolve_(x, w, y, { start = { 3, 1 } }) end,
        "bad argument #4 to 'convolve_' (start[1] = 3 is outside x's dimension 1 (1..2))")
      assert.has_error(function() gm.convolve_(x, w, y, { start = { 1, 8 } }) end,
        "bad argument #4 to 'convolve_' (start[2] = 8 is outside x's dimension 2 (1..7))")
      assert.has_error(function() gm.convolve_(x, w, y, { anchor = { 1, 4 } }) end,
        "bad argument #4 to 'convolve_' (anchor[2] = 4 is outside w's dimension 2 (1..3))")
      assert.has_error(function() gm.max_pool_(x, y, { anchor = { 3, 1 }, pool_dimensions = { 2, 2 } }) end,
        "bad argument #3 to 'max_pool_' (anchor[1] = 3 is outside the pool's dimension 1 (1..2))")
    end)
    it("checks option lists, ranks, ctypes and the batch", function()
      assert.has_error(function() gm.convolve_(x, w, y, { start = { 1 } }) end,
        "bad argument #4 to 'convolve_' (option 'start' must be a list of 2 integers (one per spatial dimension))")
      assert.has_error(function() gm.convolve_(x, w, y, { stride = { 0, 1 } }) end,
        "bad argument #4 to 'convolve_' (option 'stride' element 1 must be at least 1, got 0)")
      assert.has_error(function() gm.convolve_(x, w, y, { strides = { 1, 1 } }) end,
        "bad argument #4 to 'convolve_' (unknown option 'strides')")
      assert.has_error(function() gm.convolve_(x, w, y, { batched = true }) end,
        "bad argument #1 to 'convolve_' (x must have rank 3 (batch and 2 spatial dimensions), got 2)")
      assert.has_error(function() gm.convolve_(x, gm.mat(3), y) end,
        "bad argument #2 to 'convolve_' (w must be 2-dimensional, got rank 1)")
      assert.has_error(function() gm.convolve_(x, gm.mat({ 3, 3 }, { ctype = "float" }), y) end,
        "bad argument #2 to 'convolve_' (mixed ctypes: x is double, w is float)")
      assert.has_error(function()
        gm.convolve_(gm.mat({ 2, 2, 7 }), w, gm.mat({ 3, 2, 4 }), { stride = { 1, 2 }, batched = true })
      end, "bad argument #3 to 'convolve_' (y has batch size 3 but x has 2)")
      assert.has_error(function() gm.max_pool_(x, y, { stride = { 1, 2 } }) end,
        "bad argument #3 to 'max_pool_' (option 'pool_dimensions' is required (a list of 2 sizes))")
    end)
    it("checks the gradient operands", function()
      assert.has_error(function() gm.derive_convolve_(x, gm.mat({ 7, 2 }), w, w, y, o) end,
        "bad argument #2 to 'derive_convolve_' (xd must have the dimensions of x)")
      assert.has_error(function() gm.derive_convolve_(x, x, w, gm.mat({ 3, 2 }), y, o) end,
        "bad argument #4 to 'derive_convolve_' (wd must have the dimensions of w)")
      assert.has_error(function() gm.derive_convolve_(x, x, w, w, gm.mat({ 2, 3 }), o) end,
        "bad argument #5 to 'derive_convolve_' (yd has 3 elements along dimension 2 but there are 4 application " ..
        "points (1 + floor((7 - 1) / 2) for x's dimension 2, start 1, stride 2))")
      local po = { stride = { 1, 2 }, pool_dimensions = { 2, 2 } }
      assert.has_error(function() gm.derive_max_pool_(x, x, y, gm.mat({ 4, 2 }), po) end,
        "bad argument #4 to 'derive_max_pool_' (yd must have the dimensions of y)")
      assert.has_error(function() gm.derive_max_pool_(x, x, gm.mat({ 2, 5 }), gm.mat({ 2, 5 }), po) end,
        "bad argument #3 to 'derive_max_pool_' (y has 5 elements along dimension 2 but there are 4 application " ..
        "points (1 + floor((7 - 1) / 2) for x's dimension 2, start 1, stride 2))")
    end)
    it("a failed call changes nothing", function()
      local yy = gm.mat({ 2, 4 }, { initial_element = 1 })
      pcall(gm.convolve_, x, w, yy, { anchor = { 9, 9 } })
      assert.same({ { 1, 1, 1, 1 }, { 1, 1, 1, 1 } }, yy:to_table())
    end)
  end)
end)
