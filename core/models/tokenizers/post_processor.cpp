// tokenizer.json's post-processors (post_processor.h).
#include "models/tokenizers/post_processor.h"

#include "io/json_fields.h"
#include "models/tokenizers/text_pipeline.h"

#include <stdexcept>

namespace core::models {
namespace {

using json = nlohmann::json;

LayoutPart sequencePart(int sequence, int type) {
    LayoutPart part;
    part.sequence = sequence, part.type = type;
    return part;
}

LayoutPart specialPart(const std::string& token, std::vector<int> ids, int type) {
    LayoutPart part;
    part.ids = std::move(ids), part.type = type, part.token = token;
    return part;
}

// RobertaProcessing's and BertProcessing's "cls" / "sep": ["<s>", 0].
std::pair<std::string, int> tokenPair(const JsonFields& fields, const char* name) {
    const json& value = fields.at(name);
    if (!value.is_array() || value.size() != 2 || !value[0].is_string() ||
        !value[1].is_number_integer() || value[1].get<long long>() < 0 ||
        value[1].get<long long>() > (1 << 24))
        fields.bad(std::string("\"") + name + "\" is not [token, id]");
    return {value[0].get<std::string>(), value[1].get<int>()};
}

// A template piece: {"SpecialToken": {"id", "type_id"}}, {"Sequence": {"id": "A"|"B",
// "type_id"}}, or the string form "$A", "$B:1", "<s>", "<s>:0".
LayoutPart templatePiece(const json& piece, const JsonFields& fields, const json& specials) {
    std::string id;
    int type = 0;
    bool sequence = false;
    if (piece.is_string()) {
        id = piece.get<std::string>();
        if (const std::size_t colon = id.rfind(':'); colon != std::string::npos && colon > 0) {
            type = std::atoi(id.c_str() + colon + 1);
            id.resize(colon);
        }
        sequence = !id.empty() && id[0] == '$';
        if (sequence) id = id.size() == 1 ? "A" : id.substr(1);
    } else if (piece.is_object() && piece.size() == 1 &&
               (piece.contains("SpecialToken") || piece.contains("Sequence"))) {
        sequence = piece.contains("Sequence");
        const json& body = sequence ? piece["Sequence"] : piece["SpecialToken"];
        const JsonFields inner(body, fields.at("type").get<std::string>() + ": a piece: ");
        id = inner.string("id", "");
        type = inner.integer("type_id", 0, 1 << 20, 0);
    } else {
        fields.bad("a template piece is neither a SpecialToken nor a Sequence");
    }
    if (sequence) {
        if (id != "A" && id != "B" && id != "a" && id != "b")
            fields.bad("a Sequence is not A or B");
        return sequencePart(id == "A" || id == "a" ? 0 : 1, type);
    }
    if (!specials.is_object() || !specials.contains(id) || !specials[id].is_object())
        fields.bad("the special token \"" + id + "\" is not in special_tokens");
    const json& ids = specials[id].value("ids", json());
    std::vector<int> out;
    if (ids.is_array())
        for (const json& v : ids)
            if (v.is_number_integer() && v.get<long long>() >= 0 && v.get<long long>() < (1 << 24))
                out.push_back(v.get<int>());
    if (out.empty() || out.size() != ids.size())
        fields.bad("the special token \"" + id + "\" has no list of ids");
    return specialPart(id, std::move(out), type);
}

Layout readTemplate(const JsonFields& fields, const char* name, const json& specials) {
    const json& list = fields.at(name);
    if (!list.is_array()) fields.bad(std::string("\"") + name + "\" is not a list");
    Layout layout;
    for (const json& piece : list) layout.push_back(templatePiece(piece, fields, specials));
    return layout;
}

} // namespace

PostProcessor::Step PostProcessor::readStep(const json& spec) {
    const std::string type = typeOfPart(spec, "post_processor");
    const JsonFields fields(spec, "post_processor \"" + type + "\": ");
    Step step;
    if (type == "ByteLevel") {
        step.kind = Step::ByteLevel;
    } else if (type == "TemplateProcessing") {
        const json& specials = spec.value("special_tokens", json::object());
        step.single = readTemplate(fields, "single", specials);
        step.pair = readTemplate(fields, "pair", specials);
    } else if (type == "RobertaProcessing" || type == "BertProcessing") {
        const auto [cls, clsId] = tokenPair(fields, "cls");
        const auto [sep, sepId] = tokenPair(fields, "sep");
        const bool bert = type == "BertProcessing";
        step.single = {specialPart(cls, {clsId}, 0), sequencePart(0, 0),
                       specialPart(sep, {sepId}, 0)};
        step.pair = step.single;
        if (!bert) step.pair.push_back(specialPart(sep, {sepId}, 0));
        step.pair.push_back(sequencePart(1, bert ? 1 : 0));
        step.pair.push_back(specialPart(sep, {sepId}, bert ? 1 : 0));
    } else {
        throw std::invalid_argument("post_processor \"" + type + "\" is not supported");
    }
    return step;
}

PostProcessor PostProcessor::read(const json& spec) {
    PostProcessor p;
    if (spec.is_null()) return p;
    if (spec.is_object() && spec.value("type", json()) == "Sequence") {
        const json& list = spec.value("processors", json());
        if (!list.is_array())
            throw std::invalid_argument(
                "post_processor \"Sequence\": \"processors\" is not a list");
        for (const json& step : list) p.steps_.push_back(readStep(step));
    } else {
        p.steps_.push_back(readStep(spec));
    }
    return p;
}

PostProcessor PostProcessor::bosEos(const std::string& bos, int bosId, const std::string& eos,
                                    int eosId) {
    Step step;
    for (int sequence : {0, 1}) {
        Layout& layout = sequence == 0 ? step.single : step.pair;
        if (sequence == 1) layout = step.single;
        if (bosId >= 0) layout.push_back(specialPart(bos, {bosId}, sequence));
        layout.push_back(sequencePart(sequence, sequence));
        if (eosId >= 0) layout.push_back(specialPart(eos, {eosId}, sequence));
    }
    PostProcessor p;
    p.steps_.push_back(std::move(step));
    return p;
}

// The encodings (A, and B for a pair) through each step: a template puts them into one.
Layout PostProcessor::layout(bool pair) const {
    std::vector<Layout> encodings = {{sequencePart(0, 0)}};
    if (pair) encodings.push_back({sequencePart(1, 1)});
    for (const Step& step : steps_) {
        if (step.kind == Step::ByteLevel) continue;
        Layout merged;
        for (const LayoutPart& piece : encodings.size() > 1 ? step.pair : step.single) {
            if (piece.sequence < 0) {
                merged.push_back(piece);
                continue;
            }
            if (std::size_t(piece.sequence) >= encodings.size()) continue;
            for (LayoutPart part : encodings[std::size_t(piece.sequence)]) {
                part.type = piece.type; // the template's type for all of that encoding
                merged.push_back(part);
            }
        }
        encodings = {std::move(merged)};
    }
    Layout all;
    for (const Layout& e : encodings) all.insert(all.end(), e.begin(), e.end());
    return all;
}

int PostProcessor::added(bool pair) const {
    int count = 0;
    for (const LayoutPart& part : layout(pair))
        if (part.sequence < 0) count += int(part.ids.size());
    return count;
}

} // namespace core::models
