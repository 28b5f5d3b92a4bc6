"""Sparse bilinear logistic regression, Boolean tensor factorization and the mixing
method for diagonal-constrained SDPs, computed by the Rust crates of the `bilinear`
workspace (see the package README)."""

from . import _native
from ._sblr import SparseBilinearLogisticRegression

__version__ = _native.__version__

__all__ = [
    "SparseBilinearLogisticRegression",
    "__version__",
]
