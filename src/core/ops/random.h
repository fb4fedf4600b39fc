/* Random numbers (MGL-MAT §15): the global Philox stream, explicit states,
 * and the fills.  A gm_random_state is plain data (random_ops.h); NULL
 * for a state argument means the process-wide global one, which starts
 * as gm_random_seed(0) and is guarded by a mutex so concurrent fills draw
 * disjoint blocks.  An explicit state must not be shared between threads
 * without the caller's locking.
 *
 * Every fill reserves its blocks only after the operands were acquired,
 * so a failing fill leaves both the mat and the state unchanged. */
#ifndef GM_CORE_RANDOM_H
#define GM_CORE_RANDOM_H

#include "../model/mat.h"
#include "random_ops.h"

/* Global state = {key = seed, counter = 0}. */
void gm_random_seed(uint64_t seed);
gm_random_state gm_random_get(void);
void gm_random_set(const gm_random_state *s);

/* Philox blocks per element group for t (4 floats or 2 doubles). */
size_t gm_random_per_block(gm_ctype t);
/* Blocks a fill of n elements of t consumes. */
uint64_t gm_random_n_blocks_for(gm_ctype t, size_t n);
/* Takes `blocks` blocks from s (NULL: the global state) and returns the
 * start of the reservation. */
gm_random_state gm_random_reserve(gm_random_state *s, uint64_t blocks);

/* Parameter checks shared with the binding (messages name no function):
 * limit must be positive and finite after rounding to t; mean finite,
 * stddev finite and non-negative after rounding to t. */
gm_status gm_random_check_limit(gm_ctype t, double limit);
gm_status gm_random_check_gaussian(gm_ctype t, double mean, double stddev);

/* uniform-random!: visible elements of m uniform in [0, limit) of m's
 * ctype (limit is rounded to the ctype first, as MGL does).  Runs where
 * gm_exec_choose says (device when m is cuda-enabled in a cuda context). */
gm_status gm_uniform_random(gm_mat *m, double limit, gm_random_state *s);
/* gaussian-random!: mean + stddev * N(0, 1). */
gm_status gm_gaussian_random(gm_mat *m, double mean, double stddev, gm_random_state *s);

/* Standard normal samples into a host buffer of n elements of t. */
gm_status gm_random_gaussian_host(gm_ctype t, size_t n, void *buf, gm_random_state *s);

/* mv-gaussian-random: a new N x 1 mat (ctype of means; cuda_enabled and
 * synchronization from o) of means + chol(covariances) * z, z standard
 * normal.  means is N x 1 (or a vector of N), covariances N x N,
 * symmetric positive definite.  Host only (LAPACK): reads both operands
 * through the foreign facet (one copy if they live on a device). */
gm_status gm_mv_gaussian_random(gm_mat *means, gm_mat *covariances, gm_random_state *s,
                                const gm_mat_options *o, gm_mat **out);
/* orthogonal-random!: fills the rank-2 m so that m^T m = scale^2 I (tall
 * or square) or m m^T = scale^2 I (wide), from the QR decomposition of a
 * gaussian matrix (Haar distributed).  Host only: writes the foreign
 * facet (other facets become stale). */
gm_status gm_orthogonal_random(gm_mat *m, double scale, gm_random_state *s);

/* The three destructive fills by kind, their parameters in p (limit;
 * mean, stddev; scale): one entry for an embedding that reads every
 * fill's options alike. */
typedef enum gm_random_fill_kind { GM_FILL_UNIFORM, GM_FILL_GAUSSIAN, GM_FILL_ORTHOGONAL } gm_random_fill_kind;
/* The argument rules of a fill before it runs: the parameters'
 * (gm_random_check_limit / _gaussian), and for orthogonal fills that m
 * is a matrix; *bad_m tells that m, not a parameter, is at fault. */
gm_status gm_random_fill_check(gm_random_fill_kind k, const gm_mat *m, const double *p, bool *bad_m);
gm_status gm_random_fill(gm_random_fill_kind k, gm_mat *m, const double *p, gm_random_state *s);

#endif
