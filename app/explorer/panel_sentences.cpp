// Panel: the sentence(s) the user types, with their tokens.
#include "explorer/panels.h"
#include "io/scene_json.h"
#include "platform/appearance.h"
#include "platform/page_keys.h"

#include "figures/attention_map.h"
#include "widgets/text_field.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace app {

namespace {

const char* const kDefaultSource = "Le chat s'est assis sur le tapis.";

// Under a field whose text holds characters the window cannot draw: they are kept all the same.
void glyphsNote(const std::string& text) {
    if (const std::string note = missingGlyphsNote(text); !note.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", note.c_str());
        ImGui::PopStyleColor();
    }
}

// What a token chip's tooltip says of a model's guesses: the next token (decoders), or what
// the MLM head would put at the token (encoders).
struct ChipGuesses {
    const std::vector<std::string>* predictions = nullptr; // one per token
    bool encoder = false;
    int pairStart = -1; // a sentence pair: "B" marks its first token
};

// Tokens as small chips; hovering one lights its row up in every head. With a trained model,
// the tooltip says what the model guesses there.
void tokenChips(const core::Tokenized* tokens, int paddedLength, bool isShown, Selection& selection,
                const ChipGuesses& guesses = {}) {
    const std::vector<std::string>* predictions = guesses.predictions;
    const int count = tokens ? int(tokens->tokens.size()) : 0;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (int i = 0; i < std::max(count, paddedLength); ++i) {
        const bool isPad = i >= count;
        const std::string label = isPad ? core::kPadLabel : tokens->tokens[std::size_t(i)].text;
        const float width =
            ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
        if (i > 0) {
            ImGui::SameLine(0, 3);
            if (ImGui::GetCursorScreenPos().x + width > right) ImGui::NewLine();
        }
        if (i == guesses.pairStart) { // sentence B starts here
            ImGui::TextDisabled("| B:");
            ImGui::SameLine(0, 3);
        }
        ImGui::PushID(i);
        const bool lit = isShown && (selection.hover.query == i || selection.pinnedQuery == i);
        if (isPad)
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        if (lit)
            ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (ImGui::SmallButton(label.c_str()) && isShown)
            selection.pinnedQuery = selection.pinnedQuery == i ? -1 : i;
        if (lit) ImGui::PopStyleColor();
        if (isPad) ImGui::PopStyleColor();
        if (ImGui::IsItemHovered() && isShown) {
            selection.nextHover.query = i;
            const bool predicted = !isPad && predictions && i < int(predictions->size());
            if (predicted)
                ImGui::SetTooltip(
                    guesses.encoder ? "token %d; the MLM head would put here: %s; click to pin "
                                      "its row"
                                    : "token %d; the model expects next: %s; click to pin its row",
                    i + 1, (*predictions)[std::size_t(i)].c_str());
            else
                ImGui::SetTooltip(isPad ? "padding: keys here are masked for this sentence"
                                        : "token %d; click to pin its row",
                                  i + 1);
        }
        ImGui::PopID();
    }
}

// A trained model's sentence: the words it does not know, which it was not given.
void unknownWordsLine(const std::vector<std::string>& unknown) {
    if (unknown.empty()) return;
    std::string line = "not in the model's vocabulary (left out):";
    for (const std::string& word : unknown) line += " " + word;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", line.c_str());
    ImGui::PopStyleColor();
}

// A sentence cut at the token cap, said under its field where the typing happens: below
// hundreds of chips it would be seen only after scrolling. sceneMessages leaves these out.
void capWarning(const char* what, std::size_t index, const core::Tokenized& tokens) {
    const std::string warning = core::tokenCapWarning(what, index, tokens);
    if (warning.empty()) return;
    ImGui::PushStyleColor(ImGuiCol_Text, warningColor());
    ImGui::TextWrapped("%s", warning.c_str());
    ImGui::PopStyleColor();
}

// One sentence: which one is shown (in a batch), its text, its remove button and its tokens.
// False when it was removed (the loop over the batch stops: the indexes moved).
// What a sentence row reads and sets besides the scene.
struct SentenceContext {
    const core::Trace& trace;
    const ModelView& model;
    Selection& selection;
    const RunStatus& status;
};

void wrappedText(ImVec4 color, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

// Under the first field, where the eye is while typing (not below hundreds of chips): why the
// maps still show the last valid input, and what a model cut to run (a text past its context).
void fieldMessages(const SentenceContext& c) {
    if (!c.status.sceneError.empty())
        wrappedText(errorColor(), c.status.sceneError + " (the maps show the last valid input)");
    for (const std::string& warning : c.model.warnings) wrappedText(warningColor(), warning);
}

// The chips' tokens: a model's shown trace (they change with its maps), else the layer's.
const core::Tokenized* chipTokens(int b, const SentenceContext& c, bool traceMatchesBatch,
                                  int& paddedLength) {
    paddedLength = traceMatchesBatch ? c.trace.queryLen() : 0;
    if (c.model.open && b < int(c.model.tokens.size())) {
        if (c.model.real) paddedLength = 0; // one sentence, never padded
        return &c.model.tokens[std::size_t(b)];
    }
    return traceMatchesBatch && b < c.trace.batch() ? &c.trace.sentences[std::size_t(b)] : nullptr;
}

bool sentenceRow(int b, core::Scene& scene, const SentenceContext& c) {
    const core::Trace& trace = c.trace;
    Selection& selection = c.selection;
    const int batch = int(scene.sentences.size());
    const bool traceMatchesBatch = trace.batch() == batch;
    const float removeWidth = ImGui::GetFrameHeight();
    ImGui::PushID(b);
    if (batch > 1) {
        if (ImGui::RadioButton("##show", selection.batchIndex == b))
            selection.batchIndex = b; // the maps follow (keyed on the sentence shown)
        itemTooltip("Show this sentence's attention maps in the heads panels.");
        ImGui::SameLine();
    }
    ImGui::SetNextItemWidth(batch > 1 ? -(removeWidth + ImGui::GetStyle().ItemSpacing.x) : -1.0f);
    ImGui::BeginDisabled(c.model.attentionOnly); // the maps are the file's, of its sentence
    textField("##sentence", "Type a sentence", scene.sentences[std::size_t(b)]);
    ImGui::EndDisabled();
    itemTooltip(c.model.attentionOnly
                    ? (std::string("another sentence: ") + core::models::kNeedsTheModel).c_str()
                    : "Type any sentence: the maps update with every keystroke.");
    glyphsNote(scene.sentences[std::size_t(b)]);
    if (b == 0) fieldMessages(c);
    if (core::canRemoveSentence(scene)) {
        ImGui::SameLine();
        if (ImGui::Button("x", ImVec2(removeWidth, 0))) {
            core::removeSentence(scene, b);
            ImGui::PopID();
            return false;
        }
        itemTooltip("Remove this sentence from the batch.");
    }
    int paddedLength = 0;
    const core::Tokenized* tokens = chipTokens(b, c, traceMatchesBatch, paddedLength);
    if (tokens) capWarning("sentence", std::size_t(b), *tokens);
    const ModelView& model = c.model;
    const bool described = model.open && b < int(model.predictions.size());
    const ChipGuesses guesses{described ? &model.predictions[std::size_t(b)] : nullptr,
                              model.encoder, model.pairStart};
    tokenChips(tokens, paddedLength, b == selection.batchIndex, selection, guesses);
    if (described) unknownWordsLine(model.unknownWords[std::size_t(b)]);
    ImGui::PopID();
    ImGui::Spacing();
    return true;
}

// "+ Add sentence", the cross-attention switch and the demo scenes, on one line.
ExplorerRequest batchButtons(core::Scene& scene, const ModelView& model) {
    ExplorerRequest request;
    ImGui::BeginDisabled(!core::canAddSentence(scene) || model.real); // a real model: one
    if (ImGui::Button("+ Add sentence") && core::addSentence(scene) && model.open)
        scene.sentences.back() = scene.sentences.front(); // in the model's vocabulary
    ImGui::EndDisabled();
    itemTooltip(model.attentionOnly ? "An attention file holds the maps of one sentence."
                : model.real
                    ? (model.pairs ? "A checkpoint reads one text here: its batch is its "
                                     "own. An encoder reads a pair: type sentence B above."
                                   : "A checkpoint reads one text here: its batch is its "
                                     "own. Close the model to compare sentences in a batch.")
                    : "Add a sentence to the batch; shorter ones are padded and their "
                      "padding keys masked.");
    if (model.open) { // no cross-attention in the model; demos are the explorer's scenes
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s %s",
                           model.attentionOnly ? "The maps read"
                           : model.real        ? "The model reads"
                                               : "The model's words:",
                           model.vocabulary.c_str());
        ImGui::PopStyleColor();
        return request;
    }

    bool cross = scene.isCross();
    ImGui::SameLine();
    if (ImGui::Checkbox("Cross-attention", &cross)) {
        if (cross)
            scene.sources = {kDefaultSource};
        else
            scene.sources.clear();
    }
    itemTooltip("Take keys and values from a second (source) sentence, as a decoder attends to its "
                "encoder.");
    // The demo scenes, one click away (Ctrl+O opens them too, and files).
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("Demos").x + ImGui::GetFrameHeight() +
                            ImGui::GetStyle().FramePadding.x * 2);
    if (ImGui::BeginCombo("##demo", "Demos", ImGuiComboFlags_HeightLarge)) {
        for (const char* name : core::kDemoScenes)
            if (ImGui::Selectable(name)) request.openDemo = name;
        ImGui::Separator();
        if (ImGui::Selectable("Open a scene file... (Ctrl+O)")) request.openScenePicker = true;
        if (ImGui::Selectable("Open a model... (Ctrl+Shift+O)")) request.openModelDialog = true;
        ImGui::EndCombo();
    }
    itemTooltip("Ready-made scenes for a lecture: designed heads, masks, a padded batch, "
                "cross-attention, the sqrt(d_model) pitfall; and two that train a model: "
                "induction heads form, subject-verb agreement.");
    const std::string key = kTrainKeyName;
    if (ImGui::Button(("Watch heads learn: train a model (" + key + ")").c_str()))
        request.openTrain = true;
    itemTooltip(
        ("The Train view (" + key + "): train a tiny transformer and watch its heads learn.")
            .c_str());
    return request;
}

// An encoder: its sentence B (a pair when not empty) and what its MLM head fills in at each
// mask token, live.
void encoderRows(ModelView& model) {
    if (model.pairs) {
        ImGui::TextDisabled("Sentence B (optional: [CLS] A [SEP] B [SEP])");
        ImGui::SetNextItemWidth(-1.0f);
        textField("##pair", "Sentence B of a pair", model.pairText);
        const ImVec2 min = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
        model.pairFieldAt[0] = min.x + size.x / 2, model.pairFieldAt[1] = min.y + size.y / 2;
        itemTooltip(
            "A second sentence: the model reads the pair, with token types 0 and 1; the "
            "maps draw a line where B starts, and Controls can show A -> B or B -> A only.");
        glyphsNote(model.pairText);
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (!model.hasHead)
        ImGui::TextWrapped("This checkpoint has no MLM head (a bare encoder), so nothing fills a "
                           "mask: open one saved with its head (...ForMaskedLM).");
    else if (model.maskFills.empty() && model.guessesPending)
        ImGui::TextWrapped("Filling the blanks ..."); // the maps came first
    else if (model.maskFills.empty())
        ImGui::TextWrapped("Type %s in the sentence to see what the model fills in.",
                           model.maskText.c_str());
    ImGui::PopStyleColor();
    for (std::size_t k = 0; k < model.maskFills.size(); ++k) {
        const ModelView::MaskFill& fill = model.maskFills[k];
        std::vector<std::string> pieces; // each guess with its share, never split
        for (const core::models::TokenChoice& choice : fill.top) {
            char probability[32];
            std::snprintf(probability, sizeof probability, " %.1f%%", 100.0 * choice.probability);
            pieces.push_back(choice.token + probability);
        }
        ImGui::Text("%s %zu (token %d):", model.maskText.c_str(), k + 1, fill.position + 1);
        if (!pieces.empty()) sameLineIfFits(ImGui::CalcTextSize(pieces.front().c_str()).x);
        flowText(pieces);
    }
}

// The centre of the item drawn last, for the state file: where a test clicks it.
void rememberItemCentre(float at[2]) {
    const ImVec2 min = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
    at[0] = min.x + size.x / 2, at[1] = min.y + size.y / 2;
}

// An encoder-decoder's target: typed (teacher-forced), or written by the decoder (Generate),
// with a scrubber back through what it wrote.
ExplorerRequest targetRow(ModelView& model) {
    ExplorerRequest request;
    ImGui::TextDisabled("Target (the decoder reads it; empty: the decoder writes)");
    const float button = ImGui::CalcTextSize("Generate").x + ImGui::GetStyle().FramePadding.x * 2;
    ImGui::SetNextItemWidth(-(button + ImGui::GetStyle().ItemSpacing.x));
    textField("##target", "Empty: the decoder writes its own (greedy)", model.targetText);
    rememberItemCentre(model.targetFieldAt);
    itemTooltip("Type the target to read it teacher-forced: the decoder reads the start token and "
                "your tokens, and the loss says how likely it found them. Leave it empty and the "
                "decoder writes, one token at a time.");
    glyphsNote(model.targetText);
    ImGui::SameLine();
    if (ImGui::Button("Generate")) request.generate = true;
    rememberItemCentre(model.generateAt);
    itemTooltip("The decoder writes from its start token (greedy, up to 32 tokens, stopping at "
                "its end token); each token's cross-attention row appears as it is chosen "
                "(Ctrl+G).");
    if (model.writtenTokens > 1) {
        int shown = model.writtenShown < 0 ? model.writtenTokens : model.writtenShown;
        ImGui::SetNextItemWidth(-1.0f);
        if (ImGui::SliderInt("##written", &shown, 1, model.writtenTokens,
                             model.written ? "written: %d tokens" : "read: %d tokens"))
            request.showWritten = shown;
        itemTooltip("Step back through the target: the maps as they stood when the decoder had "
                    "this many tokens (its causal rows are the ones computed then).");
    }
    if (!model.writtenText.empty())
        wrappedText(ImGui::GetStyleColorVec4(ImGuiCol_Text),
                    std::string(model.written ? "Written: " : "Read: ") + model.writtenText);
    if (std::isfinite(model.loss))
        ImGui::TextDisabled("loss of the target: %.3f nats per token", model.loss);
    if (!model.ablationEffect.empty()) wrappedText(warningColor(), model.ablationEffect);
    return request;
}

// An encoder-decoder: the source field (the scene's sentence) with the encoder's tokens, then
// the target with the decoder's tokens and guesses. The chips of the stack shown pin its rows.
ExplorerRequest seq2seqRows(core::Scene& scene, const SentenceContext& c, ModelView& model) {
    ImGui::TextDisabled("Source (the encoder reads it)");
    ImGui::SetNextItemWidth(-1.0f);
    textField("##sentence", "Type the source sentence", scene.sentences[0]);
    rememberItemCentre(model.sourceFieldAt);
    itemTooltip("The encoder reads it; the decoder's cross-attention reads the encoder's output.");
    glyphsNote(scene.sentences[0]);
    fieldMessages(c);
    const bool encoderShown = model.savedStack == int(core::models::SavedStack::Encoder);
    tokenChips(&model.sourceTokens, 0, encoderShown, c.selection);
    ImGui::Spacing();
    ExplorerRequest request = targetRow(model);
    if (!encoderShown && !model.tokens.empty()) {
        const ChipGuesses guesses{&model.decoderGuesses, false, -1};
        tokenChips(&model.tokens.front(), 0, true, c.selection, guesses);
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("The model reads %s", model.vocabulary.c_str());
    ImGui::PopStyleColor();
    return request;
}

// The scene's error (the maps show the last valid input), else its hint; the trace's warnings
// but those shown under their fields (capWarning) or beside their control (the weights', the
// positions').
void sceneMessages(const core::Trace& trace, const RunStatus& status, bool atFields) {
    const auto wrapped = wrappedText;
    if (status.sceneError.empty() && !status.sceneHint.empty()) // the error is under the field
        wrapped(ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled), status.sceneHint);
    std::vector<std::string> shownAtFields{core::designedFallbackWarning(trace.scene),
                                           core::positionalFallbackWarning(trace.scene)};
    for (std::size_t b = 0; atFields && b < trace.sentences.size(); ++b)
        shownAtFields.push_back(core::tokenCapWarning("sentence", b, trace.sentences[b]));
    if (atFields && !trace.sources.empty())
        shownAtFields.push_back(core::tokenCapWarning("source sentence", 0, trace.sources[0]));
    for (const std::string& warning : trace.warnings)
        if (std::find(shownAtFields.begin(), shownAtFields.end(), warning) == shownAtFields.end())
            wrapped(warningColor(), warning);
}

} // namespace

ExplorerRequest drawSentencesPanel(const PanelRect& rect, core::Scene& scene,
                                   const core::Trace& trace, const RunStatus& status,
                                   ModelView& model, Selection& selection) {
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    ImGui::Begin("Sentences", nullptr, kPanelFlags);
    const SentenceContext context{trace, model, selection, status};
    if (model.seq2seq && !scene.sentences.empty()) {
        const ExplorerRequest request = seq2seqRows(scene, context, model);
        ImGui::Spacing();
        sceneMessages(trace, status, true);
        ImGui::End();
        return request;
    }
    for (int b = 0; b < int(scene.sentences.size()); ++b)
        if (!sentenceRow(b, scene, context)) break;
    if (model.real && model.encoder && !model.attentionOnly) encoderRows(model);
    const ExplorerRequest request = batchButtons(scene, model);
    if (scene.isCross()) {
        ImGui::TextDisabled("Source (keys and values)");
        ImGui::SetNextItemWidth(-1.0f);
        ImGui::BeginDisabled(model.attentionOnly); // an attention file's source tokens
        textField("##source", "Source sentence", scene.sources[0]);
        ImGui::EndDisabled();
        itemTooltip("The sentence whose tokens every query attends to.");
        glyphsNote(scene.sources[0]);
        if (trace.scene.isCross() && !trace.sources.empty()) {
            capWarning("source sentence", 0, trace.sources[0]);
            tokenChips(&trace.sources[0], 0, false, selection);
        }
    }
    ImGui::Spacing();
    const bool atFields = trace.batch() == int(scene.sentences.size());
    sceneMessages(trace, status, atFields);
    ImGui::End();
    return request;
}

} // namespace app
