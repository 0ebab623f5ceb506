// The encoder-decoder fixtures' PyTorch reference (tests/fixtures/seq2seq/reference.json, made by
// tests/make_seq2seq_fixtures.py; docs/seq2seq-fixtures.md has its format), read once per test
// binary, and the fixtures' folder.
#pragma once

#include "build_facts.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace testing_support {

inline const std::filesystem::path& seq2seqFixtures() {
    static const std::filesystem::path dir =
        std::filesystem::path(build_facts::fixtureDir()) / "seq2seq";
    return dir;
}

inline const nlohmann::json& seq2seqReference() {
    static const nlohmann::json r = [] {
        std::ifstream in(seq2seqFixtures() / "reference.json");
        return nlohmann::json::parse(in);
    }();
    return r;
}

} // namespace testing_support
