"""gop_mmf on the paper's illustrative instance, its defaults (from Rust), and bad input."""

import numpy as np
import pytest

import bilinear
from bilinear._gop import gop_mmf_defaults


def test_paper_instance_is_certified():
    # Sec. 5.1: y = [0, -1, -0.5], K = 2, P = 1; the global optimum is 0.
    res = bilinear.gop_mmf([[0.0, -1.0, -0.5]], k=2, budget=1.0, tol=0.01, random_state=7,
                           threads=1)
    assert res.certified
    assert res.termination in ("Converged", "Solved")
    assert res.lower_bound <= res.upper_bound <= 0.01
    assert res.x.shape == (1, 2) and res.theta.shape == (2, 3)
    np.testing.assert_allclose(res.theta.sum(axis=0), 1.0, atol=1e-9)
    assert np.abs(res.x).sum() <= 1.0 + 1e-9
    objective = np.sum((np.array([[0.0, -1.0, -0.5]]) - res.x @ res.theta) ** 2)
    assert objective == pytest.approx(res.upper_bound, abs=1e-9)


def test_defaults_come_from_rust():
    d = gop_mmf_defaults()
    # The paper's settings of Sec. 5.1 (K = 2, P = 1, eps = 0.01), all cores, no limit.
    assert (d["k"], d["budget"], d["tol"]) == (2, 1.0, 0.01)
    assert d["threads"] is None and d["time_limit"] is None
    assert d["max_iter"] >= 1 and d["max_nodes"] >= 1
    # Omitted keywords are the Rust defaults: the same fit as passing them explicitly.
    y = [[0.0, -1.0, -0.5]]
    implicit = bilinear.gop_mmf(y, threads=1)
    explicit = bilinear.gop_mmf(y, k=d["k"], budget=d["budget"], tol=d["tol"],
                                max_iter=d["max_iter"], max_nodes=d["max_nodes"],
                                random_state=d["seed"], threads=1)
    assert implicit.n_iter == explicit.n_iter
    np.testing.assert_array_equal(implicit.x, explicit.x)
    assert implicit.upper_bound == explicit.upper_bound


@pytest.mark.parametrize(
    "y,kwargs",
    [([[np.nan, 1.0, 0.0]], {}), ([[0.0, 1.0]], {"k": 1}), ([[0.0, 1.0]], {"budget": 0.0}),
     ([0.0, 1.0], {}), ([[0.0, 1.0]], {"tol": -1.0}), ([[0.0, 1.0]], {"time_limit": -1.0}),
     ([[0.0, 1.0]], {"threads": 0}), ([[0.0, 1.0]], {"max_iter": 0})],
    ids=["nan", "k=1", "budget=0", "1-d", "negative tol", "negative time limit",
         "zero threads", "zero max_iter"],
)
def test_bad_input_is_value_error(y, kwargs):
    with pytest.raises(ValueError):
        bilinear.gop_mmf(y, **kwargs)
