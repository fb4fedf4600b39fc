-- gpumat.dist: exact results of every collective, for both ctypes and for
-- displaced views, plus the error cases.  Run by the regular busted passes
-- as one process (the world of one: every collective is the identity) and
-- by tools/suite.d/60-dist.sh under `mpirun -np 3` and `-np 1`, where every
-- rank runs this file and the step sums the ranks' results.  Values are
-- small integers, so results are exact in float and double.
require "spec.helper"
local gm = require "gpumat"
local dist = require "gpumat.dist"

describe("dist", function()
  it("raises before init #host", function()
    if dist.initialized() then pending("gpumat.dist already initialized in this process") return end
    assert.error_matches(function() dist.rank() end, "rank: gpumat.dist is not initialized")
    local m = gm.mat(2)
    assert.error_matches(function() dist.allreduce_(m) end, "allreduce_: gpumat.dist is not initialized")
  end)

  dist.init({ check = true })
  local r, n = dist.rank(), dist.size()

  local function seq(k, f)
    local t = {}
    for i = 1, k do t[i] = f(i) end
    return t
  end
  local function same(got, want)
    assert.are.same(want, got)
  end

  it("rank and size", function()
    assert.is_true(n >= 1 and r >= 0 and r < n)
    if os.getenv("GPUMAT_DIST_EXPECT_SIZE") then
      assert.are.equal(tonumber(os.getenv("GPUMAT_DIST_EXPECT_SIZE")), n)
    end
    dist.barrier()
  end)

  -- the half types: moved as their bits, reduced on float32 copies
  for _, ct in ipairs({ "float", "double", "float16", "bfloat16" }) do
    describe(ct, function()
      it("allreduce_ sum/max/min/prod/average", function()
        local m = gm.mat(4, { ctype = ct, initial_contents = seq(4, function(i) return r + i end) })
        assert.are.equal(m, dist.allreduce_(m))
        same(m:to_table(), seq(4, function(i) return n * i + n * (n - 1) / 2 end))
        m = gm.mat(4, { ctype = ct, initial_contents = seq(4, function(i) return 10 * r + i end) })
        dist.allreduce_(m, { op = "max" })
        same(m:to_table(), seq(4, function(i) return 10 * (n - 1) + i end))
        m = gm.mat(4, { ctype = ct, initial_contents = seq(4, function(i) return 10 * r + i end) })
        dist.allreduce_(m, { op = "min" })
        same(m:to_table(), seq(4, function(i) return i end))
        local p = 1
        for k = 0, n - 1 do p = p * (k + 2) end
        m = gm.mat(3, { ctype = ct, initial_contents = { r + 2, 1, -(r + 2) } })
        dist.allreduce_(m, { op = "prod" })
        same(m:to_table(), { p, 1, p * (n % 2 == 0 and 1 or -1) })
        m = gm.mat(2, { ctype = ct, initial_contents = { 2 * r, 4 } })
        dist.allreduce_(m, { average = true })
        same(m:to_table(), { n - 1, 4 })
      end)

      it("allreduce_ on a displaced view leaves the rest alone", function()
        local base = gm.mat(7, { ctype = ct, initial_contents = { 9, 9, 1 + r, 2 + r, 3 + r, 9, 9 } })
        local v = base:reshape_and_displace({ 3 }, 2)
        dist.allreduce_(v)
        local s = n * (n - 1) / 2
        same(base:to_table(), { 9, 9, n + s, 2 * n + s, 3 * n + s, 9, 9 })
      end)

      it("broadcast_ from every root, displaced", function()
        for root = 0, n - 1 do
          local base = gm.mat(5, { ctype = ct, initial_contents = { -1, 10 * r + 1, 10 * r + 2, 10 * r + 3, -1 } })
          local v = base:reshape_and_displace({ 3 }, 1)
          assert.are.equal(v, dist.broadcast_(v, root))
          same(base:to_table(), { -1, 10 * root + 1, 10 * root + 2, 10 * root + 3, -1 })
        end
      end)

      it("allgather adds a leading axis of length size", function()
        local base = gm.mat(6, { ctype = ct, initial_contents = { 0, r, r + 0.5, 2 * r, 3 * r, 0 } })
        local v = base:reshape_and_displace({ 2, 2 }, 1)
        local g = dist.allgather(v)
        same(g:dims(), { n, 2, 2 })
        assert.are.equal(ct, g:ctype())
        same(g:to_table(), seq(n, function(k) local q = k - 1 return { { q, q + 0.5 }, { 2 * q, 3 * q } } end))
      end)

      it("reduce_scatter_ gives each rank its block of the reduction", function()
        local m = gm.mat({ n, 2 }, { ctype = ct, initial_contents = seq(n, function(k) return { r + k, 10 * r } end) })
        local out_base = gm.mat(4, { ctype = ct, initial_element = 7 })
        local out = out_base:reshape_and_displace({ 2 }, 1)
        assert.are.equal(out, dist.reduce_scatter_(m, out))
        local s = n * (n - 1) / 2
        same(out_base:to_table(), { 7, s + n * (r + 1), 10 * s, 7 })
        dist.reduce_scatter_(m, out, { op = "max" })
        same(out:to_table(), { n - 1 + r + 1, 10 * (n - 1) })
      end)

      it("send and recv_ around a ring", function()
        if n == 1 then
          assert.error_matches(function() dist.send(gm.mat(1), 0) end, "bad argument #2 to 'send'")
          return
        end
        local m = gm.mat(3, { ctype = ct, initial_contents = { r, r + 1, r + 2 } })
        local base = gm.mat(5, { ctype = ct, initial_element = -1 })
        local into = base:reshape_and_displace({ 3 }, 2)
        local to, from = (r + 1) % n, (r - 1) % n
        if r % 2 == 0 then
          dist.send(m, to, 5); dist.recv_(into, from, 5)
        else
          dist.recv_(into, from, 5); dist.send(m, to, 5)
        end
        same(base:to_table(), { -1, -1, from, from + 1, from + 2 })
      end)

      it("sendrecv_ exchanges around a ring with every rank sending first", function()
        if n == 1 then
          assert.error_matches(function() dist.sendrecv_(gm.mat(1), 0, gm.mat(1), 0) end,
            "bad argument #2 to 'sendrecv_' %(cannot send to the calling rank 0%)")
          return
        end
        -- 2^20 elements: far above MPI's eager limit, where a send-first
        -- ring of blocking sends would deadlock
        local k = (ct == "float16" or ct == "bfloat16") and 1 << 10 or 1 << 20 -- halves: asum exact
        local m = gm.mat(k, { ctype = ct, initial_element = r + 1 })
        local base = gm.mat(k + 2, { ctype = ct, initial_element = -1 })
        local into = base:reshape_and_displace({ k }, 1)
        local to, from = (r + 1) % n, (r - 1) % n
        assert.are.equal(into, dist.sendrecv_(m, to, into, from, 3))
        local t = base:to_table()
        same({ t[1], t[2], t[k + 1], t[k + 2] }, { -1, from + 1, from + 1, -1 })
        assert.are.equal(k * (from + 1), gm.asum(into))
      end)
    end)
  end

  it("local_rank and local_size: the ranks of this node (one node here)", function()
    assert.are.equal(r, dist.local_rank())
    assert.are.equal(n, dist.local_size())
  end)

  it("init leaves the default device alone without CUDA devices #host", function()
    -- with k CUDA devices it sets gm.cuda_default_device_id = local_rank % k
    -- (spec/gpu/dist_nccl_spec.lua); here there are none
    if gm.device_count() > 0 then pending("this machine has CUDA devices") return end
    assert.are.equal(0, gm.cuda_default_device_id)
  end)

  it("the GPU NCCL spec goes pending in a build without MPI #host", function()
    -- the busted running this file, under lua5.4; gpumat.dist made to
    -- raise at require as a build without MPI does
    local lua, busted = "lua5.4", arg and arg[0]
    if not (lua and busted) or not io.open("spec/gpu/dist_nccl_spec.lua") then
      pending("needs busted's command line and the repository root") return
    end
    local pre = [[package.preload["gpumat.dist"] = function() error("gpumat.dist: this gpumat was built without MPI") end]]
    local cmd = ("%q -e %q %q -o TAP --no-auto-insulate spec/gpu/dist_nccl_spec.lua 2>&1"):format(lua, pre, busted)
    local p = assert(io.popen(cmd))
    local out = p:read("a")
    p:close()
    assert.is_nil(out:find("not ok", 1, true), out)
    assert.truthy(out:find("# SKIP", 1, true), out) -- TAP's mark of a pending test
  end)

  -- core.so linked libmpi, so without Open MPI's libraries `require
  -- "gpumat"` failed everywhere (GPU machines have no MPI); MPI is
  -- gpumat/dist_mpi.so's now
  it("require \"gpumat\" needs no MPI: only gpumat.dist loads it #host", function()
    local build = os.getenv("GPUMAT_BUILD_DIR") or "build"
    local p = assert(io.popen(("ldd %q 2>&1"):format(build .. "/gpumat/core.so")))
    local deps = p:read("a")
    p:close()
    if not deps:find("=>", 1, true) then pending("no ldd output for " .. build .. "/gpumat/core.so") return end
    assert.is_nil(deps:find("libmpi", 1, true), deps)
    -- a process where the MPI module cannot load: gpumat works, and
    -- gpumat.dist says why it cannot
    local script = [[
      package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
      package.cpath = ]] .. ("%q"):format(build .. "/?.so") .. [[ .. ";" .. package.cpath
      local gm = require "gpumat"
      io.write(gm.mat(2, { initial_element = 3 })[2], "\n")
      io.write(select(2, pcall(require, "gpumat.dist")), "\n")]]
    p = assert(io.popen(("GPUMAT_DIST_MPI=/nonexistent/dist_mpi.so lua5.4 -e %q 2>&1"):format(script)))
    local out = p:read("a")
    p:close()
    assert.matches("^3%.?0?\n", out)
    assert.matches("gpumat%.dist: cannot load MPI %(gpumat/dist_mpi%.so, or %$GPUMAT_DIST_MPI%): " ..
      "/nonexistent/dist_mpi%.so: cannot open shared object file", out)
  end)

  it("the GPU NCCL spec goes pending in a build without NCCL #host", function()
    -- gpumat.dist as this build has it, but saying it has no NCCL: the
    -- spec must not fail its no-copy checks there (the collectives would
    -- go through the host)
    local lua, busted = "lua5.4", arg and arg[0]
    if not (lua and busted) or not io.open("spec/gpu/dist_nccl_spec.lua") then
      pending("needs busted's command line and the repository root") return
    end
    assert.is_boolean(dist.nccl)
    local pre = [[package.preload["gpumat.dist"] = function()
      local path = package.searchpath("gpumat.dist", package.path)
      local d = dofile(path); d.nccl = false; return d end]]
    local cmd = ("%q -e %q %q -o TAP --no-auto-insulate spec/gpu/dist_nccl_spec.lua 2>&1"):format(lua, pre, busted)
    local p = assert(io.popen(cmd))
    local out = p:read("a")
    p:close()
    assert.is_nil(out:find("not ok", 1, true), out)
    assert.truthy(out:find("# SKIP .*built without NCCL"), out)
  end)

  it("the binding leaves facets and transports to one core function #host", function()
    -- src/lua/l_dist.c reads arguments and pushes results; gm_dist_mats
    -- (src/dist/collective.c) places, acquires, runs NCCL or MPI, releases
    local f = io.open("src/lua/l_dist.c")
    if not f then pending("run from the repository root") return end
    local src = f:read("a")
    f:close()
    for _, call in ipairs { "gm_acquire", "gm_release", "gm_exec_choose", "gm_nccl_allreduce", "gm_dist_allreduce",
      "gm_dist_send(", "gm_nccl_send" } do
      assert.is_nil(src:find(call, 1, true), call .. " in l_dist.c")
    end
    local calls = select(2, src:gsub("gm_dist_mats%(", ""))
    assert.are.equal(2, calls) -- run() and allgather (which frees its new mat on failure)
  end)

  describe("errors", function()
    it("name the function and the argument", function()
      local m = gm.mat(2)
      assert.error_matches(function() dist.allreduce_(m, { op = "mean" }) end,
        "bad argument #2 to 'allreduce_' %(option 'op' must be")
      assert.error_matches(function() dist.allreduce_(m, { op = "max", average = true }) end,
        "bad argument #2 to 'allreduce_' %(option 'average' needs op \"sum\"%)")
      assert.error_matches(function() dist.allreduce_({}) end, "bad argument #1 to 'allreduce_' %(gpumat.mat expected")
      assert.error_matches(function() dist.broadcast_(m, n) end, "bad argument #2 to 'broadcast_' %(root " .. n .. " is out of range")
      assert.error_matches(function() dist.reduce_scatter_(gm.mat(2 * n), gm.mat(3)) end,
        "bad argument #2 to 'reduce_scatter_' %(size 3 times the world size")
      assert.error_matches(function() dist.reduce_scatter_(gm.mat(n, { ctype = "float" }), gm.mat(1, { ctype = "double" })) end,
        "bad argument #2 to 'reduce_scatter_' %(ctype differs")
      assert.error_matches(function() dist.send(m, 0, -1) end, "bad argument #")
      assert.error_matches(function() dist.init({ chek = true }) end, "bad argument #1 to 'init' %(unknown option 'chek'%)")
      assert.error_matches(function() dist.init({ set_device = 1 }) end, "bad argument #1 to 'init'")
      assert.error_matches(function() dist.sendrecv_(m, 0, {}, 0) end, "bad argument #")
      assert.error_matches(function() dist.sendrecv_(m, (r + 1) % n, m, (r + 1) % n) end, "bad argument #")
    end)

    it("mismatched sizes across ranks are detected in check mode", function()
      if n == 1 then pending("needs more than one rank") return end
      local m = gm.mat(r == 0 and 3 or 4, { initial_element = 1 })
      assert.error_matches(function() dist.allreduce_(m) end, "allreduce_: ranks disagree on the allreduce_ call")
      same(m:to_table(), seq(m:size(), function() return 1 end))
      local d = gm.mat(2, { ctype = r == 0 and "double" or "float", initial_element = 1 })
      assert.error_matches(function() dist.broadcast_(d, 0) end, "broadcast_: ranks disagree")
      dist.barrier()
    end)

    it("an MPI error is an error object with kind mpi_error", function()
      if n == 1 then pending("needs more than one rank") return end
      -- rank 0 sends 4 elements to rank 1, which receives into 2: truncated
      if r == 0 then
        dist.send(gm.mat(4, { initial_element = 1 }), 1, 9)
      elseif r == 1 then
        local ok, e = pcall(dist.recv_, gm.mat(2), 0, 9)
        assert.is_false(ok)
        assert.are.equal("table", type(e))
        assert.are.equal("mpi_error", e.kind)
        assert.matches("recv_: MPI_Recv failed", e.message)
        assert.are.equal("MPI_Recv", e.function_name)
      end
      dist.barrier()
    end)
  end)
end)
