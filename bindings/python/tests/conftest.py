"""Shared fixtures: the Rust crates' own results on fixed data (see
``examples/rust_reference.rs``), and the Dask client of the distributed tests."""

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


@pytest.fixture(scope="module")
def client():
    """A ``dask.distributed`` client of a ``LocalCluster`` of two worker processes (one
    thread each), one cluster per test module that uses it."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c
