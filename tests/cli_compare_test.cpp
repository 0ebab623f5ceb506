// `mha-viz --model A --compare B`: a checkpoint against its BF16 copy (the rounding a
// quantized file adds, on a random fixture), the same checkpoint against itself, and the
// refusals: models that read the text differently or differ in shape. The comparison's numbers
// are checked against the two models' own traces (--json), computed here.
#include "build_facts.h"
#include "cli_fixtures.h"
#include "process_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

using nlohmann::json;
using testing_support::expectBadInput;
using testing_support::runMhaViz;
using testing_support::traceOf;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = fs::path(build_facts::fixtureDir()) / "llama";
const fs::path kF32 = kFixtures / "llama3_gqa_f32";

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// float -> bfloat16 rounded to nearest even, as torch's .bfloat16() does for finite values.
std::uint16_t toBf16(std::uint32_t bits) {
    return std::uint16_t((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

// A copy of the F32 fixture with every F32 tensor stored as BF16.
fs::path bf16Copy() {
    const fs::path dir = testing_support::scratchCopy(kF32, "compare-bf16");
    const std::string data = readFile(dir / "model.safetensors");
    std::uint64_t size = 0;
    std::memcpy(&size, data.data(), 8);
    const json header = json::parse(data.substr(8, size));
    json out = json::object();
    std::string blob;
    for (const auto& [name, t] : header.items()) {
        if (name == "__metadata__") continue;
        const std::size_t begin = t["data_offsets"][0], end = t["data_offsets"][1];
        std::string raw = data.substr(8 + size + begin, end - begin);
        json entry = t;
        if (t["dtype"] == "F32") {
            std::string half(raw.size() / 2, '\0');
            for (std::size_t i = 0; i < raw.size() / 4; ++i) {
                std::uint32_t bits;
                std::memcpy(&bits, raw.data() + 4 * i, 4);
                const std::uint16_t b = toBf16(bits);
                std::memcpy(half.data() + 2 * i, &b, 2);
            }
            raw = half, entry["dtype"] = "BF16";
        }
        entry["data_offsets"] = {blob.size(), blob.size() + raw.size()};
        out[name] = entry, blob += raw;
    }
    std::string text = out.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    const std::uint64_t length = text.size();
    std::ofstream file(dir / "model.safetensors", std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(&length), 8);
    file << text << blob;
    return dir;
}

// Each head's mean total variation between the two traces' attention: [L][H].
std::vector<std::vector<double>> totalVariation(const json& a, const json& b) {
    std::vector<std::vector<double>> tv;
    for (std::size_t l = 0; l < a["layers"].size(); ++l) {
        const json &ha = a["layers"][l]["attention"][0], &hb = b["layers"][l]["attention"][0];
        tv.emplace_back();
        for (std::size_t h = 0; h < ha.size(); ++h) {
            double sum = 0;
            for (std::size_t i = 0; i < ha[h].size(); ++i)
                for (std::size_t j = 0; j < ha[h][i].size(); ++j)
                    sum += std::abs(ha[h][i][j].get<double>() - hb[h][i][j].get<double>());
            tv.back().push_back(0.5 * sum / double(ha[h].size()));
        }
    }
    return tv;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

} // namespace

TEST(CliCompare, Bf16CopyMovesHeadsAsTheTwoTracesSay) {
    const fs::path bf16 = bf16Copy();
    const fs::path out = fs::temp_directory_path() / "mha-viz-cli-compare-out";
    fs::remove_all(out);
    const auto r =
        runMhaViz({"--model", kF32.string(), "--compare", bf16.string(), "--export", out.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("(llama, 2 layers, 4 query heads, 2 K/V heads"), std::string::npos);
    EXPECT_NE(r.out.find("BF16)"), std::string::npos) << r.out;
    const std::vector<std::vector<double>> tv =
        totalVariation(traceOf({"--model", kF32.string(), "--json", "-", "--json-attention-only"}),
                       traceOf({"--model", bf16.string(), "--json", "-", "--json-attention-only"}));
    // The CSV ranks every head by the same measure, computed here from the traces.
    const std::vector<std::string> csv =
        lines([&] { return readFile(out / "compare-heads.csv"); }());
    ASSERT_EQ(csv.size(), 1u + 2u * 4u);
    EXPECT_EQ(csv[0], "layer,head,mean_total_variation,max_abs_difference,query,key");
    double previous = 1.0;
    for (std::size_t i = 1; i < csv.size(); ++i) {
        int layer = 0, head = 0;
        double mean = 0;
        ASSERT_EQ(std::sscanf(csv[i].c_str(), "%d,%d,%lf", &layer, &head, &mean), 3) << csv[i];
        EXPECT_NEAR(mean, tv[std::size_t(layer - 1)][std::size_t(head - 1)], 1e-6) << csv[i];
        EXPECT_LE(mean, previous) << "ranked, the most moved first";
        EXPECT_GT(mean, 0.0) << "BF16 rounding moves every head a little";
        previous = mean;
    }
    EXPECT_TRUE(fs::exists(out / "compare-heads.png") && fs::exists(out / "compare-heads.svg"));
    EXPECT_NE(r.out.find("most moved heads"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("agrees at"), std::string::npos) << r.out;
}

TEST(CliCompare, AModelAgainstItselfMovesNothing) {
    const auto r = runMhaViz({"--model", kF32.string(), "--compare", kF32.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("L1 H1 (0), L1 H2 (0)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("largest single change: 0 at"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("agrees at 25 of 25 positions"), std::string::npos) << r.out;
}

TEST(CliCompare, ModelsThatCannotBeComparedAreRefused) {
    expectBadInput({"--model", kF32.string(), "--compare", (kFixtures / "qwen3_bf16").string()},
                   "read the text differently: token 0 is '<|begin_of_text|>'");
    const fs::path oneLayer = testing_support::scratchCopy(kF32, "compare-one-layer");
    {
        std::ifstream in(oneLayer / "config.json");
        json config = json::parse(in);
        config["num_hidden_layers"] = 1; // its second layer's tensors are left unread
        std::ofstream(oneLayer / "config.json") << config.dump();
    }
    expectBadInput({"--model", kF32.string(), "--compare", oneLayer.string()},
                   "1 layer x 4 heads, the first model 2 x 4");
    expectBadInput({"--model", kF32.string(), "--compare", "/no/such/model"}, "/no/such/model");
    expectBadInput({"--sentence", "hi", "--compare", kF32.string()}, "--compare");
}
