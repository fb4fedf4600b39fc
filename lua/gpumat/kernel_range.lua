-- Recognizes the two CUDA idioms of an elementwise kernel body, so that the
-- CPU model can run it as a loop over a range of indices instead of one
-- call per CUDA thread (KernelAbstractions' CPU backend has no threads to
-- begin with; here the body is CUDA C, so only these exact shapes qualify):
--
--   grid-stride:  for (T i = <global index>; i < <bound>; i += <grid size>) S
--   per element:  T i = <global index>; if (i < <bound>) S
--
-- where <global index> is blockIdx.x * blockDim.x + threadIdx.x and <grid
-- size> blockDim.x * gridDim.x (casts and either order allowed), T a signed
-- integer type, <bound> an expression of int params and integer literals,
-- and S one statement or block that ends the body.  On a 1-d launch the
-- threads of the first form together run S once for every i in
-- [0, bound), whatever the geometry; those of the second for every i in
-- [0, min(bound, threads)).  S may not tell threads apart or leave its
-- thread early: no threadIdx/blockIdx/blockDim/gridDim/warpSize, no
-- __syncthreads or __shared__, no break/return/goto, no static, and no
-- assignment to i or to the bound's names.  Then running the i of a range
-- in order is one of the interleavings CUDA allows, and the compiler sees
-- a plain counted loop it can vectorize.  Anything else returns nil and
-- runs thread by thread.
local M = {}

local SIGNED = {
  ["int"] = true, ["long"] = true, ["longlong"] = true, ["longint"] = true, ["longlongint"] = true,
  ["int64_t"] = true, ["int32_t"] = true, ["ptrdiff_t"] = true, ["signed"] = true,
}

local FORBIDDEN = {
  "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__syncthreads", "__shared__",
  "break", "return", "goto", "static", "asm", "__asm__", "setjmp", "longjmp",
}

-- the global index and the grid size, without spaces and casts
local GLOBAL_INDEX = {
  ["blockIdx.x*blockDim.x+threadIdx.x"] = true, ["blockDim.x*blockIdx.x+threadIdx.x"] = true,
  ["threadIdx.x+blockIdx.x*blockDim.x"] = true, ["threadIdx.x+blockDim.x*blockIdx.x"] = true,
  ["(blockIdx.x*blockDim.x)+threadIdx.x"] = true, ["(blockDim.x*blockIdx.x)+threadIdx.x"] = true,
  ["threadIdx.x+(blockIdx.x*blockDim.x)"] = true, ["threadIdx.x+(blockDim.x*blockIdx.x)"] = true,
}
local GRID_SIZE = {
  ["blockDim.x*gridDim.x"] = true, ["gridDim.x*blockDim.x"] = true,
  ["(blockDim.x*gridDim.x)"] = true, ["(gridDim.x*blockDim.x)"] = true,
}

local CASTS = { "int64_t", "longlong", "long", "size_t", "unsignedlonglong", "unsigned", "int", "ptrdiff_t",
  "uint64_t", "longlongint", "unsignedint" }

local function squeeze(s) return (s:gsub("%s+", "")) end

local function uncast(s)
  s = squeeze(s)
  for _, c in ipairs(CASTS) do s = s:gsub("%(" .. c .. "%)", "") end
  -- redundant outer parentheses
  while s:match("^%b()$") do s = s:sub(2, -2) end
  return s
end

local function has_word(s, w) return s:find("%f[%w_]" .. w .. "%f[^%w_]") ~= nil end

-- true when s may assign to (or take the address of) the name w
local function may_assign(s, w)
  local n = "%f[%w_]" .. w .. "%f[^%w_]"
  return s:find(n .. "%s*[%+%-%*/%%&|%^]?=[^=]") or s:find(n .. "%s*<<=") or s:find(n .. "%s*>>=")
    or s:find(n .. "%s*%+%+") or s:find(n .. "%s*%-%-") or s:find("%+%+%s*" .. n) or s:find("%-%-%s*" .. n)
    or s:find("&%s*" .. n) or s:find(n .. "%s*%[") -- a name indexed is not an int param
end

-- Strips comments; nil when the body has string or character literals
-- (not worth lexing) or a preprocessor line.
local function strip(body)
  if body:find("[\"']") or body:find("\n%s*#") or body:find("^%s*#") then return nil end
  body = body:gsub("/%*.-%*/", " ")
  body = body:gsub("//[^\n]*", "")
  return body
end

-- Position of the character closing the bracket opened at s[i].
local function closing(s, i)
  local open, close = s:sub(i, i), ({ ["("] = ")", ["{"] = "}", ["["] = "]" })[s:sub(i, i)]
  local depth = 0
  for j = i, #s do
    local c = s:sub(j, j)
    if c == open then depth = depth + 1 elseif c == close then
      depth = depth - 1
      if depth == 0 then return j end
    end
  end
  return nil
end

-- Splits s at the top-level occurrences of the single character sep.
local function split_top(s, sep)
  local parts, depth, start = {}, 0, 1
  for j = 1, #s do
    local c = s:sub(j, j)
    if c == "(" or c == "[" or c == "{" then depth = depth + 1
    elseif c == ")" or c == "]" or c == "}" then depth = depth - 1
    elseif c == sep and depth == 0 then
      parts[#parts + 1] = s:sub(start, j - 1)
      start = j + 1
    end
  end
  parts[#parts + 1] = s:sub(start)
  return parts
end

-- s (trimmed) is exactly one statement: a block, or a simple statement
-- with its only top-level ';' at the end (if/for/while included).
local function one_statement(s)
  if s == "" then return false end
  if s:sub(1, 1) == "{" then return closing(s, 1) == #s end
  if s:sub(-1) ~= ";" then return false end
  if has_word(s, "else") or has_word(s, "do") then return false end
  return #split_top(s, ";") == 2
end

-- "T i = E" -> T, i, E when T is a signed integer type
local function declaration(s)
  local t, v, e = s:match("^%s*(.-)%s*%f[%w_]([%a_][%w_]*)%s*=%s*(.-)%s*$")
  if not t then return nil end
  t = t:gsub("^const%s+", "")
  if not SIGNED[squeeze(t)] then return nil end
  return t, v, e
end

-- The bound's names must be int params; only names, integer literals,
-- arithmetic and parentheses.
local function check_bound(bound, int_params)
  if not bound:match("^[%w_%s%+%-%*/%%%(%)]+$") then return nil end
  for w in bound:gmatch("[%a_][%w_]*") do
    if not int_params[w] then return nil end
  end
  for lit in bound:gmatch("%f[%w_]%d[%w_]*") do
    if not lit:match("^%d+[lLuU]*$") then return nil end
  end
  return bound
end

local function check_statement(stmt, var, bound)
  for _, w in ipairs(FORBIDDEN) do
    if has_word(stmt, w) then return false end
  end
  if may_assign(stmt, var) then return false end
  for w in bound:gmatch("[%a_][%w_]*") do
    if may_assign(stmt, w) then return false end
  end
  return true
end

-- Line of the body (1-based) where position pos of the original body is;
-- the stripped body keeps the newlines of line comments but not of block
-- comments, so this is computed on the stripped text, which #line then
-- reports (close enough for a compiler message of a recognized body).
local function line_at(s, pos)
  local _, n = s:sub(1, pos - 1):gsub("\n", "")
  return n + 1
end

-- body, params ({name, kind, dir}) -> nil or {form = "stride"|"element",
-- type, var, bound, stmt, line}
function M.recognize(body, params)
  local s = strip(body)
  if not s then return nil end
  if s:find("%f[%w_]gm_") then return nil end -- the range form's own names
  local int_params = {}
  for _, p in ipairs(params) do
    if p[2] == "int" then int_params[p[1]] = true end
  end
  local lead = s:match("^%s*()")
  local rest = s:sub(lead)
  local trimmed_end = #rest - #rest:match("%s*$")
  rest = rest:sub(1, trimmed_end)

  -- grid-stride: for (init; cond; step) stmt
  if rest:match("^for%s*%(") then
    local open = rest:find("%(")
    local close = closing(rest, open)
    if not close then return nil end
    local parts = split_top(rest:sub(open + 1, close - 1), ";")
    if #parts ~= 3 then return nil end
    local t, v, e = declaration(parts[1])
    if not t or not GLOBAL_INDEX[uncast(e)] then return nil end
    local b = parts[2]:match("^%s*" .. v .. "%s*<%s*(.-)%s*$")
    if not b or not check_bound(b, int_params) then return nil end
    local step = squeeze(parts[3])
    local stride = step:match("^" .. v .. "%+=(.+)$") or step:match("^" .. v .. "=" .. v .. "%+(.+)$")
    if not stride or not GRID_SIZE[uncast(stride)] then return nil end
    local stmt_at = close + 1 + #rest:sub(close + 1):match("^%s*")
    local stmt = rest:sub(stmt_at)
    if not one_statement(stmt) or not check_statement(stmt, v, b) then return nil end
    return { form = "stride", type = t, var = v, bound = b, stmt = stmt, line = line_at(s, lead + stmt_at - 1) }
  end

  -- per element: T i = E; if (i < bound) stmt
  local decl_end = nil
  do
    local parts = split_top(rest, ";")
    if #parts < 2 then return nil end
    decl_end = #parts[1] + 1
  end
  local t, v, e = declaration(rest:sub(1, decl_end - 1))
  if not t or not GLOBAL_INDEX[uncast(e)] then return nil end
  local after = rest:sub(decl_end + 1)
  local if_at = after:match("^%s*()if%s*%(")
  if not if_at then return nil end
  local open = after:find("%(", if_at)
  local close = closing(after, open)
  if not close then return nil end
  local b = after:sub(open + 1, close - 1):match("^%s*" .. v .. "%s*<%s*(.-)%s*$")
  if not b or not check_bound(b, int_params) then return nil end
  local stmt_at = close + 1 + #after:sub(close + 1):match("^%s*")
  local stmt = after:sub(stmt_at)
  if not one_statement(stmt) or not check_statement(stmt, v, b) then return nil end
  return { form = "element", type = t, var = v, bound = b, stmt = stmt,
    line = line_at(s, lead + decl_end + stmt_at - 1) }
end

return M
