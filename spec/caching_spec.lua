local gm = require "gpumat"

describe("caching", function()
  it("reuses the same mat for the same place when it fits, reshaped", function()
    local first, second
    gm.with_thread_cached_mat({ 2, 3 }, { place = "spec-a" }, function(m) first = m end)
    gm.with_thread_cached_mat(4, { place = "spec-a", displacement = 1 }, function(m)
      second = m
      assert.same({ 4 }, m:dims())
      assert.equal(1, m:displacement())
    end)
    assert.equal(first, second)
    local third
    gm.with_thread_cached_mat(10, { place = "spec-a" }, function(m) third = m end)
    assert.are_not.equal(first, third) -- does not fit: a new mat
    assert.same({ 10 }, third:dims())
  end)

  it("max_size leaves room to grow", function()
    local a, b
    gm.with_thread_cached_mat(2, { place = "spec-b", max_size = 20 }, function(m) a = m end)
    assert.equal(20, a:max_size())
    gm.with_thread_cached_mat({ 4, 5 }, { place = "spec-b" }, function(m) b = m end)
    assert.equal(a, b)
  end)

  it("nested uses of one place get different mats; places and ctypes are separate", function()
    gm.with_thread_cached_mat(3, nil, function(outer)
      gm.with_thread_cached_mat(3, nil, function(inner)
        assert.are_not.equal(outer, inner)
      end)
    end)
    local a, b, c
    gm.with_thread_cached_mat(3, { place = "p1" }, function(m) a = m end)
    gm.with_thread_cached_mat(3, { place = "p2" }, function(m) b = m end)
    gm.with_thread_cached_mat(3, { place = "p1", ctype = "float" }, function(m) c = m end)
    assert.are_not.equal(a, b)
    assert.are_not.equal(a, c)
    assert.equal("float", c:ctype())
  end)

  it("returns fn's results and honours the options", function()
    local x, y = gm.with_thread_cached_mat({ 2, 2 }, { ctype = "float", initial_contents = { { 1, 2 }, { 3, 4 } }, place = "spec-c" },
                                           function(m) return m:asum(), m:ctype() end)
    assert.equal(10, x)
    assert.equal("float", y)
    local n = gm.with_thread_cached_mat(3, { initial_element = 2, place = "spec-d" }, function(m) return m:asum() end)
    assert.equal(6, n)
  end)

  it("caches weakly", function()
    local probe = setmetatable({}, { __mode = "v" })
    gm.with_thread_cached_mat(5, { place = "spec-weak" }, function(m) probe[1] = m end)
    collectgarbage("collect")
    collectgarbage("collect")
    assert.is_nil(probe[1])
  end)

  it("with_thread_cached_mats nests", function()
    local r = { gm.with_thread_cached_mats({ { 3 }, { { 2, 2 }, { ctype = "float" } } }, function(a, b)
      return a:dims(), b:dims(), b:ctype(), a == b
    end) }
    assert.same({ { 3 }, { 2, 2 }, "float", false }, r)
  end)

  it("with_ones gives ones", function()
    for _, ct in ipairs { "float", "double" } do
      local t = gm.with_ones({ 2, 3 }, { ctype = ct }, function(o) return o:to_table(), o:ctype() end)
      assert.same({ { 1, 1, 1 }, { 1, 1, 1 } }, t)
      assert.same({ 1, 1, 1, 1 }, gm.with_ones(4, { ctype = ct }, function(o) return o:to_table() end))
    end
  end)

  it("with_ones never hands out a scratch mat of the same place and initial element", function()
    local keep
    gm.with_thread_cached_mat(4, { place = "spec-ones", initial_element = 1 }, function(m) keep = m:fill_(3) end)
    assert.same({ 1, 1, 1, 1 }, gm.with_ones(4, { place = "spec-ones" }, function(o)
      assert.are_not.equal(keep, o)
      return o:to_table()
    end))
  end)

  it("a scratch mat keeps what the last user left in it (MGL's semantics)", function()
    local keep -- the cache is weak: hold the mat so the GC cannot take it in between
    gm.with_thread_cached_mat(3, { place = "spec-left" }, function(m) keep = m:fill_(5) end)
    assert.same({ 5, 5, 5 }, gm.with_thread_cached_mat(3, { place = "spec-left" }, function(m)
      assert.equal(keep, m)
      return m:to_table()
    end))
  end)

  it("rejects bad arguments", function()
    assert.has_error(function() gm.with_thread_cached_mat(3, { foo = 1 }, print) end,
                     "bad argument #2 to 'with_thread_cached_mat' (unknown option 'foo')")
    assert.has_error(function() gm.with_thread_cached_mat(3, nil, 5) end,
                     "bad argument #3 to 'with_thread_cached_mat' (function expected, got number)")
    assert.has_error(function() gm.with_ones({ -1 }, nil, print) end,
                     "bad argument #1 to 'with_ones' (dimension 1 must be a non-negative integer, got -1)")
    assert.has_error(function() gm.with_ones(2, { initial_element = 3 }, print) end,
                     "bad argument #2 to 'with_ones' (unknown option 'initial_element')")
    assert.has_error(function() gm.with_thread_cached_mat(3, { max_size = 2 }, print) end,
                     "bad argument #2 to 'with_thread_cached_mat' (option 'max_size' must be an integer of at least displacement + size (3), got 2)")
    assert.has_error(function() gm.with_thread_cached_mat(3, { initial_contents = { 1, 2 } }, print) end,
                     "bad argument #2 to 'with_thread_cached_mat' (option 'initial_contents': contents have 2 elements, mat has 3)")
    assert.has_error(function() gm.with_thread_cached_mat({ 2, nil, 3 }, nil, print) end,
                     "bad argument #1 to 'with_thread_cached_mat' (dimension 2 must be a non-negative integer, got nil)")
    assert.has_error(function() gm.with_thread_cached_mat({ 1, 1, 1, 1, 1, 1, 1, 1, 1 }, nil, print) end,
                     "bad argument #1 to 'with_thread_cached_mat' (rank 9 exceeds 8)")
    assert.has_error(function() gm.with_thread_cached_mat(3, { place = 0 / 0 }, print) end,
                     "bad argument #2 to 'with_thread_cached_mat' (option 'place' must not be NaN)")
    assert.has_error(function() gm.with_thread_cached_mats({ { 3 }, { 3, { foo = 1 } } }, print) end,
                     "bad argument #1 to 'with_thread_cached_mats' (specs[2]: unknown option 'foo')")
    assert.has_error(function() gm.with_thread_cached_mats({ { "x" } }, print) end,
                     "bad argument #1 to 'with_thread_cached_mats' (specs[1]: dimensions must be an integer or a list, got string)")
    assert.has_error(function() gm.with_thread_cached_mats({ { 3 } }, nil) end,
                     "bad argument #2 to 'with_thread_cached_mats' (function expected, got nil)")
  end)
end)
