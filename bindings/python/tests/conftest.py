"""Shared fixtures: the Rust crates' own results on fixed data (see
``examples/rust_reference.rs``), the real data sets, and the Dask client of the
distributed tests."""

import json
import os
import pathlib
import subprocess

import pytest

CRATE = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def rust_reference(tmp_path_factory):
    """The JSON written by the Rust example ``rust_reference``: read from
    ``$BILINEAR_RUST_REFERENCE`` (``cargo xtask test`` writes it), else produced by
    ``cargo run`` here."""
    path = os.environ.get("BILINEAR_RUST_REFERENCE")
    if not path:
        path = tmp_path_factory.mktemp("rust") / "reference.json"
        subprocess.run(
            ["cargo", "run", "-q", "-p", "bilinear-python", "--example", "rust_reference",
             "--", str(path)],
            cwd=CRATE,
            check=True,
        )
    with open(path) as f:
        return json.load(f)


@pytest.fixture(scope="session")
def real_data():
    """A function from a path inside the data cache (``$BILINEAR_DATA_DIR``, else ``data/``
    at the workspace root, as ``cargo xtask data`` uses) to that file. A missing file skips
    the test, or fails it when ``$BILINEAR_REQUIRE_DATA`` is set (``.ci/run`` sets it after
    fetching the data, so a test there cannot pass without reading its data)."""
    base = pathlib.Path(os.environ.get("BILINEAR_DATA_DIR") or CRATE.parents[1] / "data")

    def find(relative):
        path = base / relative
        if not path.exists():
            message = f"{path} is missing: cargo xtask data fetch {pathlib.Path(relative).parts[0]}"
            if os.environ.get("BILINEAR_REQUIRE_DATA"):
                pytest.fail(message)
            pytest.skip(message)
        return path

    return find


@pytest.fixture(scope="module")
def client():
    """A ``dask.distributed`` client of a ``LocalCluster`` of two worker processes (one
    thread each), one cluster per test module that uses it."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c
