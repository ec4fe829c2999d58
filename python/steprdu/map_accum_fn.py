"""Functions for MapAccum (the artifact's step_py.functions.map_accum_fn): the tile product whose results
MapAccum sums."""

from steprdu.map_fn import DynMatmul, Matmul

__all__ = ["Matmul", "DynMatmul"]


def __dir__():
    return sorted(__all__)
