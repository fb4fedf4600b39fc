-- docs/ARCHITECTURE.md stays true: its "File index" names every source file
-- under src/, kernels/, include/ and lua/, and names no file that is gone.
local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function source_files()
  local p = assert(io.popen("find src kernels include lua -type f \\( -name '*.c' -o -name '*.h' " ..
    "-o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.lua' \\) | sort", "r"))
  local files = {}
  for line in p:lines() do files[#files + 1] = line end
  p:close()
  return files
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

  it("names every source file with its layer #host", function()
    local missing = {}
    for _, f in ipairs(source_files()) do
      if not entries[f] or not entries[f]:find("%S") then missing[#missing + 1] = f end
    end
    assert.is_true(#source_files() > 100)
    if #missing > 0 then
      error("not in the File index of docs/ARCHITECTURE.md: " .. table.concat(missing, ", "), 0)
    end
  end)

  it("names no file that does not exist #host", function()
    local gone = {}
    for f in pairs(entries) do
      local h = io.open(f, "rb")
      if h then h:close() else gone[#gone + 1] = f end
    end
    table.sort(gone)
    if #gone > 0 then error("File index entries without a file: " .. table.concat(gone, ", "), 0) end
  end)
end)
