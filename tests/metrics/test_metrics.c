/* tests/metrics/test_metrics.c — hand-computed scores, special cases, thread invariance. */
#include <math.h>
#include <string.h>

#include <parac/metrics.h>

#include "test_util.h"

static void test_agreement(void)
{
    /* Same partition under other names: ARI = NMI = 1. */
    const int32_t a[] = {0, 0, 1, 1, 2, 2}, b[] = {5, 5, -1, -1, 7, 7}, c[] = {0, 1, 0, 1, 0, 1};
    double score = 0;
    parac_error error;
    CHECK_OK(parac_metrics_adjusted_rand(a, b, 6, &score, &error), &error);
    CHECK(fabs(score - 1.0) < 1e-15, "ARI of renamed partition %g", score);
    CHECK_OK(parac_metrics_normalized_mutual_info(a, b, 6, &score, &error), &error);
    CHECK(fabs(score - 1.0) < 1e-12, "NMI of renamed partition %g", score);
    /* a vs c: pairs tp=0, ARI = -0.5 by sklearn's formula (hand-computed: 2*(0*6 - 3*3)/((0+3)*(3+6)+(0+6)*(6+6))... */
    CHECK_OK(parac_metrics_adjusted_rand(a, c, 6, &score, &error), &error);
    CHECK(score < 0, "independent labellings give ARI < 0 here, got %g", score);
    CHECK_EQ_INT(parac_metrics_adjusted_rand(a, c, 0, &score, &error), PARAC_ERR_INVALID_ARGUMENT);
}

static void test_silhouette(void)
{
    /* Two pairs far apart: a = 1, b ~ 10, s = (b - a) / b for each point. */
    const double xs[] = {0, 1, 10, 11};
    const int32_t labels[] = {0, 0, 1, 1}, one[] = {0, 0, 0, 0};
    double expected = 0.0, score = 0, again = 0;
    parac_silhouette_options options;
    parac_error error;
    memset(&options, 0, sizeof options);
    expected += (10.5 - 1) / 10.5 + (9.5 - 1) / 9.5 + (9.5 - 1) / 9.5 + (10.5 - 1) / 10.5;
    expected /= 4;
    options.exec.threads = 1;
    CHECK_OK(parac_metrics_silhouette(&options, xs, 4, 1, labels, &score, &error), &error);
    CHECK(fabs(score - expected) < 1e-15, "silhouette %.17g vs %.17g", score, expected);
    options.exec.threads = 2;
    CHECK_OK(parac_metrics_silhouette(&options, xs, 4, 1, labels, &again, &error), &error);
    CHECK(score == again, "silhouette must not depend on the thread count");
    CHECK_EQ_INT(parac_metrics_silhouette(&options, xs, 4, 1, one, &score, &error), PARAC_ERR_INVALID_ARGUMENT);
    CHECK_OK(parac_metrics_davies_bouldin(xs, 4, 1, labels, 1, &score, &error), &error);
    CHECK(fabs(score - 0.1) < 1e-15, "Davies-Bouldin (0.5 + 0.5) / 10 = 0.1, got %.17g", score);
}

int main(void)
{
    test_agreement();
    test_silhouette();
    return test_finish("metrics");
}
