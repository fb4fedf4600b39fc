-- docs/ARCHITECTURE.md stays true: its "File index" names every source file
-- under src/, kernels/, include/ and lua/, and names no file that is gone.
local tree = require "source_tree"
local read = tree.read

local function source_files()
  return tree.find("src kernels include lua -type f \\( -name '*.c' -o -name '*.h' " ..
    "-o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.lua' \\)")
end

local function index_entries(doc)
  local section = doc:match("\n## File index\n(.*)$")
  assert(section, "docs/ARCHITECTURE.md has no '## File index' section")
  section = section:match("^(.-)\n## ") or section
  local entries = {}
  for path, layer in section:gmatch("\n| `([^`]+)` | ([^|]-) |") do entries[path] = layer end
  return entries
end

describe("docs/ARCHITECTURE.md", function()
  local entries = index_entries(read("docs/ARCHITECTURE.md"))

  it("names every source file with its layer #host #source", function()
    local missing = {}
    for _, f in ipairs(source_files()) do
      if not entries[f] or not entries[f]:find("%S") then missing[#missing + 1] = f end
    end
    assert.is_true(#source_files() > 100)
    if #missing > 0 then
      error("not in the File index of docs/ARCHITECTURE.md: " .. table.concat(missing, ", "), 0)
    end
  end)

  it("names no file that does not exist #host #source", function()
    local gone = {}
    for f in pairs(entries) do
      local h = io.open(f, "rb")
      if h then h:close() else gone[#gone + 1] = f end
    end
    table.sort(gone)
    if #gone > 0 then error("File index entries without a file: " .. table.concat(gone, ", "), 0) end
  end)
end)

-- Source files state their reasons instead of pointing at documents outside
-- the repository (review findings, seed and issue numbers, the design
-- notes, the contract's copy): a reader of the tree cannot follow those.
-- MGL-MAT and MGL-CUBE section numbers name the behavioural model gpumat
-- follows and are allowed.
local citation_patterns = {
  "review #?%d", "seeds? 0%d%d", "design%.md", "issue #?%d", "foundation item %d",
  "%(#%d+%)", "cuda%-review", "shared/api%.md", "trials/[%w%-]+%.md",
}
local SECTION = "\194\167" -- the section sign, UTF-8

local function cited(line)
  local l = line:lower()
  for _, p in ipairs(citation_patterns) do
    if l:find(p) then return true end
  end
  -- a section sign is allowed after the model's name on the same line
  -- ("MGL-MAT §18.3, §19.2")
  local i = l:find(SECTION, 1, true)
  if not i then return false end
  local before = l:sub(1, i - 1)
  return not (before:find("mgl%-mat $") or before:find("mgl%-cube $"))
end

local function cited_files()
  -- (not the GPU kit's downloaded .debs: ignored by git, but carried into
  -- the working tree on a GPU machine, where the suite runs too)
  local p = assert(io.popen("find src kernels include lua cmake tools spec tests bench CMakeLists.txt " ..
    "-type f -not -name '*.md' -not -path 'tools/gpu/debs/*' | sort", "r"))
  local files = {}
  for line in p:lines() do files[#files + 1] = line end
  p:close()
  return files
end

describe("source files", function()
  it("cite no document outside the repository #host #source", function()
    local found, n = {}, 0
    for _, f in ipairs(cited_files()) do
      n = n + 1
      local lineno = 0
      for line in io.lines(f) do
        lineno = lineno + 1
        if cited(line) then found[#found + 1] = ("%s:%d: %s"):format(f, lineno, line) end
      end
    end
    assert.is_true(n > 200)
    if #found > 0 then error("citations of outside documents (state the reason instead):\n" ..
      table.concat(found, "\n"), 0) end
  end)

  it("the citation check recognises each form #host #source", function()
    -- built by concatenation, so this file does not match its own check
    local R, S, D, I, F = "rev" .. "iew #3", "se" .. "ed 004", "DES" .. "IGN.md", "iss" .. "ue 7", "Found" .. "ation item 10"
    for _, s in ipairs({"x (" .. R .. ")", "(" .. S .. ")", D, I, "(" .. "#4)", "a " .. SECTION .. "6", F}) do
      assert.is_true(cited(s), s)
    end
    for _, s in ipairs({"MGL-MAT " .. SECTION .. "15", "MGL-CUBE " .. SECTION .. "8.1", "docs/API.md",
                        "seed 1234", "with a random seed"}) do
      assert.is_false(cited(s), s)
    end
  end)
end)

describe("kernels/", function()
  -- Launchers get what they need from their caller (gm_launch_ctx,
  -- kernels/launch.h: stream, scratch allocator, geometry): no file of the
  -- kernels (the CPU model's shim under kernels/cpu aside) declares a
  -- function it would call up in a device or the core.
  it("declare no function of a device or the core #host #source", function()
    local found = {}
    for _, path in ipairs(tree.find("kernels -maxdepth 1 -type f \\( -name '*.cu' -o -name '*.cuh' -o -name '*.h' \\)")) do
      local src = read(path)
      -- code lines that open with extern "C" and end at ";" before any "{"
      for decl in ("\n" .. src):gmatch('\n(extern%s+"C"%s+[^{;]*[{;])') do
        if decl:sub(-1) == ";" then found[#found + 1] = path .. ": " .. decl end
      end
      for name in src:gmatch("(gm_device[%w_]*)") do found[#found + 1] = path .. ": " .. name end
    end
    assert.are.equal("", table.concat(found, "\n"))
  end)
end)

-- src/core's sub-folders are layers (docs/ARCHITECTURE.md, "Layers and
-- include rules"): a file includes headers of its own layer and those
-- below; the few edges upward are listed here and there, each with its
-- reason in the map.
describe("src/core's layers", function()
  local rank = { mem = 0, model = 0, exec = 1, ops = 2, io = 2, api = 3 }
  local upward = {
    ["src/core/model/mat.c -> exec"] = true, ["src/core/model/mat.c -> ops"] = true,
    ["src/core/exec/stage.c -> ops"] = true, ["src/core/mem/device.h -> exec"] = true,
  }
  it("include only their own layer and those below #host #source", function()
    local bad, n = {}, 0
    for _, path in ipairs(tree.find("src/core -mindepth 2 -type f \\( -name '*.c' -o -name '*.h' \\)")) do
      local layer = path:match("^src/core/([%w_]+)/")
      assert(rank[layer], "a sub-folder of src/core that has no layer: " .. path)
      for target in read(path):gmatch('#include "%.%./([%w_]+)/') do
        n = n + 1
        if rank[target] and rank[target] > rank[layer] and not upward[path .. " -> " .. target] then
          bad[#bad + 1] = path .. " includes ../" .. target .. "/"
        end
      end
    end
    assert.is_true(n > 100)
    if #bad > 0 then error("includes against the layers:\n" .. table.concat(bad, "\n"), 0) end
  end)

  it("hold every file of the core #host #source", function()
    local loose = tree.find("src/core -maxdepth 1 -type f")
    if #loose > 0 then error("files of src/core outside its layers: " .. table.concat(loose, ", "), 0) end
  end)
end)
