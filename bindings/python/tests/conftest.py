"""Shared fixtures: the Rust crates' own results on fixed data (see
``examples/rust_reference.rs``)."""

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
