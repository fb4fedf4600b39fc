-- Ops the surveys of bench/RESULTS.md ("A fifth survey") found slow, as
-- users write them, each allocating its result, against numpy's same
-- expression in the same run (goal time <= 1.0x numpy's): row max and
-- argmax, gm.eye, gm.roll, gm.concat, a small product, the Gram matrix
-- X^T X (numpy's syrk), and astype between floats and 64/32-bit integers.
-- Data: the bench pattern (0.25..0.75); the conversions read it times
-- 1000, or integers (k * 37) % 2001 - 1000, the same on both sides.
local gm = require "gpumat"
local U = require "bench_util"

local M1 = { 1024, 1024 }
-- label, numpy op, dims, ctypes, gm functions needed, make(x) -> the call
local FORMS = {
  { "gm.max(X, {axis = 2})", "sv_max_rows", M1, { "float", "double" }, { "max" },
    function(x) return function() return gm.max(x, { axis = 2 }) end end },
  { "gm.argmax(X, 2)", "sv_argmax_rows", M1, { "float", "double" }, { "argmax" },
    function(x) return function() return gm.argmax(x, 2) end end },
  { "gm.eye(n)", "sv_eye", { 1000 }, { "double" }, { "eye" },
    function() return function() return gm.eye(1000) end end },
  { "gm.roll(v, 5)", "sv_roll", { 1048576 }, { "float" }, { "roll" },
    function(x) return function() return gm.roll(x, 5) end end },
  { "gm.concat({X, X})", "sv_concat", M1, { "float" }, { "concat" },
    function(x) return function() return gm.concat({ x, x }) end end },
  { "gm.matmul(A, A)", "sv_matmul", { 64, 64 }, { "float" }, { "matmul" },
    function(x) return function() return gm.matmul(x, x) end end },
  { "gm.matmul(X:t(), X)", "sv_gram", M1, { "float" }, { "matmul" },
    function(x) return function() return gm.matmul(x:t(), x) end end },
  { "(X * 1000):astype(\"int64\")", "sv_to_i64", { 1048576 }, { "float", "double" }, { "astype" },
    function(x) local b = x * 1000; return function() return b:astype("int64") end end },
  { "(X * 1000):astype(\"int32\")", "sv_to_i32", { 1048576 }, { "double" }, { "astype" },
    function(x) local b = x * 1000; return function() return b:astype("int32") end end },
  { "int64 v:astype(dtype)", "sv_from_i64", { 1048576 }, { "float", "double" }, { "astype" },
    function(x, ctype)
      local k = gm.arange(x:size())
      local v = gm.cmul(k, 37) % 2001 - 1000
      return function() return v:astype(ctype) end
    end },
}

local cases = {}
for _, form in ipairs(FORMS) do
  local name, np_op, dims, ctypes, requires, make = table.unpack(form)
  for _, ctype in ipairs(ctypes) do
    cases[#cases + 1] = {
      name = string.format("%s, %s %s", name, table.concat(dims, "x"), ctype),
      group = "surveys",
      requires = requires, -- (and copy_, which pattern_mat uses)
      prepare = function()
        local x = U.pattern_mat(gm, dims, ctype)
        return U.last_of(make(x, ctype)), nil, function() U.free(x) end
      end,
      against = { {
        label = "numpy",
        numpy = { op = np_op, dtype = ctype, dims = dims },
        goal = U.time_at_most(1.0, "numpy"),
      } },
    }
  end
end

return {
  order = 16,
  title = "Ops the surveys found slow (allocating forms)",
  description = "Ops as users write them that the surveys of bench/RESULTS.md timed against numpy; " ..
    "each call allocates its result, numpy runs the same expression.",
  notes = {
    "gm.argmax(X, 2) is numpy's a.argmax(axis=1) (gpumat's axes are 1-based; its indices too).",
    "gm.matmul(X:t(), X) runs syrk on the host (half the products), as numpy's a.T @ a does.",
  },
  cases = cases,
}
