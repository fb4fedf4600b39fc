#!/usr/bin/env lua5.4
-- Generates lua/gpumat/help_data.lua (the text of gm.help) from docs/API.md
-- and lua/gpumat/missing.lua, so help and the reference cannot drift:
-- spec/help_spec.lua regenerates it and compares with the checked-in file.
--   lua5.4 tools/gen-help.lua            rewrite lua/gpumat/help_data.lua
--   lua5.4 tools/gen-help.lua --stdout   print what it would write
--
-- How an entry is found: docs/API.md is cut into blocks (a bullet with
-- its continuation lines, a table row, a paragraph; code fences skipped).
-- Every call written in a code span, `gm.name(...)` or `x:name(...)`,
-- names a topic.  A block defines a topic when the call is in its head
-- (a bullet's text up to the first ": " outside code spans that follows a
-- code span, or a table row's first two cells); otherwise it only
-- mentions it.  Each topic gets its first defining block, else its first
-- mention.  "`gm.F_(x)` for F in `a b c`" expands F (`gm.F(x)` too).  Functions listed in
-- missing.lua get a "not implemented" entry.
local root = arg[0]:match("^(.*)/tools/[^/]*$") or "."
local function slurp(path)
  local f = assert(io.open(root .. "/" .. path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- ---- blocks ----
local blocks, section = {}, ""
do
  local cur, fence = nil, false
  local function flush()
    if cur then blocks[#blocks + 1] = cur end
    cur = nil
  end
  for line in (slurp("docs/API.md") .. "\n"):gmatch("([^\n]*)\n") do
    if line:match("^```") then
      flush()
      fence = not fence
    elseif fence then -- skip code examples
    elseif line:match("^#+ ") then
      flush()
      section = line:gsub("^#+%s*", "")
    elseif line:match("^%s*$") then
      flush()
    elseif line:match("^|") then
      flush()
      if not line:match("^|%s*%-%-%-") then
        local cells = {}
        for c in line:gsub("^|", ""):gmatch("([^|]*)|") do cells[#cells + 1] = c:match("^%s*(.-)%s*$") end
        -- the first row of a table is its header: its cells label the
        -- cells of the rows below in the help text
        local prev = blocks[#blocks]
        local header = prev and prev.kind == "row" and prev.header_cells or nil
        local row = { kind = "row", cells = cells, section = section }
        if prev and prev.kind == "row" and header == nil then header = prev.cells end
        row.header_cells = header
        blocks[#blocks + 1] = row
      end
    elseif line:match("^%- ") then
      flush()
      cur = { kind = "bullet", lines = { (line:gsub("^%- ", "")) }, section = section }
    elseif cur and (cur.kind == "para" or line:match("^%s+")) then
      cur.lines[#cur.lines + 1] = line:match("^%s*(.-)%s*$")
    else
      flush()
      cur = { kind = "para", lines = { line }, section = section }
    end
  end
  flush()
end

-- Text with single spaces and code spans kept.
local function join(lines) return (table.concat(lines, " "):gsub("%s+", " ")) end

-- Head of a bullet/paragraph: up to the first ": " outside code spans that
-- comes after a code span.
local function head_of(text)
  local in_code, seen = false, false
  for i = 1, #text do
    local c = text:sub(i, i)
    if c == "`" then
      in_code = not in_code
      if not in_code then seen = true end
    elseif not in_code and seen and text:sub(i, i + 1) == ": " then
      return text:sub(1, i - 1)
    end
  end
  return text
end

local function spans(text)
  local t = {}
  for s in text:gmatch("`([^`]+)`") do t[#t + 1] = s end
  return t
end

-- Calls in a code span: { name, call text } (the call text up to the
-- matching parenthesis, or brace for a table-argument call `gm.f{...}`).
local function calls(span)
  local out = {}
  local i = 1
  while true do
    local s, e, recv, name, open = span:find("([%w_]+)[.:]([%w_]+)%s*([%({])", i)
    if not s then break end
    local close = open == "(" and ")" or "}"
    local depth, j = 0, e
    while j <= #span do
      local c = span:sub(j, j)
      if c == open then depth = depth + 1 elseif c == close then depth = depth - 1 end
      if depth == 0 then break end
      j = j + 1
    end
    local dot = span:sub(s + #recv, s + #recv)
    -- one-letter names are placeholders of the prose (`gm.f(a, b)`), but
    -- for m:t() (the transpose view)
    if (dot == ":" or recv == "gm") and (#name > 1 or name == "t") then out[#out + 1] = { name, span:sub(s, j) } end
    i = e + 1
  end
  return out
end

local function strip(text) return (text:gsub("`", "")) end

-- name -> { prio, sigs = {}, texts = {}, section }: texts are every block
-- that defines the topic (prio 1), in document order, so gm.help(gm.sum)
-- shows the whole-mat paragraph and the axis one; or its first mention.
local topics = {}
local function note(name, sig, prio, text, section, kind)
  local t = topics[name]
  if t and t.prio < prio then return end
  if t and t.prio == prio then
    if t.texts[#t.texts] == text then -- same block: another signature
      for _, s in ipairs(t.sigs) do if s == sig then return end end
      t.sigs[#t.sigs + 1] = sig
    elseif prio == 1 then
      for _, x in ipairs(t.texts) do if x == text then return end end
      t.texts[#t.texts + 1] = text
    end
    return
  end
  topics[name] = { prio = prio, sigs = { sig }, texts = { text }, section = section, from_row = kind == "row" }
end

-- A table row as text: each cell after its column's header
-- ("module function: gm.dot(x, y) | method: x:dot(y) | returns: dot product").
local function row_text(b)
  local parts = {}
  for i, c in ipairs(b.cells) do
    local h = b.header_cells and b.header_cells[i]
    parts[#parts + 1] = (h and h ~= "" and not h:find("`", 1, true)) and (h .. ": " .. c) or c
  end
  return strip(table.concat(parts, " | "))
end

for _, b in ipairs(blocks) do
  local text, head
  if b.kind == "row" then
    if b.cells[1] and b.cells[1]:find("`", 1, true) then
      text = row_text(b)
      head = (b.cells[1] or "") .. " " .. (b.cells[2] or "")
    end
  else
    local full = join(b.lines)
    text, head = strip(full), head_of(full)
  end
  if text then
    local var, list = text:match("for (%u) in ([%w_ ]+)")
    local raw = b.kind == "row" and table.concat(b.cells, " ") or join(b.lines)
    local head_spans = {}
    for _, s in ipairs(spans(head)) do head_spans[s] = true end
    -- the placeholder as a whole word (`gm.F_(x)`, `gm.F(x)`, `x:F()`)
    local word = var and "%f[%w_]" .. var .. "%f[^%w]"
    for _, s in ipairs(spans(raw)) do
      local prio = head_spans[s] and 1 or 2
      local variants = { s }
      if word and s:find(word) then
        variants = {}
        for w in list:gmatch("[%w_]+") do variants[#variants + 1] = (s:gsub(word, w)) end
      end
      for _, v in ipairs(variants) do
        for _, c in ipairs(calls(v)) do note(c[1], c[2], prio, text, b.section, b.kind) end
      end
    end
  end
end

-- A topic defined by a table row also gets the bullets of its section
-- whose head names it bare (the BLAS table's `gemm_` row and the bullet
-- "- `gemm_`: C := alpha op(A) op(B) + beta C, ...").
for _, b in ipairs(blocks) do
  if b.kind == "bullet" then
    local full = join(b.lines)
    for _, s in ipairs(spans(head_of(full))) do
      local t = topics[s]
      if t and t.prio == 1 and t.section == b.section and t.from_row then
        local text = strip(full)
        local seen = false
        for _, x in ipairs(t.texts) do if x == text then seen = true end end
        if not seen then t.texts[#t.texts + 1] = text end
      end
    end
  end
end

-- contract functions not implemented yet
local missing_src = slurp("lua/gpumat/missing.lua")
local list = missing_src:match("local missing = (%b{})")
for name in list:gmatch('"([%w_]+)"') do
  if not topics[name] then
    topics[name] = { prio = 0, sigs = { "gm." .. name .. "(...)" },
      texts = { "Not implemented in this version (part of the API contract; raises \"not implemented\")." },
      section = "Not yet" }
  end
end

-- ---- output ----
local names = {}
for k in pairs(topics) do names[#names + 1] = k end
table.sort(names)
local out = { "-- Generated by tools/gen-help.lua from docs/API.md and lua/gpumat/missing.lua;",
  "-- do not edit (spec/help_spec.lua checks that it is current).",
  "return {" }
for _, k in ipairs(names) do
  local t = topics[k]
  local sigs = {}
  for i, s in ipairs(t.sigs) do sigs[i] = string.format("%q", s) end
  local texts = {}
  for i, x in ipairs(t.texts) do texts[i] = string.format("%q", x) end
  out[#out + 1] = string.format("  [%q] = { sigs = { %s }, section = %q,\n    texts = { %s } },", k,
    table.concat(sigs, ", "), t.section, table.concat(texts, ",\n      "))
end
out[#out + 1] = "}"
local result = table.concat(out, "\n") .. "\n"
if arg[1] == "--stdout" then
  io.write(result)
else
  local f = assert(io.open(root .. "/lua/gpumat/help_data.lua", "wb"))
  f:write(result)
  f:close()
end
