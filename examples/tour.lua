-- A short tour of gpumat's mats: creating, filling, reshaping, displacing,
-- printing and reading back.  Run from the repository root:
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' lua5.4 examples/tour.lua
local gm = require "gpumat"

local function show(label, x) print(("%-34s %s"):format(label, tostring(x))) end

print("gpumat " .. gm.version .. " -- a tour of mats\n")

-- A mat owns no memory until a facet is first used: "-" means no facets.
local m = gm.mat({2, 3}, {initial_element = 1})
show("gm.mat({2, 3}, {initial_element = 1})", m)

-- Elements are 1-based; writing creates the host ("foreign") facet, F.
m:set(1, 2, 5)
m[{2, 3}] = 7
m[4] = -2 -- row-major index
show("after m:set, m[{2,3}], m[4]", m)
print(("%-34s %g, %g, %d"):format("m:mref(1, 2), m[{2, 3}], #m", m:mref(1, 2), m[{2, 3}], #m))

-- Contents from nested tables; float mats print the shortest float text.
local f = gm.mat({2, 2}, {ctype = "float", initial_contents = {{0.1, 0.2}, {0.3, 0.4}}})
show("float initial_contents", f)

-- Shaping: functional views share storage with the original.
local flat = m:reshape(6)
show("m:reshape(6)", flat)
local mid = m:reshape_and_displace({2, 2}, 1)
show("m:reshape_and_displace({2,2}, 1)", mid) -- 1+2x2+1: displacement+dims+slack
mid[{1, 1}] = 100
show("after mid[{1,1}] = 100, m is", m)

-- Destructive shaping changes the view itself.
flat:displace_(0):reshape_({3, 2})
show("flat:reshape_({3, 2})", flat)
gm.with_shape_and_displacement(flat, {1, 2}, 4, function(row)
  show("  temporarily {1,2} at 4", row)
end)
show("  restored", flat)

-- displaced_to: displacement relative to the target, may be negative.
local base = gm.mat(10, {initial_element = 5, displacement = 1, max_size = 11})
local view = gm.mat(6, {displaced_to = base, displacement = 2})
for i = 1, #view do view[i] = i end
show("base", base)
show("view displaced_to base", view)

-- Reading back as Lua tables.
local t = m:to_table()
local function row(r) return ("%g, %g, %g"):format(r[1], r[2], r[3]) end
print(("%-34s {{%s}, {%s}}"):format("m:to_table()", row(t[1]), row(t[2])))

-- Facets: scoped access hands C code a pointer; printing never changes facets.
gm.with_facet(m, "foreign", "input", function(ptr)
  print(("%-34s %s, watchers %d"):format("with_facet pointer", type(ptr), m:find_facet("foreign").n_watchers))
end)

-- Debugging: count allocations and report host memory.
local count, bytes = gm.with_mat_counters(function() gm.mat(1000, {ctype = "float"}) end)
print(("%-34s %d mat(s), %d bytes"):format("with_mat_counters", count, bytes))
io.write(gm.mat_room())

-- Large mats print summarized.
gm.print_max_elements = 10
show("a 100-element mat", gm.array_to_mat((function() local r = {} for i = 1, 100 do r[i] = i end return r end)()))
