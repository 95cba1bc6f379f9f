/* cuda/cublas_loader.h — cuBLAS on demand, for the vendor reference only.
 *
 * libparac does not link cuBLAS: with it linked, every process that loaded libparac paid for
 * loading cuBLAS and cuBLASLt (hundreds of MB of code), and cublasCreate took 1.7-2.8 s with
 * eager module loading (issue 16). `parac gemm --verify` and the gemm bench's reference are the
 * only users; they get the few entry points below through dlopen at first use. Include only from
 * .cu files (it uses cuBLAS's types). */
#ifndef PARAC_CUDA_CUBLAS_LOADER_H
#define PARAC_CUDA_CUBLAS_LOADER_H

#include <cublas_v2.h>

#include <parac/status.h>

typedef struct parac_cublas_api {
    cublasStatus_t (*create)(cublasHandle_t *handle);
    cublasStatus_t (*destroy)(cublasHandle_t handle);
    cublasStatus_t (*set_stream)(cublasHandle_t handle, cudaStream_t stream);
    cublasStatus_t (*sgemm)(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const float *alpha, const float *a, int lda, const float *b, int ldb,
                            const float *beta, float *c, int ldc);
    cublasStatus_t (*gemm_ex)(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const void *alpha, const void *a, cudaDataType atype, int lda, const void *b,
                              cudaDataType btype, int ldb, const void *beta, void *c, cudaDataType ctype, int ldc,
                              cublasComputeType_t compute, cublasGemmAlgo_t algo);
} parac_cublas_api;

/* The cuBLAS entry points, loading libcublas.so.13 (or .12, or the toolkit's directory) the first
 * time. The loaded library is a process-wide fact, like the driver: it is loaded once (thread-safe)
 * and never unloaded. PARAC_ERR_UNSUPPORTED with the loader's message when cuBLAS is not installed. */
#ifdef __cplusplus
extern "C" {
#endif
parac_status parac_cublas_load(const parac_cublas_api **api, parac_error *error);
#ifdef __cplusplus
}
#endif

#endif
