local gm = require "gpumat"

-- Settings changed by a spec are restored afterwards.
local function with_settings(t, fn)
  local saved = {}
  for k, v in pairs(t) do
    saved[k] = gm[k]
    gm[k] = v
  end
  local ok, err = pcall(fn)
  for k, v in pairs(saved) do gm[k] = v end
  if not ok then error(err, 0) end
end

describe("tostring(m)", function()
  it("prints dims, ctype, facets and contents in Lua table syntax", function()
    local m = gm.mat({2, 3}, {initial_contents = {{1, 2, 3}, {4, 5, 6}}})
    assert.are.equal("#<MAT 2x3 double F {{1, 2, 3}, {4, 5, 6}}>", tostring(m))
    local f = gm.mat({2, 3}, {ctype = "float", initial_contents = {{1, 2, 3}, {4, 5, 6}}})
    assert.are.equal("#<MAT 2x3 float F {{1, 2, 3}, {4, 5, 6}}>", tostring(f))
  end)

  it("prints numbers shortest-round-trip for the ctype", function()
    local d = gm.mat(4, {initial_contents = {0.1, -2.5, 1e20, 1 / 3}})
    assert.are.equal("#<MAT 4 double F {0.1, -2.5, 1e+20, 0.3333333333333333}>", tostring(d))
    local f = gm.mat(3, {ctype = "float", initial_contents = {0.1, 1 / 3, 16777217}})
    assert.are.equal("#<MAT 3 float F {0.1, 0.33333334, 16777216}>", tostring(f))
    local s = gm.mat(3, {initial_contents = {1 / 0, -1 / 0, 0 / 0}})
    assert.are.equal("#<MAT 3 double F {1/0, -1/0, 0/0}>", tostring(s))
  end)

  it("prints an untouched mat from its initial element without creating facets", function()
    local m = gm.mat({2, 2}, {initial_element = 7})
    assert.are.equal("#<MAT 2x2 double - {{7, 7}, {7, 7}}>", tostring(m))
    assert.are.equal("-", m:facets())
    assert.is_nil(m:find_facet("foreign"))
    local u = gm.mat(3, {initial_element = false})
    assert.are.equal("#<MAT 3 double - uninitialised>", tostring(u))
    assert.are.equal("-", u:facets())
  end)

  it("shows displacement and slack as D+dims+S", function()
    local base = gm.mat(10, {initial_element = 5, displacement = 1, max_size = 11})
    local view = gm.mat(6, {displaced_to = base, displacement = 2})
    for i = 1, 6 do view[i] = 1 end
    assert.are.equal("#<MAT 1+10+0 double F {5, 5, 1, 1, 1, 1, 1, 1, 5, 5}>", tostring(base))
    assert.are.equal("#<MAT 3+6+2 double F {1, 1, 1, 1, 1, 1}>", tostring(view))
    local m = gm.mat({2, 3}, {displacement = 3, max_size = 10})
    assert.matches("^#<MAT 3%+2x3%+1 double %- ", tostring(m))
  end)

  it("prints rank-0 and empty mats", function()
    local s = gm.mat({}, {initial_element = 2.5})
    assert.are.equal("#<MAT scalar double - 2.5>", tostring(s))
    s:set(4)
    assert.are.equal("#<MAT scalar double F 4>", tostring(s))
    assert.are.equal("#<MAT 0 double - {}>", tostring(gm.mat(0)))
    assert.are.equal("#<MAT 2x0 double - {{}, {}}>", tostring(gm.mat({2, 0})))
  end)

  it("summarizes beyond print_max_elements", function()
    local t = {}
    for i = 1, 20 do t[i] = i end
    local m = gm.mat(20, {initial_contents = t})
    with_settings({print_max_elements = 10}, function()
      assert.are.equal("#<MAT 20 double F {1, 2, 3, ..., 18, 19, 20}>", tostring(m))
      local r = gm.mat({8, 2}, {initial_element = 0})
      assert.are.equal("#<MAT 8x2 double - {{0, 0}, {0, 0}, {0, 0}, ..., {0, 0}, {0, 0}, {0, 0}}>", tostring(r))
    end)
    with_settings({print_max_elements = 20}, function()
      assert.matches("{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}", tostring(m), 1, true)
    end)
  end)

  it("honours print_mat and print_mat_facets", function()
    local m = gm.mat(2, {initial_contents = {1, 2}})
    with_settings({print_mat = false}, function()
      assert.are.equal("#<MAT 2 double F>", tostring(m))
    end)
    with_settings({print_mat_facets = false}, function()
      assert.are.equal("#<MAT 2 double {1, 2}>", tostring(m))
    end)
    with_settings({print_mat = false, print_mat_facets = false}, function()
      assert.are.equal("#<MAT 2 double>", tostring(m))
    end)
  end)

  it("takes facet letters before printing and changes no facet state", function()
    local m = gm.mat(3, {initial_element = 1})
    m[2] = 9
    local before = m:find_facet("foreign")
    local text = tostring(m)
    assert.are.equal("#<MAT 3 double F {1, 9, 1}>", text)
    assert.are.same(before, m:find_facet("foreign"))
    -- inside an output access the facet is being watched: printing must
    -- not add a watcher nor fail
    gm.with_facet(m, "foreign", "input", function()
      assert.are.equal("#<MAT 3 double F {1, 9, 1}>", tostring(m))
      assert.are.equal(1, m:find_facet("foreign").n_watchers)
    end)
    assert.are.equal(0, m:find_facet("foreign").n_watchers)
  end)

  it("prints a freed mat", function()
    local m = gm.mat(2)
    m:free()
    assert.are.equal("#<MAT freed>", tostring(m))
  end)

  it("prints views on their visible part only", function()
    local m = gm.mat(6, {initial_contents = {1, 2, 3, 4, 5, 6}})
    local v = m:reshape_and_displace({2, 2}, 1)
    assert.are.equal("#<MAT 1+2x2+1 double F {{2, 3}, {4, 5}}>", tostring(v))
  end)
end)
