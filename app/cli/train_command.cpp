#include "cli/train_command.h"

#include "cli/cli.h"
#include "cli/command_line.h"

#include "io/atomic_file.h"
#include "io/run_folder.h"
#include "train/ablation.h"
#include "train/probe_maps.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <new>
#include <sstream>
#include <unistd.h>

namespace app {

namespace {

namespace train = core::train;
using Clock = std::chrono::steady_clock;

void printError(const std::string& message) {
    app::printError("mha-viz train", message);
}

void addModelOptions(CLI::App& cli, train::TrainSettings& s) {
    addEnumOption(cli, "--task", s.task,
                  "What to learn: " + core::describeEnumNames<train::TaskKind>())
        ->required()
        ->default_str(""); // no default: the task is asked for
    cli.add_option("--layers", s.model.layers, "Attention layers L, 1 to 8")->capture_default_str();
    cli.add_option("--d-model", s.model.d_model, "Model width D")->capture_default_str();
    cli.add_option("--heads", s.model.heads, "Heads per layer H; must divide D")
        ->capture_default_str();
    cli.add_option("--seq", s.model.seq, "Sequence length N")->capture_default_str();
}

void addRunOptions(CLI::App& cli, train::TrainSettings& s, TrainOptions& options) {
    cli.add_option("--out", options.outDir, "Run folder to write; must be new or empty")
        ->required();
    cli.add_option("--batch", s.batch, "Sequences per update B")->capture_default_str();
    cli.add_option("--steps", s.steps, "Updates")->capture_default_str();
    cli.add_option("--lr", s.learningRate, "Learning rate")->capture_default_str();
    addEnumOption(cli, "--optimizer", s.optimizer, core::describeEnumNames<train::OptimizerKind>());
    cli.add_option("--seed", s.seed, "Initial weights, batches and probe set come from it")
        ->check(CLI::Validator(seedError, "UINT"))
        ->capture_default_str();
    cli.add_option("--eval-every", s.evalEvery,
                   "A metrics.csv row (held-out loss, accuracy, head scores) every E steps")
        ->capture_default_str();
    cli.add_option("--checkpoint-every", s.checkpointEvery,
                   "Also a checkpoint every C steps (step 0 and the last are always written)");
    cli.add_flag("--record-batches", s.recordBatches,
                 "Write each update's batch as batches-SSSSSS.json");
    cli.add_flag("--ablation", options.ablation,
                 "After the last step write ablation.csv: held-out loss with each head off, and "
                 "the pruning curve (heads removed one by one, least harmful first)");
}

} // namespace

std::optional<TrainOptions> parseTrainCli(int argc, char** argv, int& exitCode) {
    TrainOptions options;
    CLI::App cli{"mha-viz train: train a tiny attention-only transformer and watch its heads "
                 "specialise.\nWrites model.json, metrics.csv and safetensors checkpoints to "
                 "--out DIR.",
                 "mha-viz train"};
    addModelOptions(cli, options.settings);
    addRunOptions(cli, options.settings, options);
    const auto check = [&] {
        train::validate(options.settings); // throws naming the flag
        return std::string();
    };
    if (!parseCommandLine(cli, argc, argv, "mha-viz train", check, exitCode)) return std::nullopt;
    return options;
}

namespace {

// "step 1200/3000  loss 2.134  held-out 2.201  85 steps/s", at most twice a second: often
// enough to watch, rarely enough that a log file stays short and printing costs nothing.
class ProgressLog {
  public:
    ProgressLog(std::ostream& log, bool terminal, int steps)
        : log_(log), terminal_(terminal), steps_(steps), start_(Clock::now()), last_(start_) {}

    void heldout(double loss) { heldout_ = loss; }

    void update(int step, double loss) {
        const Clock::time_point now = Clock::now();
        if (now - last_ < std::chrono::milliseconds(500)) return;
        const double seconds = std::chrono::duration<double>(now - last_).count();
        const double rate = (step - lastStep_) / seconds;
        last_ = now, lastStep_ = step;
        std::ostringstream line;
        line << std::fixed << "mha-viz train: step " << step << "/" << steps_ << "  loss "
             << std::setprecision(3) << loss << "  held-out " << heldout_ << "  "
             << std::setprecision(0) << rate << " steps/s";
        log_ << (terminal_ ? "\r" : "") << line.str() << (terminal_ ? "\x1b[K" : "\n")
             << std::flush;
        shown_ = true;
    }

    // Ends the updated terminal line; the mean rate over the whole run.
    double finish(int steps) {
        if (terminal_ && shown_) log_ << '\n';
        const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
        return seconds > 0 ? steps / seconds : 0.0;
    }

  private:
    std::ostream& log_;
    bool terminal_;
    int steps_;
    Clock::time_point start_, last_;
    int lastStep_ = 0;
    double heldout_ = 0;
    bool shown_ = false;
};

// A metrics row for the current step; returns its held-out loss.
double writeMetricsRow(train::Trainer& trainer, core::RunFolderWriter& run) {
    const double trainLoss = trainer.takeTrainLoss();
    const std::vector<train::Metric> row = trainer.probeMetrics();
    run.metricsRow(trainer.step(), trainLoss, row);
    return row.front().value;
}

void writeCheckpointOf(const train::Trainer& trainer, core::RunFolderWriter& run) {
    run.checkpoint(trainer.step(), trainer.params());
}

struct Stopped {}; // thrown from the ablation's progress when Ctrl+C asks to stop

// ablation.csv, with its progress on the log (the pruning curve takes (L*H)^2 / 2 passes).
void writeAblation(const train::Trainer& trainer, core::RunFolderWriter& run,
                   const std::atomic<bool>& stop, std::ostream& log) {
    log << "mha-viz train: measuring each head's effect on the held-out loss ..." << std::endl;
    Clock::time_point last = Clock::now();
    const train::AblationReport report = train::measureAblation(
        trainer.config(), trainer.params(), trainer.probe(), [&](int done, int total) {
            if (stop) throw Stopped{};
            if (Clock::now() - last < std::chrono::seconds(1)) return;
            last = Clock::now();
            log << "mha-viz train: ablation " << done << "/" << total << " passes" << std::endl;
        });
    run.ablation(report);
}

// The updates, each followed by its metrics row and checkpoint when due; stops early on `stop`.
void trainSteps(train::Trainer& trainer, const TrainOptions& options, core::RunFolderWriter& run,
                const std::atomic<bool>& stop, ProgressLog& progress) {
    while (!trainer.done() && !stop) {
        if (options.settings.recordBatches) run.batch(trainer.step() + 1, trainer.nextBatch());
        const double loss = trainer.update();
        if (trainer.isEvalStep(trainer.step())) progress.heldout(writeMetricsRow(trainer, run));
        if (trainer.isCheckpointStep(trainer.step())) writeCheckpointOf(trainer, run);
        progress.update(trainer.step(), loss);
    }
    if (trainer.done()) return;
    // Stopped: this step is the run's last, so it gets the last step's files.
    if (!trainer.isEvalStep(trainer.step())) writeMetricsRow(trainer, run);
    if (!trainer.isCheckpointStep(trainer.step())) writeCheckpointOf(trainer, run);
}

void describeRun(const TrainOptions& options, const train::Trainer& trainer, std::ostream& log) {
    log << "mha-viz train: " << train::describeSettings(options.settings) << "; "
        << trainer.params().parameterCount() << " parameters, " << options.settings.steps
        << " steps into " << options.outDir << std::endl;
}

// Everything after the folder exists; throws on a failed write.
void trainInto(const TrainOptions& options, const std::atomic<bool>& stop, std::ostream& log,
               bool logIsTerminal) {
    const std::string& dir = options.outDir;
    // The folder first: refused (not empty), nothing is written, logged or allocated.
    const auto setup = train::makeRunSetup(options.settings);
    const std::vector<std::string> probeColumns(setup->columns.begin() + 2, // after step, loss
                                                setup->columns.end());
    core::RunFolderWriter run(dir, setup->settings, setup->task.vocab(), probeColumns);
    train::Trainer trainer(options.settings);
    describeRun(options, trainer, log);
    const double heldout = writeMetricsRow(trainer, run);
    writeCheckpointOf(trainer, run);
    ProgressLog progress(log, logIsTerminal, options.settings.steps); // rates from the 1st update
    progress.heldout(heldout);
    trainSteps(trainer, options, run, stop, progress);
    const double rate = progress.finish(trainer.step());
    log << "mha-viz train: " << (trainer.done() ? "done" : "stopped") << " at step "
        << trainer.step() << " (" << std::fixed << std::setprecision(0) << rate
        << " steps/s); metrics.csv and " << core::checkpointFileName(trainer.step()) << " in "
        << dir << std::endl;
    if (!options.ablation) return;
    try {
        writeAblation(trainer, run, stop, log);
        log << "mha-viz train: wrote " << run.path("ablation.csv") << std::endl;
    } catch (const Stopped&) {
        log << "mha-viz train: stopped; ablation.csv not written" << std::endl;
    }
}

std::atomic<bool> stopRequested{false};

static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

// The first Ctrl+C asks for a clean stop; a second one, should a step or the ablation take long,
// ends the process at once, as Ctrl+C usually does.
void requestStop(int signal) {
    stopRequested = true;
    std::signal(signal, SIG_DFL);
}

} // namespace

int runTraining(const TrainOptions& options, const std::atomic<bool>& stop, std::ostream& log,
                bool logIsTerminal) {
    try {
        trainInto(options, stop, log, logIsTerminal);
    } catch (const std::bad_alloc&) {
        printError("not enough memory for this model; use a smaller --batch, --seq or --d-model");
        return kExitBadInput;
    } catch (const std::exception& e) {
        printError(e.what());
        return kExitBadInput;
    }
    return 0;
}

int runTrainCommand(int argc, char** argv) {
    int exitCode = 0;
    const std::optional<TrainOptions> options = parseTrainCli(argc, argv, exitCode);
    if (!options) return exitCode;
    std::signal(SIGINT, requestStop);
    std::signal(SIGTERM, requestStop);
    return runTraining(*options, stopRequested, std::cerr, isatty(STDERR_FILENO) != 0);
}

} // namespace app
