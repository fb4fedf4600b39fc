-- Compares two Markdown reports of bench/run.lua (--markdown), e.g. the
-- same benchmarks built from two commits and run back to back:
--
--   lua5.4 bench/compare.lua BEFORE.md AFTER.md [--markdown OUT.md]
--
-- For every case present in both it prints gpumat's time per call in each
-- report and after/before (> 1: slower after), and the first baseline's
-- time ratio in each (the ratio is what the goals are judged on, and it
-- suffers less from load that affects both sides of a run).  Cases in
-- only one report are listed at the end.
package.path = "bench/lib/?.lua;" .. package.path
local report = require "bench_report"

local function parse_time(s)
  local v, unit = s:match("^([%d.]+) (%S+)$")
  if not v then return nil end
  local scale = { ns = 1e-9, ["µs"] = 1e-6, ms = 1e-3, s = 1 }
  return scale[unit] and tonumber(v) * scale[unit]
end

local function cells(line)
  local out = {}
  line = line:gsub("\\|", "\0") -- an escaped bar inside a case name
  for c in line:gmatch("|([^|]*)") do out[#out + 1] = (c:match("^%s*(.-)%s*$"):gsub("\0", "\\|")) end
  out[#out] = nil -- the text after the last bar
  return out
end

-- {order = {name...}, [name] = {t = seconds, ratio = number|nil}}
local function read_report(path)
  local fh = assert(io.open(path, "r"))
  local cases, file = { order = {} }, "?"
  for line in fh:lines() do
    file = line:match("^### .-%(`(bench/[%w_]+%.lua)`%)") or file
    local c = line:match("^|") and cells(line)
    if c and #c >= 5 and c[1] ~= "" and c[1] ~= "case" and not c[1]:match("^%-+$") then
      local name = file .. ": " .. c[1]
      if not cases[name] then
        cases[name] = { t = parse_time(c[2]), ratio = tonumber(c[5]) }
        cases.order[#cases.order + 1] = name
      end
    end
  end
  fh:close()
  return cases
end

local function fmt(x, f) return x and string.format(f, x) or "-" end

local fmt_t = report.fmt_time

local before_path, after_path, out_path = arg[1], arg[2], nil
for i = 3, #arg do
  if arg[i] == "--markdown" then out_path = arg[i + 1] end
end
if not before_path or not after_path then
  io.stderr:write("usage: lua5.4 bench/compare.lua BEFORE.md AFTER.md [--markdown OUT.md]\n")
  os.exit(2)
end
local before, after = read_report(before_path), read_report(after_path)

local lines = {
  "| case | before / call | after / call | after / before | ratio before | ratio after |",
  "|---|---|---|---|---|---|",
}
local only = {}
for _, name in ipairs(after.order) do
  local b, a = before[name], after[name]
  if b then
    local change = (a.t and b.t) and a.t / b.t or nil
    lines[#lines + 1] = string.format("| %s | %s | %s | %s | %s | %s |", name, fmt_t(b.t), fmt_t(a.t),
      fmt(change, "%.3f"), fmt(b.ratio, "%.3f"), fmt(a.ratio, "%.3f"))
  else
    only[#only + 1] = "only in " .. after_path .. ": " .. name
  end
end
for _, name in ipairs(before.order) do
  if not after[name] then only[#only + 1] = "only in " .. before_path .. ": " .. name end
end
local text = table.concat(lines, "\n") .. "\n" .. (#only > 0 and ("\n" .. table.concat(only, "\n") .. "\n") or "")
io.write(text)
if out_path then
  local fh = assert(io.open(out_path, "w"))
  fh:write(text)
  fh:close()
end
