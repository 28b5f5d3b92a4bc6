"""gop_mmf on the paper's illustrative instance, and bad input."""

import numpy as np
import pytest

import bilinear


def test_paper_instance_is_certified():
    # Sec. 5.1: y = [0, -1, -0.5], K = 2, P = 1; the global optimum is 0.
    res = bilinear.gop_mmf([[0.0, -1.0, -0.5]], k=2, budget=1.0, eps=0.01, random_state=7,
                           n_threads=1)
    assert res.certified
    assert res.lower_bound <= res.upper_bound <= 0.01
    assert res.x.shape == (1, 2) and res.theta.shape == (2, 3)
    np.testing.assert_allclose(res.theta.sum(axis=0), 1.0, atol=1e-9)
    assert np.abs(res.x).sum() <= 1.0 + 1e-9
    objective = np.sum((np.array([[0.0, -1.0, -0.5]]) - res.x @ res.theta) ** 2)
    assert objective == pytest.approx(res.upper_bound, abs=1e-9)


@pytest.mark.parametrize(
    "y,kwargs",
    [([[np.nan, 1.0, 0.0]], {}), ([[0.0, 1.0]], {"k": 1}), ([[0.0, 1.0]], {"budget": 0.0}),
     ([0.0, 1.0], {}), ([[0.0, 1.0]], {"eps": -1.0}), ([[0.0, 1.0]], {"time_limit": -1.0})],
    ids=["nan", "k=1", "budget=0", "1-d", "negative eps", "negative time limit"],
)
def test_bad_input_is_value_error(y, kwargs):
    with pytest.raises(ValueError):
        bilinear.gop_mmf(y, **kwargs)
