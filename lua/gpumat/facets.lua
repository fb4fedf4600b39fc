-- Facet sugar (MGL-MAT §18, cube manual): scoped access and barriers.
-- The C side returns a handle whose __close undoes the watch or pops the
-- barrier; binding it to a <close> variable here makes the undo happen
-- also when fn errors (the error propagates unchanged) and lets fn yield.
return function(gm, core, methods)
  for _, name in ipairs {
    "facets", "find_facet", "destroy_facet", "destroy", "add_facet_reference",
    "remove_facet_reference", "synchronization",
  } do
    methods[name] = core[name]
  end
  gm.watch_facet, gm.watch_facets, gm.push_facet_barrier = nil, nil, nil -- internal

  local function run(fn, handle, ...)
    local _ <close> = handle
    return fn(...)
  end

  -- gm.with_facet(m, name, direction, fn): fn(pointer) with a light
  -- userdata pointing at m's first visible element in that facet.
  function gm.with_facet(m, name, direction, fn)
    return run(fn, core.watch_facet(m, name, direction, fn))
  end

  -- gm.with_facets({{m, name, direction}, ...}, fn): fn(p1, p2, ...).
  function gm.with_facets(specs, fn)
    return run(fn, core.watch_facets(specs, fn))
  end

  -- gm.with_facet_barrier({ensures = {...}, destroys = {...}}, fn)
  function gm.with_facet_barrier(opts, fn)
    return run(fn, core.push_facet_barrier(opts, fn))
  end
end
