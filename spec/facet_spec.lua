local gm = require "gpumat"

-- Address of a light userdata pointer, for pointer arithmetic in specs.
local function address(p)
  assert.are.equal("userdata", type(p))
  return tonumber(tostring(p):match("0x(%x+)") or tostring(p):match("(%x+)$"), 16)
end

-- Settings changed by a spec are restored afterwards.
local with_settings = require "settings_support"

describe("facet inspection", function()
  it("creates facets lazily", function()
    local m = gm.mat({2, 2}, {initial_element = 3})
    assert.are.equal("-", m:facets())
    assert.is_nil(m:find_facet("foreign"))
    assert.is_nil(m:find_facet("cuda"))
    assert.are.equal(3, m:mref(1, 1))
    assert.are.equal("F", m:facets())
    local f = m:find_facet("foreign")
    assert.are.same({name = "foreign", up_to_date = true, n_watchers = 0, direction = "input",
                     n_references = 0}, f)
    m[1] = 4
    assert.are.equal("io", m:find_facet("foreign").direction)
  end)

  it("reports and accepts synchronization true, false and \"maybe\"", function()
    for _, s in ipairs {true, false, "maybe"} do
      local m = gm.mat(3, {synchronization = s, initial_element = 1})
      assert.are.equal(s, m:synchronization())
      gm.with_facet(m, "foreign", "io", function() end)
      assert.are.same({1, 1, 1}, m:to_table())
      assert.are.equal(s, gm.array_to_mat({1, 2}, {synchronization = s}):synchronization())
    end
    assert.are.equal("maybe", gm.mat(1):synchronization())
    with_settings({default_synchronization = false}, function()
      assert.is_false(gm.mat(1):synchronization())
    end)
    with_settings({maybe_synchronize = false}, function()
      local m = gm.mat(2, {synchronization = "maybe"})
      m[2] = 5
      assert.are.same({0, 5}, m:to_table())
    end)
  end)
end)

for _, ctype in ipairs {"float", "double"} do
  describe("with_facet on the foreign facet (" .. ctype .. ")", function()
    local esize = ctype == "float" and 4 or 8

    it("gives a pointer to the first visible element and returns fn's results", function()
      local m = gm.mat(6, {ctype = ctype, initial_contents = {1, 2, 3, 4, 5, 6}})
      local v = m:reshape_and_displace({2, 2}, 2)
      local pm, pv
      local a, b = gm.with_facet(m, "foreign", "input", function(p)
        pm = address(p)
        return "x", 7
      end)
      assert.are.equal("x", a)
      assert.are.equal(7, b)
      gm.with_facet(v, "foreign", "input", function(p) pv = address(p) end)
      assert.are.equal(2 * esize, pv - pm)
    end)

    it("counts watchers, records the direction and unwatches after fn", function()
      local m = gm.mat(3, {ctype = ctype, initial_element = 2})
      gm.with_facet(m, "foreign", "input", function()
        local f = m:find_facet("foreign")
        assert.are.equal(1, f.n_watchers)
        assert.are.equal("input", f.direction)
        assert.is_true(f.up_to_date)
        -- nested access to the same facet is allowed, also for writers
        gm.with_facet(m, "foreign", "io", function()
          assert.are.equal(2, m:find_facet("foreign").n_watchers)
          assert.are.equal("io", m:find_facet("foreign").direction)
        end)
        assert.are.equal(1, m:find_facet("foreign").n_watchers)
      end)
      assert.are.equal(0, m:find_facet("foreign").n_watchers)
    end)

    it("the default direction is io", function()
      local m = gm.mat(2, {ctype = ctype})
      gm.with_facet(m, "foreign", nil, function()
        assert.are.equal("io", m:find_facet("foreign").direction)
      end)
    end)

    it("keeps output on a mat that sees all its storage", function()
      local m = gm.mat(3, {ctype = ctype, initial_element = 1})
      gm.with_facet(m, "foreign", "output", function()
        assert.are.equal("output", m:find_facet("foreign").direction)
      end)
      assert.are.equal("F", m:facets())
    end)

    it("turns output into io on a view that does not cover the storage", function()
      local base = gm.mat(4, {ctype = ctype, initial_element = 3})
      local v = base:reshape_and_displace(2, 1)
      gm.with_facet(v, "foreign", "output", function()
        assert.are.equal("io", v:find_facet("foreign").direction)
      end)
      -- io fills a new first facet with the initial element: nothing lost
      assert.are.same({3, 3, 3, 3}, base:to_table())
      local s = gm.mat(3, {ctype = ctype, max_size = 4, initial_element = 1})
      gm.with_facet(s, "foreign", "output", function()
        assert.are.equal("io", s:find_facet("foreign").direction) -- slack is invisible too
      end)
    end)

    it("unwatches when fn errors and rethrows the error unchanged", function()
      local m = gm.mat(2, {ctype = ctype})
      local ok, err = pcall(gm.with_facet, m, "foreign", "io", function() error("inner", 0) end)
      assert.is_false(ok)
      assert.are.equal("inner", err)
      assert.are.equal(0, m:find_facet("foreign").n_watchers)
      m:reshape_(1) -- no facet is being accessed any more
      local e = setmetatable({}, {__tostring = function() return "obj" end})
      local ok2, err2 = pcall(gm.with_facet, m, "foreign", "input", function() error(e) end)
      assert.is_false(ok2)
      assert.are.equal(e, err2)
    end)

    it("keeps storage alive when the mat is freed inside fn", function()
      local m = gm.mat(2, {ctype = ctype, initial_element = 1})
      local v = m:reshape(1)
      gm.with_facet(m, "foreign", "io", function()
        m:free()
        collectgarbage()
      end)
      assert.are.equal(0, v:find_facet("foreign").n_watchers)
      assert.are.same({1}, v:to_table())
    end)
  end)
end

describe("with_facets", function()
  it("watches several mats and passes one pointer each", function()
    local a = gm.mat(2, {initial_contents = {1, 2}})
    local b = gm.mat(3, {ctype = "float", initial_element = 0})
    local r1, r2 = gm.with_facets({{a, "foreign", "input"}, {b, "foreign", "output"}}, function(pa, pb)
      assert.are.equal("userdata", type(pa))
      assert.are.equal("userdata", type(pb))
      assert.are_not.equal(address(pa), address(pb))
      assert.are.equal(1, a:find_facet("foreign").n_watchers)
      assert.are.equal("output", b:find_facet("foreign").direction)
      return 1, 2
    end)
    assert.are.equal(1, r1)
    assert.are.equal(2, r2)
    assert.are.equal(0, a:find_facet("foreign").n_watchers)
    assert.are.equal(0, b:find_facet("foreign").n_watchers)
  end)

  it("allows the same mat twice on the same facet", function()
    local a = gm.mat(2)
    gm.with_facets({{a, "foreign", "input"}, {a, "foreign", "io"}}, function()
      assert.are.equal(2, a:find_facet("foreign").n_watchers)
    end)
    assert.are.equal(0, a:find_facet("foreign").n_watchers)
  end)

  it("unwatches all when fn errors", function()
    local a, b = gm.mat(1), gm.mat(1)
    assert.has_error(function()
      gm.with_facets({{a, "foreign", "io"}, {b, "foreign", "io"}}, function() error("x", 0) end)
    end, "x")
    assert.are.equal(0, a:find_facet("foreign").n_watchers)
    assert.are.equal(0, b:find_facet("foreign").n_watchers)
  end)

  it("checks every spec before watching any #host", function()
    local a = gm.mat(1)
    assert.has_error(function()
      gm.with_facets({{a, "foreign", "io"}, {a, "bogus", "io"}}, function() end)
    end, "bad argument #1 to 'with_facets' (spec 2: bad facet name bogus)")
    assert.has_error(function()
      gm.with_facets({{a, "foreign", "io"}, {a, "foreign", "both"}}, function() end)
    end, "bad argument #1 to 'with_facets' (spec 2: bad direction both)")
    assert.has_error(function()
      gm.with_facets({{a, "foreign", "io"}, {nil, "foreign"}}, function() end)
    end, "bad argument #1 to 'with_facets' (spec 2: gpumat.mat expected, got nil)")
    assert.has_error(function()
      gm.with_facets({{a, "foreign", "io"}, {a, "cuda", "input"}}, function() end)
    end, "with_facets: facet 'cuda' needs an active cuda context (with_cuda)")
    assert.has_error(function() gm.with_facets({a}, function() end) end,
      "bad argument #1 to 'with_facets' (spec 1 must be a table {mat, name, direction})")
    assert.has_error(function() gm.with_facets({{a, "foreign"}}) end,
      "bad argument #2 to 'with_facets' (function expected, got nil)")
    assert.has_error(function() gm.with_facets(a, function() end) end,
      "bad argument #1 to 'with_facets' (table of specs expected, got userdata)")
    assert.is_nil(a:find_facet("foreign"))
  end)
end)

describe("facet errors", function()
  it("names the function and argument", function()
    local m = gm.mat(2)
    assert.has_error(function() gm.with_facet(m, "bogus", "io", function() end) end,
      "bad argument #2 to 'with_facet' (facet name must be \"foreign\", \"cuda_host\", \"cuda\" or \"managed\", got bogus)")
    assert.has_error(function() gm.with_facet(m, "foreign", "inout", function() end) end,
      "bad argument #3 to 'with_facet' (direction must be \"input\", \"output\" or \"io\", got inout)")
    assert.has_error(function() gm.with_facet(m, "foreign", "io") end,
      "bad argument #4 to 'with_facet' (function expected, got nil)")
    assert.has_error(function() gm.with_facet(1, "foreign", "io", function() end) end,
      "bad argument #1 to 'with_facet' (gpumat.mat expected, got number)")
    assert.has_error(function() m:find_facet(3) end,
      "bad argument #2 to 'find_facet' (facet name must be \"foreign\", \"cuda_host\", \"cuda\" or \"managed\", got number)")
    assert.is_nil(m:find_facet("foreign"))
  end)

  it("needs an active cuda context for the managed facet #host", function()
    local m = gm.mat(2)
    assert.has_error(function() gm.with_facet(m, "managed", "io", function() end) end,
      "with_facet: facet 'managed' needs an active cuda context (with_cuda)")
    assert.has_error(function() m:add_facet_reference("managed") end,
      "add_facet_reference: facet 'managed' needs an active cuda context (with_cuda)")
    assert.is_nil(m:find_facet("managed"))
    assert.is_false(m:destroy_facet("managed"))
  end)

  it("needs an active cuda context for device facets #host", function()
    local m = gm.mat(2)
    for _, name in ipairs {"cuda", "cuda_host"} do
      assert.has_error(function() gm.with_facet(m, name, "input", function() end) end,
        "with_facet: facet '" .. name .. "' needs an active cuda context (with_cuda)")
      assert.has_error(function() m:add_facet_reference(name) end,
        "add_facet_reference: facet '" .. name .. "' needs an active cuda context (with_cuda)")
    end
    assert.are.equal("-", m:facets())
  end)
end)

describe("facet lifetime", function()
  it("destroy_facet drops an unreferenced facet", function()
    local m = gm.mat(2, {initial_element = 1})
    m[1] = 9
    assert.is_true(m:destroy_facet("foreign"))
    assert.are.equal("-", m:facets())
    assert.is_false(m:destroy_facet("foreign")) -- nothing left to destroy
    -- the only copy is gone: a new facet starts from the initial element
    assert.are.same({1, 1}, m:to_table())
  end)

  it("destroy drops all facets (destroy-cube)", function()
    local m = gm.mat(2)
    m[1] = 1
    m:destroy()
    assert.are.equal("-", m:facets())
  end)

  it("references protect facets from destroy_facet and destroy", function()
    local m = gm.mat(3, {initial_element = 2})
    m:add_facet_reference("foreign") -- creates the facet
    assert.are.equal("F", m:facets())
    assert.are.equal(1, m:find_facet("foreign").n_references)
    m[2] = 5
    assert.is_false(m:destroy_facet("foreign"))
    m:destroy()
    assert.are.equal("F", m:facets())
    assert.are.same({2, 5, 2}, m:to_table())
    m:add_facet_reference("foreign")
    assert.are.equal(2, m:find_facet("foreign").n_references)
    m:remove_facet_reference("foreign")
    m:remove_facet_reference("foreign")
    assert.are.equal(0, m:find_facet("foreign").n_references)
    assert.has_error(function() m:remove_facet_reference("foreign") end,
      "remove_facet_reference: facet 'foreign' has no references to remove")
    assert.is_true(m:destroy_facet("foreign"))
    assert.has_error(function() m:remove_facet_reference("foreign") end,
      "remove_facet_reference: facet 'foreign' does not exist")
  end)

  it("cannot destroy a facet while it is being accessed", function()
    local m = gm.mat(2)
    gm.with_facet(m, "foreign", "input", function()
      assert.has_error(function() m:destroy_facet("foreign") end,
        "destroy_facet: cannot destroy facet 'foreign' while it is being accessed")
      assert.has_error(function() m:destroy() end,
        "destroy: cannot destroy mat while facet 'foreign' is being accessed")
    end)
    assert.are.equal("F", m:facets())
  end)
end)

describe("with_facet_barrier", function()
  it("destroys facets created inside it and returns fn's results", function()
    local old = gm.mat(2)
    old[1] = 1 -- created before the barrier: survives
    local m = gm.mat(2, {initial_element = 0})
    local r = gm.with_facet_barrier({destroys = {"foreign"}}, function()
      m[1] = 5
      old[2] = 2
      assert.are.equal(1, gm.count_barred_facets("foreign"))
      assert.are.equal(0, gm.count_barred_facets("cuda"))
      return "done"
    end)
    assert.are.equal("done", r)
    assert.are.equal(0, gm.count_barred_facets("foreign"))
    assert.are.equal("-", m:facets())
    assert.are.same({0, 0}, m:to_table()) -- no other facet kept the data
    assert.are.equal("F", old:facets())
    assert.are.same({1, 2}, old:to_table())
  end)

  it("keeps facets it does not name and facets with references", function()
    local a, b = gm.mat(1), gm.mat(1)
    gm.with_facet_barrier({destroys = {"cuda"}, ensures = {"foreign"}}, function()
      a[1] = 1
      b:add_facet_reference("foreign")
    end)
    assert.are.equal("F", a:facets())
    assert.are.equal("F", b:facets())
    local c = gm.mat(1)
    gm.with_facet_barrier({destroys = {"foreign"}}, function()
      c:add_facet_reference("foreign") -- created here, but referenced
      assert.are.equal(1, gm.count_barred_facets("foreign"))
    end)
    assert.are.equal("F", c:facets())
    c:remove_facet_reference("foreign")
  end)

  it("nests: the innermost barrier naming the facet records it", function()
    local m, n = gm.mat(1), gm.mat(1)
    gm.with_facet_barrier({destroys = {"foreign"}}, function()
      gm.with_facet_barrier({destroys = {"cuda"}}, function()
        m[1] = 1 -- recorded by the outer barrier
        assert.are.equal(1, gm.count_barred_facets("foreign"))
      end)
      assert.are.equal("F", m:facets())
      gm.with_facet_barrier({destroys = {"foreign"}}, function()
        n[1] = 1
        assert.are.equal(2, gm.count_barred_facets("foreign"))
      end)
      assert.are.equal("-", n:facets())
      assert.are.equal(1, gm.count_barred_facets("foreign"))
    end)
    assert.are.equal("-", m:facets())
  end)

  it("pops when fn errors and rethrows", function()
    local m = gm.mat(1)
    local ok, err = pcall(gm.with_facet_barrier, {destroys = {"foreign"}}, function()
      m[1] = 3
      error("fail", 0)
    end)
    assert.is_false(ok)
    assert.are.equal("fail", err)
    assert.are.equal(0, gm.count_barred_facets("foreign"))
    assert.are.equal("-", m:facets())
    -- a later facet is not barred any more
    m[1] = 4
    assert.are.equal("F", m:facets())
  end)

  it("does not keep garbage mats alive", function()
    gm.with_facet_barrier({destroys = {"foreign"}}, function()
      local live = {}
      for i = 1, 10 do
        local t = gm.mat(100)
        t[1] = 1
        if i % 2 == 0 then live[#live + 1] = t end
      end
      collectgarbage()
      collectgarbage()
      assert.are.equal(5, gm.count_barred_facets("foreign"))
      assert.are.equal(5, #live)
    end)
    assert.are.equal(0, gm.count_barred_facets("foreign"))
  end)

  it("checks its options", function()
    assert.has_error(function() gm.with_facet_barrier({destroy = {"cuda"}}, function() end) end,
      "bad argument #1 to 'with_facet_barrier' (unknown option 'destroy')")
    assert.has_error(function() gm.with_facet_barrier({destroys = {"gpu"}}, function() end) end,
      "bad argument #1 to 'with_facet_barrier' (option 'destroys': bad facet name gpu)")
    assert.has_error(function() gm.with_facet_barrier({ensures = "foreign"}, function() end) end,
      "bad argument #1 to 'with_facet_barrier' (option 'ensures' must be a list of facet names)")
    assert.has_error(function() gm.with_facet_barrier({}, nil) end,
      "bad argument #2 to 'with_facet_barrier' (function expected, got nil)")
    assert.has_error(function() gm.count_barred_facets("x") end,
      "bad argument #1 to 'count_barred_facets' (facet name must be \"foreign\", \"cuda_host\", \"cuda\" or \"managed\", got x)")
    assert.are.equal(0, gm.count_barred_facets("foreign"))
  end)
end)

describe("let_input_through / let_output_through", function()
  it("are settings that default to false and can be toggled", function()
    assert.is_false(gm.let_input_through)
    assert.is_false(gm.let_output_through)
    with_settings({let_input_through = true, let_output_through = true}, function()
      assert.is_true(gm.let_input_through)
      assert.is_true(gm.let_output_through)
    end)
    assert.is_false(gm.let_input_through)
  end)
end)

-- Rules that need a second, non-shared facet: run on the emulated device
-- when the device area (gm.with_cuda) is present.
local has_device = type(rawget(gm, "with_cuda")) == "function" and
  pcall(gm.with_cuda, {backend = "emulated"}, function() end)
local dit = has_device and it or pending
local function on_device(fn) return gm.with_cuda({backend = "emulated"}, fn) end

describe("facets across memory spaces (emulated device)", function()
  dit("tracks up-to-date facets across input, io and output", function()
    on_device(function()
      local m = gm.mat(3, {initial_element = 2})
      gm.with_facet(m, "cuda", "input", function() end)
      assert.are.equal("C", m:facets()) -- first facet, filled on the device
      assert.are.same({2, 2, 2}, m:to_table()) -- input copies, keeps C up to date
      assert.are.equal("CF", m:facets())
      gm.with_facet(m, "cuda", "io", function() end)
      assert.are.equal("Cf", m:facets())
      m[1] = 7 -- io on foreign: copies in, invalidates cuda
      assert.are.equal("cF", m:facets())
      gm.with_facet(m, "cuda", "output", function() end)
      assert.are.equal("Cf", m:facets())
    end)
  end)

  dit("output through a partial view keeps the other elements", function()
    on_device(function()
      local base = gm.mat(4, {initial_contents = {1, 2, 3, 4}})
      local v = base:reshape_and_displace(2, 1)
      gm.with_facet(v, "cuda", "output", function()
        assert.are.equal("io", v:find_facet("cuda").direction)
      end)
      assert.are.equal("Cf", base:facets())
      assert.are.same({1, 2, 3, 4}, base:to_table())
    end)
  end)

  dit("prints device-only data without changing facets", function()
    on_device(function()
      local m = gm.mat(2, {initial_contents = {5, 6}})
      gm.with_facet(m, "cuda", "io", function() end)
      assert.are.equal("#<MAT 2 double Cf {5, 6}>", tostring(m))
      assert.are.equal("Cf", m:facets())
      assert.are.equal(0, m:find_facet("cuda").n_watchers)
    end)
  end)

  dit("a writer on one facet blocks other facets unless let through", function()
    on_device(function()
      local m = gm.mat(2)
      gm.with_facet(m, "foreign", "io", function()
        assert.has_error(function() gm.with_facet(m, "cuda", "input", function() end) end,
          "with_facet: cannot read facet 'cuda' while facet 'foreign' is being written")
        with_settings({let_input_through = true}, function()
          gm.with_facet(m, "cuda", "input", function() end)
        end)
      end)
      gm.with_facet(m, "foreign", "input", function()
        assert.has_error(function() gm.with_facet(m, "cuda", "io", function() end) end,
          "with_facet: cannot write facet 'cuda' while facet 'foreign' is being accessed")
        gm.with_facet(m, "cuda", "input", function() end) -- readers share
        with_settings({let_output_through = true}, function()
          gm.with_facet(m, "cuda", "io", function() end)
        end)
      end)
      gm.with_facet(m, "foreign", "input", function()
        assert.has_error(function() gm.with_facet(m, "cuda_host", "output", function() end) end,
          "with_facet: cannot write facet 'cuda_host' while facet 'foreign' is being accessed")
      end)
    end)
  end)

  dit("with_facets releases the accesses taken before a failing one", function()
    on_device(function()
      local m = gm.mat(2)
      assert.has_error(function()
        gm.with_facets({{m, "foreign", "io"}, {m, "cuda", "input"}}, function() end)
      end, "with_facets: cannot read facet 'cuda' while facet 'foreign' is being written")
      assert.are.equal(0, m:find_facet("foreign").n_watchers)
      gm.with_facets({{m, "foreign", "input"}, {m, "cuda", "input"}}, function(pf, pc)
        assert.are_not.equal(address(pf), address(pc))
        assert.are.equal(1, m:find_facet("cuda").n_watchers)
      end)
      assert.are.equal(0, m:find_facet("cuda").n_watchers)
    end)
  end)

  dit("destroy_facet keeps the data of the only up-to-date facet", function()
    on_device(function()
      local m = gm.mat(2, {initial_contents = {3, 4}})
      gm.with_facet(m, "cuda", "io", function() end)
      assert.are.equal("Cf", m:facets())
      assert.is_true(m:destroy_facet("cuda"))
      assert.are.equal("F", m:facets())
      assert.are.same({3, 4}, m:to_table())
    end)
  end)

  dit("a barrier ensures facets before destroying", function()
    local m = gm.mat(2, {initial_contents = {8, 9}})
    on_device(function()
      gm.with_facet_barrier({ensures = {"foreign"}, destroys = {"cuda"}}, function()
        gm.with_facet(m, "cuda", "io", function() end)
        assert.are.equal("Cf", m:facets())
        assert.are.equal(1, gm.count_barred_facets("cuda"))
      end)
      assert.are.equal("F", m:facets())
    end)
    assert.are.same({8, 9}, m:to_table())
  end)
end)
