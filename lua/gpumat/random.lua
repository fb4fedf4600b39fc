-- Random numbers and I/O: methods on the mat they write (MGL-MAT §15, §16).
return function(gm, core, methods)
  methods.uniform_random_ = core.uniform_random_
  methods.gaussian_random_ = core.gaussian_random_
  methods.orthogonal_random_ = core.orthogonal_random_
  methods.write_mat = core.write_mat
  methods.read_mat = core.read_mat
  methods.save_npy = core.save_npy
end
