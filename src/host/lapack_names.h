/* LAPACKE's names of gm.linalg's routines per BLAS prefix (the ctype
 * list's s/d/c/z column): the complex rows run the Hermitian forms where
 * the real routine is the symmetric one (orgqr -> ungqr, syevd -> heevd).
 * A job's one switch over GM_FLOAT_CTYPES and GM_COMPLEX_CTYPES calls
 * GM_LAPACK_NAME(ORGQR_WORK, p)(...) with the same arguments for every
 * row; the complex rows' extra real workspace (heevd's rwork, gesvd's)
 * comes through GM_LAPACK_RWORK_p, empty for the real rows.  Shared by the
 * host's jobs (blas.c) and the emulated device's cuSOLVER shapes. */
#ifndef GM_HOST_LAPACK_NAMES_H
#define GM_HOST_LAPACK_NAMES_H

#define GM_LAPACK_NAME(NAME, p) GM_LAPACK_##NAME##_##p

#define GM_LAPACK_ORGQR_WORK_s LAPACKE_sorgqr_work
#define GM_LAPACK_ORGQR_WORK_d LAPACKE_dorgqr_work
#define GM_LAPACK_ORGQR_WORK_c LAPACKE_cungqr_work
#define GM_LAPACK_ORGQR_WORK_z LAPACKE_zungqr_work
#define GM_LAPACK_SYEVD_s LAPACKE_ssyevd
#define GM_LAPACK_SYEVD_d LAPACKE_dsyevd
#define GM_LAPACK_SYEVD_c LAPACKE_cheevd
#define GM_LAPACK_SYEVD_z LAPACKE_zheevd
#define GM_LAPACK_SYEVD_WORK_s LAPACKE_ssyevd_work
#define GM_LAPACK_SYEVD_WORK_d LAPACKE_dsyevd_work
#define GM_LAPACK_SYEVD_WORK_c LAPACKE_cheevd_work
#define GM_LAPACK_SYEVD_WORK_z LAPACKE_zheevd_work

/* ", rwork" arguments of the complex _work routines: heevd's (rwork,
 * lrwork) before its iwork, gesvd's and geev's (rwork) last */
#define GM_LAPACK_HEEVD_RWORK_s(rw, lrw)
#define GM_LAPACK_HEEVD_RWORK_d(rw, lrw)
#define GM_LAPACK_HEEVD_RWORK_c(rw, lrw) , (void *)(rw), (lrw)
#define GM_LAPACK_HEEVD_RWORK_z(rw, lrw) , (void *)(rw), (lrw)
#define GM_LAPACK_RWORK_s(rw)
#define GM_LAPACK_RWORK_d(rw)
#define GM_LAPACK_RWORK_c(rw) , (void *)(rw)
#define GM_LAPACK_RWORK_z(rw) , (void *)(rw)

/* geev's eigenvalue arguments: the real rows' wr and wi (w's halves, n
 * each), the complex rows' w */
#define GM_LAPACK_GEEV_W_s(T, w, n) (w), (T *)(w) + (n)
#define GM_LAPACK_GEEV_W_d(T, w, n) (w), (T *)(w) + (n)
#define GM_LAPACK_GEEV_W_c(T, w, n) (w)
#define GM_LAPACK_GEEV_W_z(T, w, n) (w)

#endif
