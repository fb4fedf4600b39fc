-- Hostile input: Lua code run in the middle of a gpumat call
-- (metamethods of argument tables, finalizers at allocations and in the
-- reclaim cascade) must never make gpumat touch freed or resized memory.
-- Every case ends in a clean result or a clean Lua error; the ASan+UBSan
-- passes of the suite turn any slip into a crash.  See docs/RELIABILITY.md.
local gm = require "gpumat"

-- a table whose __index runs act once (first key), then answers nil
local function trap(act)
  local done = false
  return setmetatable({}, { __index = function(_, k)
    if not done then done = true; act(k) end
    return nil
  end })
end

local function ones(n, opts)
  opts = opts or {}
  opts.initial_element = 1
  local m = gm.mat(n, opts)
  m:fill_(1)
  return m
end

describe("metamethods that free a mat mid-call", function()
  it("options of fill_, asum, scal_, exp_, uniform_random_: the free waits for the call", function()
    local cases = {
      function(m, t) return gm.fill_(2, m, t) end,
      function(m, t) return gm.asum(m, t) end,
      function(m, t) return gm.scal_(2, m, t) end,
      function(m, t) return gm.exp_(m, t) end,
      function(m, t) return gm.uniform_random_(m, t) end,
    }
    for _, f in ipairs(cases) do
      local m = ones(8, { max_size = 64 })
      local ok = pcall(f, m, trap(function() m:free() end))
      assert.is_true(ok)
      assert.is_true(m:is_freed())
      assert.has_error(function() m:size() end, "bad argument #1 to 'size' (attempt to use a freed mat)")
    end
  end)

  -- The `out` forms read their options before they take any mat (no
  -- guard): an options table that frees an operand or `out` itself makes
  -- the call raise the clean "freed" error; one that frees a bystander
  -- leaves the right result in out.
  it("out options of the broadcasting and elementwise functions free a mat", function()
    local forms = {
      { "gm.add", function(x, y, o) return gm.add(x, y, o) end, 4 },
      { "gm.gt", function(x, y, o) return gm.gt(y, x, o) end, true, "bool" },
      { "gm.where", function(x, y, o) return gm.where(x:gt(0), x, y, o) end, 1.5 },
      { "gm.sqrt", function(x, y, o) return gm.sqrt(y, o) end, math.sqrt(2.5), nil, "y" },
      { "gm.clamp", function(x, y, o) return gm.clamp(y, 0, 2, o) end, 2, nil, "y" },
    }
    for _, f in ipairs(forms) do
      for _, victim in ipairs({ "operand", "out", "bystander" }) do
        local x = gm.mat(6, { initial_element = 1.5 })
        local y = gm.mat(6, { initial_element = 2.5 })
        local out = gm.mat(6, { ctype = f[4] or "double" })
        local other = gm.mat(6)
        local target = ({ operand = f[5] == "y" and y or x, out = out, bystander = other })[victim]
        local opts = setmetatable({}, { __index = function(_, k)
          if k == "out" then target:free(); return out end
        end })
        local ok, r = pcall(f[2], x, y, opts)
        local where = f[1] .. ", freeing the " .. victim
        if victim == "bystander" then
          assert(ok, where .. ": " .. tostring(r))
          assert.are.equal(f[3], out[1], where)
        else
          assert.is_false(ok, where)
          assert.matches("freed mat", tostring(r), 1, true)
        end
      end
    end
  end)

  it("asum with freeing options still reads the right value", function()
    local m = ones(8)
    assert.are.equal(8, gm.asum(m, trap(function() m:free() end)))
    assert.is_true(m:is_freed())
  end)

  it("gemm_ options free an operand: the product is still right", function()
    local a = gm.mat({ 2, 2 }, { initial_element = 1 })
    local c = gm.mat({ 2, 2 })
    gm.gemm_(1, a, a, 0, c, trap(function() a:free() end))
    assert.are.same({ { 2, 2 }, { 2, 2 } }, c:to_table())
    assert.is_true(a:is_freed())
  end)

  it("dims lists are read before the mat is taken", function()
    local m = ones(8, { max_size = 64 })
    local dims = setmetatable({}, { __len = function() return 1 end,
      __index = function() m:free(); return 8 end })
    assert.has_error(function() m:reshape_(dims) end, "bad argument #1 to 'reshape_' (attempt to use a freed mat)")
    local m2 = ones(8)
    local d2 = setmetatable({}, { __len = function() return 1 end,
      __index = function() m2:free(); return 8 end })
    assert.has_error(function() m2:reshape(d2) end, "bad argument #1 to 'reshape' (attempt to use a freed mat)")
  end)

  it("replace_ contents that free the mat: written, then freed", function()
    local m = ones(8)
    local c = setmetatable({}, { __len = function() return 8 end,
      __index = function(_, i) if i == 8 then m:free() end return 1 end })
    assert.is_true(pcall(gm.replace_, m, c))
    assert.is_true(m:is_freed())
  end)

  it("replace_ contents that grow the mat between counting and writing: an error, mat unchanged", function()
    local m = gm.mat(8, { max_size = 64, initial_element = 3 })
    local calls = 0
    local c = setmetatable({}, { __len = function() return 8 end,
      __index = function()
        calls = calls + 1
        if calls == 9 then m:reshape_({ 64 }) end
        return 1
      end })
    assert.has_error(function() gm.replace_(m, c) end, "reshape_: mat is in use by a running gpumat call")
    assert.are.same({ 8 }, m:dims())
    assert.are.equal(24, m:asum())
  end)

  it("displaced_to options that free the base", function()
    local base = gm.mat(16, { initial_element = 2 })
    local o = setmetatable({}, { __index = function(_, k)
      if k == "displaced_to" then return base end
      if k == "initial_element" then base:free(); collectgarbage() end
      return nil
    end })
    local v = gm.mat(4, o)
    assert.are.same({ 2, 2, 2, 2 }, v:to_table()) -- the view keeps the storage
  end)

  it("with_facets specs: entries read before the mat is taken; no __tostring is run", function()
    local m = ones(4)
    local spec = setmetatable({}, { __index = function(_, i)
      if i == 1 then return m end
      if i == 2 then m:free(); return "foreign" end
      return "io"
    end })
    assert.has_error(function() gm.with_facets({ spec }, function() end) end,
      "bad argument #1 to 'with_facets' (spec 1: attempt to use a freed mat)")
    local m2 = ones(4)
    local ran = false
    local bad = setmetatable({}, { __tostring = function() ran = true; m2:free(); return "x" end })
    assert.has_error(function() gm.with_facets({ { m2, bad } }, function() end) end,
      "bad argument #1 to 'with_facets' (spec 1: bad facet name table)")
    assert.is_false(ran)
    assert.is_false(m2:is_freed())
  end)

  it("stack_ lists that free the destination: stacked, then freed", function()
    local a, b = gm.mat(4, { initial_element = 1 }), gm.mat(4, { initial_element = 2 })
    local dst = gm.mat(8)
    local list = setmetatable({}, { __len = function() return 2 end,
      __index = function(_, i) if i == 2 then dst:free() end return i == 1 and a or b end })
    assert.is_true(pcall(gm.stack_, 1, list, dst))
    assert.is_true(dst:is_freed())
  end)

  it("m[sub] with a freeing subscript table", function()
    local m = ones(8)
    local sub = setmetatable({}, { __len = function() return 1 end,
      __index = function() m:free(); return 1 end })
    assert.has_error(function() return m[sub] end, "bad argument #1 to 'mref' (attempt to use a freed mat)")
  end)

  it("destructive shaping of a pinned mat raises; the mat is unchanged", function()
    local m = gm.mat(8, { max_size = 64, initial_element = 1 })
    local fns = {
      function() m:reshape_({ 64 }) end,
      function() m:displace_(1) end,
      function() gm.reshape_and_displace_(m, { 4 }, 2) end,
      function() gm.adjust_(m, { 128 }, 0) end,
      function() gm.destroy(m) end,
      function() gm.destroy_facet(m, "foreign") end,
    }
    for _, f in ipairs(fns) do
      local err
      gm.fill_(5, m, trap(function() local ok, e = pcall(f); err = e; assert(not ok) end))
      assert.matches("mat is in use by a running gpumat call", err)
      assert.are.same({ 8 }, m:dims())
      assert.are.equal(0, m:displacement())
      assert.are.equal(40, m:asum())
    end
  end)
end)

describe("finalizers during a call", function()
  local function arm(n, act)
    for _ = 1, n do setmetatable({}, { __gc = act }) end
  end

  it("free the mat being printed, converted or replaced (ordinary allocations)", function()
    local saved = gm.print_max_elements
    gm.print_max_elements = 1 << 40
    collectgarbage("incremental", 0, 400, 0)
    local ok, err = pcall(function()
      for _, which in ipairs({ "tostring", "to_table", "replace_", "dims" }) do
        for _ = 1, 3 do
          local m = gm.mat(3000, { initial_element = 1.5 })
          local victim = m
          arm(50, function() if victim then victim:free(); victim = nil end end)
          -- a finalizer may also free m before the call takes it: then
          -- the call raises the clean "freed" error
          local ok, r = pcall(function()
            if which == "tostring" then local r = tostring(m); assert(r:find("^#<MAT")); return r
            elseif which == "to_table" then local r = m:to_table(); assert(#r == 3000 and r[3000] == 1.5); return r
            elseif which == "replace_" then local t = {} for k = 1, 3000 do t[k] = k end return gm.replace_(m, t)
            else assert(m:dims()[1] == 3000) end
          end)
          assert(ok or tostring(r):find("attempt to use a freed mat"), tostring(r))
        end
      end
    end)
    collectgarbage("generational"); collectgarbage("incremental")
    gm.print_max_elements = saved
    assert.is_true(ok, tostring(err))
  end)

  -- The allocating ops make their result's box before they take the
  -- operands and pace the collector after the op (no guard): a finalizer
  -- that frees an operand at the box's allocation makes the call raise the
  -- clean "freed" error; one that frees the other operand leaves a correct
  -- result.  A stopped then restarted collector (generational: a minor
  -- collection runs every pending finalizer) collects at the call's first
  -- allocation, which is the box; under ASan a use after free fails here.
  it("free the operands of allocating ops at the result's allocation", function()
    local forms = {
      { "x + y", function(x, y) return x + y end, 4, "x y" },
      { "x * 2", function(x) return x * 2 end, 3, "x" },
      { "2 * x", function(x) return 2 * x end, 3, "x" },
      { "-x", function(x) return -x end, -1.5, "x" },
      { "x:copy()", function(x) return x:copy() end, 1.5, "x" },
      { "gm.sqrt(x)", function(x) return gm.sqrt(x) end, math.sqrt(1.5), "x" },
      { "gm.isnan(x)", function(x) return gm.isnan(x) end, false, "x" },
      { "x:gt(y)", function(x, y) return x:gt(y) end, false, "x y" },
      { "gm.add(x, y)", function(x, y) return gm.add(x, y) end, 4, "x y" },
      { "gm.m_add(x, y)", function(x, y) return gm.m_add(x, y) end, 4, "x y" },
      { "X:sum(1)", function(x) return x:sum(1) end, 15, "x", { 10, 20 }, { 20, 10 } },
      { "X:transpose()", function(x) return x:transpose() end, 1.5, "x", { 10, 20 }, { 20, 10 } },
      { "A * B", function(x, y) return x * y end, 1.5 * 2.5 * 20, "x y", { 10, 20 }, { 20, 10 } },
    }
    local restore = collectgarbage("generational")
    local ok, err = pcall(function()
      for _, f in ipairs(forms) do
        local raised = 0
        for round = 1, 4 do
          local x = gm.mat(f[5] or 200, { initial_element = 1.5 })
          local y = gm.mat(f[6] or 200, { initial_element = 2.5 })
          local victim = round % 2 == 1 and x or y
          collectgarbage("stop")
          local victims = { victim }
          arm(4, function()
            local v = table.remove(victims)
            if v then v:free() end
          end)
          collectgarbage("restart")
          local ok, r = pcall(f[2], x, y)
          assert(#victims == 0, f[1] .. ": the finalizer did not run in the call")
          local used = f[4]:find(victim == x and "x" or "y") ~= nil
          assert(ok ~= used, f[1] .. ": " .. tostring(r))
          if ok then
            local got, want = r[1], f[3]
            if type(want) == "number" then
              assert(math.abs(got - want) <= 1e-12 * math.abs(want), f[1] .. ": got " .. tostring(got))
            else
              assert(got == want, f[1] .. ": got " .. tostring(got))
            end
          else
            assert(tostring(r):find("attempt to use a freed mat"), f[1] .. ": " .. tostring(r))
            raised = raised + 1
          end
        end
        assert(raised > 0, f[1])
      end
    end)
    collectgarbage("restart")
    collectgarbage(restore)
    assert.is_true(ok, tostring(err))
  end)

  it("in the reclaim cascade: freeing the operand defers, reshaping raises #outermost", function()
    for _, mode in ipairs({ "free", "reshape" }) do
      local n = 1000
      local seen
      gm.with_cuda({ backend = "emulated", n_pool_bytes = 16 * n }, function()
        local filler = gm.mat(n + n // 2)
        filler:fill_(0)
        filler = nil
        local canary = gm.mat(n // 4, { initial_element = 7 })
        canary:fill_(7)
        local target
        collectgarbage("stop")
        setmetatable({}, { __gc = function()
          if not target then return end
          if mode == "free" then target:free(); seen = "freed"
          else seen = select(2, pcall(target.reshape_and_displace_, target, { 1 }, target:max_size() - 1)) end
        end })
        target = gm.mat(n)
        local ok, e = pcall(gm.fill_, 5, target)
        collectgarbage("restart")
        assert.is_true(ok, tostring(e))
        if mode == "reshape" and seen then
          assert.matches("mat is in use by a running gpumat call", seen)
          assert.are.equal(5 * n, target:asum())
        end
        assert.are.equal(7 * (n // 4), canary:asum())
      end)
    end
  end)

  it("through the GC nudge: axpy_ operands stay valid #outermost", function()
    local n, fired = 1000, 0
    gm.with_cuda({ backend = "emulated", n_pool_bytes = 64 * 1024 }, function()
      local x = gm.mat(n, { initial_element = 1 })
      x:fill_(1)
      local cur
      for _ = 1, 30 do
        for _ = 1, 20 do
          setmetatable({}, { __gc = function() if cur then fired = fired + 1; cur:free() end end })
        end
        local y = gm.mat(n, { initial_element = 0 })
        cur = y
        local ok, e = pcall(gm.axpy_, 1, x, y)
        cur = nil
        assert(ok or tostring(e):find("freed") or tostring(e):find("out of memory"), tostring(e))
      end
    end)
  end)
end)

describe("zero-element mats and lying tables", function()
  it("reject a huge extent next to a zero dimension", function()
    assert.has_error(function() gm.mat({ 1 << 59, 0 }) end)
    local ok, e = pcall(gm.mat, { 1 << 59, 0 })
    assert.is_false(ok)
    assert.matches("576460752303423488", e)
    assert.has_error(function() gm.mat({ 0, math.maxinteger, math.maxinteger }) end)
    local m = gm.mat({ 3, 0 })
    assert.are.same({ {}, {}, {} }, m:to_table())
    assert.matches("{{}, {}, {}}>$", tostring(m))
  end)

  it("a lying __len ends at the first nil leaf", function()
    local t = setmetatable({}, { __len = function() return 1 << 40 end })
    local ok, e = pcall(gm.array_to_mat, t)
    assert.is_false(ok)
    assert.matches("got nil", e)
    ok = pcall(gm.replace_, gm.mat(2), t)
    assert.is_false(ok)
  end)

  it("messages print real values, not int casts", function()
    local x = gm.mat(4)
    local ok, e = pcall(gm.fill_, 1, x, { n = 1 << 32 })
    assert.is_false(ok)
    assert.matches("n %(4294967296%) exceeds the size of x %(4%)", e)
  end)
end)

describe("launch geometry near the integer limit", function()
  it("choose_*_block_and_grid never overflow", function()
    local M = math.maxinteger
    local b, g = gm.choose_1d_block_and_grid(M, 4)
    assert.are.same({ 128, 1, 1 }, b)
    assert.are.same({ 112, 1, 1 }, g)
    b, g = gm.choose_2d_block_and_grid({ 1, M }, 4)
    assert.are.same({ 32, 4, 1 }, b)
    assert.are.same({ 1, 112, 1 }, g)
    assert.has_error(function() gm.choose_2d_block_and_grid({ M, M }, 4) end)
    assert.has_error(function() gm.choose_3d_block_and_grid({ 1 << 62, 1 << 62, 5 }, 4) end)
    -- small sizes keep MGL's answers
    b, g = gm.choose_1d_block_and_grid(100, 4)
    assert.are.same({ 128, 1, 1 }, b)
    assert.are.same({ 1, 1, 1 }, g)
  end)
end)

describe("load_npy against its file", function()
  local tmp = os.tmpname()
  local function write_npy(shape)
    local dict = "{'descr': '<f8', 'fortran_order': False, 'shape': " .. shape .. ", }"
    local h = dict .. string.rep(" ", 117 - #dict) .. "\n"
    local f = assert(io.open(tmp, "wb"))
    f:write("\147NUMPY\1\0", string.pack("<I2", #h), h)
    f:close()
  end

  it("checks the file size against the header before allocating", function()
    write_npy("(1048576, 1048576)")
    local ok, e = pcall(gm.load_npy, tmp)
    assert.is_false(ok)
    assert.matches("load_npy: truncated .npy file: the header claims 1099511627776 elements %(8796093022208 bytes%), the file holds 0 bytes of data", e)
    write_npy("(576460752303423488, 0)")
    ok, e = pcall(gm.load_npy, tmp)
    assert.is_false(ok)
    assert.matches("dimensions are too large", e)
    os.remove(tmp)
  end)

  it("names the OS cause for a directory", function()
    local ok, e = pcall(gm.load_npy, "/")
    assert.is_false(ok)
    assert.matches("Is a directory", e)
  end)
end)

-- Zero-size operands for every op family: a zero extent on either axis is
-- a no-op (or the neutral value), never a division by zero in a launcher
-- or an empty grid.  Run on the host and, in the emulated pass, on the
-- emulated device's kernels (tools/fuzz.lua sweeps the same families).
describe("zero-size operands", function()
  local shapes = { { 0, 5 }, { 5, 0 }, { 0, 0 } }
  local function z(dims, v, ctype) return gm.mat(dims, { ctype = ctype, initial_element = v or 0 }) end

  for _, ctype in ipairs({ "float", "double" }) do
    it("elementwise, BLAS reductions, fills and copies (" .. ctype .. ")", function()
      for _, s in ipairs(shapes) do
        local x, y = z(s, 0, ctype), z(s, 0, ctype)
        for _, f in ipairs({ "square_", "sqrt_", "exp_", "log_", "tanh_", "logistic_" }) do gm[f](x) end
        gm.expt_(x, 2)
        gm.add_scalar_(1, x)
        gm.fill_(3, x)
        gm.mul_(x, y)
        gm.lt_(x, y)
        gm.min_(0, x)
        gm.max_(0, x)
        gm.geem_(1, x, y, 0, x)
        gm.add_sign_(1, x, 1, y)
        gm.axpy_(2, x, y)
        gm.copy_(x, y)
        gm.scal_(2, x)
        gm.uniform_random_(x)
        gm.gaussian_random_(x)
        assert.are.equal(0, gm.asum(x))
        assert.are.equal(0, gm.nrm2(x))
        assert.are.equal(0, gm.dot(x, y))
        assert.are.equal(0, x:sum())
        assert.has_error(function() x:mean() end, "bad argument #1 to 'mean' (the mat is empty)")
        assert.are.same(s, (x + y):dims())
        assert.are.same(s, (2 * x - y / 2):dims())
        assert.are.same({ s[2], s[1] }, x:transpose():dims())
        assert.are.same(s, x:copy():dims())
        assert.is_true(gm.m_eq(x, y))
        assert.are.equal(0, #x)
        local n = 0
        for _ in ipairs(x) do n = n + 1 end
        assert.are.equal(0, n)
      end
    end)

    it("gemm_ with a zero inner dimension scales c by beta (" .. ctype .. ")", function()
      local a, b = z({ 2, 0 }, 0, ctype), z({ 0, 3 }, 0, ctype)
      local c = z({ 2, 3 }, 1, ctype)
      gm.gemm_(1, a, b, 2, c)
      assert.are.same({ { 2, 2, 2 }, { 2, 2, 2 } }, c:to_table())
      local p = gm.m_mul(a, b)
      assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 } }, p:to_table())
      assert.are.same({ 2, 2 }, gm.m_mul(z({ 2, 0 }, 0, ctype), z({ 2, 0 }, 0, ctype), { transpose_b = true }):dims())
      -- a zero outer dimension leaves an empty product
      assert.are.same({ 0, 3 }, gm.m_mul(z({ 0, 4 }, 0, ctype), z({ 4, 3 }, 1, ctype)):dims())
    end)

    it("scale_rows_, scale_columns_, stack_, geerv_ on empty mats (" .. ctype .. ")", function()
      local x = z({ 0, 3 }, 0, ctype)
      gm.scale_rows_(z({ 0 }, 0, ctype), x)
      gm.scale_columns_(z({ 3 }, 2, ctype), x)
      gm.geerv_(1, x, z({ 3 }, 1, ctype), 0, z({ 0, 3 }, 0, ctype))
      local dst = z({ 0, 6 }, 0, ctype)
      gm.stack_(2, { x, x }, dst)
      local tall = z({ 4, 0 }, 0, ctype)
      gm.stack_(1, { z({ 2, 0 }, 0, ctype), z({ 2, 0 }, 0, ctype) }, tall)
      assert.are.same({ 4, 0 }, tall:dims())
      assert.are.same({ {}, {}, {}, {} }, tall:to_table())
    end)

    it("sum_ along an axis of an empty mat gives zeros (" .. ctype .. ") #host", function()
      -- host only for now: the emulated device's sum_ launcher divides by
      -- the zero extent (SIGFPE), fixed in kernels/elementwise.cu
      local y = z({ 5 }, 7, ctype)
      gm.sum_(z({ 0, 5 }, 0, ctype), y, { axis = 1 })
      assert.are.same({ 0, 0, 0, 0, 0 }, y:to_table())
      local r = z({ 5 }, 7, ctype)
      gm.sum_(z({ 5, 0 }, 0, ctype), r, { axis = 2 })
      assert.are.same({ 0, 0, 0, 0, 0 }, r:to_table())
    end)
  end
end)
