-- Shared by specs (not a spec itself): run fn with module fields set, and
-- restore them afterwards, also when fn fails.
local gm = require "gpumat"

return function(t, fn)
  local saved = {}
  for k, v in pairs(t) do
    saved[k] = gm[k]
    gm[k] = v
  end
  local ok, err = pcall(fn)
  for k, v in pairs(saved) do gm[k] = v end
  if not ok then error(err, 0) end
end
