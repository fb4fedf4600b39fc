-- The GPU path (MGL-MAT §18.3, §19.2): scoped contexts and launch geometry.
-- The scoped forms hold the C object in a to-be-closed variable: exit runs
-- also when the body errors, and the body's error passes through untouched
-- (with its traceback).  The body is called through core.cuda_call (a C
-- call without continuation), so a coroutine cannot yield out of it: the
-- context stack is per OS thread and must not stay pushed while other
-- code runs; in a coroutine cuda_call also closes the scope on error
-- (Lua leaves to-be-closed variables of a coroutine that died open).
return function(gm, core, methods)
  for _, k in ipairs { "cuda_context", "syncing_cuda_facets", "cuda_call" } do gm[k] = nil end
  local call = core.cuda_call
  local argerror = require("gpumat.argcheck").argerror

  local function check_fn(fn, argn, fname)
    if type(fn) ~= "function" then
      argerror(argn, fname, "function expected, got %s", type(fn))
    end
  end

  local function run(a1, a2, fn, fname, optarg)
    local ctx <close>, asked = core.cuda_context(a1, a2, fname, optarg)
    if asked then
      warn(("gpumat: %s: n_random_states %d rounded up to a multiple of 32 (%d)"):format(
        fname, asked, (asked + 31) // 32 * 32))
    end
    return call(fn, ctx)
  end

  -- gm.with_cuda({enabled, device_id, random_seed, n_random_states,
  -- n_pool_bytes, backend}, fn) -> fn's results
  function gm.with_cuda(opts, fn)
    check_fn(fn, 2, "with_cuda")
    return run(opts, fn, fn, "with_cuda", 1)
  end

  -- gm.call_with_cuda(fn, opts) -> fn's results
  function gm.call_with_cuda(fn, opts)
    check_fn(fn, 1, "call_with_cuda")
    return run(fn, opts, fn, "call_with_cuda", 2)
  end

  -- gm.with_syncing_cuda_facets(to_cuda, to_cuda_host, {safe}, fn); the
  -- options table may be left out.
  function gm.with_syncing_cuda_facets(to_cuda, to_cuda_host, opts, fn)
    if fn == nil and type(opts) == "function" then opts, fn = nil, opts end
    check_fn(fn, 4, "with_syncing_cuda_facets")
    local token <close> = core.syncing_cuda_facets(to_cuda, to_cuda_host, opts)
    return call(fn, token)
  end

  -- Launch geometry (MGL's choose-*-block-and-grid): pure arithmetic with
  -- MGL's constants, warp size 32 and at most 112 blocks (8 per
  -- streaming multiprocessor of a 14-SM card).
  local warp, max_blocks = 32, 112
  gm.cuda_warp_size, gm.cuda_max_n_blocks = warp, max_blocks

  local function clip(x, lo, hi) return math.max(lo, math.min(hi, x)) end
  -- no a + b - 1: a may be near math.maxinteger
  local function ceil_div(a, b) return a // b + (a % b > 0 and 1 or 0) end
  -- a * b of non-negative integers, or an error naming fname on overflow
  local function mul(a, b, fname)
    if b ~= 0 and a > math.maxinteger // b then
      argerror(1, fname, "dimensions too large: %d * %d overflows", a, b)
    end
    return a * b
  end

  local function check_count(x, argn, fname, what)
    if math.type(x) ~= "integer" or x < 0 then
      argerror(argn, fname, "%s must be a non-negative integer, got %s", what,
        math.type(x) and tostring(x) or type(x))
    end
  end

  local function check_warps(w, fname)
    if math.type(w) ~= "integer" or w < 1 then
      argerror(2, fname, "max_warps must be a positive integer, got %s", math.type(w) and tostring(w) or type(w))
    end
  end

  local function check_dims(dims, rank, fname)
    if type(dims) ~= "table" or #dims ~= rank then
      argerror(1, fname, "list of %d dimensions expected", rank)
    end
    for i = 1, rank do check_count(dims[i], 1, fname, "dimension " .. i) end
  end

  -- gm.choose_1d_block_and_grid(n, max_warps) -> {x, 1, 1}, {x, 1, 1}
  function gm.choose_1d_block_and_grid(n, max_warps)
    check_count(n, 1, "choose_1d_block_and_grid", "n")
    check_warps(max_warps, "choose_1d_block_and_grid")
    local n_warps = ceil_div(n, warp)
    local per_block = clip(n_warps, 1, max_warps)
    local n_blocks = clip(n_warps // per_block, 1, max_blocks)
    return { warp * per_block, 1, 1 }, { n_blocks, 1, 1 }
  end

  local function choose_nd(dims, max_warps, fname, rank)
    check_dims(dims, rank, fname)
    check_warps(max_warps, fname)
    local rows = 1
    for i = 1, rank - 1 do rows = mul(rows, dims[i], fname) end
    local n_warps = mul(rows, ceil_div(dims[rank], warp), fname) -- whole warps per row
    local per_block = clip(n_warps, 1, max_warps)
    local n_blocks = clip(n_warps // per_block, 1, max_blocks)
    return { warp, per_block, 1 }, { 1, n_blocks, 1 }
  end

  -- gm.choose_2d_block_and_grid({height, width}, max_warps)
  function gm.choose_2d_block_and_grid(dims, max_warps)
    return choose_nd(dims, max_warps, "choose_2d_block_and_grid", 2)
  end

  -- gm.choose_3d_block_and_grid({thickness, height, width}, max_warps)
  function gm.choose_3d_block_and_grid(dims, max_warps)
    return choose_nd(dims, max_warps, "choose_3d_block_and_grid", 3)
  end

  methods.use_cuda_p = core.use_cuda_p
end
