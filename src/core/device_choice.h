/* core/device_choice.h — what PARAC_DEVICE_AUTO means: a cost model per module.
 *
 * A module describes the run it is about to make (a parac_workload: how much work, how many
 * bytes a GPU run must upload) and parac_choose_device estimates the whole run's seconds on
 * the CPU threads and on the GPU (its start-up included) from a table of measured constants
 * (device_choice.c, re-measured by scripts/measure-device-costs), and takes the smaller.
 * Explicit --device cpu / cuda are obeyed as before. The choice and its reason are written to
 * exec->chosen when the caller gave one (the CLI's --json prints them).
 */
#ifndef PARAC_CORE_DEVICE_CHOICE_H
#define PARAC_CORE_DEVICE_CHOICE_H

#include <stddef.h>

#include <parac/devices.h>
#include <parac/exec.h>

typedef enum parac_workload_kind {
    PARAC_WORKLOAD_DBSCAN,     /* units: points x dimensions */
    PARAC_WORKLOAD_BIRCH,      /* units: points x dimensions (unknown at create: units < 0) */
    PARAC_WORKLOAD_FCA,        /* units: concepts x attributes (inferred from the CPU search's progress: fca/device_handover.c) */
    PARAC_WORKLOAD_GEMM,       /* units: 2 m n k (flops) */
    PARAC_WORKLOAD_AC,         /* units: N-E edges (arcs); single-threaded AC3bit on the CPU */
    PARAC_WORKLOAD_SILHOUETTE, /* units: n x n x d */
    PARAC_WORKLOAD_AC_TABLES,  /* units: tuple entries (arity x tuples) of the tables + N-E edges;
                                  single-threaded AC3bit (tuple walks) on the CPU */
    PARAC_WORKLOAD_KINDS
} parac_workload_kind;

typedef struct parac_workload {
    parac_workload_kind kind;
    double units;        /* the kind's unit of work; < 0 when unknown */
    double upload_bytes; /* what a GPU run copies to the device (and back) */
} parac_workload;

/* The model's two estimates, in seconds, for `threads` CPU threads. */
void parac_device_estimate(const parac_workload *work, int threads, double *cpu_seconds, double *gpu_seconds);

/* The model's CPU side read backwards: the units of work that `threads` CPU threads do in
 * cpu_seconds. For a module that measures its CPU run instead of estimating it in advance (fca
 * hands a started CPU search over to the GPU, fca/device_handover.c): the GPU's estimate for that
 * work is then parac_device_estimate's. */
double parac_device_units_for_cpu_seconds(parac_workload_kind kind, double cpu_seconds, int threads);

/* The choice itself for a given GPU count (split out so tests can pretend a GPU is present):
 * AUTO with gpu_count > 0 takes the smaller estimate; reason receives one line. */
parac_device parac_device_pick(const parac_workload *work, int threads, int gpu_count, char *reason,
                               size_t reason_size);

/* Resolves exec->device for this workload (AUTO through the model; CUDA checked as
 * parac_exec_resolve_device does) and records the choice in exec->chosen when set. */
parac_status parac_choose_device(const parac_exec *exec, const parac_workload *work, parac_device *resolved,
                                 parac_error *error);

/* Records a choice made elsewhere (a module overriding the model for a reason of its own). */
void parac_device_record(const parac_exec *exec, parac_device device, const char *reason);

/* Module name of a workload kind ("dbscan", ...). */
const char *parac_workload_name(parac_workload_kind kind);

#endif
