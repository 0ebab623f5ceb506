#include "session/state_file.h"

#include "io/atomic_file.h"
#include "io/json_writer.h"
#include "io/scene_json.h"
#include "platform/heap_in_use.h"
#include "widgets/text_field.h"

#include <imgui.h>

#include <cstdio>
#include <iostream>
#include <sstream>

namespace app {

namespace {

void writeStrings(core::JsonWriter& json, std::string_view name,
                  const std::vector<std::string>& texts) {
    json.key(name);
    json.beginArray();
    for (const std::string& text : texts) json.value(text);
    json.endArray();
}

// The loss chart's axis (fixed for the run so far, whatever the step shown), its chance line
// and the notes on screen for the step shown.
void writeTrainChart(core::JsonWriter& json, const TrainView& train) {
    const core::AxisRange axis = lossAxis(train);
    json.key("loss_axis");
    json.beginArray();
    json.value(float(axis.min));
    json.value(float(axis.max));
    json.endArray();
    json.key("log_loss");
    json.value(train.logLoss);
    json.key("chance_loss");
    json.value(float(runChanceLoss(train)));
    static const char* const phases[] = {"none", "plateau", "drop", "after"};
    json.key("phase");
    json.value(phases[int(inductionPhase(train))]);
    const TrainNotes notes = trainNotes(train);
    json.key("note_curves");
    json.value(notes.curves);
    json.key("note_map");
    json.value(notes.map);
}

// The Train view: what it shows and whether a file is being written.
void writeTrain(core::JsonWriter& json, const TrainView& train) {
    json.key("train");
    json.beginObject();
    json.key("active");
    json.value(train.active);
    json.key("state");
    json.value(train.run ? core::toString(train.run->state()) : "none");
    json.key("step"); // the newest snapshot's
    json.value(train.run ? train.run->step() : 0);
    json.key("worker_step"); // updates done: ahead of "step" until the worker's maps arrive
    json.value(train.run ? train.run->workerStep() : 0);
    json.key("busy"); // an update under way or asked for, or results on their way to the view
    json.value(train.run && train.run->busy());
    json.key("shown_step"); // live or scrubbed
    json.value(shownStep(train));
    json.key("scrubbed");
    json.value(train.scrubStep >= 0);
    json.key("playing");
    json.value(train.playing);
    json.key("heldout_loss"); // the curve on screen up to the step shown, its last 200 rows
    json.beginArray();
    if (train.run) {
        const core::CsvTable rows = rowsUpTo(train.run->metrics(), shownStep(train));
        const std::vector<double>& loss = rows.column("heldout_loss");
        for (std::size_t i = loss.size() > 200 ? loss.size() - 200 : 0; i < loss.size(); ++i)
            json.value(float(loss[i]));
    }
    json.endArray();
    writeTrainChart(json, train);
    json.key("snapshots"); // the timeline's, bounded
    json.value(train.run ? int(train.run->history().all().size()) : 0);
    json.key("writing");
    json.value(train.files != nullptr);
    json.endObject();
}

// A real model's analyses: the heads switched off, the loss with them and with all heads on,
// the value-weighted switch, and the logit lens's top token after each layer.
void writeModelAnalyses(core::JsonWriter& json, const ModelView& model) {
    json.key("value_weighted");
    json.value(model.valueWeighted);
    json.key("ablated"); // "L1H3", layers and heads from 1
    json.beginArray();
    for (std::size_t l = 0; l < model.ablated.size(); ++l)
        for (int h : model.ablated[l]) { // snprintf: GCC 12 warns falsely on "L" + string&&
            char name[48];
            std::snprintf(name, sizeof name, "L%zuH%d", l + 1, h + 1);
            json.value(name);
        }
    json.endArray();
    json.key("loss");
    json.value(float(model.loss)); // null when not finite
    json.key("loss_all_heads");
    json.value(float(model.lossAllHeads));
    json.key("lens");
    json.beginArray();
    for (const std::string& token : model.lensTop) json.value(token);
    json.endArray();
}

// An encoder's sentence pair and the mask tokens filled: "pair_start" (from 0, -1 without B),
// the pair view, and per mask its position and the top tokens.
void writeEncoder(core::JsonWriter& json, const ModelView& model) {
    json.key("encoder");
    json.value(model.encoder);
    json.key("pair_text");
    json.value(model.pairText);
    json.key("pair_start");
    json.value(model.pairStart);
    json.key("pair_view");
    json.value(std::string(core::toString(model.pairView)));
    json.key("pair_field_at");
    json.beginArray();
    for (float v : model.pairFieldAt) json.value(v);
    json.endArray();
    json.key("mask_fills");
    json.beginArray();
    for (const ModelView::MaskFill& fill : model.maskFills) {
        json.beginObject();
        json.key("position");
        json.value(fill.position);
        json.key("top");
        json.beginArray();
        for (const core::models::TokenChoice& choice : fill.top) json.value(choice.token);
        json.endArray();
        json.endObject();
    }
    json.endArray();
}

// What the window says of a real model's attention: its heads and K/V heads, the groups framed
// in the last model grid (x0 y0 x1 y1) and where its columns and rows are, the sink shares of
// the text shown (per layer, per head) and whether the model view marks them, the Controls'
// text and lines.
void writeModelAttention(core::JsonWriter& json, const ModelView& model) {
    json.key("heads");
    json.value(model.kvGroups.heads);
    json.key("kv_heads");
    json.value(model.kvGroups.groups());
    json.key("kv_legend");
    json.value(model.kvLegend);
    json.key("kv_group_rects");
    json.beginArray();
    for (const std::array<float, 4>& rect : model.kvGroupRects) {
        json.beginArray();
        for (float v : rect) json.value(v);
        json.endArray();
    }
    json.endArray();
    json.key("head_columns");
    json.beginArray();
    for (float x : model.headColumns) json.value(x);
    json.endArray();
    json.key("layer_rows");
    json.beginArray();
    for (float y : model.layerRows) json.value(y);
    json.endArray();
    json.key("show_sinks");
    json.value(model.showSinks);
    json.key("saved_stack"); // an attention file's stack shown (0 layers, 1 encoder, 2 cross)
    json.value(model.savedStack);
    json.key("saved_stack_at"); // the centres of its choices (0 0: not drawn)
    json.beginArray();
    for (const auto& at : model.savedStackAt) {
        json.beginArray();
        json.value(at[0]);
        json.value(at[1]);
        json.endArray();
    }
    json.endArray();
    json.key("sink_toggle_at"); // the centre of its check box
    json.beginArray();
    for (float v : model.sinkToggleAt) json.value(v);
    json.endArray();
    json.key("sink_shares");
    json.beginArray();
    for (Eigen::Index l = 0; l < model.sinkShares.rows(); ++l) {
        json.beginArray();
        for (Eigen::Index h = 0; h < model.sinkShares.cols(); ++h)
            json.value(model.sinkShares(l, h));
        json.endArray();
    }
    json.endArray();
    json.key("fixed_text");
    json.value(model.fixedText);
    writeStrings(json, "shapes", model.shapes);
    json.key("parameters");
    json.value(model.parameters);
}

void writePoint(core::JsonWriter& json, const char* name, const float at[2]) {
    json.key(name);
    json.beginArray();
    json.value(at[0]);
    json.value(at[1]);
    json.endArray();
}

// An encoder-decoder: what the decoder wrote or read, the scrubber, the switches per stack
// (0 decoder, 1 encoder, 2 cross; heads from 1), what they changed, where its widgets are.
void writeSeq2Seq(core::JsonWriter& json, const ModelView& model) {
    json.field("seq2seq", model.seq2seq);
    json.field("written", model.written); // the decoder chose the target (greedy)
    json.field("written_tokens", model.writtenTokens);
    json.field("written_shown", model.writtenShown); // the scrubber's tokens (-1: all)
    json.field("written_text", model.writtenText);
    json.field("target_text", model.targetText);
    json.field("ablation_effect", model.ablationEffect);
    json.key("stack_ablated");
    json.beginArray();
    for (const core::train::HeadLists& stack : model.stackAblated) {
        json.beginArray();
        for (const std::vector<int>& heads : stack) {
            json.beginArray();
            for (int h : heads) json.value(h + 1);
            json.endArray();
        }
        json.endArray();
    }
    json.endArray();
    writeStrings(json, "source_chips", [&] {
        std::vector<std::string> chips;
        for (const core::Token& t : model.sourceTokens.tokens) chips.push_back(t.text);
        return chips;
    }());
    writePoint(json, "source_field_at", model.sourceFieldAt);
    writePoint(json, "target_field_at", model.targetFieldAt);
    writePoint(json, "generate_at", model.generateAt);
    writePoint(json, "alignment_export_at", model.alignmentExportAt);
}

// The open model: kind, the layer shown, the middle panel's mode, whether the detectors ran.
void writeModel(core::JsonWriter& json, const ModelView& model) {
    static const char* const grids[] = {"layer_heads", "every_layer", "detectors", "rollout",
                                        "logit_lens"};
    json.key("model");
    json.beginObject();
    json.key("open");
    json.value(model.open);
    json.key("real");
    json.value(model.real);
    json.key("attention_only"); // an attention file: no model to run
    json.value(model.attentionOnly);
    json.key("title"); // what the model section says is open
    json.value(model.title);
    json.key("architecture"); // the describe line: layers, how the heads split, dtype
    json.value(model.architecture);
    json.key("layer"); // from 1, as the window shows it
    json.value(model.layer + 1);
    json.key("grid"); // an encoder-decoder's alignment in the logit lens's place
    json.value(model.seq2seq && model.grid == ModelGridMode::Alignment ? "alignment"
                                                                       : grids[int(model.grid)]);
    json.key("detectors_ready");
    json.value(model.detectorsReady);
    json.key("grid_rect"); // the model grid's cells on screen: x0 y0 x1 y1
    json.beginArray();
    for (float v : model.gridRect) json.value(v);
    json.endArray();
    json.key("export_at"); // the detectors' "Export CSV" button
    json.beginArray();
    for (float v : model.exportAt) json.value(v);
    json.endArray();
    json.key("export_all_at"); // the model panel's "Export all"
    json.beginArray();
    for (float v : model.exportAllAt) json.value(v);
    json.endArray();
    json.key("predictions"); // the first sentence's, per token
    json.beginArray();
    if (!model.predictions.empty())
        for (const std::string& p : model.predictions.front()) json.value(p);
    json.endArray();
    json.key("warnings"); // shown under the sentence field: a text cut to the context, ...
    json.beginArray();
    for (const std::string& w : model.warnings) json.value(w);
    json.endArray();
    json.key("chips"); // the first sentence's token chips, as drawn
    json.beginArray();
    if (!model.tokens.empty())
        for (const core::Token& t : model.tokens.front().tokens) json.value(t.text);
    json.endArray();
    writeModelAnalyses(json, model);
    writeEncoder(json, model);
    writeModelAttention(json, model);
    writeSeq2Seq(json, model);
    json.endObject();
}

// Ctrl+Shift+O's dialog: whether it is shown, a model loading, the recent list and the cache's
// models with their rows on screen (where a test clicks).
// The stores' GGUFs as the dialog lists them: name, store, what the store says, whether it
// runs, and where its row is.
void writeStoredModels(core::JsonWriter& json, const OpenModelState& dialog) {
    json.key("ollama_dir");
    json.value(dialog.ollamaDir);
    json.key("stored");
    json.beginArray();
    for (std::size_t i = 0; i < dialog.stored.size(); ++i) {
        const core::models::StoredModel& model = dialog.stored[i];
        json.beginObject();
        json.field("name", model.name);
        json.field("store", model.store);
        json.field("family", model.family);
        json.field("quantization", model.quantization);
        json.field("unsupported", model.unsupported);
        json.key("at"); // x0 y0 x1 y1, once drawn
        json.beginArray();
        if (i < dialog.storedAt.size())
            for (float v : dialog.storedAt[i]) json.value(v);
        json.endArray();
        json.endObject();
    }
    json.endArray();
}

// The A-B tab across two models: model B, the comparison of the trace shown (its most moved
// heads), the map drawn and where the tab's button and ranked rows are (where a test clicks).
void writeComparison(core::JsonWriter& json, const ComparisonTabState& tab) {
    json.key("comparison");
    json.beginObject();
    json.field("across_models", tab.acrossModels);
    json.field("model_a", tab.nameA);
    json.field("model_b", tab.nameB);
    json.field("loading", tab.loading);
    json.field("error", tab.error);
    json.field("computing", tab.computing);
    json.field("ready", tab.result != nullptr && tab.layerB != nullptr);
    json.field("most_moved",
               tab.result ? core::models::mostMovedHeads(tab.result->heads, 5) : std::string());
    json.field("top_agree", tab.result ? tab.result->heads.topAgree : 0);
    json.field("positions", tab.result ? tab.result->heads.positions : 0);
    json.field("shown_max_abs", tab.shownMaxAbs);
    json.key("choose_at"); // x0 y0 x1 y1 of "Choose model B..." or "Change...", once drawn
    json.beginArray();
    for (float v : tab.chooseAt) json.value(v);
    json.endArray();
    json.key("export_at"); // "Export comparison", once drawn
    json.beginArray();
    for (float v : tab.exportAt) json.value(v);
    json.endArray();
    json.key("ranked"); // the rows drawn: layer and head from 1
    json.beginArray();
    for (std::size_t i = 0; i < tab.rankedAt.size() && tab.result; ++i) {
        const core::models::HeadShift& s = tab.result->heads.ranked[i];
        json.beginObject();
        json.field("layer", s.layer + 1);
        json.field("head", s.head + 1);
        json.field("mean_total_variation", float(s.meanTotalVariation));
        json.key("at");
        json.beginArray();
        for (float v : tab.rankedAt[i]) json.value(v);
        json.endArray();
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

void writeOpenModel(core::JsonWriter& json, const OpenModelState& dialog) {
    json.key("open_model");
    json.beginObject();
    json.key("shown");
    json.value(dialog.open);
    json.key("loading"); // the name or path being opened off the frame thread, "" when none
    json.value(dialog.loading);
    json.field("choosing_b", dialog.choosingB); // picks model B for the A-B tab ("": a model)
    writeStrings(json, "recent", dialog.recent);
    json.key("cache_dir");
    json.value(dialog.cacheDir);
    json.key("cached"); // as listed when the dialog opened
    json.beginArray();
    for (std::size_t i = 0; i < dialog.cached.size(); ++i) {
        const core::models::CachedModel& model = dialog.cached[i];
        json.beginObject();
        json.key("name");
        json.value(model.name);
        json.key("type");
        json.value(model.modelType);
        json.key("supported");
        json.value(model.supported);
        json.key("at"); // x0 y0 x1 y1, once drawn
        json.beginArray();
        if (i < dialog.cachedAt.size())
            for (float v : dialog.cachedAt[i]) json.value(v);
        json.endArray();
        json.endObject();
    }
    json.endArray();
    writeStoredModels(json, dialog);
    json.endObject();
}

// What the maps on screen were computed with: the scene of the trace shown (the switches a
// screenshot or a test asks for, checked against what the window draws) and its token counts.
// The Steps tab's detail as last drawn: the head, query and K/V head followed, and the rotary
// step's numbers (null when q and k were not turned), for tests that check them against a trace.
void writeSteps(core::JsonWriter& json, const StepsTabState& steps) {
    const core::StepDetail& d = steps.detail;
    json.key("steps");
    json.beginObject();
    json.field("head", d.head + 1); // from 1, as the window shows it
    json.field("query", d.query);
    json.field("kv_head", d.kvHead + 1);
    json.key("rotary");
    if (!d.rotary.on()) {
        json.null();
    } else {
        json.beginObject();
        json.field("key", d.rotary.key);
        json.field("query_position", d.rotary.queryPosition);
        json.field("key_position", d.rotary.keyPosition);
        json.field("score", d.rotary.score);
        json.field("shift", d.rotary.shift);
        json.field("shifted_score", d.rotary.shiftedScore);
        json.endObject();
    }
    json.endObject();
}

void writeShown(core::JsonWriter& json, const core::Trace& shown) {
    const core::Scene& scene = shown.scene;
    json.key("shown");
    json.beginObject();
    json.key("mask");
    json.value(core::toString(scene.mask));
    json.key("scale");
    json.value(core::toString(scene.scale));
    writeStrings(json, "sources", scene.sources);
    json.key("out_projection");
    json.value(scene.outProjection);
    json.key("reshape_bug");
    json.value(scene.reshapeBug);
    json.key("ablated_heads"); // numbered from 1, as the window shows them
    json.beginArray();
    for (int head : scene.ablatedHeads) json.value(head + 1);
    json.endArray();
    json.key("heads");
    json.value(int(shown.headNames.size()));
    json.key("tokens"); // per sentence
    json.beginArray();
    for (const core::Tokenized& sentence : shown.sentences) json.value(int(sentence.tokens.size()));
    json.endArray();
    json.key("keys"); // the keys each query reads: a cross layer's are the source's
    json.value(shown.keyLen());
    json.key("layer_name"); // a model's layer: "checkpoint X, cross-attention layer 1"
    json.value(shown.modelWeights);
    json.endObject();
}

} // namespace

std::string stateLine(const FrameFacts& facts, const core::Scene& scene, const core::Trace& shown,
                      const ExplorerState& explorer, const Notice& notice, const TrainView& train) {
    std::ostringstream out;
    core::JsonWriter json(out);
    json.beginObject();
    json.key("frame");
    json.value(facts.frame);
    json.key("input_pending");
    json.value(facts.inputPending);
    json.key("sync_marks");
    json.value(facts.syncMarks);
    json.key("computing");
    json.value(facts.computing);
    json.key("typing"); // a text field has the keyboard
    json.value(ImGui::GetIO().WantTextInput);
    writeStrings(json, "sentences", scene.sentences);             // as edited
    writeStrings(json, "shown_sentences", shown.scene.sentences); // the maps on screen
    std::vector<std::string> glyphNotes; // per sentence: what the window cannot draw ("" if all)
    for (const std::string& sentence : scene.sentences)
        glyphNotes.push_back(missingGlyphsNote(sentence));
    writeStrings(json, "glyph_notes", glyphNotes);
    json.key("d_model");
    json.value(scene.d_model);
    json.key("heads");
    json.value(scene.heads);
    json.key("chosen_heads"); // the user's H, kept while it does not divide d_model
    json.value(core::chosenHeadCount(scene));
    json.key("kv_heads"); // H_kv (H for plain multi-head attention)
    json.value(scene.kvHeadCount());
    json.key("positional"); // as chosen: sinusoidal, none or rotary
    json.value(core::toString(scene.positional));
    json.key("weights"); // as chosen
    json.value(core::toString(scene.weights));
    json.key("weights_in_use"); // what the engine uses (random where designs do not fit)
    json.value(core::toString(core::weightsInUse(scene)));
    json.key("selected_head"); // numbered from 1, as the window shows it
    json.value(explorer.saved.selectedHead + 1);
    json.key("tab");
    json.value(core::toString(explorer.saved.tab)); // the name a saved scene uses
    json.key("export_panel");
    json.value(explorer.exportPanel.open);
    json.key("scene_picker");
    json.value(explorer.scenes.open);
    json.key("popup_open"); // a dropdown or menu
    json.value(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId));
    json.key("export_all"); // "Export all"'s question: open, its files and estimated bytes
    json.beginObject();
    json.field("open", explorer.exportPanel.exportAll.isOpen);
    json.field("files", explorer.exportPanel.exportAll.estimate.files);
    json.field("bytes",
               static_cast<unsigned long long>(explorer.exportPanel.exportAll.estimate.bytes));
    json.endObject();
    json.key("exporting");
    json.value(explorer.exportPanel.job != nullptr || explorer.exportPanel.captureCountdown > 0);
    json.key("notice");
    json.value(notice.visible(ImGui::GetTime()) ? notice.text : std::string());
    json.key("error");
    json.value(facts.error);
    json.key("head_maps_value_weighted");
    json.value(facts.headMapsValueWeighted);
    json.key("heap_in_use"); // bytes (platform/heap_in_use.h), -1 where unknown
    json.value(heapInUseBytes());
    writeShown(json, shown);
    writeSteps(json, explorer.steps);
    writeModel(json, explorer.model);
    writeOpenModel(json, explorer.openModel);
    writeComparison(json, explorer.comparison);
    writeTrain(json, train);
    json.endObject();
    return out.str();
}

void writeStateFile(const std::string& path, const std::string& line) {
    static std::string written;
    static bool failed = false;
    if (line == written) return;
    try {
        core::writeFileAtomically(path, line + "\n");
    } catch (const std::exception& e) {
        if (!failed) std::cerr << "mha-viz: error: state file: " << e.what() << '\n';
        failed = true;
        return;
    }
    written = line;
}

} // namespace app
