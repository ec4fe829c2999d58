"""Accumulator initialisers (the artifact's step_py.functions.init_fn): each returns a steprdu.InitFn."""

from steprdu._api import public as _public
from steprdu._steprdu import BadInputError as _BadInputError, InitFn as _InitFn
from steprdu.datatypes import Float32 as _Float32, elem_name as _elem_name

__all__ = ["Zero", "Empty", "Count"]


def __dir__():
    return sorted(__all__)


def _shape(name, shape):
    if not isinstance(shape, (tuple, list)) or len(shape) != 2 or not all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in shape):
        raise _BadInputError(f"{name}: shape: expected (rows, cols) of integers >= 0, found {shape!r}")
    return shape


@_public
def Zero(shape, dtype=_Float32()):
    """A tile of zeros: shape (rows, cols) in elements, dtype an element type (Float32() by default). It must
    be the tile the accumulation produces."""
    rows, cols = _shape("Zero", shape)
    return _InitFn.from_json({"init": "Zero", "rows": rows, "cols": cols, "elem": _elem_name(dtype)})


@_public
def Empty(shape, dtype=_Float32()):
    """A tile of no rows and `cols` columns, which accum_fn.RetileRow grows; shape is (0, cols)."""
    _, cols = _shape("Empty", shape)
    return _InitFn.from_json({"init": "Empty", "cols": cols, "elem": _elem_name(dtype)})


@_public
def Count():
    """A u64 counter starting at 0, for accum_fn.SignalReqAllRead."""
    return _InitFn.from_json({"init": "Count"})
