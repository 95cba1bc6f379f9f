/* points/points_generate.c — blobs, uniform and moons point clouds.
 *
 * Every block of PARAC_POINTS_BLOCK rows draws from its own sub-stream
 * (parac_rng_split(seed, 1 + block)), so the output does not depend on how
 * blocks are spread over threads. Blob centres come from sub-stream 0.
 */
#include <parac/points.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "core/threads.h"

#define DEFAULT_BLOB_CENTERS 3
#define DEFAULT_BLOB_STD 1.0
#define DEFAULT_BOX_LOW (-10.0)
#define DEFAULT_BOX_HIGH 10.0
#define PI_VALUE 3.14159265358979323846

static const char *const KIND_NAMES[] = {"blobs", "uniform", "moons"};

parac_status parac_points_kind_parse(const char *name, parac_points_kind *kind, parac_error *error)
{
    for (int i = 0; i < 3; i++)
        if (name && strcmp(name, KIND_NAMES[i]) == 0) {
            *kind = (parac_points_kind)i;
            return PARAC_OK;
        }
    return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "unknown point kind '%s' (blobs, uniform or moons)",
                      name ? name : "");
}

const char *parac_points_kind_name(parac_points_kind kind)
{
    return (unsigned)kind < 3 ? KIND_NAMES[kind] : "unknown";
}

typedef struct generator_plan {
    parac_points_kind kind;
    size_t dim;
    size_t centers;
    double std;
    double *center_coordinates; /* centers * dim, blobs only */
} generator_plan;

static void generate_blob_row(const generator_plan *plan, size_t index, parac_rng *rng, double *row, int32_t *label)
{
    size_t center = index % plan->centers;
    const double *c = plan->center_coordinates + center * plan->dim;
    for (size_t j = 0; j < plan->dim; j++) row[j] = c[j] + plan->std * parac_rng_normal(rng);
    *label = (int32_t)center;
}

static void generate_moon_row(const generator_plan *plan, size_t index, parac_rng *rng, double *row, int32_t *label)
{
    double angle = PI_VALUE * parac_rng_uniform(rng);
    int lower = (int)(index & 1);
    row[0] = lower ? 1.0 - cos(angle) : cos(angle);
    row[1] = lower ? 0.5 - sin(angle) : sin(angle);
    for (size_t j = 2; j < plan->dim; j++) row[j] = 0.0;
    if (plan->std > 0)
        for (size_t j = 0; j < plan->dim; j++) row[j] += plan->std * parac_rng_normal(rng);
    *label = lower;
}

static void generate_block(const generator_plan *plan, uint64_t seed, size_t block, size_t count, double *points,
                           int32_t *truth)
{
    parac_rng rng;
    size_t begin = block * (size_t)PARAC_POINTS_BLOCK;
    size_t end = begin + PARAC_POINTS_BLOCK < count ? begin + PARAC_POINTS_BLOCK : count;
    parac_rng_split(&rng, seed, 1 + (uint64_t)block);
    for (size_t i = begin; i < end; i++) {
        double *row = points + i * plan->dim;
        int32_t label = 0;
        if (plan->kind == PARAC_POINTS_BLOBS) generate_blob_row(plan, i, &rng, row, &label);
        else if (plan->kind == PARAC_POINTS_MOONS) generate_moon_row(plan, i, &rng, row, &label);
        else
            for (size_t j = 0; j < plan->dim; j++) row[j] = parac_rng_uniform(&rng);
        if (truth) truth[i] = label;
    }
}

static parac_status check_options(const parac_points_options *options, parac_error *error)
{
    if (options->dim == 0) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "points: dimension must be >= 1");
    if ((unsigned)options->kind > PARAC_POINTS_MOONS)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "points: unknown kind %d", (int)options->kind);
    if (options->kind == PARAC_POINTS_MOONS && options->dim < 2)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "points: moons need dimension >= 2");
    if (!isfinite(options->std) || options->std < 0)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "points: std must be finite and >= 0, got %g",
                          options->std);
    if (!isfinite(options->box_low) || !isfinite(options->box_high) || options->box_low > options->box_high)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "points: centre box [%g, %g] is not a finite interval",
                          options->box_low, options->box_high);
    return PARAC_OK;
}

static parac_status make_blob_centers(const parac_points_options *options, generator_plan *plan, parac_error *error)
{
    double low = options->box_low, high = options->box_high;
    parac_rng rng;
    if (low == high) {
        low = DEFAULT_BOX_LOW;
        high = DEFAULT_BOX_HIGH;
    }
    plan->center_coordinates = malloc(plan->centers * plan->dim * sizeof(double));
    if (!plan->center_coordinates)
        return parac_fail_no_memory(error, "blob centres", plan->centers * plan->dim * sizeof(double));
    parac_rng_split(&rng, options->seed, 0);
    for (size_t i = 0; i < plan->centers * plan->dim; i++)
        plan->center_coordinates[i] = low + (high - low) * parac_rng_uniform(&rng);
    return PARAC_OK;
}

parac_status parac_points_generate(const parac_points_options *options, double *points, int32_t *truth,
                                   parac_error *error)
{
    generator_plan plan = {options->kind, options->dim, options->centers, options->std, NULL};
    parac_status status = check_options(options, error);
    size_t blocks;
    if (status != PARAC_OK) return status;
    if (options->count == 0) return PARAC_OK;
    if (plan.kind == PARAC_POINTS_BLOBS) {
        if (plan.centers == 0) plan.centers = DEFAULT_BLOB_CENTERS;
        if (plan.std == 0) plan.std = DEFAULT_BLOB_STD;
        status = make_blob_centers(options, &plan, error);
        if (status != PARAC_OK) return status;
    }
    blocks = (options->count + PARAC_POINTS_BLOCK - 1) / PARAC_POINTS_BLOCK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(parac_threads_resolve(options->exec.threads))
    for (long long block = 0; block < (long long)blocks; block++)
        generate_block(&plan, options->seed, (size_t)block, options->count, points, truth);
    free(plan.center_coordinates);
    return PARAC_OK;
}
