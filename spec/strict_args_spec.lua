-- Every function and method takes exactly the arguments it declares: one
-- more raises "bad argument #n to 'name' (no value expected)" (the binding
-- rule, docs/ARCHITECTURE.md: C functions declare their count in their
-- registration table, Lua functions by their parameter list).
local gm = require "gpumat"
local core = require "gpumat.core"
local argcheck = require "gpumat.argcheck"

-- the declared count and name of f (C or Lua), or nil when variadic or
-- not declared
local function arity(f)
  local n, name = core._arity(f)
  if n == nil then n, name = argcheck.arity(f) end
  if n == nil or n < 0 then return nil end
  return n, name
end

local function extra_error(n, name)
  return ("bad argument #%d to '%s' (no value expected)"):format(n + 1, name)
end

-- pcall's message without a position prefix
local function message(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "no error")
  return (tostring(e):gsub("^[^\n]-:%d+: ", ""))
end

describe("strict arguments", function()
  it("every registered function and method rejects one argument more than it declares", function()
    local b, cache = gm.make_foreign_array(2), gm.alloc_cache()
    local tables = {
      gm = gm, core = core, methods = core.mat_methods(),
      buffer_methods = getmetatable(b).__index, cache_methods = getmetatable(cache).__index,
    }
    -- variadic on purpose: subscripts, pass-through, and the dispatchers of
    -- the buffer functions (whose C and Lua halves declare their counts)
    local variadic = { mref = true, set = true, row_major_index = true, use_cuda_p = true, cached = true,
      uncached = true, map_mats_into = true, mm_mul = true, kernel_launch = true, kernel_place = true,
      cache_finish = true, buffer_row_major_index_core = true, bref_core = true, set_bref_core = true,
      -- dims as several integers (the strided views contract; gm.zeros(2, 3,
      -- opts)): they check their own count
      reshape = true, view = true, permute = true, expand = true,
      zeros = true, ones = true, rand = true, randn = true, empty = true,
      -- the standard's *arrays_and_dtypes: any number of mats, dtypes and scalars
      result_type = true, broadcast_arrays = true, broadcast_shapes = true, meshgrid = true,
      -- einsum(spec, ...): one operand per term of spec, counted against it
      einsum = true }
    local checked = 0
    for tname, t in pairs(tables) do
      for key, f in pairs(t) do
        if type(f) == "function" then
          local n, name = arity(f)
          if n then
            -- the count is checked before anything else: nil arguments do
            assert.are.equal(extra_error(n, name), message(f, table.unpack({}, 1, n + 1)), tname .. "." .. key)
            checked = checked + 1
          else
            assert(variadic[key] or select(2, core._arity(f)) == "buffer_dispatch", tname .. "." .. key .. " is variadic")
          end
        end
      end
    end
    assert.is_true(checked > 250, "checked " .. checked)
  end)

  it("gpumat.dist's functions count their arguments too (before any MPI call)", function()
    local ok, dist = pcall(require, "gpumat.dist")
    -- built without MPI, or MPI not loadable: require raises its own clear error
    if not ok then pending("gpumat.dist unavailable: " .. tostring(dist)) return end
    local checked = 0
    for key, f in pairs(dist) do
      if type(f) == "function" then
        local n, name = arity(f)
        assert.is_number(n, key)
        assert.are.equal(extra_error(n, name), message(f, table.unpack({}, 1, n + 1)), key)
        checked = checked + 1
      end
    end
    assert.is_true(checked >= 13)
  end)

  it("names the function and argument in every binding file", function()
    local m = gm.mat({ 2, 3 }, { initial_element = 1 })
    local sq = gm.mat({ 2, 2 }, { initial_element = 1 })
    local cases = {
      -- l_reduce_axis.c: m:sum(1) is the sum along axis 1 now (it used to
      -- return the total); (axis, opts) is all it takes
      { "bad argument #4 to 'sum' (no value expected)", function() return m:sum(1, {}, 1) end },
      -- l_shaping.c: m:reshape(2, 3) used to make a 2-element view; it is the
      -- dims {2, 3} now (the strided views contract), a list takes nothing after
      { "bad argument #3 to 'reshape' (no value expected)", function() return m:reshape({ 2, 3 }, 1) end },
      { "bad argument #3 to 'reshape_' (no value expected)", function() return m:reshape_(2, 3) end },
      -- l_nondestructive.c
      { "bad argument #2 to 'transpose' (no value expected)", function() return m:transpose({}) end },
      -- a nil counts: the first argument past the declared ones is named
      { "bad argument #2 to 'transpose' (no value expected)", function() return gm.transpose(m, nil, 1) end },
      -- l_mat.c
      { "bad argument #3 to 'mat' (no value expected)", function() return gm.mat(2, {}, 1) end },
      { "bad argument #2 to 'size' (no value expected)", function() return m:size(1) end },
      { "bad argument #2 to 'free' (no value expected)", function() return gm.mat(1):free(true) end },
      -- l_elementwise.c: a method whose self is not argument 1 counts the same
      { "bad argument #4 to 'fill_' (no value expected)", function() return gm.fill_(1, m, {}, 1) end },
      { "bad argument #4 to 'fill_' (no value expected)", function() return m:fill_(1, {}, 1) end },
      { "bad argument #3 to 'exp_' (no value expected)", function() return m:exp_({}, 1) end },
      -- l_blas.c
      { "bad argument #3 to 'asum' (no value expected)", function() return m:asum({}, 1) end },
      { "bad argument #7 to 'gemm_' (no value expected)", function() return sq:gemm_(1, sq, sq, 0, {}, 1) end },
      -- l_nn.c, l_random.c, l_io.c, l_facet.c
      { "bad argument #5 to 'convolve_' (no value expected)", function() return gm.convolve_(m, m, m, {}, 1) end },
      { "bad argument #1 to 'random_state' (no value expected)", function() return gm.random_state(1) end },
      { "bad argument #3 to 'uniform_random_' (no value expected)", function() return m:uniform_random_({}, 1) end },
      { "bad argument #3 to 'load_npy' (no value expected)", function() return gm.load_npy("x.npy", {}, 1) end },
      { "bad argument #2 to 'facets' (no value expected)", function() return m:facets(1) end },
      -- l_context.c, l_memspace.c, l_buffer.c
      { "bad argument #2 to 'cuda_room' (no value expected)", function() return gm.cuda_room({}, 1) end },
      { "bad argument #1 to 'counters' (no value expected)", function() return gm.counters(1) end },
      { "bad argument #2 to 'stats' (no value expected)", function() return gm.alloc_cache():stats(1) end },
      { "bad argument #2 to 'mem_type' (no value expected)", function() return gm.make_foreign_array(2):mem_type(1) end },
      { "bad argument #3 to 'make_foreign_array' (no value expected)", function() return gm.make_foreign_array(2, {}, 1) end },
      { "bad argument #2 to 'buffer_size' (no value expected)", function() return gm.buffer_size(gm.make_foreign_array(2), 1) end },
      { "bad argument #2 to 'buffer_size' (no value expected)", function() return gm.buffer_size({ 1, 2 }, 1) end },
      { "bad argument #4 to 'ensure' (no value expected)", function() return gm.ensure({ 1 }, "host", nil, 1) end },
      { "bad argument #4 to 'ensure' (no value expected)", function() return gm.ensure(gm.make_foreign_array(1), "host", nil, 1) end },
      -- l_settings.c through the module table, l_matdebug.c
      { "bad argument #2 to 'foreign_room' (no value expected)", function() return gm.foreign_room({}, 1) end },
      -- Lua side: module functions, methods, kernels
      { "bad argument #3 to 'with_cuda' (no value expected)", function() return gm.with_cuda({}, print, 1) end },
      { "bad argument #4 to 'stack' (no value expected)", function() return gm.stack(1, { m }, nil, 1) end },
      { "bad argument #2 to 'help_text' (no value expected)", function() return gm.help_text("mat", 1) end },
      { "bad argument #3 to 'show' (no value expected)", function() return m:show(nil, 1) end },
      { "bad argument #3 to 'copy_full_buffer' (no value expected)", function() return gm.copy_full_buffer({ 1 }, { 2 }, 1) end },
    }
    for _, c in ipairs(cases) do assert.are.equal(c[1], message(c[2])) end
    assert.are.same({ { 1, 1, 1 }, { 1, 1, 1 } }, m:to_table()) -- no failed call touched m
  end)

  it("kernel objects: ptx and __tostring count their arguments; the call checks its own", function()
    local k = gm.define_cuda_kernel { name = "spec_strict_kernel", params = { { "x", "mat", "io" } }, body = "" }
    assert.are.equal("bad argument #5 to 'ptx' (no value expected)", message(k.ptx, k, "double", 8, 0, 1))
    assert.are.equal("bad argument #2 to '__tostring' (no value expected)", message(getmetatable(k).__tostring, k, 1))
    assert.are.equal("gpumat kernel spec_strict_kernel", tostring(k))
    assert.matches("spec_strict_kernel", message(k, gm.mat(1), {}, 1))
  end)

  it("variadic functions check their own counts", function()
    local m = gm.mat({ 2, 3 })
    assert.are.equal("bad argument #2 to 'mref' (expected 2 subscripts, got 3)", message(m.mref, m, 1, 1, 1))
    assert.are.equal("bad argument #2 to 'set' (expected 2 subscripts, got 3)", message(m.set, m, 1, 1, 1, 0))
    assert.are.equal(0, m:mref(2, 3))
  end)
end)

describe("messages name public functions and no internal file", function()
  it("gm.ensure, gm.copy_buffer_data, gm.copy_full_buffer", function()
    local e = message(gm.ensure, { 1, 2 }, "bogus")
    assert.are.equal([[bad argument #2 to 'ensure' (memory type must be "host", "pinned", "device" or "managed", got bogus)]], e)
    e = message(gm.ensure, { 1, 2 }, "host", 5)
    assert.are.equal("bad argument #3 to 'ensure' (options table expected, got number)", e)
    local t = { 1, 2, 3 }
    e = message(gm.copy_buffer_data, t, 1, t, 2, 2)
    assert.are.equal("copy_buffer_data: source and destination areas overlap", e)
    e = message(gm.copy_full_buffer, { 1, 2 }, { 1 })
    assert.are.equal("copy_full_buffer: sizes differ (2 and 1)", e)
  end)

  it("errors raised inside gpumat's Lua modules carry no position of theirs", function()
    local function raw(f, ...)
      local ok, e = pcall(f, ...)
      assert.is_false(ok)
      return tostring(e)
    end
    local msgs = {
      raw(function() local r = gm.ensure({ 1, 2 }, "bogus") return r end),
      raw(function() local r = gm.copy_full_buffer({ 1, 2 }, { 1 }) return r end),
      raw(function() local r = gm.buffer_dimension({ { 1 } }, 7) return r end),
      raw(function() local r = gm.stack(1, {}, nil, 1) return r end),
      raw(function() local r = gm.with_cuda({}, print, 1) return r end),
      raw(function() local r = gm.mat_room(5) return r end),
    }
    for _, e in ipairs(msgs) do
      assert.is_nil(e:find("gpumat/[%w_]+%.lua:%d+:"), e)
      assert.is_nil(e:find("ensure_core", 1, true), e)
      assert.is_nil(e:find("gpumat.core", 1, true), e)
    end
  end)

  it("a C function called directly keeps the caller's position, as luaL_error gives it", function()
    local ok, e = pcall(function() local r = gm.mat(-1) return r end)
    assert.is_false(ok)
    assert.matches("^spec/strict_args_spec%.lua:%d+: bad argument #1 to 'mat'", e)
  end)
end)
