/* parac/dbscan.h — exact DBSCAN (scikit-learn's semantics) on CPU and GPU.
 *
 * What it computes, for points x_0..x_{n-1} in d dimensions:
 *   - neighbours: q is a neighbour of p when the squared Euclidean distance,
 *     summed in double over coordinates 0..d-1 in order, is <= eps*eps (also
 *     in double). A point at distance exactly eps IS a neighbour. p is its own
 *     neighbour. This is the comparison scikit-learn's trees make. For eps
 *     outside [2^-500, 2^500] every coordinate difference is first multiplied
 *     by a power of two s (and eps by s), exact, so that eps*eps neither
 *     overflows nor underflows; coordinates up to +-DBL_MAX and subnormal eps
 *     give the answer of exact arithmetic (docs/dbscan.md, "Extreme magnitudes").
 *   - core points: at least min_samples neighbours (the point itself counts).
 *   - clusters: the connected components of core points under the neighbour
 *     relation — identical to scikit-learn's DBSCAN.
 *   - border points (not core, with a core neighbour): the cluster of their
 *     core neighbour with the lowest point index. (scikit-learn gives a border
 *     point shared by two clusters to whichever cluster reached it first;
 *     this rule makes the answer independent of order and device.)
 *   - noise: label -1.
 *   - cluster ids: 0, 1, 2, ... in the order of each cluster's lowest point
 *     index, so every device and thread count writes the same bytes.
 *
 * Memory: all buffers are caller-owned; the library allocates only scratch
 * space, O(n), and frees it before returning. Points are row-major n×d,
 * float64 (parac_dbscan_run) or float32 (parac_dbscan_run_f32, widened to
 * double for every distance, so the answer is that of the widened points).
 *
 * Devices: PARAC_DEVICE_AUTO runs on the GPU when this build has CUDA and a
 * device is usable, else on the CPU; PARAC_DEVICE_CUDA insists on the GPU
 * (PARAC_ERR_NO_DEVICE without one). The GPU path gives the same labels and
 * core mask, byte for byte, as the CPU path: same squared distances (no FMA
 * contraction), same border rule, same numbering; its grid may use other cell
 * sizes (options.gpu_variant), which never changes the answer. It keeps
 * the points on the device in cell order (float32 input stays float32) and
 * needs about 48 bytes per point at its peak for 3-D float32 (the radix sort;
 * info->device_bytes reports the measured peak). Points that do not fit
 * (options.max_device_bytes, else the device's free memory) are processed in
 * slabs along the first coordinate, each with a halo of 3 eps-wide slices on
 * either side, and merged on the host (about 13 host bytes per point): the
 * same bytes again (info->gpu_slabs says how many slabs ran). Only when even
 * the smallest slab does not fit does the run fall back to the CPU path, with
 * info->gpu_fallback = 1; other GPU failures are returned as PARAC_ERR_DEVICE. PARAC_DBSCAN_REFERENCE always runs on the CPU.
 *
 * Progress: exec.progress is called during the run (at most ten times a second);
 * when it returns non-zero the run stops with PARAC_ERR_CANCELLED.
 *
 * Errors: PARAC_ERR_INVALID_ARGUMENT for d = 0, eps <= 0 or not finite,
 * min_samples < 1, a NaN or infinite coordinate (message names the row), or
 * n >= 2^32 - 1; PARAC_ERR_NO_DEVICE when CUDA is asked for and absent;
 * PARAC_ERR_DEVICE when a CUDA call fails;
 * PARAC_ERR_NO_MEMORY when host memory runs out.
 */
#ifndef PARAC_DBSCAN_H
#define PARAC_DBSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "exec.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PARAC_DBSCAN_NOISE (-1)

typedef enum parac_dbscan_method {
    PARAC_DBSCAN_AUTO = 0,    /* the grid on the CPU; on the GPU the grid for d <= PARAC_DBSCAN_GRID_MAX_DIM,
                                 brute force above */
    PARAC_DBSCAN_GRID,        /* uniform grid over the first min(d, 3) coordinates */
    PARAC_DBSCAN_BRUTE_FORCE, /* all pairs, parallel, with early exit (high d) */
    PARAC_DBSCAN_REFERENCE    /* plain serial O(n^2) code on the CPU: the test oracle */
} parac_dbscan_method;

#define PARAC_DBSCAN_GRID_MAX_DIM 8

/* How the GPU grid method finds neighbour cells. Every variant gives the same
 * bytes (labels do not depend on the cell size); they differ only in speed.
 * The CPU path and the brute-force method ignore it. */
typedef enum parac_dbscan_gpu_variant {
    PARAC_DBSCAN_GPU_AUTO = 0, /* sparse points (< 0.5 per fine cell of their bounding box):
                                  SPARSE when min_samples <= 10, else COARSE; denser points: TABLE
                                  (docs/dbscan.md, "auto", gives the measurements) */
    PARAC_DBSCAN_GPU_CLASSIC,  /* cells of side eps/sqrt(g), binary search of each stencil row */
    PARAC_DBSCAN_GPU_TABLE,    /* cells of side eps/sqrt(g), direct key -> first-point table
                                  (binary search when the key space exceeds 8 n + 4 M cells) */
    PARAC_DBSCAN_GPU_COARSE,   /* cells of side eps(1 + 1e-3): a 3^g stencil instead of 5^g,
                                  with the direct table (binary search when it does not fit) */
    PARAC_DBSCAN_GPU_TABLE_FUSED, /* TABLE's cells; cells whose bounding box is within eps are one set
                                     before the union, which then needs one core pair per pair of
                                     cells (early exit); non-core points keep their neighbours from
                                     the core pass for the border pass (3 <= min_samples <= 10:
                                     4 (min_samples - 2) + 1 more device bytes per point) */
    PARAC_DBSCAN_GPU_COARSE_FUSED, /* the same on COARSE's cells */
    PARAC_DBSCAN_GPU_REMOVED_COARSE_LISTED, /* removed (auto never ran it once SPARSE came): now
                                              dev/dbscan/01_coarse_listed.c; refused with
                                              INVALID_ARGUMENT. The number stays reserved */
    PARAC_DBSCAN_GPU_SPARSE /* COARSE's cells; the core pass walks the whole stencil and keeps, per
                               point, its neighbours (non-core points) or its later neighbours (core
                               points), max(min_samples - 2, 4) slots; the union reads the lists and
                               walks the stencil only for points whose list overflowed, the border
                               pass reads them too (1 <= min_samples <= 10; else it runs as COARSE):
                               4 max(min_samples - 2, 4) + 1 more device bytes per point */
} parac_dbscan_gpu_variant;

#define PARAC_DBSCAN_GPU_VARIANT_LAST PARAC_DBSCAN_GPU_SPARSE

typedef struct parac_dbscan_options {
    double eps;            /* > 0 */
    size_t min_samples;    /* >= 1, counts the point itself */
    parac_dbscan_method method;
    parac_exec exec;       /* device and threads (zero = auto device, all cores) */
    parac_dbscan_gpu_variant gpu_variant; /* GPU neighbour search (0 = auto) */
    size_t max_device_bytes; /* GPU memory the run may plan for (0 = the device's free memory);
                                points that need more are processed in slabs */
    size_t min_gpu_slabs;    /* GPU: at least this many slabs (0 or 1 = only as memory requires); fewer
                                only when the points occupy fewer eps-wide buckets along the first
                                coordinate (one slab each then) */
} parac_dbscan_options;

/* The defaults: scikit-learn's eps 0.5 and min_samples 5, method AUTO, GPU variant AUTO, no
 * device-memory cap, slabs only as memory requires, parac_exec_init's device and threads. */
void parac_dbscan_options_init(parac_dbscan_options *options);

/* What a run found and how long each phase took (seconds). */
typedef struct parac_dbscan_info {
    size_t clusters;
    size_t core;
    size_t noise;
    size_t border;
    parac_device device;         /* where it actually ran */
    parac_dbscan_method method;  /* the method actually used */
    int gpu_fallback;            /* 1 when the GPU ran out of memory and the CPU path ran instead */
    size_t cells;                /* non-empty grid cells (1 for brute force) */
    double seconds_upload;       /* GPU: copying the points to the device (0 on the CPU) */
    double seconds_index;        /* cell keys, sort, cell table */
    double seconds_core;         /* neighbour counting */
    double seconds_union;        /* union-find over core points */
    double seconds_border;       /* border assignment */
    double seconds_relabel;      /* canonical renumbering */
    double seconds_download;     /* GPU: copying labels and core mask back (0 on the CPU) */
    double seconds_total;
    uint64_t device_bytes;       /* peak device memory of the GPU path, CUB scratch included (0 on the CPU) */
    parac_dbscan_gpu_variant gpu_variant; /* GPU: the variant that ran (AUTO only for n = 0); 0 on the CPU */
    int gpu_key_table;           /* GPU: 1 when the direct key table was used, 0 for binary search */
    size_t gpu_slabs;            /* GPU: slabs the points were processed in (1 = all at once; 0 on the CPU) */
} parac_dbscan_info;

/* Clusters points[count * dim]. labels[count] receives cluster ids or -1.
 * core_mask, when non-NULL, receives 1 for core points and 0 otherwise.
 * info may be NULL. */
parac_status parac_dbscan_run(const parac_dbscan_options *options, const double *points, size_t count, size_t dim,
                              int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info, parac_error *error);

/* The same for float32 points (distances still computed in double). */
parac_status parac_dbscan_run_f32(const parac_dbscan_options *options, const float *points, size_t count, size_t dim,
                                  int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info, parac_error *error);

/* "auto", "grid", "brute-force", "reference" ("unknown" outside the enum); parse: INVALID_ARGUMENT for any
 * other name. */
const char *parac_dbscan_method_name(parac_dbscan_method method);
parac_status parac_dbscan_method_parse(const char *name, parac_dbscan_method *method, parac_error *error);

/* "auto", "classic", "table", "coarse", "table-fused", "coarse-fused", "sparse"; "coarse-listed" for the
 * removed value (so a caller naming it is told where it went); "unknown" outside the enum. Parse: the
 * variant named; INVALID_ARGUMENT (naming the choices) for an unknown name, and for "coarse-listed"
 * with a message naming its dev/dbscan/ file. */
const char *parac_dbscan_gpu_variant_name(parac_dbscan_gpu_variant variant);
parac_status parac_dbscan_gpu_variant_parse(const char *name, parac_dbscan_gpu_variant *variant, parac_error *error);

#ifdef __cplusplus
}
#endif
#endif
