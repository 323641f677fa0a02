/* polybench exports polybench.Kernels (polybench.km): each function runs
 * one kernel of kernels.c and returns its checksum. It is the compute
 * guest of the bounds-check benchmark (crates/karmem-e2e/benches/bounds.rs),
 * which runs the same kernels natively from guests/out/polybench-native.so
 * (built from kernels.c alone by scripts/build-guests-c.sh). */
#include "kernels.h"
#include "polybench_guest.h"

static kmg_status gemm(kmg_call *call, polybench_checksum *result) {
    (void)call;
    result->value = pb_gemm();
    return KMG_OK;
}

static kmg_status two_mm(kmg_call *call, polybench_checksum *result) {
    (void)call;
    result->value = pb_2mm();
    return KMG_OK;
}

static kmg_status jacobi_2d(kmg_call *call, polybench_checksum *result) {
    (void)call;
    result->value = pb_jacobi_2d();
    return KMG_OK;
}

static kmg_status seidel_2d(kmg_call *call, polybench_checksum *result) {
    (void)call;
    result->value = pb_seidel_2d();
    return KMG_OK;
}

static const polybench_kernels_exports kernels = {gemm, two_mm, jacobi_2d, seidel_2d};

int kmg_init(void) {
    return polybench_kernels_export(&kernels) != KMG_OK;
}
