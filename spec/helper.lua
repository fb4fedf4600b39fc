-- Loaded by busted before the specs (see .busted).
-- GPUMAT_TEST_GC=aggressive runs the suite under a collector that runs
-- constantly, so lifetime bugs (a collected view freeing shared storage,
-- finalizers touching freed state) show up.
if os.getenv("GPUMAT_TEST_GC") == "aggressive" then
  collectgarbage("incremental", 10, 1000, 0)
end
