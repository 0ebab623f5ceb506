// tokenizer.json's vocabulary and merges streamed, the rest as JSON (tokenizer_json_reader.h).
#include "models/tokenizers/tokenizer_json_reader.h"

#include "io/text_file.h"

#include <climits>
#include <stdexcept>

namespace core::models {
namespace {

using json = nlohmann::json;

constexpr std::int64_t kNotANumber = INT64_MIN; // a vocabulary value that is not a whole number

// The SAX events of the whole file: model.vocab and model.merges go to the lists, everything
// else into a JSON value built as nlohmann's own DOM parser builds it.
class Handler final : public nlohmann::json_sax<json> {
  public:
    explicit Handler(TokenizerJsonFile& out) : out_(out) {}
    std::size_t errorByte = 0;

    bool null() override { return value(json()); }
    bool boolean(bool v) override { return value(json(v)); }
    bool number_integer(number_integer_t v) override { return number(v, json(v)); }
    bool number_unsigned(number_unsigned_t v) override {
        return number(v > std::uint64_t(INT64_MAX) ? kNotANumber : std::int64_t(v), json(v));
    }
    bool number_float(number_float_t v, const string_t&) override {
        return number(kNotANumber, json(v));
    }
    bool string(string_t& v) override {
        if (mode_ == Mode::Vocab) return vocabValue(kNotANumber);
        if (mode_ == Mode::Merges) return mergeLine(v);
        if (mode_ == Mode::MergePair) return mergePart(v);
        if (mode_ == Mode::Skip) return true;
        return value(json(std::move(v)));
    }
    bool binary(binary_t&) override { return value(json()); }
    bool key(string_t& k) override {
        if (mode_ == Mode::Vocab)
            token_ = std::move(k);
        else if (mode_ == Mode::Dom)
            key_ = std::move(k);
        return true;
    }
    bool start_object(std::size_t) override { return open(json::object()); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t byte, const std::string&,
                     const nlohmann::detail::exception&) override {
        errorByte = byte == 0 ? 1 : byte;
        return false;
    }

  private:
    enum class Mode { Dom, Vocab, Merges, MergePair, Skip };

    bool atModelKey(const char* name) const {
        return mode_ == Mode::Dom && stack_.size() == 2 && key_ == name && modelObject_;
    }

    bool value(json v) {
        if (mode_ == Mode::Vocab) return vocabValue(kNotANumber);
        if (mode_ == Mode::Merges) return badMerge();
        if (mode_ == Mode::MergePair) return mergePart({}, true);
        if (mode_ == Mode::Skip) return true;
        if (stack_.empty()) {
            out_.root = std::move(v);
        } else if (stack_.back()->is_object()) {
            (*stack_.back())[key_] = std::move(v);
        } else {
            stack_.back()->push_back(std::move(v));
        }
        return true;
    }

    bool number(std::int64_t id, json v) {
        if (mode_ == Mode::Vocab) return vocabValue(id);
        return value(std::move(v));
    }

    bool vocabValue(std::int64_t id) {
        out_.vocab.emplace_back(std::move(token_), id);
        return true;
    }

    bool mergeLine(const std::string& line) {
        const std::size_t space = line.find(' ');
        if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
            return badMerge();
        out_.merges.emplace_back(line.substr(0, space), line.substr(space + 1));
        return true;
    }
    bool badMerge() {
        out_.merges.emplace_back();
        if (out_.badMerge == 0) out_.badMerge = out_.merges.size();
        return true;
    }
    bool mergePart(std::string part, bool bad = false) {
        if (bad || pairParts_ >= 2) pairBad_ = true;
        if (pairParts_ == 0)
            pair_.first = std::move(part);
        else if (pairParts_ == 1)
            pair_.second = std::move(part);
        ++pairParts_;
        return true;
    }

    bool open(json container) {
        if (mode_ == Mode::Skip) return ++skipDepth_, true;
        if (mode_ == Mode::Vocab) { // a vocabulary value that is an object or a list
            vocabValue(kNotANumber);
            return mode_ = Mode::Skip, skipDepth_ = 1, skipReturn_ = Mode::Vocab, true;
        }
        if (mode_ == Mode::Merges) {
            if (container.is_array())
                return mode_ = Mode::MergePair, pairParts_ = 0, pairBad_ = false, true;
            badMerge();
            return mode_ = Mode::Skip, skipDepth_ = 1, skipReturn_ = Mode::Merges, true;
        }
        if (mode_ == Mode::MergePair) {
            pairBad_ = true;
            return mode_ = Mode::Skip, skipDepth_ = 1, skipReturn_ = Mode::MergePair, true;
        }
        if (atModelKey("vocab") && container.is_object()) {
            out_.hasVocab = true;
            return mode_ = Mode::Vocab, true;
        }
        if (atModelKey("merges") && container.is_array()) {
            out_.hasMerges = true;
            return mode_ = Mode::Merges, true;
        }
        const bool model = stack_.size() == 1 && stack_[0]->is_object() && key_ == "model" &&
                           container.is_object();
        value(std::move(container));
        json* added = stack_.empty()               ? &out_.root
                      : stack_.back()->is_object() ? &(*stack_.back())[key_]
                                                   : &stack_.back()->back();
        stack_.push_back(added);
        if (stack_.size() == 2) modelObject_ = model;
        return true;
    }

    bool close() {
        if (mode_ == Mode::Skip) {
            if (--skipDepth_ == 0) mode_ = skipReturn_;
            return true;
        }
        if (mode_ == Mode::Vocab || mode_ == Mode::Merges) return mode_ = Mode::Dom, true;
        if (mode_ == Mode::MergePair) {
            if (pairBad_ || pairParts_ != 2)
                badMerge();
            else
                out_.merges.push_back(std::move(pair_));
            return mode_ = Mode::Merges, true;
        }
        if (!stack_.empty()) stack_.pop_back();
        return true;
    }

    TokenizerJsonFile& out_;
    std::vector<json*> stack_; // the open containers of the DOM
    std::string key_, token_;
    Mode mode_ = Mode::Dom, skipReturn_ = Mode::Dom;
    int skipDepth_ = 0;
    bool modelObject_ = false; // the open object at depth 2 is root.model
    std::pair<std::string, std::string> pair_;
    int pairParts_ = 0;
    bool pairBad_ = false;
};

} // namespace

TokenizerJsonFile parseTokenizerJson(const std::string& text, const std::string& path) {
    TokenizerJsonFile file;
    file.path = path;
    Handler handler(file);
    if (!json::sax_parse(text, &handler))
        throw std::invalid_argument(path + ": not JSON (error at byte " +
                                    std::to_string(handler.errorByte) + ")");
    return file;
}

TokenizerJsonFile readTokenizerJsonFile(const std::string& path) {
    const TextFile file = readTextFile(path, kTokenizerFileCap);
    if (!file.ok())
        throw std::invalid_argument(path + ": " + describeProblem(file.problem, kTokenizerFileCap));
    return parseTokenizerJson(file.text, path);
}

} // namespace core::models
