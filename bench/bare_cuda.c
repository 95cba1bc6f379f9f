/* bench/bare_cuda.c — the floor for a GPU command's start-up: a program that only initialises
 * CUDA (cudaGetDeviceCount + cudaFree(0), i.e. driver + primary context) and exits.
 * bench/whole_command.py and scripts/measure-device-costs build it on the spot
 * (cc bare_cuda.c -I<cuda>/include -L<cuda>/lib64 -lcudart) and time it beside `parac devices`. */
#include <stdio.h>

#include <cuda_runtime.h>

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        puts("0");
        return 1;
    }
    cudaFree(0);
    printf("%d\n", count);
    return 0;
}
