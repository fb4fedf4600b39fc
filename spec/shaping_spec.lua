local gm = require "gpumat"

local function iota(n, ctype, opts)
  local t = {}
  for i = 1, n do t[i] = i end
  opts = opts or {}
  opts.ctype = ctype
  opts.initial_contents = t
  return gm.mat(n, opts)
end

-- The whole storage of m, read through a view that sees all of it.
local function storage(m)
  return m:reshape_and_displace(m:max_size(), 0):to_table()
end

for _, ctype in ipairs {"float", "double"} do
  describe("functional shaping (" .. ctype .. ")", function()
    it("reshape_and_displace makes a view at an absolute displacement", function()
      local m = iota(6, ctype, {displacement = 0})
      local v = m:reshape_and_displace({2, 2}, 1)
      assert.are.same({{2, 3}, {4, 5}}, v:to_table())
      assert.are.equal(1, v:displacement())
      assert.are.same({2, 2}, v:dims())
      assert.are.equal(ctype, v:ctype())
      assert.are.equal(6, v:max_size())
      -- m is unchanged
      assert.are.same({6}, m:dims())
      assert.are.equal(0, m:displacement())
      -- storage is shared: writing through the view shows in m
      v:set(2, 2, 50)
      assert.are.same({1, 2, 3, 4, 50, 6}, m:to_table())
    end)

    it("displacement 0 is the start of the storage regardless of m's displacement", function()
      local m = iota(4, ctype, {displacement = 2, max_size = 6})
      local v = m:reshape_and_displace(2, 0)
      assert.are.equal(0, v:displacement())
      v:set(1, 10)
      v:set(2, 20)
      assert.are.same({10, 20, 1, 2, 3, 4}, storage(m))
    end)

    it("reshape keeps the displacement, displace keeps the dims", function()
      local m = iota(8, ctype)
      local a = m:reshape_and_displace_(1, 2):reshape({2, 3})
      assert.are.equal(2, a:displacement())
      assert.are.same({{3, 4, 5}, {6, 7, 8}}, a:to_table())
      local b = a:displace(0)
      assert.are.same({2, 3}, b:dims())
      assert.are.same({{1, 2, 3}, {4, 5, 6}}, b:to_table())
    end)
  end)

  describe("destructive shaping (" .. ctype .. ")", function()
    it("reshape_and_displace_, reshape_ and displace_ change the view and return it", function()
      local m = iota(12, ctype)
      assert.are.equal(m, m:reshape_and_displace_({2, 3}, 3))
      assert.are.same({{4, 5, 6}, {7, 8, 9}}, m:to_table())
      assert.are.equal(m, m:reshape_({3, 2}))
      assert.are.same({{4, 5}, {6, 7}, {8, 9}}, m:to_table())
      assert.are.equal(m, m:displace_(6))
      assert.are.same({{7, 8}, {9, 10}, {11, 12}}, m:to_table())
      assert.are.equal(6, m:displacement())
      assert.are.equal(6, #m)
    end)

    it("writing a displaced view leaves invisible elements untouched", function()
      local m = iota(10, ctype)
      m:reshape_and_displace_({2, 2}, 3)
      m:replace_({{-1, -2}, {-3, -4}})
      m:reshape_and_displace_(10, 0)
      assert.are.same({1, 2, 3, -1, -2, -3, -4, 8, 9, 10}, m:to_table())
    end)

    it("reshape_to_row_matrix_ shows one row (1-based)", function()
      local m = gm.mat({3, 2}, {ctype = ctype, initial_contents = {{1, 2}, {3, 4}, {5, 6}}})
      assert.are.equal(m, m:reshape_to_row_matrix_(2))
      assert.are.same({1, 2}, m:dims())
      assert.are.equal(2, m:displacement())
      assert.are.same({{3, 4}}, m:to_table())
      m:reshape_and_displace_({3, 2}, 0)
      m:reshape_to_row_matrix_(3)
      assert.are.same({{5, 6}}, m:to_table())
    end)

    it("with_shape_and_displacement restores shape and returns fn's results", function()
      local m = iota(6, ctype)
      local a, b = gm.with_shape_and_displacement(m, {2, 2}, 2, function(x)
        assert.are.equal(m, x)
        assert.are.same({{3, 4}, {5, 6}}, x:to_table())
        return "r1", 42
      end)
      assert.are.equal("r1", a)
      assert.are.equal(42, b)
      assert.are.same({6}, m:dims())
      assert.are.equal(0, m:displacement())
      -- nil dims keeps the dims; nil d keeps the displacement
      m:reshape_and_displace_(2, 1)
      gm.with_shape_and_displacement(m, nil, 3, function()
        assert.are.same({4, 5}, m:to_table())
      end)
      gm.with_shape_and_displacement(m, {3}, nil, function()
        assert.are.same({2, 3, 4}, m:to_table())
      end)
      gm.with_shape_and_displacement(m, nil, nil, function()
        m:displace_(4) -- allowed, restored afterwards
      end)
      assert.are.same({2}, m:dims())
      assert.are.equal(1, m:displacement())
    end)

    it("with_shape_and_displacement restores the shape when fn errors and rethrows", function()
      local m = iota(6, ctype)
      local ok, err = pcall(gm.with_shape_and_displacement, m, {3}, 3, function()
        error("boom", 0)
      end)
      assert.is_false(ok)
      assert.are.equal("boom", err)
      assert.are.same({6}, m:dims())
      assert.are.equal(0, m:displacement())
      local e = {}
      local ok2, err2 = pcall(gm.with_shape_and_displacement, m, 2, 1, function() error(e) end)
      assert.is_false(ok2)
      assert.are.equal(e, err2) -- error objects pass through unchanged
    end)

    it("adjust_ reshapes in place when the storage is large enough", function()
      local m = iota(6, ctype)
      assert.are.equal(m, m:adjust_({2, 2}, 2))
      assert.are.same({{3, 4}, {5, 6}}, m:to_table())
    end)

    it("adjust_ makes a new mat and destroys the old one's facets when too small", function()
      local m = iota(4, ctype, {initial_element = 0})
      assert.are.equal("F", m:facets())
      local n = m:adjust_({3, 2}, 1)
      assert.are_not.equal(m, n)
      assert.are.same({3, 2}, n:dims())
      assert.are.equal(1, n:displacement())
      assert.are.equal(7, n:max_size())
      assert.are.equal(ctype, n:ctype())
      assert.are.equal("-", m:facets()) -- destroy-cube
      assert.are.same({4}, m:dims()) -- the old mat itself is not reshaped
      local k = iota(4, ctype)
      local k2 = k:adjust_(5, 0, {destroy_old = false})
      assert.are_not.equal(k, k2)
      assert.are.equal("F", k:facets())
      assert.are.same({1, 2, 3, 4}, k:to_table())
    end)
  end)
end

describe("shaping errors", function()
  it("rejects negative displacements", function()
    local m = gm.mat(4)
    assert.has_error(function() m:displace(-1) end,
      "bad argument #2 to 'displace' (displacement must be non-negative, got -1)")
    assert.has_error(function() m:reshape_and_displace_(2, -1) end,
      "bad argument #3 to 'reshape_and_displace_' (displacement must be non-negative, got -1)")
  end)

  it("rejects displacement + size > max_size and changes nothing", function()
    local m = gm.mat(4, {initial_contents = {1, 2, 3, 4}})
    assert.has_error(function() m:displace_(1) end,
      "bad argument #2 to 'displace_' (displacement 1 + size 4 exceeds max_size 4)")
    assert.has_error(function() m:reshape_({5}) end,
      "bad argument #2 to 'reshape_' (displacement 0 + size 5 exceeds max_size 4)")
    assert.has_error(function() m:reshape_and_displace({2, 2}, 1) end,
      "bad argument #3 to 'reshape_and_displace' (displacement 1 + size 4 exceeds max_size 4)")
    assert.has_error(function() gm.with_shape_and_displacement(m, 5, nil, function() end) end,
      "bad argument #2 to 'with_shape_and_displacement' (displacement 0 + size 5 exceeds max_size 4)")
    assert.are.same({4}, m:dims())
    assert.are.equal(0, m:displacement())
    assert.are.same({1, 2, 3, 4}, m:to_table())
  end)

  it("rejects bad dims, rows and option keys", function()
    local m = gm.mat({2, 2})
    -- -1 infers a dimension (the strided views contract); other negatives fail
    assert.has_error(function() m:reshape({2, -2}) end,
      "bad argument #2 to 'reshape' (dimension 2 must be non-negative, got -2)")
    assert.has_error(function() m:reshape("x") end,
      "bad argument #2 to 'reshape' (dimensions must be an integer or a list, got string)")
    assert.has_error(function() m:reshape_to_row_matrix_(3) end,
      "bad argument #2 to 'reshape_to_row_matrix_' (row 3 is out of range 1..2)")
    assert.has_error(function() m:reshape_to_row_matrix_(0) end,
      "bad argument #2 to 'reshape_to_row_matrix_' (row 0 is out of range 1..2)")
    assert.has_error(function() gm.mat(4):reshape_to_row_matrix_(1) end,
      "bad argument #1 to 'reshape_to_row_matrix_' (mat must be 2d, got rank 1)")
    assert.has_error(function() m:adjust_(2, 0, {destroy = true}) end,
      "bad argument #4 to 'adjust_' (unknown option 'destroy')")
    assert.has_error(function() gm.with_shape_and_displacement(m, 2, 0, 5) end,
      "bad argument #4 to 'with_shape_and_displacement' (function expected, got number)")
    assert.has_error(function() gm.reshape(nil, 2) end,
      "bad argument #1 to 'reshape' (gpumat.mat expected, got nil)")
  end)

  it("rejects destructive shaping while a facet is being accessed", function()
    local m = gm.mat(4)
    gm.with_facet(m, "foreign", "input", function()
      assert.has_error(function() m:reshape_(2) end,
        "reshape_: cannot reshape a mat while one of its facets is being accessed")
      -- also through another view of the same storage
      local v = m:reshape(2)
      assert.has_error(function() v:displace_(1) end,
        "displace_: cannot reshape a mat while one of its facets is being accessed")
      -- functional shaping is fine
      assert.are.same({2}, m:reshape(2):dims())
    end)
    assert.are.same({4}, m:dims())
    m:reshape_(2)
    assert.are.same({2}, m:dims())
  end)
end)
