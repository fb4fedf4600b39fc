/* A minimal parallel-for over the cores: the host loops (elementwise, NN,
 * reductions) and the blocks of a kernel launch on the emulated device
 * (kernels/cpu/cuda_cpu.h, GMCPU_PAR_FOR).
 *
 * Big elementwise loops are memory- or SIMD-bound on one core; splitting
 * them across the machine's cores is what makes them competitive.  Loops
 * of less than 2^19 units of work (items x cost; a unit is about one
 * float32 element copied, 0.05-0.1 ns, so 2^19 is 25-50 us on one core)
 * run inline; bigger ones go to a pool of threads started once and parked,
 * with at most one thread per 2^17 units so every thread's share
 * outweighs its wake-up on many cores too.  A wake-up and the wait for
 * the joined threads cost about 10 us on this project's 2-vCPU VM (futex
 * calls through the hypervisor), where two threads broke even with one at
 * 25-55 us of one-thread work (bench/RESULTS.md, "The thread pool: when
 * it pays"); 2-5 us on bare metal, where the threshold is conservative.  The thread count is the
 * number of online CPUs (at most GM_PAR_MAX), or GPUMAT_NUM_THREADS when
 * set. */
#ifndef GM_HOST_PAR_H
#define GM_HOST_PAR_H

#include <pthread.h>
#include <stddef.h>

#define GM_PAR_MAX 16

/* Below this much work (items x cost) a loop runs inline: handing blocks
 * to the pool's threads costs about 10 us of wake-up and wait here, and on
 * a busy machine a woken thread may not run for a scheduler tick. */
#define GM_PAR_THRESHOLD (1u << 19)

/* The cost per item of an elementwise loop over elements of elem_size
 * bytes whose cost per float32 element is cost (the op table's cost
 * column): a float64 element moves twice the bytes and fills half the
 * SIMD lanes, an int8 one a quarter. */
static inline double gm_par_elem_cost(double cost, size_t elem_size) { return cost * (double)elem_size * 0.25; }

/* Whether gm_par_for(n, ., cost, ...) runs its loop inline on the caller's
 * thread whatever the thread count: a caller may then call its chunk
 * function itself. */
static inline int gm_par_inline(size_t n, double cost) { return (double)n * cost < (double)GM_PAR_THRESHOLD; }

/* Calls fn(arg, begin, end) on disjoint chunks covering [0, n), each
 * chunk a multiple of `align` items (except the last), in parallel when
 * n * cost >= the threshold (cost: rough work per item, 1 for a copy).
 * Falls back to one inline call if a thread cannot be started. */
void gm_par_for(size_t n, size_t align, double cost, void (*fn)(void *arg, size_t begin, size_t end),
                void *arg);

/* pthread_create with every signal blocked in the new thread (its mask is
 * inherited): gpumat's threads never run a signal handler, so a Ctrl-C
 * reaches the thread that runs Lua (the REPL's handler, lua.c's) and not
 * a worker in the middle of a loop.  -> pthread_create's result. */
int gm_thread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

/* Number of threads gm_par_for uses for large loops. */
int gm_par_threads(void);

#endif
