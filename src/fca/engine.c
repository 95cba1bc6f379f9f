/* fca/engine.c — the execution handle: a GPU context (stream + memory pool)
 * that outlives single runs, so repeated searches skip device setup and find
 * their buffers already in the pool. On the CPU it holds nothing. */
#include <stdlib.h>

#include <parac/devices.h>

#include "core/error.h"
#include "fca/fca_internal.h"
#ifdef PARAC_HAVE_CUDA
#include "cuda/context.h"
#endif

parac_status parac_fca_engine_create(const parac_exec *exec, parac_fca_engine **engine, parac_error *error)
{
    parac_exec defaults = {0};
    parac_fca_engine *made;
    parac_device device;
    parac_status status;
    if (!engine) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca engine: result pointer is required");
    if (!exec) exec = &defaults;
    status = parac_exec_resolve_device(exec, &device, error);
    if (status != PARAC_OK) return status;
    made = calloc(1, sizeof *made);
    if (!made) return parac_fail_no_memory(error, "fca engine", sizeof *made);
    made->cuda_device = exec->cuda_device;
#ifdef PARAC_HAVE_CUDA
    if (device == PARAC_DEVICE_CUDA) {
        made->cuda_context = calloc(1, sizeof *made->cuda_context);
        int caller_device = parac_cuda_current_device(); /* current again after create: issue 16 */
        if (!made->cuda_context) status = parac_fail_no_memory(error, "fca engine", sizeof *made->cuda_context);
        else status = parac_cuda_context_create(exec->cuda_device, made->cuda_context, error);
        parac_cuda_make_current(caller_device);
        if (status != PARAC_OK) {
            free(made->cuda_context);
            free(made);
            return status;
        }
    }
#else
    (void)device;
#endif
    *engine = made;
    return PARAC_OK;
}

void parac_fca_engine_destroy(parac_fca_engine *engine)
{
    if (!engine) return;
#ifdef PARAC_HAVE_CUDA
    if (engine->cuda_context) {
        int caller_device = parac_cuda_current_device();
        parac_cuda_context_destroy(engine->cuda_context);
        parac_cuda_make_current(caller_device);
    }
#endif
    free(engine->cuda_context);
    free(engine);
}
