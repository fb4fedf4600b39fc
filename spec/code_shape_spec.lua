-- Measured targets of the code's shape, held by the suite so they stay
-- true: no function in src/ or kernels/ is longer than 60 lines, and the
-- Lua binding (src/lua) stays thin: at most 0.6 times the lines of the
-- core (src/core), because model logic that a C application also needs
-- belongs in the core and the binding only reads arguments and pushes
-- results.
local MAX_FUNCTION_LINES = 60
local MAX_BINDING_TO_CORE = 0.6

local tree = require "source_tree"
local read = tree.read

-- The text with comments, string and character literals and preprocessor
-- lines blanked out (newlines kept, so line numbers stay right).  It
-- jumps from one special character to the next and copies the code
-- between them whole: the suite also runs under a collector that works on
-- every allocation, where a string per character takes minutes.
local function blank(text) return (text:gsub("[^\n]", " ")) end

-- The end of the token that starts at i (a directive, comment or
-- literal), or nil when the character at i starts none.
local function special_end(s, i, line_start)
  local c, n = s:sub(i, i), #s
  if c == "#" and line_start then -- a directive and its continuations
    local j = i
    repeat
      local e = s:find("\n", j, true) or n + 1
      j = e + 1
      if s:sub(e - 1, e - 1) ~= "\\" then return e - 1 end
    until j > n
    return n
  elseif c == "/" and s:sub(i + 1, i + 1) == "*" then
    return (s:find("*/", i + 2, true) or n - 1) + 1
  elseif c == "/" and s:sub(i + 1, i + 1) == "/" then
    return (s:find("\n", i, true) or n + 1) - 1
  elseif c == '"' or c == "'" then
    local j = i + 1
    while true do
      local p = s:find(c == '"' and '[\\"]' or "[\\']", j)
      if not p then return n end
      if s:sub(p, p) ~= "\\" then return p end
      j = p + 2
    end
  end
end

local function code_only(s)
  local out, i, n = {}, 1, #s
  local line_start = true -- only blanks since the last newline
  while i <= n do
    local j = s:find("[\n#/\"']", i) or n + 1
    local plain = s:sub(i, j - 1)
    out[#out + 1] = plain
    if plain:find("\n", 1, true) then line_start = plain:match("\n[ \t]*$") ~= nil
    elseif plain:find("%S") then line_start = false end
    if j > n then break end
    local e = special_end(s, j, line_start)
    if e then
      out[#out + 1] = blank(s:sub(j, e))
      i = e + 1
    else
      local c = s:sub(j, j)
      out[#out + 1] = c
      line_start = c == "\n" or (line_start and c ~= "#" and c ~= "/")
      i = j + 1
    end
  end
  return table.concat(out)
end

-- What the head before a brace at file level opens: a "scope" (namespace,
-- extern "C"), a "function" (a parameter list, not a type or an
-- initializer) or "other".
local function head_kind(h)
  h = h:gsub("%s+", " ")
  if h:match("^%s*namespace") or h:match("^%s*extern%s*$") or h:match('^%s*extern "') then return "scope" end
  if h:find("(", 1, true) and not h:match("^%s*typedef") and not h:match("^%s*struct")
    and not h:match("^%s*enum") and not h:match("^%s*union") and not h:match("=%s*$")
    and not h:match("^[^(]*=") then
    return "function", h:match("([%w_:~]+)%s*%(") or "?"
  end
  return "other"
end

-- {name, first line, lines} of every top-level function definition: a
-- brace opened at file level (or inside namespace / extern "C") after a
-- head that has a parameter list and is not a type or an initializer.
local function functions(src)
  local code = code_only(src)
  local found, stack, line = {}, {}, 1
  local head_start, head_line = 1, 1 -- where the current head begins, and its line
  local open_fn -- {name, line}
  local i = 1
  while true do
    local j = code:find("[{};\n]", i)
    if not j then break end
    local c = code:sub(j, j)
    local top = not open_fn and (#stack == 0 or stack[#stack] == "scope")
    if c == "\n" then
      line = line + 1
    elseif c == "{" then
      local kind, name = "other", nil
      if top then
        local h = code:sub(head_start, j - 1)
        kind, name = head_kind(h)
        if kind == "function" then
          local lead = h:match("^%s*")
          open_fn = { name = name, line = head_line + select(2, lead:gsub("\n", "")) }
        end
      end
      stack[#stack + 1] = kind
    elseif c == "}" then
      if table.remove(stack) == "function" then
        found[#found + 1] = { open_fn.name, open_fn.line, line - open_fn.line + 1 }
        open_fn = nil
      end
    end
    if c ~= "\n" and (c ~= ";" or top) then head_start, head_line = j + 1, line end
    i = j + 1
  end
  return found
end

-- Lines (newlines, as wc -l counts them) of every file under dir.
local function lines_under(dir)
  local n = 0
  for _, path in ipairs(tree.find(dir .. " -type f")) do n = n + select(2, read(path):gsub("\n", "")) end
  return n
end

describe("code shape", function()
  it("the function finder sees one-line and multi-line heads and skips types and tables #host #source", function()
    local f = functions(table.concat({
      "/* a comment { */",
      "#define M(x) { x }",
      "static const int t[] = {1, 2};",
      "struct s { int a; };",
      "static int one(int a) {",
      "  if (a) { return '{'; }",
      "  return 0;",
      "}",
      "namespace n {",
      "static gm_status",
      "two(const char *s,",
      "    int b) {",
      '  return s[0] == \'}\' ? b : (int)"}"[0];',
      "}",
      "}",
    }, "\n"))
    assert.same({ { "one", 5, 4 }, { "two", 10, 5 } }, f)
  end)

  it(("no function in src/ or kernels/ is longer than %d lines #host #source"):format(MAX_FUNCTION_LINES), function()
    local files = tree.find("src kernels \\( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' " ..
      "-o -name '*.cpp' \\)")
    assert.is_true(#files > 50)
    local long, n_fns = {}, 0
    for _, path in ipairs(files) do
      for _, fn in ipairs(functions(read(path))) do
        n_fns = n_fns + 1
        if fn[3] > MAX_FUNCTION_LINES then long[#long + 1] = ("%s:%d %s (%d lines)"):format(path, fn[2], fn[1], fn[3]) end
      end
    end
    assert.is_true(n_fns > 1000, "the finder found only " .. n_fns .. " functions")
    assert.same({}, long)
  end)

  it(("src/lua has at most %.1f times the lines of src/core #host #source"):format(MAX_BINDING_TO_CORE), function()
    local binding, core = lines_under("src/lua"), lines_under("src/core")
    assert.is_true(core > 5000 and binding > 1000, ("counted %d and %d lines"):format(binding, core))
    assert.is_true(binding <= MAX_BINDING_TO_CORE * core,
      ("src/lua has %d lines, src/core %d: ratio %.3f"):format(binding, core, binding / core))
  end)
end)
