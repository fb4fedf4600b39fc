-- Functions of the API contract that this version does not
-- implement yet.  Each raises a clear error instead of being a nil field
-- ("attempt to call a nil value") or, worse, a silent no-op.  README lists
-- them under "Not yet".
local missing = {
}

return function(gm)
  for _, name in ipairs(missing) do
    if rawget(gm, name) == nil then
      gm[name] = function(...)
        require("gpumat.argcheck").error("%s: not implemented in gpumat %s (see README, \"Not yet\")",
          name, gm.version)
      end
    end
  end
end
