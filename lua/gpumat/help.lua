-- gm.help(f | "name") prints the signature and every paragraph that defines
-- a module function or method (a table row's cells with their headers, and
-- the bullets of its section about it); gm.help_text returns that text; gm.help() lists the
-- topics.  The text is lua/gpumat/help_data.lua, generated from
-- docs/API.md by tools/gen-help.lua (spec/help_spec.lua checks that it is
-- current and that every function and method has an entry).
local argcheck = require "gpumat.argcheck"

local function wrap(text, indent, width)
  local lines, line = {}, indent
  for word in text:gmatch("%S+") do
    if #line + #word + 1 > width and #line > #indent then
      lines[#lines + 1] = line
      line = indent
    end
    line = line .. (#line > #indent and " " or "") .. word
  end
  if #line > #indent then lines[#lines + 1] = line end
  return table.concat(lines, "\n")
end

return function(gm, core, methods)
  local data -- loaded on first use

  local function topics()
    data = data or require "gpumat.help_data"
    return data
  end

  -- Name of a function value: a module function or a method.
  local function name_of(f)
    for k, v in pairs(gm) do if v == f then return k end end
    for k, v in pairs(methods) do if v == f then return k end end
  end

  local function text_of(x, fname)
    local name
    if type(x) == "string" then
      name = x:gsub("^gm%.", ""):gsub("^[%w_]*:", ""):gsub("%(.*$", "")
    elseif type(x) == "function" then
      name = name_of(x)
      if not name then argcheck.argerror(1, fname, "not a gpumat function") end
    else
      argcheck.argerror(1, fname, "function or name expected, got %s", type(x))
    end
    local t = topics()[name]
    if not t then
      argcheck.argerror(1, fname, "no help for '%s' (gm.help() lists the topics)", name)
    end
    local paras = {}
    for i, text in ipairs(t.texts) do paras[i] = wrap(text, "  ", 78) end
    return table.concat(t.sigs, "  |  ") .. "\n" .. table.concat(paras, "\n\n") ..
      "\n  (docs/API.md, \"" .. t.section .. "\")"
  end

  function gm.help_text(x)
    if x == nil then
      local names = {}
      for k in pairs(topics()) do names[#names + 1] = k end
      table.sort(names)
      return "gpumat " .. gm.version .. " help topics (gm.help(\"name\") or gm.help(f)):\n" ..
        wrap(table.concat(names, " "), "  ", 78)
    end
    return text_of(x, "help_text")
  end

  -- prints; returns nothing so the REPL does not print the text twice
  function gm.help(x)
    if x == nil then
      print(gm.help_text())
    else
      print(text_of(x, "help"))
    end
  end
end
