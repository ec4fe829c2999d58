"""Functions for Map (the artifact's step_py.functions.map_fn): each call returns a steprdu.Function. FLOPs per
application are those of the published simulator (docs/metrics.md)."""

from steprdu._api import public as _public
from steprdu._steprdu import BadInputError as _BadInputError, Function as _Function

__all__ = ["Matmul", "DynMatmul", "Add", "Mul", "Div", "Silu", "SiLU", "Exp", "RowWiseSum", "SetOffset",
           "RowWiseAppend", "CacheWriteAddrGen"]


def __dir__():
    return sorted(__all__)


def _fn(name, **args):
    return _Function.from_json({"fn": name, **args})


@_public
def Matmul(weight_transposed=False):
    """Tile matrix product [M, K] x [K, N] -> [M, N] (or [M, K] x [N, K] with weight_transposed=True):
    2*M*K*N FLOPs. Returns a Function of two inputs."""
    if not isinstance(weight_transposed, bool):
        raise _BadInputError(f"Matmul: weight_transposed: expected a bool, found {weight_transposed!r}")
    return _fn("Matmul", weight_transposed=True) if weight_transposed else _fn("Matmul")


@_public
def DynMatmul(weight_transposed=False):
    """The artifact's Matmul over tiles of data-dependent size; the same as Matmul here (symbolic tile sizes
    are native). Returns a Function of two inputs."""
    return Matmul(weight_transposed)


@_public
def Add():
    """Elementwise sum, broadcasting a 1-row or 1-column tile: one FLOP per output element. Two inputs."""
    return _fn("Add")


@_public
def Mul():
    """Elementwise product, broadcasting as Add: one FLOP per output element. Two inputs."""
    return _fn("Mul")


@_public
def Div():
    """Elementwise quotient, broadcasting as Add: one FLOP per output element. Two inputs."""
    return _fn("Div")


@_public
def Silu():
    """x * sigmoid(x) per element: 8 FLOPs per element. One input."""
    return _fn("SiLU")


SiLU = Silu


@_public
def Exp():
    """e**x per element: 4 FLOPs per element. One input."""
    return _fn("Exp")


@_public
def RowWiseSum():
    """The sum of each row: [M, N] -> [M, 1], M*N FLOPs. One input."""
    return _fn("RowWiseSum")


@_public
def SetOffset():
    """Sets a tile's valid-row offset from a u64 scalar (tile, offset): a fixed cycle. Two inputs."""
    return _fn("SetOffset")


@_public
def RowWiseAppend():
    """Appends the second tile's rows after the first's valid rows: a fixed cycle. Two inputs."""
    return _fn("RowWiseAppend")


@_public
def CacheWriteAddrGen(row_offset):
    """Cache write addresses (u64): idx * row_offset + the request's offset, row_offset in tiles (the
    artifact's keyword). Two inputs."""
    if not isinstance(row_offset, int) or isinstance(row_offset, bool):
        raise _BadInputError(f"CacheWriteAddrGen: row_offset: expected an integer, found {row_offset!r}")
    return _fn("CacheWriteAddrGen", offset_per_idx=row_offset)
