// A training run as `mha-viz train` drives it: the Trainer's steps, rows and checkpoints, the
// run folder's files (safetensors, model.json, metrics.csv, ablation.csv) and the ablation.
#include "io/run_folder.h"
#include "io/safetensors.h"
#include "train/ablation.h"
#include "train/probe_maps.h"
#include "train/trainer.h"

#include "thrown_message.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace train = core::train;
using testing_support::thrownMessage;

// A run small enough for a unit test: 2 layers, D 16, 4 heads, seq 16, batch 4.
train::TrainSettings smallRun(train::TaskKind task = train::TaskKind::Induction) {
    train::TrainSettings s;
    s.task = task;
    s.model.d_model = 16;
    s.model.heads = 4;
    s.model.layers = 2;
    s.model.seq = task == train::TaskKind::Agreement ? 24 : 16;
    s.batch = 4;
    s.steps = 12;
    s.learningRate = 1e-2;
    s.evalEvery = 5;
    s.checkpointEvery = 4;
    return s;
}

bool sameBits(const train::Params& a, const train::Params& b) {
    const auto ta = train::namedTensors(a), tb = train::namedTensors(b);
    for (std::size_t i = 0; i < ta.size(); ++i)
        if (ta[i].tensor->size() != tb[i].tensor->size() ||
            std::memcmp(ta[i].tensor->data(), tb[i].tensor->data(),
                        sizeof(float) * std::size_t(ta[i].tensor->size())) != 0)
            return false;
    return true;
}

TEST(Trainer, SameSettingsGiveTheSameWeightsAndMetricsBitForBit) {
    train::Trainer a(smallRun()), b(smallRun());
    while (!a.done()) EXPECT_EQ(a.update(), b.update());
    EXPECT_TRUE(sameBits(a.params(), b.params()));
    const auto ma = a.probeMetrics(), mb = b.probeMetrics();
    for (std::size_t i = 0; i < ma.size(); ++i) EXPECT_EQ(ma[i].value, mb[i].value) << ma[i].name;
    train::TrainSettings otherSeed = smallRun();
    otherSeed.seed = 2;
    train::Trainer c(otherSeed);
    c.update();
    EXPECT_FALSE(sameBits(c.params(), train::Trainer(smallRun()).params()));
}

TEST(Trainer, UpdatesLowerTheLossAndChangeTheWeights) {
    train::TrainSettings s = smallRun(train::TaskKind::PreviousToken);
    s.steps = 60;
    train::Trainer trainer(s);
    const train::Params initial = trainer.params();
    const double before = trainer.probeMetrics().front().value;
    while (!trainer.done()) trainer.update();
    EXPECT_EQ(trainer.step(), 60);
    EXPECT_FALSE(sameBits(initial, trainer.params()));
    EXPECT_LT(trainer.probeMetrics().front().value, before - 0.1);
}

TEST(Trainer, StartsFromInitParamsOfItsSeedAndVocab) {
    const train::Trainer trainer(smallRun(train::TaskKind::Agreement));
    EXPECT_EQ(trainer.config().vocab, trainer.task().vocabSize());
    EXPECT_TRUE(sameBits(trainer.params(), train::initParams(trainer.config(), 1)));
}

TEST(Trainer, RowsAtZeroEveryEAndTheLastStep) {
    const train::Trainer t(smallRun()); // 12 steps, E 5, C 4
    std::vector<int> eval, checkpoint;
    for (int s = 0; s <= 12; ++s) {
        if (t.isEvalStep(s)) eval.push_back(s);
        if (t.isCheckpointStep(s)) checkpoint.push_back(s);
    }
    EXPECT_EQ(eval, (std::vector<int>{0, 5, 10, 12}));
    EXPECT_EQ(checkpoint, (std::vector<int>{0, 4, 8, 12}));
}

TEST(Trainer, TrainLossIsTheMeanOfTheUpdatesSinceTheLastRow) {
    train::Trainer t(smallRun());
    const train::Batch first = t.nextBatch();
    const double atStart = train::forwardPass(t.config(), t.params(), first).loss;
    EXPECT_EQ(t.takeTrainLoss(), atStart); // step 0: the first batch at the initial weights
    const double l1 = t.update(), l2 = t.update();
    EXPECT_EQ(l1, atStart); // measured before its update
    EXPECT_DOUBLE_EQ(t.takeTrainLoss(), (l1 + l2) / 2);
}

TEST(Trainer, ProbeColumnsNameEveryMetricInOrder) {
    for (auto task : {train::TaskKind::Induction, train::TaskKind::Agreement}) {
        const train::Trainer t(smallRun(task));
        std::vector<std::string> names;
        for (const train::Metric& m : t.probeMetrics()) names.push_back(m.name);
        EXPECT_EQ(t.probeColumns(), names);
        EXPECT_EQ(names.size(), 2u + 2 * 4 * train::headScoreNames(task).size());
    }
}

TEST(Trainer, BadSettingsNameTheFlag) {
    auto message = [](auto change) {
        train::TrainSettings s = smallRun();
        change(s);
        return thrownMessage([&] { train::validate(s); });
    };
    EXPECT_EQ(message([](auto& s) { s.model.layers = 0; }), "--layers 0 must be 1 to 8");
    EXPECT_EQ(message([](auto& s) { s.model.heads = 3; }),
              "--heads 3 does not divide --d-model 16 (d_head = d_model / heads must be whole)");
    EXPECT_EQ(message([](auto& s) { s.model.seq = 3; }),
              "--seq 3 must be 4 to 1024 for the induction task");
    EXPECT_EQ(message([](auto& s) { s.batch = 0; }), "--batch 0 must be 1 to 1024");
    EXPECT_EQ(message([](auto& s) { s.steps = -1; }), "--steps -1 must be 0 to 999999");
    EXPECT_NE(message([](auto& s) { s.learningRate = -1; }).find("--lr"), std::string::npos);
    EXPECT_EQ(message([](auto& s) { s.evalEvery = 0; }), "--eval-every 0 must be 1 to 999999");
    EXPECT_NE(message([](auto& s) {
                  s.batch = 1024, s.model.seq = 1024, s.model.d_model = 1024;
              }).find("GB of activations"),
              std::string::npos);
    EXPECT_EQ(message([](auto& s) { s.steps = 1000000; }), "--steps 1000000 must be 0 to 999999");
    EXPECT_EQ(message([](auto&) {}), "");
}

TEST(Safetensors, RoundTripsNamesShapesValuesAndMetadata) {
    core::Mat a(2, 3), b(1, 1); // 2 x 3, 1 x 1
    a << 1, -2, 3.5f, 1e-30f, -0.0f, 7;
    b << 42;
    const std::string bytes = core::safetensorsBytes({{"a", a}, {"b", b}}, {{"step", "7"}});
    std::uint64_t headerSize = 0;
    std::memcpy(&headerSize, bytes.data(), 8);
    EXPECT_EQ(headerSize % 8, 0u);
    EXPECT_EQ(bytes.size(), 8 + headerSize + 7 * sizeof(float));
    const std::string header = bytes.substr(8, headerSize);
    EXPECT_NE(header.find("\"a\":{\"data_offsets\":[0,24],\"dtype\":\"F32\",\"shape\":[2,3]}"),
              std::string::npos)
        << header;
    const core::SafetensorsFile file = core::parseSafetensors(bytes);
    ASSERT_EQ(file.tensors.size(), 2u);
    EXPECT_EQ(file.find("a")->values, a);
    EXPECT_EQ(file.find("b")->values, b);
    EXPECT_EQ(file.metadata.at("step"), "7");
    EXPECT_EQ(file.find("c"), nullptr);
}

// The file of one 1 x 2 tensor with this header.
std::string withHeader(const std::string& header) {
    std::string bytes(8, '\0');
    bytes[0] = char(header.size());
    return bytes + header + std::string(8, '\0');
}

TEST(Safetensors, BadFilesAreRefusedWithOneLine) {
    auto refusal = [](const std::string& bytes) {
        return thrownMessage([&] { core::parseSafetensors(bytes); });
    };
    EXPECT_NE(refusal("abc").find("too short"), std::string::npos);
    EXPECT_NE(refusal(std::string(8, '\xff')).find("header size"), std::string::npos);
    EXPECT_NE(refusal(withHeader("{not json")).find("not a JSON object"), std::string::npos);
    EXPECT_NE(refusal(withHeader(R"({"a":{"dtype":"F16","shape":[1,2],"data_offsets":[0,8]}})"))
                  .find("'a' is not F32"),
              std::string::npos);
    EXPECT_NE(refusal(withHeader(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})"))
                  .find("only 2-D"),
              std::string::npos);
    EXPECT_NE(refusal(withHeader(R"({"a":{"dtype":"F32","shape":[1,2],"data_offsets":[0,9]}})"))
                  .find("outside the 8 data bytes"),
              std::string::npos);
    EXPECT_NE(refusal(withHeader(R"({"a":{"dtype":"F32","shape":[1,1],"data_offsets":[0,8]}})"))
                  .find("8 bytes for shape [1, 1]"),
              std::string::npos);
    EXPECT_NE(refusal(withHeader(R"({"a":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]},)"
                                 R"("b":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]}})"))
                  .find("overlap"),
              std::string::npos);
    EXPECT_NE(
        refusal(
            withHeader(
                R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,8]}})"))
            .find("larger than its data"),
        std::string::npos);
}

// A fresh folder under the test's temp dir.
std::string freshDir(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("mha-train-test-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    return dir.string();
}

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(RunFolder, CheckpointsReadBackBitForBitAndCheckShapes) {
    const std::string dir = freshDir("checkpoint");
    core::prepareRunFolder(dir);
    const train::Trainer t(smallRun());
    const std::string path = dir + "/" + core::checkpointFileName(0);
    EXPECT_EQ(core::checkpointFileName(0), "checkpoint-000000.safetensors");
    core::writeCheckpoint(path, t.params(), 0);
    EXPECT_TRUE(sameBits(core::readCheckpoint(path, t.config()), t.params()));
    EXPECT_EQ(core::readSafetensors(path).metadata.at("step"), "0");
    train::ModelConfig wider = t.config();
    wider.d_model = 32;
    EXPECT_NE(thrownMessage([&] {
                  core::readCheckpoint(path, wider);
              }).find("tensor 'embed' is [64, 16], model.json needs [64, 32]"),
              std::string::npos);
    EXPECT_NE(
        thrownMessage([&] { core::readCheckpoint(dir + "/none", t.config()); }).find("cannot read"),
        std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST(RunFolder, OnlyANewOrEmptyFolderIsTaken) {
    const std::string dir = freshDir("prepare");
    core::prepareRunFolder(dir + "/a/b"); // parents are created
    EXPECT_TRUE(std::filesystem::is_directory(dir + "/a/b"));
    core::prepareRunFolder(dir + "/a/b"); // empty: fine
    std::ofstream(dir + "/a/b/x") << "keep";
    EXPECT_EQ(thrownMessage([&] { core::prepareRunFolder(dir + "/a/b"); }),
              "--out '" + dir + "/a/b' is not empty; give a new or empty folder");
    EXPECT_EQ(thrownMessage([&] { core::prepareRunFolder(dir + "/a/b/x"); }),
              "--out '" + dir + "/a/b/x' is a file; give a new or empty folder");
    EXPECT_EQ(readText(dir + "/a/b/x"), "keep");
    EXPECT_EQ(thrownMessage([] { core::prepareRunFolder(""); }),
              "--out is empty; give a new or empty folder");
    std::filesystem::remove_all(dir);
}

TEST(RunFolder, ModelJsonRoundTripsAndBadFieldsAreNamed) {
    train::Trainer t(smallRun(train::TaskKind::Agreement));
    const std::string text = core::modelJson(t.settings(), t.task().vocab());
    const core::ModelInfo info = core::parseModelJson(text);
    EXPECT_EQ(info.task, train::TaskKind::Agreement);
    EXPECT_EQ(info.vocab, t.task().vocab());
    EXPECT_EQ(info.config.vocab, t.config().vocab);
    EXPECT_EQ(info.config.layers, 2);
    EXPECT_EQ(info.config.seq, 24);
    EXPECT_EQ(info.seed, 1u);
    std::string bad = text;
    bad.replace(bad.find("\"heads\": 4"), 10, "\"heads\": 5");
    EXPECT_NE(thrownMessage([&] { core::parseModelJson(bad); }).find("heads 5 does not divide"),
              std::string::npos);
    EXPECT_EQ(thrownMessage([] { core::parseModelJson("[]"); }), "model.json is not a JSON object");
    EXPECT_EQ(thrownMessage(
                  [] { core::parseModelJson(R"({"format":"mha-model","version":1,"task":5})"); }),
              "model.json: \"task\" must be previous-token, induction or agreement");
}

TEST(RunFolder, MetricsCsvStreamsOneRowPerAppend) {
    const std::string dir = freshDir("metrics");
    core::prepareRunFolder(dir);
    {
        core::MetricsCsv csv(dir + "/metrics.csv", {"heldout_loss", "accuracy"});
        csv.append(0, 4.25, {{"heldout_loss", 4.5}, {"accuracy", 0.1}});
        EXPECT_EQ(readText(dir + "/metrics.csv"),
                  "step,train_loss,heldout_loss,accuracy\n0,4.25,4.5,0.1\n"); // flushed at once
        csv.append(100, 1.0 / 3, {{"heldout_loss", 2}, {"accuracy", 0.5}});
    }
    EXPECT_EQ(readText(dir + "/metrics.csv"), "step,train_loss,heldout_loss,accuracy\n0,4.25,4.5,"
                                              "0.1\n100,0.3333333333333333,2,0.5\n");
    std::filesystem::remove_all(dir);
}

TEST(RunFolder, BatchesJsonHoldsTokensAndMask) {
    train::Batch batch;
    batch.tokens = {{1, 2, 3}};
    batch.lossMask = {{true, false, false}};
    EXPECT_EQ(core::batchesJson(batch),
              "{\"loss_mask\":[[true,false,false]],\"tokens\":[[1,2,3]]}\n");
    EXPECT_EQ(core::batchesFileName(1), "batches-000001.json");
}

TEST(Ablation, SingleHeadsAndAGreedyPruningCurve) {
    train::TrainSettings s = smallRun(train::TaskKind::PreviousToken);
    s.steps = 40;
    train::Trainer t(s);
    while (!t.done()) t.update();
    int calls = 0, lastTotal = 0;
    const train::AblationReport r =
        train::measureAblation(t.config(), t.params(), t.probe(), [&](int done, int total) {
            EXPECT_EQ(done, ++calls);
            lastTotal = total;
        });
    EXPECT_EQ(calls, lastTotal);
    EXPECT_EQ(lastTotal, 1 + 8 + 8 * 9 / 2);
    EXPECT_DOUBLE_EQ(r.baseline.heldoutLoss, t.probeMetrics().front().value);
    ASSERT_EQ(r.single.size(), 8u);
    ASSERT_EQ(r.pruning.size(), 8u);
    EXPECT_EQ(r.single[5].head.layer, 1);
    EXPECT_EQ(r.single[5].head.head, 1);
    // The first pruning step removes the head whose single ablation costs least.
    double least = 1e9;
    for (const auto& p : r.single) least = std::min(least, p.heldoutLoss);
    EXPECT_DOUBLE_EQ(r.pruning.front().heldoutLoss, least);
    // With every head removed, each layer adds nothing: logits = (embed + pos) * unembed.
    train::HeadLists all(2, std::vector<int>{0, 1, 2, 3});
    EXPECT_DOUBLE_EQ(r.pruning.back().heldoutLoss,
                     train::probeWithout(t.config(), t.params(), t.probe(), all).heldoutLoss);
    const std::string csv = core::ablationCsv(r, s.task);
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "kind,heads_removed,fraction_pruned,layer,head,heldout_loss,loss_increase,accuracy");
    EXPECT_NE(csv.find("\nbaseline,0,0,,,"), std::string::npos);
    EXPECT_NE(csv.find("\nsingle,1,0.125,2,2,"), std::string::npos);
    EXPECT_NE(csv.find("\npruning,8,1,"), std::string::npos);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 1 + 8 + 8);
}

} // namespace

namespace {

// The two writers of a run folder, streamed (mha-viz train) and at once (the Train view's Save
// run), write the same files for the same run, and the readers read them back exactly.
TEST(RunFolder, TheStreamedAndTheWholeRunWriterWriteTheSameFiles) {
    const std::string streamed = freshDir("streamed"), whole = freshDir("whole");
    train::TrainSettings s = smallRun();
    s.checkpointEvery = 0;
    train::Trainer trainer(s);
    const auto setup = train::makeRunSetup(s);
    core::CsvTable table;
    table.names = setup->columns;
    table.columns.resize(table.names.size());
    std::vector<train::TrainSnapshot> snapshots;
    {
        core::RunFolderWriter run(streamed, trainer.settings(), trainer.task().vocab(),
                                  trainer.probeColumns());
        auto row = [&] {
            const double loss = trainer.takeTrainLoss();
            const std::vector<train::Metric> metrics = trainer.probeMetrics();
            run.metricsRow(trainer.step(), loss, metrics);
            table.columns[0].push_back(trainer.step());
            table.columns[1].push_back(loss);
            for (std::size_t c = 0; c < metrics.size(); ++c)
                table.columns[c + 2].push_back(metrics[c].value);
            run.checkpoint(trainer.step(), trainer.params());
            snapshots.push_back(train::snapshotOf(trainer, *setup));
        };
        row();
        while (!trainer.done()) {
            trainer.update();
            if (trainer.isEvalStep(trainer.step())) row();
        }
    }
    std::atomic<int> done{0};
    core::writeRunFolder(whole, *setup, table, snapshots, done);
    EXPECT_EQ(done, int(snapshots.size()) + 1);
    for (const std::string name : {"model.json", "metrics.csv"})
        EXPECT_EQ(readText(streamed + "/" + name), readText(whole + "/" + name)) << name;
    EXPECT_EQ(core::checkpointSteps(whole), core::checkpointSteps(streamed));
    for (const train::TrainSnapshot& snap : snapshots)
        EXPECT_TRUE(sameBits(core::readCheckpoint(whole + "/" + core::checkpointFileName(snap.step),
                                                  trainer.config()),
                             *snap.params));
    EXPECT_EQ(core::readMetrics(whole).columns, table.columns);
    EXPECT_NE(thrownMessage([&] {
                  core::writeRunFolder(whole, *setup, table, snapshots, done);
              }).find("is not empty"),
              std::string::npos); // never over a run
    std::filesystem::remove_all(streamed);
    std::filesystem::remove_all(whole);
}

} // namespace
