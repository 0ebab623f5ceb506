#include "train/probe_maps.h"

#include <utility>

namespace core::train {

Batch mapSequence(const ProbeSet& probe) {
    const Batch& from = probe.kind == TaskKind::Agreement ? probe.task.batch : probe.repeated;
    return {{from.tokens.front()}, {from.lossMask.front()}};
}

ProbeMaps probeMaps(const ModelConfig& config, const Params& params, const Batch& sequence,
                    const std::vector<std::string>& vocab, const HeadLists& ablated) {
    const ForwardPass pass = forwardPass(config, params, sequence, ablated);
    ProbeMaps maps;
    maps.layers = config.layers;
    maps.heads = config.heads;
    maps.length = sequence.length();
    for (const int token : sequence.tokens.front()) maps.labels.push_back(vocab.at(token));
    const std::size_t cells = std::size_t(maps.length) * maps.length;
    maps.weights.reserve(std::size_t(config.layers) * config.heads * cells);
    for (const Attention& layer : pass.heads) // attention: (1*H*n) x n, head after head
        for (int h = 0; h < config.heads; ++h)
            for (int i = 0; i < maps.length; ++i)
                for (int j = 0; j < maps.length; ++j)
                    maps.weights.push_back(float(layer.attention(layer.headRow(0, h, i), j)));
    return maps;
}

std::shared_ptr<const RunSetup> makeRunSetup(TrainSettings settings) {
    Task task(settings.task);
    settings.model.vocab = task.vocabSize();
    validate(settings);
    auto setup = std::make_shared<RunSetup>(RunSetup{settings, task, {}, {}, {}});
    setup->probe =
        makeProbeSet(task, probeSeed(settings.seed), kProbeSequences, settings.model.seq);
    setup->mapSequence = mapSequence(setup->probe);
    setup->columns = {"step", "train_loss"};
    for (std::string& c : probeColumns(settings.model, settings.task))
        setup->columns.push_back(std::move(c));
    return setup;
}

TrainSnapshot snapshotOf(int step, std::shared_ptr<const Params> params, const RunSetup& setup) {
    TrainSnapshot s;
    s.step = step;
    s.maps = probeMaps(setup.settings.model, *params, setup.mapSequence, setup.task.vocab());
    s.params = std::move(params);
    return s;
}

TrainSnapshot snapshotOf(const Trainer& trainer, const RunSetup& setup) {
    return snapshotOf(trainer.step(), std::make_shared<const Params>(trainer.params()), setup);
}

} // namespace core::train
