"""scikit-learn's estimator checks (check_estimator) on parac.DBSCAN and parac.Birch."""
from sklearn.utils.estimator_checks import parametrize_with_checks

import parac

# Checks that cannot apply, with the reason (docs/PYTHON.md lists them too).
EXPECTED_FAILED = {
    "DBSCAN": {},
    "Birch": {},
}


def expected_failed_checks(estimator):
    return EXPECTED_FAILED[type(estimator).__name__]


@parametrize_with_checks([parac.DBSCAN(), parac.Birch()], expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
