/* Polybench-style kernels (after PolyBench/C 4.2: gemm, 2mm, jacobi-2d,
 * seidel-2d) at fixed sizes, in plain C11 with no library calls: the same
 * file is built into the wasm guest (main.c exports them) and natively
 * into guests/out/polybench-native.so, the baseline of the bounds-check
 * benchmark (crates/karmem-e2e/benches/bounds.rs). Each function
 * initialises its arrays, runs the kernel once and returns the sum of its
 * output, which must be bit for bit the same in both builds. */
#ifndef POLYBENCH_KERNELS_H
#define POLYBENCH_KERNELS_H

double pb_gemm(void);
double pb_2mm(void);
double pb_jacobi_2d(void);
double pb_seidel_2d(void);

#endif
