#pragma once
// The floorplan as a picture (floorplan.svg of `steprdu pnr --out`): units coloured by operator, AGCUs on the
// tile edges, routes drawn with widths by bandwidth.
#include <string>

#include "hw/config/HwConfig.h"
#include "hw/pnr/PlaceAndRoute.h"
#include "step_ops/Graph.h"

namespace steprdu::hw::pnr {

std::string floorplanSvg(const step::Graph& g, const HwConfig& cfg, const PnrResult& r);

} // namespace steprdu::hw::pnr
