"""mixing_sdp and maxcut against brute force on small graphs, and bad input."""

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse

import bilinear


def _brute_force_cut(n, edges):
    best = 0.0
    for signs in itertools.product([-1, 1], repeat=n):
        best = max(best, sum(w for i, j, w in edges if signs[int(i)] != signs[int(j)]))
    return best


def _graph(n=10, p=0.5, seed=0):
    rng = np.random.default_rng(seed)
    return np.array([(i, j, rng.uniform(0.5, 2.0)) for i in range(n) for j in range(i + 1, n)
                     if rng.random() < p])


def test_maxcut_five_cycle():
    res = bilinear.maxcut([(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)])
    assert res.cut_value == 4.0
    # the SDP bound of C5 is 5 (1 + cos(pi / 5)) / 2
    bound = 5 * (1 + np.cos(np.pi / 5)) / 2
    assert abs(res.upper_bound - bound) < 1e-3
    assert res.certified_bound >= bound - 1e-9


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_maxcut_against_brute_force(seed):
    edges = _graph(seed=seed)
    res = bilinear.maxcut(edges, n_nodes=10, random_state=seed)
    best = _brute_force_cut(10, edges)
    cut = sum(w for i, j, w in edges if res.cut[int(i)] != res.cut[int(j)])
    assert abs(cut - res.cut_value) < 1e-9
    assert res.cut_value <= best + 1e-9
    assert res.cut_value >= 0.878 * best
    assert res.certified_bound >= best - 1e-9


def test_mixing_sdp_dense_and_sparse_agree():
    edges = _graph(seed=3)
    n = 10
    C = np.zeros((n, n))
    for i, j, w in edges:
        C[int(i), int(j)] += w
        C[int(j), int(i)] += w
    dense = bilinear.mixing_sdp(C, random_state=0)
    sparse = bilinear.mixing_sdp(scipy.sparse.csr_matrix(C), random_state=0)
    assert dense.value == pytest.approx(dense.y @ C @ dense.y)
    assert dense.sdp_value == pytest.approx(sparse.sdp_value, rel=1e-5)
    assert dense.V.shape[1] == n
    np.testing.assert_allclose(np.linalg.norm(dense.V, axis=0), 1.0)


@pytest.mark.parametrize(
    "C",
    [np.ones((3, 4)), np.array([[0.0, 1.0], [2.0, 0.0]]), np.full((2, 2), np.nan),
     np.zeros((0, 0)), np.ones(3)],
    ids=["not square", "not symmetric", "nan", "empty", "1-d"],
)
def test_mixing_sdp_bad_matrix(C):
    with pytest.raises(ValueError):
        bilinear.mixing_sdp(C)


@pytest.mark.parametrize(
    "edges,n",
    [([(0, 5)], 3), ([(0, -1)], None), ([(0.5, 1)], None), ([(0, 1, np.inf)], None),
     (np.ones((2, 4)), None), ([(0, 1)], 0)],
    ids=["index out of range", "negative", "fractional", "infinite weight", "4 columns",
         "no nodes"],
)
def test_maxcut_bad_edges(edges, n):
    with pytest.raises(ValueError):
        bilinear.maxcut(edges, n_nodes=n)


def test_a_node_count_whose_factor_cannot_exist_is_refused_before_the_graph_is_built():
    # n = 3e8 nodes at the default rank ceil(sqrt(2 n)) need a V of 7e12 values: refused
    # before the graph's O(n) buffers (4.8 GB) are allocated. Run under a 2 GiB address
    # space, where building them first fails on them instead of on V.
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "import bilinear\n"
        "try:\n"
        "    bilinear.maxcut([(0, 1)], n_nodes=3 * 10**8, certify=False)\n"
        "except ValueError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "RAYON_NUM_THREADS": "1",
                              "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
    assert out.returncode == 0, out.stderr
    assert "V (rank x n)" in out.stdout, out.stdout


def test_bad_options():
    with pytest.raises(ValueError):
        bilinear.maxcut([(0, 1)], trials=0)
    with pytest.raises(ValueError):
        bilinear.maxcut([(0, 1)], tol=-1.0)
    with pytest.raises(ValueError):
        bilinear.maxcut([(0, 1)], max_iter=0)
    with pytest.raises(ValueError):
        bilinear.maxcut([(0, 1)], threads=0)


def test_defaults_are_the_rust_ones_and_knobs_reach_the_fit():
    edges = _graph(seed=4)
    # None keeps the Rust default: the same fit as spelling the defaults out.
    default = bilinear.maxcut(edges, n_nodes=10)
    spelled = bilinear.maxcut(edges, n_nodes=10, tol=1e-6, max_iter=1000, trials=100,
                              local_search=True, random_state=0)
    np.testing.assert_array_equal(default.cut, spelled.cut)
    assert default.sdp_value == spelled.sdp_value
    # The sweep budget reaches the fit; one thread gives the default's result (that the
    # thread count reaches the Rust check: threads=0 is refused, test_bad_options).
    capped = bilinear.maxcut(edges, n_nodes=10, tol=0.0, max_iter=3)
    assert capped.mixing.n_iter == 3 and not capped.mixing.converged
    one = bilinear.maxcut(edges, n_nodes=10, threads=1)
    np.testing.assert_array_equal(one.cut, default.cut)
    assert one.sdp_value == default.sdp_value


def test_native_needs_exactly_one_cost():
    opts = dict(rank=None, tol=1e-6, max_iter=10, trials=1, local_search=True,
                certify=False, threads=None, seed=0)
    with pytest.raises(ValueError):
        bilinear._native.mixing(**opts)
    with pytest.raises(ValueError):
        bilinear._native.mixing(dense=np.eye(2), edges=np.ones((1, 2)), n=2, **opts)
