"""Checks of the keywords every estimator and function shares: ``random_state``,
``threads``, and keywords whose ``None`` keeps the Rust default."""

import numbers

import numpy as np
from sklearn.utils import check_random_state


def _seed(random_state, default):
    """An integer seed for the Rust crate: the int itself, ``default`` (the crate's default
    seed, read from Rust) for None, or one draw."""
    if random_state is None:
        return default
    if isinstance(random_state, numbers.Integral):
        if random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}")
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def _threads(threads):
    """``None`` (rayon's global pool, all cores) or a positive int (0 is refused by the
    crate's check)."""
    if threads is None:
        return None
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise ValueError(f"threads must be an int or None, not {threads!r}")
    if threads < 0:
        raise ValueError(f"threads must be positive, got {threads}")
    return int(threads)


class _ThreadsPickle:
    """Unpickles an estimator saved before its thread keyword was ``threads`` (the tensor
    estimators said ``n_threads``; the classifier had none): the value renamed, or
    ``None`` (all cores)."""

    def __setstate__(self, state):
        if "threads" not in state:
            state["threads"] = state.pop("n_threads", None)
        super().__setstate__(state)


def _opt(cast, value):
    """``None`` (the Rust default) or ``cast(value)``."""
    return None if value is None else cast(value)
