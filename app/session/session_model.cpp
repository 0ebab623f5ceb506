// The Session's trained-model side (--model, "Open in explorer", the Open model dialog): opening
// (a checkpoint off the frame thread) and closing a model, and each frame's recompute of the
// layer shown. Kept apart from session.cpp, which calls recompute(), status() and
// followPendingModel().
#include "platform/background_task.h"
#include "session/session.h"

#include "models/formats/attention_file.h"
#include "models/formats/recent_models.h"
#include "models/seq2seq_real_model.h"
#include "platform/file_offer.h"
#include "platform/user_paths.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <utility>

namespace app {

namespace {

// A spinner that ImGui's clock turns: the frame still runs while the worker reads the weights.
std::string openingNotice(const std::string& name) {
    static const char* const frames[] = {"|", "/", "-", "\\"};
    return std::string(frames[int(ImGui::GetTime() * 8.0) % 4]) + " Opening " + name + " ...";
}

// Whether `text` is one the app put there, not one the user typed: a model's or the demo's
// sentence (a mask spelled any way), or nothing at all.
bool nothingTyped(const std::string& text, const std::string& previousDefault) {
    if (core::isBlank(text) || text == previousDefault || text == core::kDemoSentence ||
        text == core::models::kDefaultRealSentence)
        return true;
    for (const char* mask : {"[MASK]", "<mask>"})
        if (text == "The cat sat on the " + std::string(mask) + " because it was tired.")
            return true;
    return false;
}

// The typed text for the next model: a mask spelled as another encoder spells it ("[MASK]"
// for BERT, "<mask>" for RoBERTa) becomes the next one's, so the blank stays a blank.
std::string withMaskText(std::string text, const std::string& mask) {
    if (mask.empty()) return text; // a decoder reads "[MASK]" as the text it is
    for (const std::string other : {"[MASK]", "<mask>"}) {
        if (other == mask) continue;
        for (std::size_t at = text.find(other); at != std::string::npos;
             at = text.find(other, at + mask.size()))
            text.replace(at, other.size(), mask);
    }
    return text;
}

} // namespace

std::string Session::sentenceForModel(const core::models::RealModel& next) const {
    const std::string typed = scene_.sentences.empty() ? std::string() : scene_.sentences.front();
    // The app's own text: a model's example, or an attention file's sentence (not typed).
    const std::string previousDefault =
        model_.runner.isReal()    ? model_.runner.realModel().defaultSentence()
        : model_.runner.isSaved() ? model_.runner.saved().tokens.text
                                  : std::string();
    if (nothingTyped(typed, previousDefault)) return next.defaultSentence();
    return withMaskText(typed, next.maskText());
}

// The notice (and stderr line) of a model that could not be opened; what was shown stays.
bool Session::modelNotOpened(const std::exception& e) {
    showNotice(std::string("Model not opened: ") + e.what(), 6.0);
    explorer_.openModel.focusPath = explorer_.openModel.open; // to correct the path typed
    std::cerr << "mha-viz: " << window_.notice.text << '\n';
    return false;
}

bool Session::openModel(const std::string& runDir, int step) {
    try {
        auto run = std::make_shared<const core::TrainedRun>(core::loadTrainedRun(runDir, step));
        // The same vocabulary keeps what was typed; another gets the task's own sentence.
        const bool sameVocab =
            model_.runner.isTrained() && model_.runner.run().model.vocab == run->model.vocab;
        std::vector<std::string> sentences =
            sameVocab ? scene_.sentences
                      : std::vector<std::string>{core::train::defaultModelSentence(run->task)};
        showModel(std::move(run), std::move(sentences));
        showNotice("Opened " + explorer_.model.title, 3.0);
        return true;
    } catch (const std::exception& e) {
        return modelNotOpened(e);
    }
}

bool Session::openModelPath(const std::string& dirOrName) {
    if (loadingAny()) { // one at a time: the first asked for is what the user waits on
        showNotice("Still opening " + model_.loadingName + "; " + dirOrName + " was not opened",
                   4.0);
        return false;
    }
    if (core::models::looksLikeAttentionFile(dirOrName)) return openAttentionFile(dirOrName);
    try {
        // Locating reads a few names only: a mistyped path is refused at once, in this frame.
        const core::models::ModelLocation where = core::models::locateModel(dirOrName);
        if (where.kind == core::models::ModelFolderKind::TrainRun) {
            if (!openModel(where.dir)) return false;
            rememberRecentModel(dirOrName);
            return true;
        }
        if (core::models::isSeq2SeqFolder(where)) // T5, BART, Marian: their own forward
            model_.loadingSeq2Seq = startTask([where] {
                return std::shared_ptr<const core::models::Seq2SeqRealModel>(
                    core::models::openSeq2SeqModel(where));
            });
        else
            model_.loading = startTask( // throws when no thread can be made
                [dirOrName] { return core::models::openRealModel(dirOrName); });
    } catch (const std::exception& e) {
        return modelNotOpened(e);
    }
    model_.loadingName = dirOrName;
    explorer_.openModel.loading = dirOrName;
    title_.next = "mha-viz \xE2\x80\x94 opening " + dirOrName + " ...";
    showNotice(openingNotice(dirOrName), 60.0); // over any notice before; turned each frame
    return true;
}

// Whether a load off the frame thread (a model, a file) has ended: then its name, the dialog's
// "loading" cleared; until then the spinner notice turns (another notice meanwhile stays).
template <class T>
std::optional<std::string> Session::finishedLoad(const std::future<T>& task) {
    if (!task.valid()) return std::nullopt;
    if (!taskReady(task)) {
        const Notice& notice = window_.notice;
        if (!notice.visible(ImGui::GetTime()) || notice.text.find(" Opening ") == 1)
            showNotice(openingNotice(model_.loadingName), 60.0);
        return std::nullopt;
    }
    explorer_.openModel.loading.clear();
    return std::exchange(model_.loadingName, std::string());
}

void Session::followPendingModel() {
    const std::optional<std::string> loaded = finishedLoad(model_.loading);
    if (!loaded) return;
    const std::string& name = *loaded;
    try {
        std::shared_ptr<const core::models::RealModel> model = model_.loading.get();
        // What was typed stays (comparing models on one's own sentence); only the app's own
        // example gives way to the next model's (a [MASK] to fill for an encoder), and Ctrl+Z
        // brings it back.
        const std::vector<std::string> before = scene_.sentences;
        const std::string first = sentenceForModel(*model);
        showRealModel(std::move(model), {first});
        const bool replaced = before.size() != 1 || before.front() != first;
        if (replaced) replacedText_ = before;
        showNotice("Opened " + explorer_.model.title +
                       (replaced ? " \xC2\xB7 its example sentence (Ctrl+Z: the one before)" : ""),
                   4.0);
        rememberRecentModel(name);
        explorer_.openModel.open = false; // the dialog did its job; it stays open on an error
    } catch (const std::exception& e) {
        title_.next = title_.shown;
        modelNotOpened(e);
    }
}

bool Session::openAttentionFile(const std::string& path) {
    if (loadingAny()) {
        showNotice("Still opening " + model_.loadingName + "; " + path + " was not opened", 4.0);
        return false;
    }
    try { // read and checked off the frame thread: a file of long texts is hundreds of MB
        model_.loadingSaved = startTask([path] { return core::models::openSavedAttention(path); });
    } catch (const std::exception& e) {
        return modelNotOpened(e);
    }
    model_.loadingName = path;
    explorer_.openModel.loading = path;
    title_.next = "mha-viz \xE2\x80\x94 opening " + path + " ...";
    showNotice(openingNotice(path), 60.0);
    return true;
}

void Session::followPendingAttention() {
    const std::optional<std::string> loaded = finishedLoad(model_.loadingSaved);
    if (!loaded) return;
    const std::string& name = *loaded;
    try { // a bad file: its one line, and what was shown stays
        showSavedAttention(model_.loadingSaved.get());
        showNotice("Opened " + explorer_.model.title, 4.0);
        rememberRecentModel(name);
        explorer_.openModel.open = false;
    } catch (const std::bad_alloc&) {
        title_.next = title_.shown;
        modelNotOpened(std::runtime_error(name + ": not enough memory for this attention file"));
    } catch (const std::exception& e) {
        title_.next = title_.shown;
        modelNotOpened(e);
    }
}

void Session::followPendingSeq2Seq() {
    const std::optional<std::string> loaded = finishedLoad(model_.loadingSeq2Seq);
    if (!loaded) return;
    const std::string& name = *loaded;
    try {
        showSeq2Seq(model_.loadingSeq2Seq.get());
        showNotice("Opened " + explorer_.model.title +
                       " \xC2\xB7 the decoder writes; type a "
                       "target to read yours",
                   5.0);
        rememberRecentModel(name);
        explorer_.openModel.open = false;
    } catch (const std::exception& e) {
        title_.next = title_.shown;
        modelNotOpened(e);
    }
}

void Session::showSeq2Seq(std::shared_ptr<const core::models::Seq2SeqRealModel> model) {
    rememberExplorer();
    setTitle(seq2seqWindowTitle(*model));
    const std::string typed = scene_.sentences.empty() ? std::string() : scene_.sentences.front();
    const std::string previousDefault =
        model_.runner.isSeq2Seq() ? model_.runner.seq2seqModel().architecture->defaultSource : "";
    const std::string source =
        nothingTyped(typed, previousDefault) ? model->architecture->defaultSource : typed;
    replacedText_.reset();
    train_.active = false; // opened from the Train view too: its decoder writes in the explorer
    model_.runner.openSeq2Seq(std::move(model));
    scene_ = model_.runner.scene({source});
    ModelView& view = explorer_.model;
    view.layer = 0;
    view.ablated.clear();
    for (core::train::HeadLists& stack : view.stackAblated) stack.clear();
    view.targetText.clear(); // the decoder writes first
    view.writtenShown = -1;
    view.savedStack = int(core::models::SavedStack::Cross);
    view.grid = ModelGridMode::Alignment; // the figure of translation papers first
    view.pairText.clear();
    view.pairView = core::PairView::All;
    describeModel(model_.runner, view);
    explorer_.selection.pinnedQuery = -1;
    explorer_.selection.batchIndex = 0;
    model_.shownLayer = -1;
}

bool Session::followSeq2Seq() {
    ModelView& view = explorer_.model;
    Seq2SeqRequest request;
    request.source = scene_.sentences.empty() ? std::string() : scene_.sentences.front();
    request.target = view.targetText;
    request.maxTokens = view.maxWritten;
    request.ablated = view.stackAblated;
    for (core::train::HeadLists& stack : request.ablated) // trailing empty layers: no change
        while (!stack.empty() && stack.back().empty()) stack.pop_back();
    const double now = ImGui::GetTime();
    bool replaced = model_.runner.updateSeq2Seq(request, now,
                                                std::exchange(explorer_.model.generateNow, false));
    replaced = model_.runner.playWritten(now) || replaced;
    return replaced;
}

void Session::showSavedAttention(std::shared_ptr<const core::models::SavedAttention> saved) {
    rememberExplorer();
    setTitle(savedAttentionWindowTitle(*saved));
    replacedText_.reset(); // the file's sentence is its own: nothing typed to bring back
    model_.runner.openSaved(std::move(saved));
    scene_ = model_.runner.scene({});
    explorer_.model.layer = 0;
    explorer_.model.ablated.clear();
    explorer_.model.lensPosition = -1;
    explorer_.model.pairView = core::PairView::All;
    explorer_.model.pairText.clear();
    explorer_.model.savedStack = 0; // layers.*
    describeModel(model_.runner, explorer_.model);
    explorer_.selection.pinnedQuery = -1;
    explorer_.selection.batchIndex = 0;
    model_.shownLayer = -1;
}

// A folder is kept as an absolute path (the next start may run elsewhere), a name as typed.
void Session::rememberRecentModel(const std::string& dirOrName) {
    namespace fs = std::filesystem;
    std::string entry = dirOrName;
    std::error_code ec;
    if (fs::is_directory(dirOrName, ec) ||
        fs::is_regular_file(dirOrName, ec)) { // an attention file
        fs::path path = fs::absolute(dirOrName, ec).lexically_normal();
        if (!path.has_filename()) path = path.parent_path(); // "dir/" -> "dir"
        if (!ec) entry = path.string();
    }
    // In the browser, files chosen or dropped live in the page's memory until it closes.
    if (kFilesAreDownloads && entry.rfind("/upload/", 0) == 0) return;
    const std::string file = recentModelsPath();
    explorer_.openModel.recent =
        core::models::withRecentModel(core::models::readRecentModels(file), entry);
    try {
        core::models::writeRecentModels(file, explorer_.openModel.recent);
        keepFiles();
    } catch (const std::exception& e) { // the model is open; only the list is not kept
        std::cerr << "mha-viz: recent models not saved: " << e.what() << '\n';
    }
}

void Session::setTitle(std::string title) {
    title_.shown = title;
    title_.next = std::move(title);
}

void Session::rememberExplorer() {
    if (model_.runner.isOpen()) return; // already remembered when the first model opened
    explorerScene_ = scene_;
    explorerTrace_ = trace_;
}

void Session::showRealModel(std::shared_ptr<const core::models::RealModel> model,
                            std::vector<std::string> sentences) {
    rememberExplorer();
    setTitle(realModelWindowTitle(*model));
    if (sentences.size() != 1) sentences.resize(1); // one sentence: the model's batch is its own
    model_.runner.openReal(std::move(model));
    scene_ = model_.runner.scene(sentences);
    explorer_.model.layer = 0;
    explorer_.model.ablated.clear(); // another model's heads
    explorer_.model.lensPosition = -1;
    explorer_.model.pairView = core::PairView::All;
    describeModel(model_.runner, explorer_.model);
    explorer_.selection.pinnedQuery = -1;
    explorer_.selection.batchIndex = 0;
    model_.shownLayer = -1;
}

void Session::showModel(std::shared_ptr<const core::TrainedRun> run,
                        std::vector<std::string> sentences) {
    const bool sameKind = model_.runner.isTrained();
    rememberExplorer();
    setTitle(trainedModelWindowTitle(*run));
    const int layer = sameKind ? explorer_.model.layer : 0; // another step: that layer
    model_.runner.open(std::move(run));
    scene_ = model_.runner.scene(sentences);
    explorer_.model.layer = layer;
    describeModel(model_.runner,
                  explorer_.model); // the title and controls before the first trace
    explorer_.selection.pinnedQuery = -1;
    explorer_.selection.batchIndex = 0;
    model_.shownLayer = -1; // the next recompute shows the layer
}

void Session::closeModel() {
    leaveModel(false);
}

void Session::leaveModel(bool keepScene) {
    if (!model_.runner.isOpen()) return;
    model_.runner.close();
    model_.comparison.close(); // B was compared with the model closed
    replacedText_.reset();     // of the model closed
    explorer_.model = {};
    if (!keepScene) scene_ = explorerScene_; // else a scene opened over the model stays
    trace_ = explorerTrace_;                 // the runner recomputes when scene_ differs from it
    mapsStale_ = true;
    setTitle("mha-viz \xE2\x80\x94 multi-head attention");
}

bool Session::recompute(bool allowWorker) {
    const bool stale = std::exchange(mapsStale_, false);
    if (!model_.runner.isOpen())
        return runner_.update(scene_, trace_, ImGui::GetTime(), allowWorker) || stale;
    return followModel() || stale;
}

bool Session::followModel() {
    // An attention file's stack chosen in the model section: its traces, and its scene.
    const bool stack =
        model_.runner.showSavedStack(core::models::SavedStack(explorer_.model.savedStack));
    if (stack) scene_ = model_.runner.scene(scene_.sentences);
    // The controls are read-only, but keys (M, [ and ]) and scene edits could still move them.
    const core::Scene fixed = model_.runner.scene(scene_.sentences);
    if (!(scene_ == fixed)) {
        scene_ = fixed;
        showNotice("A model fixes d_model, heads, mask and scale (Close model to change them)");
    }
    const ModelView& model = explorer_.model;
    const bool replaced =
        (model_.runner.isSeq2Seq()
             ? followSeq2Seq()
             : model_.runner.update(scene_.sentences, ImGui::GetTime(), model.ablated,
                                    model.pairs ? model.pairText : std::string())) ||
        stack;
    // The analyses (detectors, the all-heads loss) arrive after the trace: described again then.
    if (replaced || model_.runner.analysesGeneration() != model_.describedAnalyses) {
        describeModel(model_.runner, explorer_.model);
        model_.describedAnalyses = model_.runner.analysesGeneration();
    }
    if (replaced) model_.shownLayer = -1;
    explorer_.model.lensTop.clear(); // the lens of the trace shown, once its worker has it
    const LensRows& lens = model_.runner.lens();
    if (lens.generation == model_.runner.generation())
        for (const auto& top : lens.layers) explorer_.model.lensTop.push_back(top.front().token);
    if (!model_.runner.hasTrace()) return false;
    explorer_.model.layer = std::clamp(explorer_.model.layer, 0, explorer_.model.layers - 1);
    if (explorer_.model.layer == model_.shownLayer && model.pairView == model_.shownPairView)
        return false;
    // A layer a real trace did not keep is made on a worker: the last one stays meanwhile.
    std::shared_ptr<const core::Trace> layer = model_.runner.layerTrace(explorer_.model.layer);
    if (!layer) return false;
    model_.shownLayer = explorer_.model.layer;
    model_.shownPairView = model.pairView; // the maps are made again with it (shownPairView())
    trace_ = std::move(layer);
    return true;
}

} // namespace app
