-- Metamethods are functions too: getmetatable(m).__gc(x) and the like are
-- reachable from Lua and must check their arguments like any function
-- (a clean error naming the function, never a crash).
local gm = require "gpumat"

describe("metamethods called directly", function()
  it("__gc with anything but a mat raises", function()
    local m = gm.mat(3)
    local gc = getmetatable(m).__gc
    for _, x in ipairs({ 1, "s", {}, true, gm.mat }) do
      local ok, e = pcall(gc, x)
      assert.is_false(ok)
      assert.matches("bad argument #1 to '__gc' %(gpumat.mat expected, got ", e)
    end
    local ok, e = pcall(gc)
    assert.is_false(ok)
    assert.matches("bad argument #1 to '__gc' %(gpumat.mat expected, got no value%)", e)
    assert.are.equal(3, m:size())
  end)
end)
