"""Accumulator initialisers (the artifact's step_py.functions.init_fn)."""

from steprdu._steprdu import BadInputError, InitFn
from steprdu.datatypes import Float32, elem_name


def _shape(name, shape):
    if not isinstance(shape, (tuple, list)) or len(shape) != 2 or not all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in shape):
        raise BadInputError(f"{name}: shape: expected (rows, cols) of integers >= 0, found {shape!r}")
    return shape


def Zero(shape, dtype=Float32()):
    """A rows x cols tile of zeros."""
    rows, cols = _shape("Zero", shape)
    return InitFn.from_json({"init": "Zero", "rows": rows, "cols": cols, "elem": elem_name(dtype)})


def Empty(shape, dtype=Float32()):
    """A tile of no rows and `cols` columns, which RetileRow grows; shape is (0, cols)."""
    _, cols = _shape("Empty", shape)
    return InitFn.from_json({"init": "Empty", "cols": cols, "elem": elem_name(dtype)})


def Count():
    """A counter (u64), for SignalReqAllRead."""
    return InitFn.from_json({"init": "Count"})
