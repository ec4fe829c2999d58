"""Functions for Accum and Scan (the artifact's step_py.functions.accum_fn)."""

from steprdu._steprdu import Function


def Add():
    return Function.from_json({"fn": "Add"})


def Mul():
    return Function.from_json({"fn": "Mul"})


def RetileRow():
    """Appends the input's rows to the accumulator (grown from init_fn.Empty)."""
    return Function.from_json({"fn": "RetileRow"})


def RetileCol():
    """Appends the input's columns to the accumulator."""
    return Function.from_json({"fn": "RetileCol"})


def SignalReqAllRead():
    """Counts the elements of a request: one signal per accumulation."""
    return Function.from_json({"fn": "SignalReqAllRead"})
