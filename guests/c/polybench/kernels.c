/* The kernels of kernels.h. Arrays are static: the guest's memory holds
 * them from instantiation, so a call measures the kernel and its
 * initialisation, never an allocator. Sizes are chosen so a kernel runs
 * 10-50 ms as wasm on the benchmark machine. Floating point only adds and
 * multiplies in a fixed order (no library calls, no reassociation), so
 * native and wasm32 builds agree exactly. */
#include "kernels.h"

#define GEMM_N 220
#define MM_N 180
#define JACOBI_N 300
#define JACOBI_STEPS 100
#define SEIDEL_N 200
#define SEIDEL_STEPS 40

static double gemm_a[GEMM_N][GEMM_N];
static double gemm_b[GEMM_N][GEMM_N];
static double gemm_c[GEMM_N][GEMM_N];

double pb_gemm(void) {
    const double alpha = 1.5;
    const double beta = 1.2;
    double sum = 0.0;
    for (int i = 0; i < GEMM_N; i++) {
        for (int j = 0; j < GEMM_N; j++) {
            gemm_a[i][j] = (double)((i * j + 1) % GEMM_N) / GEMM_N;
            gemm_b[i][j] = (double)((i * (j + 1) + 2) % GEMM_N) / GEMM_N;
            gemm_c[i][j] = (double)((i * (j + 2) + 3) % GEMM_N) / GEMM_N;
        }
    }
    for (int i = 0; i < GEMM_N; i++) {
        for (int j = 0; j < GEMM_N; j++) {
            gemm_c[i][j] *= beta;
        }
        for (int k = 0; k < GEMM_N; k++) {
            for (int j = 0; j < GEMM_N; j++) {
                gemm_c[i][j] += alpha * gemm_a[i][k] * gemm_b[k][j];
            }
        }
    }
    for (int i = 0; i < GEMM_N; i++) {
        for (int j = 0; j < GEMM_N; j++) {
            sum += gemm_c[i][j];
        }
    }
    return sum;
}

static double mm_a[MM_N][MM_N];
static double mm_b[MM_N][MM_N];
static double mm_c[MM_N][MM_N];
static double mm_d[MM_N][MM_N];
static double mm_tmp[MM_N][MM_N];

double pb_2mm(void) {
    const double alpha = 1.5;
    const double beta = 1.2;
    double sum = 0.0;
    for (int i = 0; i < MM_N; i++) {
        for (int j = 0; j < MM_N; j++) {
            mm_a[i][j] = (double)((i * j + 1) % MM_N) / MM_N;
            mm_b[i][j] = (double)(i * (j + 1) % MM_N) / MM_N;
            mm_c[i][j] = (double)((i * (j + 3) + 1) % MM_N) / MM_N;
            mm_d[i][j] = (double)(i * (j + 2) % MM_N) / MM_N;
        }
    }
    for (int i = 0; i < MM_N; i++) {
        for (int j = 0; j < MM_N; j++) {
            double t = 0.0;
            for (int k = 0; k < MM_N; k++) {
                t += alpha * mm_a[i][k] * mm_b[k][j];
            }
            mm_tmp[i][j] = t;
        }
    }
    for (int i = 0; i < MM_N; i++) {
        for (int j = 0; j < MM_N; j++) {
            double d = mm_d[i][j] * beta;
            for (int k = 0; k < MM_N; k++) {
                d += mm_tmp[i][k] * mm_c[k][j];
            }
            mm_d[i][j] = d;
        }
    }
    for (int i = 0; i < MM_N; i++) {
        for (int j = 0; j < MM_N; j++) {
            sum += mm_d[i][j];
        }
    }
    return sum;
}

static double jacobi_a[JACOBI_N][JACOBI_N];
static double jacobi_b[JACOBI_N][JACOBI_N];

double pb_jacobi_2d(void) {
    double sum = 0.0;
    for (int i = 0; i < JACOBI_N; i++) {
        for (int j = 0; j < JACOBI_N; j++) {
            jacobi_a[i][j] = ((double)i * (j + 2) + 2) / JACOBI_N;
            jacobi_b[i][j] = ((double)i * (j + 3) + 3) / JACOBI_N;
        }
    }
    for (int t = 0; t < JACOBI_STEPS; t++) {
        for (int i = 1; i < JACOBI_N - 1; i++) {
            for (int j = 1; j < JACOBI_N - 1; j++) {
                jacobi_b[i][j] = 0.2 * (jacobi_a[i][j] + jacobi_a[i][j - 1] + jacobi_a[i][j + 1] +
                                        jacobi_a[i + 1][j] + jacobi_a[i - 1][j]);
            }
        }
        for (int i = 1; i < JACOBI_N - 1; i++) {
            for (int j = 1; j < JACOBI_N - 1; j++) {
                jacobi_a[i][j] = 0.2 * (jacobi_b[i][j] + jacobi_b[i][j - 1] + jacobi_b[i][j + 1] +
                                        jacobi_b[i + 1][j] + jacobi_b[i - 1][j]);
            }
        }
    }
    for (int i = 0; i < JACOBI_N; i++) {
        for (int j = 0; j < JACOBI_N; j++) {
            sum += jacobi_a[i][j];
        }
    }
    return sum;
}

static double seidel_a[SEIDEL_N][SEIDEL_N];

double pb_seidel_2d(void) {
    double sum = 0.0;
    for (int i = 0; i < SEIDEL_N; i++) {
        for (int j = 0; j < SEIDEL_N; j++) {
            seidel_a[i][j] = ((double)i * (j + 2) + 2) / SEIDEL_N;
        }
    }
    for (int t = 0; t < SEIDEL_STEPS; t++) {
        for (int i = 1; i <= SEIDEL_N - 2; i++) {
            for (int j = 1; j <= SEIDEL_N - 2; j++) {
                seidel_a[i][j] = (seidel_a[i - 1][j - 1] + seidel_a[i - 1][j] + seidel_a[i - 1][j + 1] +
                                  seidel_a[i][j - 1] + seidel_a[i][j] + seidel_a[i][j + 1] +
                                  seidel_a[i + 1][j - 1] + seidel_a[i + 1][j] + seidel_a[i + 1][j + 1]) /
                                 9.0;
            }
        }
    }
    for (int i = 0; i < SEIDEL_N; i++) {
        for (int j = 0; j < SEIDEL_N; j++) {
            sum += seidel_a[i][j];
        }
    }
    return sum;
}
