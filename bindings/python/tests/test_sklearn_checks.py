"""scikit-learn's own estimator checks on the classifier.

The default estimator reads 2-D ``X`` as ``1 x d`` matrices (``matrix_shape=None``), so
every check of scikit-learn applies to it. Checks that cannot apply are listed in
``EXPECTED_FAILED`` with the reason.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from bilinear import SparseBilinearLogisticRegression

# check name -> why it cannot pass
EXPECTED_FAILED = {}


@parametrize_with_checks(
    [SparseBilinearLogisticRegression()],
    expected_failed_checks=lambda est: EXPECTED_FAILED,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
