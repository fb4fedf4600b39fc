-- Functions of the API contract (shared/API.md) that this version does not
-- implement yet.  Each raises a clear error instead of being a nil field
-- ("attempt to call a nil value") or, worse, a silent no-op.  README lists
-- them under "Not yet".
local missing = {
  -- buffers (seed 000)
  "bufferp", "buffer_refcnt", "ref_buffer", "deref_buffer", "with_deref_buffer",
  "with_deref_buffers", "buffer_as_array", "buffer_element_type", "buffer_foreign_type",
  "buffer_rank", "buffer_dimensions", "buffer_dimension", "buffer_size",
  "buffer_row_major_index", "bref", "set_bref", "row_major_bref", "set_row_major_bref",
  "buffer_fill", "copy_buffer_data", "copy_full_buffer", "write_buffer", "read_buffer",
  "buffer_displacement", "buffer_displace", "make_foreign_array", "make_cuda_array",
  "make_cuda_host_array",
  -- memory spaces (seed 001) and scoped allocation caches (seed 004)
  "ensure", "memory_type_dispatch", "alloc_cache", "cached", "uncached",
}

return function(gm)
  for _, name in ipairs(missing) do
    if rawget(gm, name) == nil then
      gm[name] = function()
        error(string.format("%s: not implemented in gpumat %s (see README, \"Not yet\")",
          name, gm.version), 2)
      end
    end
  end
end
