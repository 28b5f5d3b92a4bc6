"""The native glue's copies of hostile input: arrays whose logical size is above
``bl_core::limits::MAX_ELEMENTS`` (2^32 values; stride-0 views from ``np.broadcast_to``,
which take no memory) are refused with a ``ValueError`` naming the argument before
anything is allocated; a copy the allocator refuses is a ``MemoryError`` naming the
argument; an endless iterable ends in ``MemoryError``. None of them aborts the process or
raises pyo3's ``PanicException``.

The functions of ``bilinear._native`` are called directly: the estimators check their
input in Python first, and these tests are about the native side."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import bilinear
from bilinear import _native

# 2^33 values, above the limit of 2^32; none of them stored.
HUGE3 = (2048, 2048, 2048)


def huge(shape, value=1.0, dtype=np.float64):
    """A read-only stride-0 view showing `value` at every index of `shape`."""
    return np.broadcast_to(np.array(value, dtype=dtype), shape)


def refused(name):
    """`pytest.raises` of the size refusal naming the argument `name`."""
    return pytest.raises(ValueError, match=rf"`{name}` = .* values: must be a size of at most")


def test_tensor_fits_refuse_an_oversized_x_before_copying():
    with refused("X"):
        _native.cp_fit(huge(HUGE3), rank=1, max_iter=1, tol=0.0, n_starts=1, seed=0)
    with refused("X"):
        _native.tucker_fit(huge(HUGE3), ranks=[1, 1, 1], max_iter=1, tol=0.0)
    with refused("X"):
        _native.bmp_fit(huge(HUGE3), max_iter=1, tol=0.0, alternations=1, refit_sweeps=0,
                        refit_tol=0.0, modes=[0], exact_qp=False, seed=0)


def test_reconstructions_refuse_oversized_attributes():
    f = np.ones((2, 1))
    # Tucker with an edited core_.
    with refused("core"):
        _native.tucker_reconstruct(huge((3000, 3000, 3000)), [f, f, f])
    # CP or Tucker with edited factors_ (was a PanicException from faer's allocation).
    big = huge((10**9, 10**4))
    with refused(r"factors\[0\]"):
        _native.cp_reconstruct([big, big, big])
    with refused(r"factors\[1\]"):
        _native.cp_reconstruct([f, big, f])
    with refused(r"factors\[0\]"):
        _native.tucker_reconstruct(np.ones((1, 1, 1)), [big, big, big])
    # BMP with edited factors_.
    b = huge((10**10,))
    with refused("z"):
        _native.bmp_reconstruct([0], [b], [b], [b], np.ones(1))
    with refused("coefficients"):
        _native.bmp_reconstruct([0], [np.ones(2)], [np.ones(2)], [np.ones(2)], b)


def test_estimators_reconstruct_edited_attributes_with_a_value_error():
    m = bilinear.TuckerDecomposition(ranks=(1, 1, 1)).fit(np.ones((2, 2, 2)))
    m.core_ = huge((3000, 3000, 3000))
    with pytest.raises(ValueError, match="core"):
        m.reconstruct()
    m = bilinear.CPDecomposition(rank=1, max_iter=2, n_starts=1).fit(np.ones((2, 2, 2)))
    m.factors_ = [huge((10**9, 10**4))] * 3
    with pytest.raises(ValueError, match="factors"):
        m.reconstruct()


def _sblr_params():
    return bilinear.SparseBilinearLogisticRegression(max_iter=1)._native_params()


def test_sblr_refuses_oversized_samples_and_labels_before_copying():
    params = _sblr_params()
    with refused("X"):
        _native.sblr_fit(huge((2**13, 2**10, 2**10)), np.zeros(2**13, dtype=np.int64), 2,
                         params, multi_class="ovr")
    with refused("y"):
        _native.sblr_fit(np.zeros((2, 3, 4)), huge((2**33,), 0, np.int64), 2, params,
                         multi_class="ovr")
    rng = np.random.default_rng(0)
    model = _native.sblr_fit(rng.normal(size=(20, 3, 4)), np.arange(20, dtype=np.int64) % 2,
                             2, params, multi_class="ovr")
    for method in (model.predict, model.decision_function, model.predict_proba):
        with refused("X"):
            method(huge((2**31, 3, 4)))


def test_dense_matrices_refuse_oversized_arrays():
    with refused("y"):
        _native.gop_fit(huge((2**17, 2**16)))
    with refused("C"):
        _native.mixing(dense=huge((2**17, 2**16)))


def test_sblr_chunks_refuse_an_oversized_non_contiguous_block():
    with refused("x"):
        _native.SblrChunk(huge((2**13, 2**10, 2**10)), 2**10, 2**10, 0, 0)


# A child process under an address-space limit a little above what it holds after its
# imports: a copy the allocator refuses must be a MemoryError, an endless iterable must
# end in one, and the process must exit normally (an abort is a negative return code).
CHILD = textwrap.dedent("""
    import itertools, resource, sys
    import numpy as np
    from bilinear import _native
    import bilinear.crfsuite as cs

    crf = cs.CRF(max_iterations=2).fit([[{"walk": 1}, {"shop": 1}]], [["a", "b"]])

    def vm_bytes():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024

    limit = vm_bytes() + (16 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    def expect_memory_error(name, f):
        try:
            f()
        except MemoryError as e:
            print(name, "MemoryError", str(e)[:200])
        else:
            print(name, "no error")

    # 2^28 values (2 GiB): under the cap on values, refused by the allocator.
    big = np.broadcast_to(np.ones(1), (1024, 1024, 256))
    expect_memory_error("x", lambda: _native.cp_fit(
        big, rank=1, max_iter=1, tol=0.0, n_starts=1, seed=0))
    expect_memory_error("factors", lambda: _native.cp_reconstruct(
        [np.broadcast_to(np.ones(1), (2**14, 2**14))] * 3))
    expect_memory_error("predict", lambda: crf._model.predict(
        itertools.repeat([{"walk": 1}])))
    expect_memory_error("fit", lambda: _native.crfsuite_fit(
        itertools.repeat([{"walk": 1}]), itertools.repeat(["a"]), algorithm="lbfgs",
        params={}))
    # One endless sequence: chain-crf's builder and Sequence refuse their growth.
    expect_memory_error("fit_sequence", lambda: _native.crfsuite_fit(
        [itertools.repeat({"walk": 1})], [itertools.repeat("a")], algorithm="lbfgs",
        params={}))
    expect_memory_error("predict_sequence", lambda: crf._model.predict(
        [itertools.repeat({"walk": 1})]))
    print("exit")
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_refused_allocations_and_endless_iterables_are_memory_errors():
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    p = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                       timeout=120, env=env)
    assert p.returncode == 0, (p.returncode, p.stdout, p.stderr[-2000:])
    lines = p.stdout.splitlines()
    assert lines[-1] == "exit", p.stdout
    by_name = {line.split()[0]: line for line in lines[:-1]}
    assert by_name["x"].startswith("x MemoryError X: cannot allocate 268435456 values"), p.stdout
    assert by_name["x"].endswith("for its 1024 x 1024 x 256 values"), p.stdout
    assert by_name["factors"].startswith("factors MemoryError factors[0]:"), p.stdout
    assert by_name["predict"].startswith("predict MemoryError"), p.stdout
    assert by_name["fit"].startswith("fit MemoryError"), p.stdout
    # The data set builder's own refusal, naming X and the place it was reached.
    assert by_name["fit"].startswith("fit MemoryError X: sequence "), p.stdout
    assert "out of memory" in by_name["fit"], p.stdout
    assert by_name["fit_sequence"].startswith(
        "fit_sequence MemoryError X: sequence 0, position "), p.stdout
    assert by_name["predict_sequence"].startswith(
        "predict_sequence MemoryError X: sequence 0, position "), p.stdout


def test_returned_arrays_are_in_c_order_as_before_the_fallible_copies():
    # The copies back to NumPy keep NumPy's default layout (a C-ordered array), as the
    # element-by-element copies before them did; the values do not depend on it.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4, 5, 6))
    cp = bilinear.CPDecomposition(rank=2, max_iter=3, random_state=0).fit(X)
    tucker = bilinear.TuckerDecomposition(ranks=(2, 2, 2), max_iter=3).fit(X)
    arrays = [*cp.factors_, *tucker.factors_, tucker.core_, cp.reconstruct(),
              tucker.reconstruct()]
    for a in arrays:
        assert a.flags["C_CONTIGUOUS"], a.shape
    full = cp.reconstruct()
    w = np.ones(2) if getattr(cp, "weights_", None) is None else cp.weights_
    expected = np.einsum("r,ir,jr,kr->ijk", w, *cp.factors_)
    np.testing.assert_allclose(full, expected, rtol=1e-12, atol=1e-12)
