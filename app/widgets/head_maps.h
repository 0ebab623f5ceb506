// The maps the window draws for the shown sentence, derived from the trace by core, with the
// keys they derive from: a new trace or another sentence rebuilds them, so no panel keeps a
// dirty flag. GlHeatmaps owns them beside the textures that show them.
#pragma once

#include "figures/attention_map.h"
#include "figures/head_views.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace app {

struct HeadMaps {
    std::vector<core::AttentionMap> heads;        // per head
    core::AttentionMap mean, difference, entropy; // the views beside the grid
    std::vector<core::HeadStatistics> headStats;  // per head
    double meanEntropyBits = 0; // of the whole trace (the scale pitfall), in bits as everywhere

    // What they derive from: `generation` counts rebuilds of the per-head maps (one per trace
    // or sentence shown); the derived maps remember the generation they were made for.
    std::uint64_t generation = 0;
    int batchIndex = -1;
    core::PairView pairView = core::PairView::All; // a sentence pair's cells shown (all maps)
    bool valueWeighted = false;          // heads hold value-weighted attention (W), not the weights
    std::uint64_t derivedGeneration = 0; // mean, entropy, statistics
    std::uint64_t differenceGeneration = 0; // difference, of the heads differenceOf
    int differenceOf[2] = {-1, -1};
    // Across two models: the other model's layer the difference was taken with (held, so a
    // new one is never mistaken for it); null for two heads of this trace.
    std::shared_ptr<const core::Trace> differenceAcross;

    bool showSentence(int b) const { return generation > 0 && batchIndex == b; }
};

} // namespace app
