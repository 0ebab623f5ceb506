// --state-file FILE: after every frame the window writes one JSON line of what it shows, so a
// script or an end-to-end test waits for the app ("the typed letter is in the scene", "the
// export finished") instead of sleeping for a guessed time. Written atomically (rename).
#pragma once

#include "engine/scene.h"
#include "engine/trace.h"
#include "explorer/explorer_state.h"
#include "train_view/train_view.h"
#include "widgets/notice.h"

#include <string>

namespace app {

struct FrameFacts {
    long long frame = 0;                // frames drawn so far
    bool inputPending = false;          // input events wait for later frames
    bool computing = false;             // a worker runs the scene; the maps are the previous ones
    long long syncMarks = 0;            // Pause presses applied (input_queue.h)
    std::string error;                  // why the last edit could not be run (the runner's status)
    bool headMapsValueWeighted = false; // the Head view's maps are value-weighted (W)
};

// The line: {"frame", "input_pending", "sync_marks", "computing", "typing", "sentences",
// "shown_sentences", "glyph_notes" (widgets/text_field.h), "d_model", "heads", "chosen_heads",
// "weights", "weights_in_use", "selected_head", "tab", "export_panel", "scene_picker",
// "popup_open", "exporting", "notice", "error", "heap_in_use" (bytes, platform/heap_in_use.h),
// "head_maps_value_weighted",
// "shown": {"mask", "scale", "sources", "out_projection", "reshape_bug", "ablated_heads" (from 1),
// "heads", "tokens" (per sentence)} (the trace on screen), "model": {"open", "real", "layer" (from
// 1), "grid" (layer_heads, every_layer, detectors, rollout, logit_lens), "detectors_ready",
// "grid_rect", "export_at", "export_all_at" (buttons' centres), "predictions" (the first
// sentence's, per token), "warnings", "chips" (shown under and in the sentence field),
// "value_weighted", "ablated" (["L1H2", ...]), "loss", "loss_all_heads"
// (a real model's, with the switches and with every head on), "lens" (the logit lens shown: the
// top token after each layer)}, "open_model": {"shown", "loading" (the name being opened, "" when
// none), "recent", "cache_dir", "cached": [{"name", "type", "supported", "at": [x0, y0, x1,
// y1]}]}, "train": {"active", "state", "step",
// "worker_step", "busy", "shown_step", "scrubbed", "playing", "heldout_loss": [the last 200 rows
// up to the step shown], "loss_axis": [min, max], "log_loss", "chance_loss", "phase" (none,
// plateau, drop, after), "note_curves", "note_map", "snapshots", "writing"}}.
std::string stateLine(const FrameFacts& facts, const core::Scene& scene, const core::Trace& shown,
                      const ExplorerState& explorer, const Notice& notice, const TrainView& train);

// Writes the line unless it equals the last one written; with the frame number in it, that is
// once per drawn frame (about twice a second when idle). A failure is reported once on stderr
// and the window goes on.
void writeStateFile(const std::string& path, const std::string& line);

} // namespace app
