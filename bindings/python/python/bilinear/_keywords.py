"""Checks of the keywords every estimator and function shares: ``random_state``,
``threads``, integer, real and Boolean keywords, keywords whose ``None`` keeps the Rust
default, file paths, and array inputs that must be real.

Every check raises ``ValueError`` naming the keyword (``TypeError`` for a path or a
buffer of the wrong type), so that no value reaches the native module that it would
refuse with an ``OverflowError``, a conversion message of its own, or coerce silently
(``int(1.5)``, ``bool("no")``). Bounds beyond the type's (``0`` where a count must be
positive, ``rank <= min(s, t)``, ...) stay the Rust crates' checks."""

import itertools
import math
import numbers
import os

import numpy as np
from sklearn.utils import check_random_state

#: The largest integer the native module takes (``u64``, ``usize`` on 64-bit targets).
_U64_MAX = 2**64 - 1

#: The most values one array may hold: the Rust crates' ``bl_core::limits::MAX_ELEMENTS``
#: (``2**32``, 32 GiB of float64). An input above it is refused before it is scanned or
#: copied.
_MAX_ELEMENTS = 2**32


def _is_bool(value):
    """Whether ``value`` is a Python or NumPy Boolean."""
    return isinstance(value, (bool, np.bool_))


def _int(name, value):
    """``value`` as a Python int: an integer (``int``, NumPy integers; not a bool) in
    ``0 ..= 2**64 - 1``, else ``ValueError`` naming ``name``."""
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an int, not {value!r}")
    value = int(value)
    if value < 0:
        raise ValueError(f"{name} must be non-negative, got {value}")
    if value > _U64_MAX:
        raise ValueError(f"{name} must be at most 2**64 - 1, got {value}")
    return value


def _float(name, value):
    """``value`` as a Python float: a real number (``float``, ``int``, NumPy scalars; not
    a bool, a str or a complex) that is not NaN, else ``ValueError`` naming ``name``.
    Infinite values and signs are the Rust checks' to judge."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, not {value!r}")
    value = float(value)
    if value != value:
        raise ValueError(f"{name} must not be NaN")
    return value


def _bool(name, value, *, zero_one=False):
    """``value`` as a Python bool: ``True`` / ``False`` or a NumPy bool (with
    ``zero_one``: also the integers 0 and 1), else ``ValueError`` naming ``name`` (a
    str such as ``"no"`` is not read as ``True``)."""
    if _is_bool(value):
        return bool(value)
    if zero_one and isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    allowed = "a bool (or 0/1)" if zero_one else "a bool"
    raise ValueError(f"{name} must be {allowed}, not {value!r}")


def _str(name, value):
    """``value`` if it is a str, else ``ValueError`` naming ``name`` (the choices are the
    Rust checks')."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a str, not {value!r}")
    return value


def _opt(check, name, value):
    """``None`` (the Rust default) or ``check(name, value)``."""
    return None if value is None else check(name, value)


def _seed(random_state, default):
    """An integer seed for the Rust crate: the int itself (``0 ..= 2**64 - 1``),
    ``default`` (the crate's default seed, read from Rust) for None, or one draw of a
    ``RandomState``."""
    if random_state is None:
        return default
    if _is_bool(random_state):
        raise ValueError(
            f"random_state must be an int, a RandomState or None, not {random_state!r}")
    if isinstance(random_state, numbers.Integral):
        return _int("random_state", random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def _threads(threads):
    """``None`` (rayon's global pool, all cores) or a positive int (0 is refused by the
    crate's check)."""
    return _opt(_int, "threads", threads)


def _path(name, value):
    """``value`` as a path (``os.fspath``): a str, bytes or ``os.PathLike``, else
    ``TypeError`` naming ``name`` (an int would be read as a file descriptor)."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(
            f"{name} must be a path (str, bytes or os.PathLike), not "
            f"{type(value).__name__}")
    return os.fspath(value)


def _size(name, value):
    """``ValueError`` naming ``name`` when ``value`` (an array or anything with a
    ``shape`` of ints, a stride-0 view included) holds more than ``2**32`` values
    (``bl_core::limits::MAX_ELEMENTS``, the crates' limit): checked from the shape alone,
    before anything scans or copies the values. Values without a shape pass (a list
    holds its values already)."""
    shape = getattr(value, "shape", None)
    if not isinstance(shape, tuple) or not all(
            isinstance(d, numbers.Integral) and not _is_bool(d) for d in shape):
        return
    n = math.prod(int(d) for d in shape)
    if n > _MAX_ELEMENTS:
        raise ValueError(
            f"{name} has shape {tuple(int(d) for d in shape)}, {n} values: more than "
            f"the {_MAX_ELEMENTS} (2**32) values an input may hold "
            "(bl_core::limits::MAX_ELEMENTS)")


def _real(name, value):
    """``np.asarray(value)`` after :func:`_size`; ``ValueError`` naming ``name`` if it
    holds complex numbers (converting them to float64 would drop their imaginary part
    with a warning only) or, unless it is 0-d (left to the callers' shape checks),
    anything but numbers (strings, even ``"1"``, which NumPy would parse; bytes, dates,
    ``None``)."""
    _size(name, value)
    array = np.asarray(value)
    if np.iscomplexobj(array) or (array.dtype == object and any(
            isinstance(v, (complex, np.complexfloating)) for v in array.flat)):
        raise ValueError(f"Complex data not supported: {name} has complex values")
    if array.ndim == 0:
        # (a scalar, None included: the callers' shape checks refuse it, saying so)
        return array
    if array.dtype == object:
        for v in array.flat:
            # Text (which `float` would parse: str, bytes, bytearray, memoryview) and None
            # are refused; any other object is a number if `float` takes it (Decimal,
            # np.bool_, Fraction, ...).
            if isinstance(v, (str, bytes, bytearray, memoryview)) or v is None:
                raise _not_real(name, v)
            try:
                float(v)
            except OverflowError:
                raise ValueError(
                    f"{name} holds {type(v).__name__} {v!r:.48}, too large for float64"
                ) from None
            except Exception:  # noqa: BLE001 (whatever a foreign `__float__` raises)
                raise _not_real(name, v) from None
    elif array.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers, not values of dtype {array.dtype}")
    return array


def _not_real(name, v):
    """The ``ValueError`` of ``name`` holding ``v``, which is not a real number."""
    return ValueError(f"{name} must hold real numbers, not {type(v).__name__} ({v!r:.48})")


def _at_most(name, value, longest, what):
    """The items of the iterable ``value`` as a list, reading at most ``longest + 1`` of
    them (a generator without end is not run to its end); ``ValueError`` naming ``name``
    (``what`` says what it must be) for a str, bytes, a non-iterable or more than
    ``longest`` items."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ValueError(f"{name} must be {what}, got {value!r:.80}")
    try:
        items = list(itertools.islice(value, longest + 1))
    except TypeError:  # (a 0-d array has __iter__ but is not iterable)
        raise ValueError(f"{name} must be {what}, got {value!r:.80}") from None
    if len(items) > longest:
        raise ValueError(f"{name} must be {what}: it has more than {longest} items")
    return items


class _ThreadsPickle:
    """Unpickles an estimator saved before its thread keyword was ``threads`` (the tensor
    estimators said ``n_threads``; the classifier had none): the value renamed, or
    ``None`` (all cores)."""

    def __setstate__(self, state):
        if "threads" not in state:
            state["threads"] = state.pop("n_threads", None)
        super().__setstate__(state)
