"""The STeP artifact's simulator settings (its sim.HBMConfig and sim.SimConfig) and how they map onto steprdu's
hardware keys and run options; steprdu.simulate(..., hbm_config=, sim_config=) takes them."""

from dataclasses import dataclass, fields
from typing import Dict, Optional

from steprdu._steprdu import BadInputError, Op, Stream
from steprdu._api import guard_class

# HBMConfig field -> the hardware key (docs/config.md) that models it.
HBM_KEYS = {
    "addr_offset": "hbm.request_bytes",
    "channel_num": "hbm.channels",
    "per_channel_latency": "hbm.latency_cycles",
    "per_channel_init_interval": "hbm.init_interval_cycles",
    "per_channel_outstanding": "hbm.outstanding_per_channel",
    "per_channel_start_up_time": "hbm.startup_cycles",
}


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass
class HBMConfig:
    """The artifact's HBM node, HBMConfig(addr_offset, channel_num, per_channel_latency,
    per_channel_init_interval, per_channel_outstanding, per_channel_start_up_time), e.g. (64, 32, 2, 2, 1, 14)
    for the paper's section 5 (1024 B/cycle) or (64, 8, 2, 2, 1, 14) for Fig 8 (256 B/cycle).

    addr_offset: bytes per request; channel_num: independent channels; per_channel_latency: cycles from a
    channel accepting a request to its response; per_channel_init_interval: cycles between requests one
    channel accepts; per_channel_outstanding: requests in flight per channel (no effect in the artifact);
    per_channel_start_up_time: extra cycles of a response (every response under roofline.step_compat, as the
    artifact's stored code does). Each maps to one hbm.* key (to_sets()); simulate(hbm_config=) also selects
    the published node as the HBM tier (memory.hbm=step_node) so that the cycle backend uses it too.
    """

    addr_offset: int
    channel_num: int
    per_channel_latency: int
    per_channel_init_interval: int
    per_channel_outstanding: int
    per_channel_start_up_time: int

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if not _is_int(value) or value < 0:
                raise BadInputError(f"HBMConfig: {f.name}: expected an integer >= 0 ({HBM_KEYS[f.name]}), "
                                    f"found {value!r}")

    def to_sets(self):
        """The hardware overrides this configuration stands for: {"hbm.channels": 32, ...,
        "memory.hbm": "step_node"}, as simulate's `set` takes them."""
        sets = {key: getattr(self, name) for name, key in HBM_KEYS.items()}
        sets["memory.hbm"] = "step_node"
        return sets

    def peak_bytes_per_cycle(self):
        """channel_num x addr_offset / per_channel_init_interval: the node's peak bandwidth in bytes/cycle."""
        return self.channel_num * self.addr_offset / self.per_channel_init_interval


@dataclass
class SimConfig:
    """The artifact's run settings, SimConfig(channel_depth, functional_sim=True, mock_bf16=False,
    config_dict=None), mapped onto simulate's options:

    channel_depth: every stream's FIFO depth in elements (simulate's `depth`; None: unbounded, depth=0);
    functional_sim: compute values on the cycle backend (`functional`; the interpreter always computes them
    and the roofline never does, as the artifact's timing-only runs); mock_bf16: time float32 tiles as 2-byte
    elements (`timing_elem_bytes=2`); config_dict: per-producer depths {op: depth} (simulate's `depths`),
    keyed by the Op (what steprdu.ops returns), a Stream of it or its name; the artifact's integer operator
    ids have no steprdu counterpart and are refused.
    """

    channel_depth: Optional[int]
    functional_sim: bool = True
    mock_bf16: bool = False
    config_dict: Optional[Dict[object, int]] = None

    def __post_init__(self):
        if self.channel_depth is not None and (not _is_int(self.channel_depth) or self.channel_depth < 0):
            raise BadInputError(f"SimConfig: channel_depth: expected an integer >= 0 or None (unbounded), "
                                f"found {self.channel_depth!r}")
        for name in ("functional_sim", "mock_bf16"):
            if not isinstance(getattr(self, name), bool):
                raise BadInputError(f"SimConfig: {name}: expected True or False, found {getattr(self, name)!r}")
        if self.config_dict is not None and not isinstance(self.config_dict, dict):
            raise BadInputError(f"SimConfig: config_dict: expected a dict {{op: depth}}, found "
                                f"{type(self.config_dict).__name__}")

    def depths(self):
        """config_dict as simulate's `depths`: {operator name: depth}."""
        return depths_by_name(self.config_dict or {}, "SimConfig: config_dict")


def depths_by_name(depths, where):
    """{operator name: depth} from keys that are Ops, Streams (their producer) or names."""
    if not isinstance(depths, dict):
        raise BadInputError(f"{where}: expected a dict {{op: depth}}, found {type(depths).__name__}")
    out = {}
    for key, depth in depths.items():
        if isinstance(key, Stream):
            key = key.op
        if isinstance(key, Op):
            key = key.name
        if _is_int(key):
            raise BadInputError(f"{where}: key {key}: the artifact's integer operator ids have no steprdu "
                                "counterpart; key the depth by the Op (what steprdu.ops returns) or its name")
        if not isinstance(key, str):
            raise BadInputError(f"{where}: expected Op, Stream or operator-name keys, found "
                                f"{type(key).__name__}")
        if not _is_int(depth) or depth < 0:
            raise BadInputError(f"{where}['{key}']: expected a depth >= 0 (elements; 0: unbounded), found "
                                f"{depth!r}")
        out[key] = depth
    return out


guard_class(HBMConfig)
guard_class(SimConfig)
