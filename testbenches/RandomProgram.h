#pragma once
// Random, well-typed STeP programs for differential testing of the executors (`steprdu difftest`).
//
// A program is a few independent chains, each from an off-chip load to an off-chip store through a random
// sequence of steps drawn from every operator family. The generator knows every data-dependent size it
// creates (it chose the selectors), so it binds each dynamic and ragged symbol itself: the symbolic metrics
// are then an independent prediction of what every executor must move off chip.
//
// A plan fixes what is built: the seed of each chain and how many of its steps are kept. Because a chain's
// steps are drawn from its own seed, dropping chains or trailing steps leaves the rest unchanged, which is
// how a failing program is minimized.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "step_ops/Graph.h"

namespace steprdu::tb {

struct RandomChainPlan {
    std::uint64_t seed = 0;
    int steps = 0;
};

struct RandomProgramPlan {
    std::uint64_t seed = 0;
    std::vector<RandomChainPlan> chains;
};

struct RandomProgram {
    step::Graph graph;
    step::Bindings bindings;
    std::set<std::string> families; // operator kinds the program uses
};

// The plan of program `seed`: one to three chains of up to six steps.
RandomProgramPlan planRandomProgram(std::uint64_t seed);
// Builds a plan. Throws InternalError if the generator produced an ill-typed graph (a generator bug).
RandomProgram buildRandomProgram(const RandomProgramPlan& plan);

} // namespace steprdu::tb
