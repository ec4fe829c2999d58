#pragma once
// Helpers for operator tests: build token streams from compact text and run graphs in the interpreter.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "step_ops/GraphBuilder.h"
#include "step_ops/Interpreter.h"

namespace steprdu::test {

// "1, 2, S1, 3, S2" -> JSON tokens of 1x1 tiles and stops, for GraphBuilder::source("tile", ...).
inline nlohmann::json tileTokens(const std::string& text) {
    nlohmann::json out = nlohmann::json::array();
    std::string cur;
    auto flush = [&]() {
        auto b = cur.find_first_not_of(' ');
        if (b == std::string::npos) return;
        std::string t = cur.substr(b, cur.find_last_not_of(' ') - b + 1);
        if (t[0] == 'S')
            out.push_back(t);
        else
            out.push_back(std::stof(t));
    };
    for (char c : text) {
        if (c == ',') {
            flush();
            cur.clear();
        } else {
            cur += c;
        }
    }
    flush();
    return out;
}

inline step::Stream tileSource(step::GraphBuilder& b, const std::string& text, const step::Shape& shape,
                               const std::string& name = "src") {
    return b.source("tile", shape, tileTokens(text), {{"tile_rows", 1}, {"tile_cols", 1}}, name);
}

// Runs the graph and returns what the named sink received, printed like the paper's streams.
inline std::string runToSink(step::GraphBuilder& b, const std::string& sink = "out") {
    step::Graph g = b.finish();
    step::Interpreter interp(true);
    auto r = interp.run(g);
    return step::streamString(r.sinks.at(sink));
}

} // namespace steprdu::test
