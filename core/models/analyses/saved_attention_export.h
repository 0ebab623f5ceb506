// An attention file's views as files (docs/attention-files.md): `mha-viz --attention FILE
// --export DIR` and the window's "Export all", as a real model's export writes them
// (real_model_export.h) less what needs the model (value-weighted attention, the logit lens);
// and its trace as JSON (docs/trace-json.md, "Version 2: attention from a file").
#pragma once

#include "models/analyses/real_model_export.h"
#include "models/analyses/saved_attention.h"

#include <ostream>
#include <string>
#include <vector>

namespace core::models {

// The detectors the window's grid, its CSV and the export show: SavedAttention::detectors, then
// the sink share on the sentence (first_token_on_sentence) when there are two tokens or more.
std::vector<HeadDetectorScores> savedDetectorsShown(const SavedAttention& saved);

// Writes into `dir` (made if missing): per layer of layers.* a folder layer-01, ... with what
// exportFigures writes for it (each head PNG, SVG and CSV named for the file, layer and head,
// "mha-viz-attn-L1-H3.png"; the grid, the mean, the statistics); encoder-layer-NN and
// cross-layer-NN likewise when the file has them; model-grid.png/svg (and model-grid-encoder,
// model-grid-cross), detectors-<name>.png/svg and detectors.csv, rollout.png/svg/csv after the
// last layer and, unless `options.traces` is None, model-trace.json (writeSavedAttentionJson;
// Full writes each layer's weights-only v1 trace too: there is nothing more to write). Names
// taken get -2, -3, ...; every caption says where the maps come from (savedAttentionCaption).
// Throws ExportError naming the problem, with the files written before it.
std::vector<std::string> exportSavedAttention(const SavedAttention& saved, const std::string& dir,
                                              const RealExportOptions& options,
                                              const ExportProgress& progress = {});

// How many files exportSavedAttention writes with these options.
int savedAttentionExportFileCount(const SavedAttention& saved, const RealExportOptions& options);

// The v2 trace of the file: "attention_file" (where it came from, its sizes) in place of a
// model, the sentence's tokens, and per layer {layer, ablate, attention} as an attention-only
// trace has them; "source_tokens", "encoder_layers" and "cross_layers" when the file has them.
// `precision`: significant digits of every float (1..9), 0 for the shortest exact text.
void writeSavedAttentionJson(const SavedAttention& saved, int precision, std::ostream& out);

} // namespace core::models
