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
-- lines blanked out (newlines kept, so line numbers stay right).
local function code_only(s)
  local out, i, n = {}, 1, #s
  local function blank(text) return (text:gsub("[^\n]", " ")) end
  local line_start = true
  while i <= n do
    local c, two = s:sub(i, i), s:sub(i, i + 1)
    local j
    if line_start and s:match("^[ \t]*#", i) then -- a directive and its continuations
      j = i
      repeat
        local e = s:find("\n", j, true) or n + 1
        local cont = s:sub(e - 1, e - 1) == "\\"
        j = e + 1
      until not cont or j > n
      j = j - 2
    elseif two == "/*" then
      j = (s:find("*/", i + 2, true) or n - 1) + 1
    elseif two == "//" then
      j = (s:find("\n", i, true) or n + 1) - 1
    elseif c == '"' or c == "'" then
      j = i + 1
      while j <= n and s:sub(j, j) ~= c do j = j + (s:sub(j, j) == "\\" and 2 or 1) end
    end
    if j then
      out[#out + 1] = blank(s:sub(i, j))
      i = j + 1
    else
      out[#out + 1] = c
      i = i + 1
      if c == "\n" then line_start = true elseif not c:match("%s") then line_start = false end
    end
  end
  return table.concat(out)
end

-- {name, first line, lines} of every top-level function definition: a
-- brace opened at file level (or inside namespace / extern "C") after a
-- head that has a parameter list and is not a type or an initializer.
local function functions(src)
  local code = code_only(src)
  local found, stack, head, head_line, line = {}, {}, "", nil, 1
  local open_fn -- {name, line}
  for i = 1, #code do
    local c = code:sub(i, i)
    if c == "\n" then line = line + 1 end
    local top = #stack == 0 or stack[#stack] == "scope"
    if c == "{" then
      if top and not open_fn then
        local h = head:gsub("%s+", " ")
        if h:match("^%s*namespace") or h:match('^%s*extern%s*$') or h:match("^%s*extern \"") then
          stack[#stack + 1] = "scope"
        elseif h:find("(", 1, true) and not h:match("^%s*typedef") and not h:match("^%s*struct")
          and not h:match("^%s*enum") and not h:match("^%s*union") and not h:match("=%s*$")
          and not (h:match("^[^(]*=")) then
          open_fn = { name = h:match("([%w_:~]+)%s*%(") or "?", line = head_line or line }
          stack[#stack + 1] = "function"
        else
          stack[#stack + 1] = "other"
        end
      else
        stack[#stack + 1] = "other"
      end
      head, head_line = "", nil
    elseif c == "}" then
      local kind = table.remove(stack)
      if kind == "function" then
        found[#found + 1] = { open_fn.name, open_fn.line, line - open_fn.line + 1 }
        open_fn = nil
      end
      head, head_line = "", nil
    elseif top and not open_fn then
      if c == ";" then
        head, head_line = "", nil
      else
        if not head_line and not c:match("%s") then head_line = line end
        head = head .. c
      end
    end
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
  it("the function finder sees one-line and multi-line heads and skips types and tables #host", function()
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

  it(("no function in src/ or kernels/ is longer than %d lines #host"):format(MAX_FUNCTION_LINES), function()
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

  it(("src/lua has at most %.1f times the lines of src/core #host"):format(MAX_BINDING_TO_CORE), function()
    local binding, core = lines_under("src/lua"), lines_under("src/core")
    assert.is_true(core > 5000 and binding > 1000, ("counted %d and %d lines"):format(binding, core))
    assert.is_true(binding <= MAX_BINDING_TO_CORE * core,
      ("src/lua has %d lines, src/core %d: ratio %.3f"):format(binding, core, binding / core))
  end)
end)
