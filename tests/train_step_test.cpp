// A training step with reused buffers (core/train/model.h: forwardPass and backwardPass into
// ForwardPass / BackwardBuffers, StepBuffers): the same bits as fresh ones, whatever shapes the
// buffers held before, and the same bits on every run of the same seed (also with threads).
#include "train/model.h"
#include "train/optimizer.h"
#include "train/tasks.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace {

using core::train::Batch;
using core::train::ModelConfig;
using core::train::Params;

void expectSameParams(const Params& a, const Params& b) {
    const auto ta = core::train::namedTensors(a), tb = core::train::namedTensors(b);
    ASSERT_EQ(ta.size(), tb.size());
    for (std::size_t i = 0; i < ta.size(); ++i)
        EXPECT_TRUE(*ta[i].tensor == *tb[i].tensor) << ta[i].name;
}

Batch inductionBatch(std::uint64_t seed, int batch, int seq) {
    core::SplitMix64 rng(seed);
    return core::train::Task(core::train::TaskKind::Induction).makeBatch(rng, batch, seq);
}

ModelConfig inductionConfig(int layers, int d_model, int heads, int seq) {
    return ModelConfig{core::train::Task(core::train::TaskKind::Induction).vocabSize(), d_model,
                       heads, layers, seq};
}

} // namespace

TEST(TrainStep, ReusedBuffersGiveTheBitsOfFreshOnes) {
    const ModelConfig big = inductionConfig(2, 32, 4, 16), small = inductionConfig(1, 16, 2, 8);
    core::train::StepBuffers buffers;
    const core::train::HeadLists ablated = {{1}, {}};
    const Params bigParams = core::train::initParams(big, 3);
    for (const Batch& batch : {inductionBatch(1, 6, 16), inductionBatch(2, 6, 12)}) {
        // Batches of two lengths, then a smaller model: every buffer changes shape in between.
        core::train::forwardPass(big, bigParams, batch, ablated, buffers.pass);
        core::train::backwardPass(big, bigParams, batch, buffers.pass, buffers.gradients,
                                  buffers.backward);
        const auto fresh = core::train::forwardPass(big, bigParams, batch, ablated);
        EXPECT_EQ(buffers.pass.loss, fresh.loss);
        EXPECT_EQ(buffers.pass.logits, fresh.logits);
        expectSameParams(buffers.gradients,
                         core::train::backwardPass(big, bigParams, batch, fresh));
    }
    const Params smallParams = core::train::initParams(small, 4);
    const Batch batch = inductionBatch(3, 3, 8);
    const double loss = core::train::lossAndGradients(small, smallParams, batch, buffers);
    const auto fresh = core::train::lossAndGradients(small, smallParams, batch);
    EXPECT_EQ(loss, fresh.loss);
    expectSameParams(buffers.gradients, fresh.gradients);
}

TEST(TrainStep, AblatedHeadsGetNoGradientInTheirLayer) {
    const ModelConfig config = inductionConfig(2, 16, 4, 8);
    const Params params = core::train::initParams(config, 5);
    const Batch batch = inductionBatch(6, 4, 8);
    const auto pass = core::train::forwardPass(config, params, batch, {{}, {2}});
    const Params grads = core::train::backwardPass(config, params, batch, pass);
    for (const core::Mat* m : {&grads.layers[1].wQ, &grads.layers[1].wK, &grads.layers[1].wV}) {
        EXPECT_TRUE(m->middleCols(8, 4).isZero(0)); // head 3's d_head columns
        EXPECT_FALSE(m->leftCols(8).isZero(0));
    }
    EXPECT_FALSE(grads.layers[0].wQ.middleCols(8, 4).isZero(0)); // layer 1 keeps head 3
}

// The default model of mha-viz train, big enough for the engine's threads: three Adam steps
// from one seed, twice, give the same bits.
TEST(TrainStep, SameSeedGivesIdenticalStepsEveryRun) {
    const ModelConfig config = inductionConfig(2, 64, 4, 32);
    auto train = [&] {
        Params params = core::train::initParams(config, 9);
        core::train::Optimizer adam(core::train::OptimizerKind::Adam, 1e-3, config);
        core::train::StepBuffers buffers;
        std::vector<double> losses;
        for (std::uint64_t step = 0; step < 3; ++step) {
            losses.push_back(core::train::lossAndGradients(
                config, params, inductionBatch(100 + step, 32, 32), buffers));
            adam.step(params, buffers.gradients);
        }
        return std::make_pair(params, losses);
    };
    const auto first = train(), second = train();
    EXPECT_EQ(first.second, second.second);
    expectSameParams(first.first, second.first);
}
