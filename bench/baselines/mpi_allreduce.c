/* Raw MPI_Allreduce baseline for bench/dist_bench.lua: in-place sum of n
 * floats, the same call gpumat.dist makes, timed the same way (barrier,
 * then reps calls, best-of-trials mean).  Build and run:
 *   mpicc -O2 -o /tmp/mpi_allreduce bench/baselines/mpi_allreduce.c
 *   mpirun -np 2 /tmp/mpi_allreduce 262144 16777216
 * Prints "raw <bytes> <seconds per call>" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int a = 1; a < argc; a++) {
    long n = atol(argv[a]);
    float *x = malloc((size_t)n * sizeof *x);
    for (long i = 0; i < n; i++) x[i] = 1.0f;
    int reps = n > 1000000 ? 5 : 200;
    double best = 1e30;
    MPI_Allreduce(MPI_IN_PLACE, x, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); /* warm-up */
    for (int t = 0; t < 5; t++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int r = 0; r < reps; r++) MPI_Allreduce(MPI_IN_PLACE, x, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double dt = (MPI_Wtime() - t0) / reps;
      MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (dt < best) best = dt;
    }
    if (rank == 0) printf("raw %ld %.6f\n", n * 4, best);
    free(x);
  }
  MPI_Finalize();
  return 0;
}
