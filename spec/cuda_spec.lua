-- The CUDA API surface (MGL-MAT §18.3, §19.2): contexts, availability,
-- queries, reports, launch geometry and argument checks.  Device behaviour
-- on the emulated device is in device_spec.lua; real-GPU versions in
-- spec/gpu/.  Tests tagged #outermost open their own outermost context and
-- are not wrapped by spec/helper.lua in the GPUMAT_DEVICE run.
local gm = require "gpumat"

local EMU = { backend = "emulated" }

describe("cuda_available", function()
  it("is false with a reason on this machine, and for a bad device id", function()
    local ok, reason = gm.cuda_available()
    if ok then
      assert.is_nil(reason)
    else
      assert.are.equal("string", type(reason))
      assert.is_true(#reason > 0)
    end
    local ok2, reason2 = gm.cuda_available({ device_id = 63 })
    assert.is_false(ok2)
    assert.are.equal("string", type(reason2))
  end)

  it("does not count the emulated device", function()
    local outside = gm.cuda_available()
    gm.with_cuda(EMU, function() assert.are.equal(outside, gm.cuda_available()) end)
  end)

  it("checks its arguments", function()
    assert.has_error(function() gm.cuda_available({ id = 0 }) end,
      "bad argument #1 to 'cuda_available' (unknown option 'id')")
    assert.has_error(function() gm.cuda_available({ device_id = -1 }) end,
      "bad argument #1 to 'cuda_available' (option 'device_id' must be non-negative, got -1)")
  end)
end)

describe("device queries", function()
  it("device_count counts cuda devices", function()
    local n = gm.device_count()
    assert.are.equal("integer", math.type(n))
    if gm.cuda_available() then
      assert.is_true(n >= 1) -- and the default device is one of them
      assert.is_true(gm.cuda_default_device_id < n)
    else
      assert.are.equal(0, n)
    end
  end)

  it("device_info describes the emulated device", function()
    local info = gm.device_info(0, EMU)
    assert.are.equal("emulated", info.backend)
    assert.are.equal(0, info.id)
    assert.are.equal(32, info.warp_size)
    assert.is_true(info.total_memory > 0)
    assert.are.equal("gpumat emulated device", info.name)
  end)

  it("device_info on a machine without cuda names the reason", function()
    if gm.cuda_available() then pending("this machine has a usable CUDA device") return end
    local _, reason = gm.cuda_available()
    assert.has_error(function() gm.device_info(0) end,
      "bad argument #1 to 'device_info' (no usable cuda device 0: " .. reason .. ")")
  end)

  it("device_info checks its arguments", function()
    assert.has_error(function() gm.device_info("x") end,
      "bad argument #1 to 'device_info' (device id must be an integer, got string)")
    assert.has_error(function() gm.device_info(0, { backend = "gpu" }) end,
      "bad argument #2 to 'device_info' (option 'backend' must be \"cuda\" or \"emulated\", got gpu)")
  end)
end)

describe("with_cuda", function()
  it("returns the body's results and runs it on the device", function()
    local m = gm.mat(3, { initial_element = 1 })
    local a, b = gm.with_cuda(EMU, function()
      assert.is_true(gm.use_cuda_p(m))
      gm.fill_(2, m)
      assert.are.equal("C", m:facets())
      return 1, "two"
    end)
    assert.are.equal(1, a)
    assert.are.equal("two", b)
    assert.are.same({ 2, 2, 2 }, m:to_table())
  end)

  it("call_with_cuda takes the function first", function()
    local m = gm.mat(2)
    local r = gm.call_with_cuda(function()
      gm.fill_(5, m)
      return gm.use_cuda_p(m)
    end, EMU)
    assert.is_true(r)
    assert.are.same({ 5, 5 }, m:to_table())
  end)

  it("raises with the reason when cuda is requested by name but not usable #outermost", function()
    local ok, why = gm.cuda_available()
    if ok then pending("this machine has a usable CUDA device") return end
    local m = gm.mat(2)
    local ran = false
    local ok2, err = pcall(gm.with_cuda, { backend = "cuda" }, function() ran = true end)
    assert.is_false(ok2)
    assert.is_false(ran)
    assert.are.equal('with_cuda: cuda was requested (backend "cuda") but is not usable: ' .. why, tostring(err))
    assert.are.equal("-", m:facets())
    -- disabled contexts need no device
    gm.with_cuda({ backend = "cuda", enabled = false }, function() gm.fill_(3, m) end)
    assert.are.same({ 3, 3 }, m:to_table())
  end)

  it("runs the body on the host when no backend is named and cuda is not usable #outermost", function()
    if gm.cuda_available() then pending("this machine has a usable CUDA device") return end
    local env = os.getenv("GPUMAT_DEVICE")
    local m = gm.mat(2)
    if env and env ~= "" then
      -- GPUMAT_DEVICE names the backend: with_cuda{} is an explicit request
      gm.with_cuda({}, function() gm.fill_(3, m) end)
      assert.are.same({ 3, 3 }, m:to_table())
      if env == "cuda" then error("unreachable: GPUMAT_DEVICE=cuda without a device must raise") end
      return
    end
    gm.with_cuda({}, function()
      assert.is_false(gm.use_cuda_p(m))
      assert.is_false(gm.use_cuda_p())
      gm.fill_(3, m)
    end)
    assert.are.equal("F", m:facets())
    assert.are.same({ 3, 3 }, m:to_table())
  end)

  it("leaves only the host facet on exit", function()
    local m = gm.mat({ 2, 2 }, { initial_element = 0 })
    m[1] = 7 -- host facet exists first
    local fresh = gm.mat(4)
    gm.with_cuda(EMU, function()
      gm.scal_(2, m)
      gm.fill_(1, fresh)
      assert.are.equal("Cf", m:facets())
      assert.are.equal("C", fresh:facets())
    end)
    assert.are.equal("F", m:facets())
    assert.are.equal("F", fresh:facets())
    assert.are.same({ { 14, 0 }, { 0, 0 } }, m:to_table())
    assert.are.same({ 1, 1, 1, 1 }, fresh:to_table())
  end)

  it("nested with_cuda only adds a facet barrier", function()
    local outer = gm.mat(2, { initial_element = 1 })
    local inner = gm.mat(2, { initial_element = 1 })
    gm.with_cuda(EMU, function()
      gm.scal_(3, outer)
      gm.with_cuda({ backend = "emulated", n_pool_bytes = 1 }, function()
        assert.is_true(gm.use_cuda_p(inner))
        gm.scal_(2, inner) -- the inner limit is ignored: no new device
        assert.are.equal("C", inner:facets())
      end)
      assert.are.equal("F", inner:facets())
      assert.are.equal("C", outer:facets())
    end)
    assert.are.same({ 2, 2 }, inner:to_table())
    assert.are.same({ 3, 3 }, outer:to_table())
  end)

  -- a nested context that names another device used to run silently on
  -- the outer one (so the GPUMAT_DEVICE=cuda suite ran
  -- with_cuda{backend = "emulated"} bodies on the GPU)
  it("a nested context naming another device runs on that device #outermost", function()
    local a = gm.mat(4, { initial_element = 1 })
    local b = gm.mat(1000003, { initial_element = 1 })
    gm.with_cuda({ backend = "emulated", device_id = 0 }, function()
      gm.scal_(2, a) -- a's cuda facet on emulated device 0
      local before = gm.emulated_device({ device_id = 1 }).allocated
      gm.with_cuda({ backend = "emulated", device_id = 1 }, function()
        gm.scal_(3, b)
        assert.are.equal("C", b:facets())
        assert.is_true(gm.emulated_device({ device_id = 1 }).allocated >= before + 8 * 1000003)
        -- a lives on device 0: here it is another device's mat
        assert.error_matches(function() gm.scal_(2, a) end, "mat has a cuda facet on another device")
        -- a nested context naming nothing stays on device 1
        gm.with_cuda({}, function() gm.scal_(2, b) end)
        assert.are.equal(6, b[1000003])
      end)
      -- a device_id alone names a device of the enclosing backend
      gm.with_cuda({ device_id = 1 }, function()
        assert.error_matches(function() gm.scal_(2, a) end, "mat has a cuda facet on another device")
      end)
      -- and a named device that cannot be opened is an error, not the
      -- enclosing device
      assert.error_matches(function() gm.with_cuda({ backend = "cuda", device_id = 63 }, function() end) end,
        "cuda was requested")
      gm.scal_(2, a) -- device 0 again
      assert.are.equal("C", a:facets())
    end)
    assert.are.same({ 4, 4, 4, 4 }, a:to_table())
    assert.are.equal(6, b[1])
  end)

  it("exits also when the body errors, passing the error through", function()
    local m = gm.mat(2, { initial_element = 1 })
    local errobj = setmetatable({}, { __tostring = function() return "boom" end })
    local ok, err = pcall(gm.with_cuda, EMU, function()
      gm.scal_(4, m)
      error(errobj)
    end)
    assert.is_false(ok)
    assert.are.equal(errobj, err)
    assert.are.equal("F", m:facets())
    assert.are.same({ 4, 4 }, m:to_table())
    local ok2, err2 = pcall(gm.with_cuda, EMU, function() error("plain") end)
    assert.is_false(ok2)
    assert.matches("plain$", err2)
  end)

  it("is left when the body errors #outermost", function()
    pcall(gm.with_cuda, EMU, function() error("x") end)
    assert.is_false(gm.use_cuda_p())
  end)

  it("binds cuda_enabled and honours enabled = false #outermost", function()
    local m = gm.mat(2)
    assert.is_true(gm.cuda_enabled)
    gm.with_cuda({ backend = "emulated", enabled = false }, function()
      assert.is_false(gm.cuda_enabled)
      assert.is_false(gm.use_cuda_p(m))
      gm.fill_(1, m)
    end)
    assert.is_true(gm.cuda_enabled)
    assert.are.equal("F", m:facets())
    gm.with_cuda(EMU, function()
      gm.cuda_enabled = false -- like setting a bound variable: undone at exit
      assert.is_false(gm.use_cuda_p(m))
      gm.with_cuda({ enabled = true }, function() assert.is_true(gm.use_cuda_p(m)) end)
      assert.is_false(gm.use_cuda_p())
    end)
    assert.is_true(gm.cuda_enabled)
  end)

  it("nested enabled = false runs the inner body on the host", function()
    local m = gm.mat(2)
    gm.with_cuda(EMU, function()
      gm.with_cuda({ enabled = false }, function()
        assert.is_false(gm.use_cuda_p(m))
        gm.fill_(1, m)
        assert.are.equal("F", m:facets())
      end)
      assert.is_true(gm.use_cuda_p(m))
    end)
  end)

  it("honours the per-mat cuda_enabled flag", function()
    local on = gm.mat(2)
    local off = gm.mat(2, { cuda_enabled = false })
    gm.with_cuda(EMU, function()
      assert.is_true(gm.use_cuda_p(on))
      assert.is_false(gm.use_cuda_p(on, off))
      assert.is_false(off:use_cuda_p())
      gm.fill_(1, off)
      assert.are.equal("F", off:facets())
      gm.copy_(off, on) -- mixed: runs on the host
      assert.are.equal("F", on:facets())
    end)
  end)

  it("binds the copy counters to zero #outermost", function()
    local m = gm.mat(4, { initial_element = 1 })
    m[1] = 2 -- host facet
    gm.with_cuda(EMU, function()
      local c = gm.counters()
      assert.are.equal(0, c.n_memcpy_host_to_device)
      assert.are.equal(0, c.n_memcpy_device_to_host)
      gm.scal_(2, m)
      assert.are.equal(1, gm.counters().n_memcpy_host_to_device)
      gm.with_cuda(EMU, function()
        assert.are.equal(1, gm.counters().n_memcpy_host_to_device) -- nested: no rebinding
      end)
    end)
  end)

  it("refuses a coroutine yield out of the body and leaves no context behind #outermost", function()
    local co = coroutine.create(function()
      gm.with_cuda(EMU, function() coroutine.yield(1) end)
    end)
    local ok, err = coroutine.resume(co)
    assert.is_false(ok)
    assert.matches("attempt to yield across a C%-call boundary", err)
    assert.is_false(gm.use_cuda_p())
    co = coroutine.create(function()
      gm.with_syncing_cuda_facets({}, {}, function() coroutine.yield(1) end)
    end)
    assert.is_false((coroutine.resume(co)))
  end)

  it("exits when an error leaves a coroutine (no coroutine.close needed) #outermost", function()
    local m = gm.mat(2, { initial_element = 1 })
    local co = coroutine.create(function()
      gm.with_cuda(EMU, function()
        gm.scal_(5, m)
        error("inner")
      end)
    end)
    local ok, err = coroutine.resume(co)
    assert.is_false(ok)
    assert.matches("inner$", err)
    assert.is_false(gm.use_cuda_p())
    assert.are.equal("F", m:facets())
    assert.are.same({ 5, 5 }, m:to_table())
    -- a context opened afterwards is the outermost one again
    gm.with_cuda({ backend = "emulated", n_pool_bytes = 4096 }, function()
      assert.has_error(function() gm.fill_(1, gm.mat(1000)) end)
    end)
  end)

  it("runs in a coroutine, and coroutines inside the body may yield", function()
    local co = coroutine.wrap(function()
      return gm.with_cuda(EMU, function()
        local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)
        return gen() + gen() + gen(), gm.use_cuda_p()
      end)
    end)
    local sum, on = co()
    assert.are.equal(6, sum)
    assert.is_true(on)
  end)

  it("rounds n_random_states up to a multiple of 32 with a warning", function()
    local warned = {}
    local old = _G.warn
    _G.warn = function(msg) warned[#warned + 1] = msg end
    local ok, err = pcall(gm.with_cuda, { backend = "emulated", n_random_states = 33 }, function() end)
    gm.with_cuda({ backend = "emulated", n_random_states = 64 }, function() end)
    _G.warn = old
    assert.is_true(ok, err)
    assert.are.same({ "gpumat: with_cuda: n_random_states 33 rounded up to a multiple of 32 (64)" }, warned)
  end)

  it("checks its arguments", function()
    local f = function() end
    assert.has_error(function() gm.with_cuda({}, nil) end,
      "bad argument #2 to 'with_cuda' (function expected, got nil)")
    assert.has_error(function() gm.call_with_cuda(nil, {}) end,
      "bad argument #1 to 'call_with_cuda' (function expected, got nil)")
    assert.has_error(function() gm.with_cuda({ backend = "gpu" }, f) end,
      "bad argument #1 to 'with_cuda' (option 'backend' must be \"cuda\" or \"emulated\", got gpu)")
    assert.has_error(function() gm.call_with_cuda(f, { device = 1 }) end,
      "bad argument #2 to 'call_with_cuda' (unknown option 'device')")
    assert.has_error(function() gm.with_cuda({ n_pool_bytes = -1 }, f) end,
      "bad argument #1 to 'with_cuda' (option 'n_pool_bytes' must be non-negative, got -1)")
    assert.has_error(function() gm.with_cuda({ enabled = 1 }, f) end,
      "bad argument #1 to 'with_cuda' (option 'enabled' must be a boolean, got number)")
    assert.has_error(function() gm.with_cuda({ n_random_states = 0 }, f) end,
      "bad argument #1 to 'with_cuda' (option 'n_random_states' must be in 1..16777216, got 0)")
    assert.has_error(function() gm.with_cuda("x", f) end,
      "bad argument #1 to 'with_cuda' (options table expected, got string)")
  end)
end)

describe("use_cuda_p", function()
  it("is false outside a context #outermost", function()
    assert.is_false(gm.use_cuda_p())
    assert.is_false(gm.use_cuda_p(gm.mat(1)))
  end)

  it("checks its arguments", function()
    assert.has_error(function() gm.use_cuda_p(gm.mat(1), 3) end,
      "bad argument #2 to 'use_cuda_p' (gpumat.mat expected, got number)")
  end)
end)

describe("synchronize and collect", function()
  it("work inside and outside contexts", function()
    gm.synchronize()
    gm.collect()
    gm.with_cuda(EMU, function()
      local m = gm.mat(10)
      gm.fill_(1, m)
      gm.synchronize()
      gm.collect()
      assert.are.same(1, m[10])
    end)
  end)
end)

describe("counters and cuda_room", function()
  it("counters has every field", function()
    local c = gm.counters()
    for _, k in ipairs { "n_memcpy_host_to_device", "n_memcpy_device_to_host", "device_bytes_in_use",
      "device_bytes_pooled", "n_device_arrays", "host_bytes_in_use", "n_host_arrays", "n_ooms",
      "n_host_registrations" } do
      assert.are.equal("integer", math.type(c[k]), k)
      assert.is_true(c[k] >= 0, k)
    end
  end)

  it("cuda_room is empty when cuda is not in use #outermost", function()
    assert.are.equal("", gm.cuda_room())
    gm.with_cuda({ backend = "emulated", enabled = false }, function()
      assert.are.equal("", gm.cuda_room())
    end)
  end)

  it("cuda_room uses MGL's verbose and concise layouts #outermost", function()
    collectgarbage()
    gm.collect() -- no cached blocks from earlier tests
    gm.with_cuda(EMU, function()
      -- 8000 bytes -> one 8192-byte piece of a 2 MiB segment, whose rest is pooled
      local a = gm.mat(1000, { initial_element = 1 })
      gm.scal_(2, a)
      local v = gm.cuda_room()
      assert.are.equal("CUDA memory usage:\n" ..
        "device arrays: 1 (used bytes: 8,192, pooled bytes: 2,088,960)\n" ..
        "host arrays: 0 (used bytes: 0)\n" ..
        "host->device copies: 0, device->host copies: 0\n", v)
      assert.are.equal(v, gm.cuda_room({ verbose = true }))
      assert.are.equal(2, a[1])
      assert.are.equal("d: 1 (8,192 + 2,088,960), h: 0 (0)\nh->d: 0, d->h: 1\n", gm.cuda_room({ verbose = false }))
    end)
  end)

  it("cuda_room checks its options", function()
    assert.has_error(function() gm.cuda_room({ verbos = true }) end,
      "bad argument #1 to 'cuda_room' (unknown option 'verbos')")
    assert.has_error(function() gm.cuda_room({ verbose = 1 }) end,
      "bad argument #1 to 'cuda_room' (option 'verbose' must be a boolean, got number)")
  end)
end)

describe("choose_*_block_and_grid", function()
  it("1d: whole warps, at most max_warps per block, blocks in 1..112", function()
    local b, g = gm.choose_1d_block_and_grid(1000, 4)
    assert.are.same({ 128, 1, 1 }, b) -- 32 warps, 4 per block
    assert.are.same({ 8, 1, 1 }, g)
    b, g = gm.choose_1d_block_and_grid(1, 4)
    assert.are.same({ 32, 1, 1 }, b)
    assert.are.same({ 1, 1, 1 }, g)
    b, g = gm.choose_1d_block_and_grid(0, 4)
    assert.are.same({ 32, 1, 1 }, b)
    assert.are.same({ 1, 1, 1 }, g)
    b, g = gm.choose_1d_block_and_grid(100, 8) -- 4 warps
    assert.are.same({ 128, 1, 1 }, b)
    assert.are.same({ 1, 1, 1 }, g)
    b, g = gm.choose_1d_block_and_grid(10000000, 4)
    assert.are.same({ 128, 1, 1 }, b)
    assert.are.same({ 112, 1, 1 }, g)
    assert.are.equal(32, gm.cuda_warp_size)
    assert.are.equal(112, gm.cuda_max_n_blocks)
  end)

  it("2d: block x is a warp, grid x is 1", function()
    local b, g = gm.choose_2d_block_and_grid({ 10, 40 }, 4) -- 10 rows of 64 -> 20 warps
    assert.are.same({ 32, 4, 1 }, b)
    assert.are.same({ 1, 5, 1 }, g)
    b, g = gm.choose_2d_block_and_grid({ 1, 1 }, 4)
    assert.are.same({ 32, 1, 1 }, b)
    assert.are.same({ 1, 1, 1 }, g)
    b, g = gm.choose_2d_block_and_grid({ 10000, 1000 }, 8)
    assert.are.same({ 32, 8, 1 }, b)
    assert.are.same({ 1, 112, 1 }, g)
  end)

  it("3d: thickness * height rows of width", function()
    local b, g = gm.choose_3d_block_and_grid({ 2, 3, 33 }, 4) -- 6 rows of 64 -> 12 warps
    assert.are.same({ 32, 4, 1 }, b)
    assert.are.same({ 1, 3, 1 }, g)
    b, g = gm.choose_3d_block_and_grid({ 1, 1, 1 }, 2)
    assert.are.same({ 32, 1, 1 }, b)
    assert.are.same({ 1, 1, 1 }, g)
  end)

  it("checks its arguments", function()
    assert.has_error(function() gm.choose_1d_block_and_grid(-1, 4) end,
      "bad argument #1 to 'choose_1d_block_and_grid' (n must be a non-negative integer, got -1)")
    assert.has_error(function() gm.choose_1d_block_and_grid(10, 0) end,
      "bad argument #2 to 'choose_1d_block_and_grid' (max_warps must be a positive integer, got 0)")
    assert.has_error(function() gm.choose_2d_block_and_grid({ 1 }, 4) end,
      "bad argument #1 to 'choose_2d_block_and_grid' (list of 2 dimensions expected)")
    assert.has_error(function() gm.choose_3d_block_and_grid({ 1, 2, 1.5 }, 4) end,
      "bad argument #1 to 'choose_3d_block_and_grid' (dimension 3 must be a non-negative integer, got 1.5)")
  end)
end)

-- cuBLAS, cuSOLVER, cuFFT, NVRTC and NCCL are opened on first use
-- (src/device/cuda/libs.h): linked, they made `require "gpumat"` 235 MB
-- resident on a CUDA-enabled build, with no GPU.  Each check runs in a
-- process of its own (what is mapped is per process), once: in the host
-- pass, the device passes would check the same thing again.
describe("the CUDA libraries, opened on first use", function()
  local core = require "gpumat.core"
  local build = os.getenv("GPUMAT_BUILD_DIR") or "build"
  local function run(env, body)
    local script = [[
      package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
      package.cpath = ]] .. ("%q"):format(build .. "/?.so") .. [[ .. ";" .. package.cpath
      local gm = require "gpumat"
      local core = require "gpumat.core"
      local function mapped()
        local seen, names = {}, {}
        for line in io.lines("/proc/self/maps") do
          local lib = line:match("/(lib[%w_]+)[^/]*%.so[^/]*$")
          local stem = lib and lib:lower():match("^lib(%a+)")
          if stem and not seen[lib] and (stem:find("^cu[bsf]") or stem:find("^nv") or stem == "nccl") then
            seen[lib] = true
            names[#names + 1] = lib
          end
        end
        table.sort(names)
        return table.concat(names, " ")
      end
    ]] .. body
    -- (%q's newlines are line continuations to the shell: no comments in
    -- script; mapped() lists the CUDA libraries and those they bring)
    local p = assert(io.popen(("%s lua5.4 -e %q 2>&1"):format(env, script)))
    local out = p:read("a")
    p:close()
    return out
  end
  local function need_cuda_build()
    if #core._cuda_libraries() == 0 then
      pending("a build without the CUDA toolkit opens no CUDA library")
      return false
    end
    if os.getenv("GPUMAT_DEVICE") or os.getenv("GPUMAT_TEST_GC") then
      pending("checked in the host pass (a process of its own, the same in every pass)")
      return false
    end
    return true
  end

  it("are not mapped by require, host and emulated ops, cuda_available; each opens with every symbol #host", function()
    if not need_cuda_build() then return end
    local out = run("", [[
      local a = gm.mat({ 4, 4 }, { ctype = "double", initial_element = 1 })
      local host = gm.sum(gm.matmul(a + 1, a))
      local emu = gm.with_cuda({ backend = "emulated" }, function()
        local b = gm.mat({ 4, 4 }, { ctype = "double", initial_element = 1 })
        local f = gm.fft.fft(gm.mat(8, { ctype = "complex128", initial_element = 1 }))
        return gm.sum(gm.matmul(b + 1, b)) + gm.invert(b * 0 + gm.eye(4)):sum() + f:real()[1]
      end)
      local ok = gm.cuda_available()
      print("values", host, emu, tostring(ok))
      print("before", mapped())
      for _, l in ipairs(core._cuda_libraries(true)) do
        print("library", l.name, l.file, l.symbols, l.error or "ok")
      end
      print("after", mapped())]])
    -- 2*4 per element of the product, 16 elements; + the emulated identity's
    -- inverse (sum 4) and the first bin of the FFT of eight ones (8)
    assert.truthy(out:find("\nvalues\t128%.?0*\t140%.?0*\t") or out:find("^values\t128%.?0*\t140%.?0*\t"), out)
    assert.are.equal("", out:match("before\t([^\n]*)"), out)
    local names, after = {}, out:match("after\t([^\n]*)") or ""
    for name, file, n, err in out:gmatch("library\t([^\t]+)\t([^\t]+)\t(%d+)\t([^\n]+)") do
      names[#names + 1] = name
      assert.are.equal("ok", err)
      assert.is_true(tonumber(n) >= 9, name)
      -- mapped now, by its soname
      assert.truthy(after:find(file:match("^(lib[%w_]+)"), 1, true), name .. " not mapped after its load: " .. after)
    end
    assert.are.equal("cuBLAS cuSOLVER cuFFT NVRTC", table.concat(names, " ", 1, 4), out)
    assert.truthy(#names == 4 or (#names == 5 and names[5] == "NCCL"), out)
  end)

  it("one that cannot be opened, or lacks a symbol, fails at its first use naming the file and why #host", function()
    if not need_cuda_build() then return end
    local nvrtc_file
    for _, l in ipairs(core._cuda_libraries()) do
      if l.name == "NVRTC" then nvrtc_file = l.file end
    end
    -- NVRTC's file as cuFFT's: a library that opens but has no cufftPlanMany
    local out = run(("GPUMAT_NVRTC_LIBRARY=/nonexistent/libnvrtc.so.13 GPUMAT_CUFFT_LIBRARY=%q"):format(nvrtc_file), [[
      local k = gm.define_cuda_kernel { name = "spec_lib_probe", ctypes = { "float" }, params = {}, body = "" }
      print("ptx", select(2, pcall(k.ptx, k, "float", 8, 0)))
      print("fft", core._cuda_libraries("cuFFT")[3].error)
      print("mapped", mapped())
      print("x", gm.sum(gm.mat(3, { initial_element = 2 })))]])
    assert.truthy(out:find("ptx\tspec_lib_probe: NVRTC (/nonexistent/libnvrtc.so.13) could not be loaded: " ..
      "/nonexistent/libnvrtc.so.13: cannot open shared object file", 1, true), out)
    assert.truthy(out:find(("fft\tcuFFT (%s) could not be loaded: it has no cufftPlanMany, which gpumat (built " ..
      "against libcufft.so."):format(nvrtc_file), 1, true), out)
    -- the library without the symbol was closed again; gpumat still works
    assert.are.equal("", out:match("mapped\t([^\n]*)"), out)
    assert.truthy(out:find("\nx\t6", 1, true), out)
  end)
end)
