"""Functions for Accum and Scan (the artifact's step_py.functions.accum_fn): each returns a steprdu.Function
that folds one input element into the accumulator."""

from steprdu._api import public as _public
from steprdu._steprdu import Function as _Function

__all__ = ["Add", "Mul", "RetileRow", "RetileCol", "SignalReqAllRead"]


def __dir__():
    return sorted(__all__)


@_public
def Add():
    """accumulator + element (broadcasting a 1-row or 1-column tile): one FLOP per element."""
    return _Function.from_json({"fn": "Add"})


@_public
def Mul():
    """accumulator * element: one FLOP per element."""
    return _Function.from_json({"fn": "Mul"})


@_public
def RetileRow():
    """Appends the element's rows to the accumulator (grown from init_fn.Empty((0, cols))): no FLOPs."""
    return _Function.from_json({"fn": "RetileRow"})


@_public
def RetileCol():
    """Appends the element's columns to the accumulator: no FLOPs."""
    return _Function.from_json({"fn": "RetileCol"})


@_public
def SignalReqAllRead():
    """Counts the elements of a request into a u64 (init_fn.Count()): one signal per accumulation."""
    return _Function.from_json({"fn": "SignalReqAllRead"})
