#pragma once
// The floorplan as a picture (floorplan.svg of `steprdu pnr --out`): units coloured by group, kind or
// operator, AGCUs on the tile edges, routes drawn with widths by bandwidth.
#include <string>

#include "hw/config/HwConfig.h"
#include "hw/pnr/PlaceAndRoute.h"
#include "step_ops/Graph.h"

namespace steprdu::hw::pnr {

// What a colour stands for. Group: the operator name's part before its first dot (e3.up and e3.down are
// expert e3, r1.gate region r1; names without a dot are "shared"). Kind: the STeP operator (Map, Accum, ...).
// Operator: one colour each. Auto: groups where the names make at least two, else operators where there are
// at most 12, else kinds.
enum class FloorplanColors { Auto, Group, Kind, Operator };
// "auto", "group", "kind" or "operator"; throws BadInput naming what was found.
FloorplanColors parseFloorplanColors(const std::string& s);

std::string floorplanSvg(const step::Graph& g, const HwConfig& cfg, const PnrResult& r,
                         FloorplanColors colors = FloorplanColors::Auto);

} // namespace steprdu::hw::pnr
