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
//
// The fuzz form (`fuzz_program`) draws every choice, chains and steps included, from a ChoiceSource fed by
// the fuzzer's bytes, and on top of the valid program replaces some of the values it chose (one, or each with
// a chance: tile sizes, ranks, strides, functions, init tiles, out_tile, chunk and repeat counts, selector
// widths) by plausible wrong ones, and draws a few steps that only the fuzz form has (MapAccum, RepeatStatic,
// streams given as Source tiles, functions over address streams). Many of those programs are invalid: the
// builder must refuse them.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "step_ops/Graph.h"
#include "testbenches/ChoiceSource.h"

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
    // Fuzz form: values replaced by wrong ones. With any, the bindings are the generator's belief only (an
    // accepted mutation may change sizes it does not follow), and no check may rest on them.
    int mutations = 0;
};

// The plan of program `seed`: one to three chains of up to six steps.
RandomProgramPlan planRandomProgram(std::uint64_t seed);
// Builds a plan. Throws InternalError if the generator produced an ill-typed graph (a generator bug).
RandomProgram buildRandomProgram(const RandomProgramPlan& plan);
// The fuzz form: one to three chains of up to eight steps, every choice drawn from `choices`. Throws the
// builder's BadInput when it refuses the program; a program without mutations that the builder refuses is
// a generator bug (a StepError with the internal exit code).
RandomProgram buildFuzzProgram(ChoiceSource& choices);

} // namespace steprdu::tb
