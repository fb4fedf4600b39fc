-- gm.help / gm.help_text: generated from docs/API.md (tools/gen-help.lua),
-- current, and covering every function of the module and every method.
local gm = require "gpumat"

-- Functions that need no entry of their own.  Keep this list short.
local exceptions = {
  -- internal helper of lua/gpumat/buffer.lua that init.lua copies into gm
  -- with the C functions (a "_" prefix would keep it out)
  buffer_dispatch = true,
}

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

describe("gm.help", function()
  it("help_data.lua is what tools/gen-help.lua makes of docs/API.md (regenerate after editing it) #host #source", function()
    local p = assert(io.popen("lua5.4 tools/gen-help.lua --stdout", "r"))
    local fresh = p:read("a")
    assert.is_true(p:close())
    assert.is_true(#fresh > 1000)
    if fresh ~= read("lua/gpumat/help_data.lua") then
      error("lua/gpumat/help_data.lua is stale: run `lua5.4 tools/gen-help.lua` and commit the result", 0)
    end
  end)

  it("has an entry for every module function and every method #host", function()
    local data = require "gpumat.help_data"
    local methods = getmetatable(gm.mat(1)).__methods
    local missing = {}
    for k, v in pairs(gm) do
      if type(v) == "function" and not data[k] and not exceptions[k] then missing[#missing + 1] = "gm." .. k end
    end
    for k, v in pairs(methods) do
      if type(v) == "function" and not data[k] and not exceptions[k] then missing[#missing + 1] = "m:" .. k end
    end
    table.sort(missing)
    assert.are.same({}, missing, "document these in docs/API.md (then run tools/gen-help.lua)")
  end)

  it("has an entry for every row of the op table (kernels/op_table.h), a unary row's F_ too #host", function()
    local data = require "gpumat.help_data"
    local core = require "gpumat.core"
    local missing = {}
    for _, row in ipairs(core._op_table) do
      -- a "_" prefix marks an internal row (_truth: lua/gpumat's logical ops)
      if row.name:sub(1, 1) ~= "_" then
        local names = row.family == "unary" and { row.name, row.name .. "_" } or { row.name }
        for _, name in ipairs(names) do
          if not data[name] then missing[#missing + 1] = name end
        end
      end
    end
    assert.is_true(#core._op_table >= 80)
    assert.are.same({}, missing, "document these in docs/API.md (then run tools/gen-help.lua)")
  end)

  it("finds topics by name, qualified name and function value", function()
    local t = gm.help_text("asum")
    assert.are.equal(t, gm.help_text("gm.asum"))
    assert.are.equal(t, gm.help_text(gm.asum))
    assert.are.equal(t, gm.help_text("x:asum"))
    assert.are.equal(
      "gm.asum(x, {n, incx})  |  x:asum(opts)\n" ..
      "  module function: gm.asum(x, {n, incx}) | method: x:asum(opts) | returns: sum\n" ..
      "  of absolute values\n" ..
      "  (docs/API.md, \"BLAS\")", t)
    local dims = gm.help_text(gm.mat(1).dims)
    assert.matches("^m:dims%(%)\n  Readers: m:ctype%(%) m:displacement%(%) m:dims%(%)", dims)
    assert.matches("^m:sum%(%)  |  m:sum%(axis, opts%)  |  gm%.sum%(m, axis, opts%)\n  m:sum%(%), m:mean%(%), m:min%(%), m:max%(%) → Lua numbers",
      gm.help_text("sum"))
    assert.matches("^gm%.exp_%(x, {n}%)  |  x:exp_%({n}%)\n", gm.help_text("exp_"))
    -- the whole entry (trial bug B5): every block that defines a topic,
    -- a table row's cells under their headers and its section's bullet
    local gemm = gm.help_text("gemm_")
    assert.truthy(gemm:find("module function: gm.gemm_(alpha, a, b, beta, c, opts) | method:", 1, true), gemm)
    assert.truthy(gemm:find("\n\n  gemm_: C := alpha op(A) op(B) + beta C", 1, true), gemm)
    local sum = gm.help_text(gm.sum):gsub("%s+", " ")
    assert.truthy(sum:find("→ Lua numbers over the", 1, true), sum)
    assert.truthy(sum:find("the reduction along the 1-based axis", 1, true), sum)
    -- functions listed in missing.lua have a "not implemented" entry
    local first_missing = read("lua/gpumat/missing.lua"):match('local missing = %b{}'):match('"([%w_]+)"')
    if first_missing then
      assert.matches("Not implemented in this version", gm.help_text(first_missing))
    end
  end)

  it("gm.help prints and returns nothing; gm.help() lists the topics", function()
    local printed = {}
    local old = print
    _G.print = function(s) printed[#printed + 1] = s end
    local ok, n = pcall(function() return select("#", gm.help("format_mat")), select("#", gm.help()) end)
    _G.print = old
    assert.is_true(ok, n)
    assert.are.equal(0, n)
    assert.are.equal(gm.help_text("format_mat"), printed[1])
    assert.matches("^gpumat %S+ help topics", printed[2])
    assert.matches("%sformat_mat%s", printed[2]) -- a space or the end of a wrapped line
  end)

  it("raises clear errors for unknown topics and bad arguments", function()
    local ok, err = pcall(gm.help, "no_such_function")
    assert.is_false(ok)
    assert.are.equal("bad argument #1 to 'help' (no help for 'no_such_function' (gm.help() lists the topics))", err)
    ok, err = pcall(gm.help, print)
    assert.are.equal("bad argument #1 to 'help' (not a gpumat function)", err)
    ok, err = pcall(gm.help_text, 42)
    assert.are.equal("bad argument #1 to 'help_text' (function or name expected, got number)", err)
  end)
end)
