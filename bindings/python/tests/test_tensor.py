"""BMP, CP-ALS and Tucker estimators: recovery on planted data with missing entries,
pickling, and Python exceptions for bad input."""

import pickle

import numpy as np
import pytest

import bilinear

ESTIMATORS = [
    lambda: bilinear.BooleanTensorDecomposition(n_atoms=2),
    lambda: bilinear.CPDecomposition(rank=2),
    lambda: bilinear.TuckerDecomposition(ranks=(2, 2, 2)),
]


def _planted(missing=0.2, seed=0):
    """Two exact Boolean atoms (modes 0 and 1), a fraction of entries NaN."""
    rng = np.random.default_rng(seed)
    z0, z1 = (rng.random(10) < 0.5).astype(float), (rng.random(9) < 0.5).astype(float)
    z0[0] = z1[0] = 1.0
    X = np.einsum("i,j,k->ijk", z0, rng.normal(size=9), rng.normal(size=8))
    X += np.einsum("i,j,k->ijk", rng.normal(size=10), z1, rng.normal(size=8))
    full = X.copy()
    X[rng.random(X.shape) < missing] = np.nan
    return X, full


def test_bmp_recovers_planted_atoms_and_missing_entries():
    X, full = _planted()
    model = bilinear.BooleanTensorDecomposition(n_atoms=2, random_state=0).fit(X)
    assert model.n_iter_ == 2
    assert sorted(mode for mode, *_ in model.factors_) == [0, 1]
    for mode, z in model.boolean_factors_:
        assert set(np.unique(z)) <= {0.0, 1.0}
    # missing entries predicted too (refits stop at a relative tolerance of 1e-6)
    assert np.linalg.norm(model.reconstruct() - full) <= 1e-3 * np.linalg.norm(full)
    assert np.all(np.diff(model.rmse_path_) <= 1e-12)


@pytest.mark.parametrize("make", ESTIMATORS)
def test_pickle_round_trip(make):
    X, _ = _planted()
    model = make().fit(X)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.reconstruct(), model.reconstruct())


@pytest.mark.parametrize("make", ESTIMATORS)
def test_fits_full_tensor(make):
    _, full = _planted()
    rec = make().fit(full).reconstruct()
    assert rec.shape == full.shape
    # two Boolean atoms, CP rank 2, multilinear rank (2, 2, 2): every estimator reproduces
    # it (to 2e-6 over seeds 0-5; BMP's refits stop at a relative tolerance of 1e-6)
    assert np.linalg.norm(rec - full) <= 1e-3 * np.linalg.norm(full)


@pytest.mark.parametrize("make", ESTIMATORS)
@pytest.mark.parametrize(
    "bad",
    ["matrix", "inf", "all_missing", "empty_mode", "strings"],
)
def test_bad_input_is_value_error(make, bad):
    X, _ = _planted()
    if bad == "matrix":
        X = X[:, :, 0]
    elif bad == "inf":
        X[0, 0, 0] = np.inf
    elif bad == "all_missing":
        X[:] = np.nan
    elif bad == "empty_mode":
        X = X[:, :0, :]
    elif bad == "strings":
        X = np.full((3, 3, 3), "a")
    with pytest.raises(ValueError):
        make().fit(X)


@pytest.mark.parametrize(
    "est",
    [
        bilinear.BooleanTensorDecomposition(n_atoms=0),
        bilinear.BooleanTensorDecomposition(modes=(3,)),
        bilinear.BooleanTensorDecomposition(qp_solver="gurobi"),
        bilinear.BooleanTensorDecomposition(tol=-1.0),
        bilinear.CPDecomposition(rank=0),
        bilinear.CPDecomposition(n_starts=0),
        bilinear.TuckerDecomposition(ranks=(2, 2)),
        bilinear.TuckerDecomposition(ranks=(0, 2, 2)),
        bilinear.TuckerDecomposition(ranks="abc"),
    ],
    ids=repr,
)
def test_bad_parameters_are_value_error(est):
    X, _ = _planted()
    with pytest.raises(ValueError):
        est.fit(X)


def test_exact_qp_solver():
    X, full = _planted(missing=0.0)
    model = bilinear.BooleanTensorDecomposition(n_atoms=2, qp_solver="exact").fit(X)
    assert np.linalg.norm(model.reconstruct() - full) <= 1e-3 * np.linalg.norm(full)


def test_reconstruct_rejects_inconsistent_atoms():
    with pytest.raises(ValueError):
        bilinear._native.bmp_reconstruct([0, 1], [np.ones(3)], [np.ones(2)], [np.ones(2)],
                                          np.ones(2))
    with pytest.raises(ValueError):  # z not Boolean
        bilinear._native.bmp_reconstruct([0], [np.full(3, 0.5)], [np.ones(2)], [np.ones(2)],
                                          np.ones(1))


def test_tucker_on_a_full_tensor_is_one_hosvd():
    _, full = _planted()
    model = bilinear.TuckerDecomposition(ranks=(2, 2, 2)).fit(full)
    assert model.n_iter_ == 1
    X, _ = _planted(missing=0.2)
    assert bilinear.TuckerDecomposition(ranks=(2, 2, 2), max_iter=3).fit(X).n_iter_ <= 3


def test_defaults_come_from_rust():
    defaults = bilinear._native.tensor_defaults()
    bmp = bilinear.BooleanTensorDecomposition().get_params()
    assert bmp["n_atoms"] == defaults["bmp"]["n_atoms"] == 10
    assert bmp["tol"] == defaults["bmp"]["tol"]
    assert list(bmp["modes"]) == defaults["bmp"]["modes"] == [0, 1, 2]
    cp = bilinear.CPDecomposition().get_params()
    assert (cp["rank"], cp["max_iter"], cp["tol"], cp["n_starts"]) == (
        defaults["cp"]["rank"], defaults["cp"]["max_iter"], defaults["cp"]["tol"],
        defaults["cp"]["n_starts"])
    tucker = bilinear.TuckerDecomposition().get_params()
    assert list(tucker["ranks"]) == defaults["tucker"]["ranks"]
    assert tucker["max_iter"] == defaults["tucker"]["max_iter"]
    for name, params in (("bmp", bmp), ("cp", cp), ("tucker", tucker)):
        # IterationParams' default: rayon's global pool.
        assert params["threads"] is defaults[name]["threads"] is None


@pytest.mark.parametrize("make,key", [(ESTIMATORS[0], "bmp"), (ESTIMATORS[1], "cp")])
def test_unseeded_fits_use_the_rust_default_seed(make, key):
    # random_state=None is the crate's default seed, read from tensor_defaults().
    X, _ = _planted()
    seed = bilinear._native.tensor_defaults()[key]["seed"]
    unseeded = make().fit(X).reconstruct()
    np.testing.assert_array_equal(make().set_params(random_state=seed).fit(X).reconstruct(),
                                  unseeded)


def test_a_pickle_with_n_threads_loads_as_threads():
    # The tensor estimators' keyword was `n_threads`: an old pickle's value is kept.
    X, _ = _planted()
    model = bilinear.CPDecomposition(rank=2, threads=1).fit(X)
    state = model.__getstate__()
    state["n_threads"] = state.pop("threads")
    old = bilinear.CPDecomposition.__new__(bilinear.CPDecomposition)
    old.__setstate__(state)
    assert old.get_params()["threads"] == 1 and "n_threads" not in vars(old)
    np.testing.assert_array_equal(old.reconstruct(), model.reconstruct())


@pytest.mark.parametrize("make", ESTIMATORS)
def test_threads(make):
    X, _ = _planted()
    one = make().set_params(threads=1).fit(X).reconstruct()
    np.testing.assert_allclose(make().set_params(threads=2).fit(X).reconstruct(), one,
                               rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError):
        make().set_params(threads=0).fit(X)
