// The JSON field reader every file reader uses (io/json_fields.h): typed values, defaults,
// and one-line errors that say what is being read and name the field.
#include "io/json_fields.h"

#include "engine/attention.h"
#include "thrown_message.h"

#include <gtest/gtest.h>

namespace {

using nlohmann::json;
using testing_support::thrownMessage;

TEST(JsonFields, ReadsTypedValuesAndDefaults) {
    const json j = json::parse(R"({"n": 7, "x": 0.5, "b": true, "s": "hi", "list": ["a", "b"],
                                   "seed": 18446744073709551615, "mask": "causal"})");
    const core::JsonFields f(j, "test: ");
    EXPECT_EQ(f.integer("n", 1, 10), 7);
    EXPECT_EQ(f.integer("missing", 1, 10, 3), 3);
    EXPECT_EQ(f.number("x", 0), 0.5);
    EXPECT_TRUE(f.boolean("b", false));
    EXPECT_EQ(f.string("s", ""), "hi");
    EXPECT_EQ(f.strings("list", true), (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(f.strings("missing", false).empty());
    EXPECT_EQ(f.unsignedInteger("seed", 0), 18446744073709551615ull);
    EXPECT_EQ(f.oneOf("mask", core::MaskKind::None), core::MaskKind::Causal);
    EXPECT_EQ(f.oneOf("missing", core::ScaleKind::None), core::ScaleKind::None);
}

TEST(JsonFields, ErrorsAreOneLineNamingTheField) {
    const json j = json::parse(R"({"n": 70, "s": 5, "mask": "diagonal", "list": [1],
                                   "seed": -1, "f": 1.5})");
    const core::JsonFields f(j, "scene: ");
    EXPECT_EQ(thrownMessage([&] { f.integer("n", 1, 10); }),
              "scene: \"n\" 70 is out of range (1 to 10)");
    EXPECT_EQ(thrownMessage([&] { f.integer("f", 1, 10); }), "scene: \"f\" must be a whole number");
    EXPECT_EQ(thrownMessage([&] { f.integer("gone", 1, 10); }), "scene: missing \"gone\"");
    EXPECT_EQ(thrownMessage([&] { f.string("s", ""); }), "scene: \"s\" must be a string");
    EXPECT_EQ(thrownMessage([&] { f.strings("list", true); }),
              "scene: \"list\" must be a list of strings");
    EXPECT_EQ(thrownMessage([&] { f.unsignedInteger("seed", 0); }),
              "scene: \"seed\" must be a whole number >= 0");
    EXPECT_EQ(thrownMessage([&] { f.oneOf("mask", core::MaskKind::None); }),
              "scene: \"mask\" must be none or causal");
    EXPECT_EQ(thrownMessage([&] { f.oneOf("s", core::MaskKind::None); }),
              "scene: \"s\" must be none or causal"); // not a string: the same message
}

} // namespace
