"""Functions for Map (the artifact's step_py.functions.map_fn): each call returns a steprdu.Function."""

from steprdu._steprdu import BadInputError, Function


def _fn(name, **args):
    return Function.from_json({"fn": name, **args})


def Matmul(weight_transposed=False):
    """[M, K] x [K, N] (or x [N, K] transposed)."""
    if not isinstance(weight_transposed, bool):
        raise BadInputError(f"Matmul: weight_transposed: expected a bool, found {weight_transposed!r}")
    return _fn("Matmul", weight_transposed=True) if weight_transposed else _fn("Matmul")


DynMatmul = Matmul  # tiles with symbolic sizes are native here


def Add():
    return _fn("Add")


def Mul():
    return _fn("Mul")


def Div():
    return _fn("Div")


def Silu():
    return _fn("SiLU")


SiLU = Silu


def Exp():
    return _fn("Exp")


def RowWiseSum():
    return _fn("RowWiseSum")


def SetOffset():
    return _fn("SetOffset")


def RowWiseAppend():
    return _fn("RowWiseAppend")


def CacheWriteAddrGen(row_offset):
    """Cache write addresses: idx x row_offset + the request's offset (the artifact's keyword)."""
    if not isinstance(row_offset, int) or isinstance(row_offset, bool):
        raise BadInputError(f"CacheWriteAddrGen: row_offset: expected an integer, found {row_offset!r}")
    return _fn("CacheWriteAddrGen", offset_per_idx=row_offset)
