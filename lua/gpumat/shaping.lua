-- Shaping sugar (MGL-MAT §8): methods for the C functions and the scoped
-- with_shape_and_displacement.
return function(gm, core, methods)
  for _, name in ipairs {
    "reshape_and_displace", "reshape", "displace", "reshape_and_displace_", "reshape_",
    "displace_", "reshape_to_row_matrix_", "adjust_",
    -- strided views (src/lua/l_view.c)
    "narrow", "select", "t", "permute", "view", "expand", "expand_as", "strides",
    "is_contiguous", "contiguous",
  } do
    methods[name] = core[name]
  end
  gm.with_shape_apply = nil -- internal

  -- gm.with_shape_and_displacement(m, dims, d, fn): dims/d may be nil
  -- (keep them); fn(m) runs with the new shape and m's shape and
  -- displacement are restored when fn returns or errors (the error
  -- propagates unchanged).  Returns fn's results.
  function gm.with_shape_and_displacement(m, dims, d, fn)
    local dims0, d0 = core.with_shape_apply(m, dims, d, fn)
    local _ <close> = setmetatable({}, {
      __close = function()
        -- a mat freed inside fn has no shape left to restore
        if not core.is_freed(m) then core.reshape_and_displace_(m, dims0, d0) end
      end,
    })
    return fn(m)
  end
end
