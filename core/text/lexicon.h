// Coarse word features (part of speech, number, animacy, semantic class) for the tokens that
// core::tokenize produces, from the embedded table assets/lexicon.tsv plus a little English
// morphology, so that inflected and unknown words still get a best guess.
//
// Lookup contract (lookupWord):
//  - Case-insensitive: ASCII letters are lower-cased; the typographic apostrophe U+2019 is read
//    as ' so "it’s" splits like "it's".
//  - A listed word returns its row: known = true, lemma = the word itself, derivation "".
//    Irregular forms and contractions are rows too; they name their lemma and carry the form as
//    derivation ("sat": verb, lemma "sit", "past"; "mice": noun pl, lemma "mouse", "plural"),
//    with irregular = true. The tokenizer's pieces: "n't" is an adverb (lemma "not"); "'s" is
//    read as "is" (verb, lemma "be"): it is also the possessive ("the cat's"), which needs
//    context this lookup does not have. "'m" "'re" "'ve" "'ll" "'d" and the stems "ca" (can't),
//    "wo" (won't), "sha" (shan't) map to be / have / will / would / can / shall.
//  - Numerals ("42", "3.14", "1,000", "2nd") are Number, derivation "numeral"; "1" is singular,
//    every other numeral plural. Any token made only of ASCII punctuation ("?!", "--") is
//    Punctuation, like the listed punctuation (also “ ” ‘ « » – — …).
//  - Regular inflection of a listed lemma (known = true, features from the lemma):
//      -s/-es/-ies  noun -> plural ("cats", "boxes", "berries"); verb -> "3sg" ("runs");
//                   numeral word -> plural ("hundreds")
//      -ed/-d/-ied  verb -> "past", also undoubling ("stopped", "liked", "carried")
//      -ing         verb -> "ing" ("running", "making", "dying")
//      -ly          adjective -> Adverb, "ly" ("quickly", "happily", "simply", "truly")
//      -er/-est     adjective -> "comparative" / "superlative" ("bigger", "nicest")
//    Only the listed lemma's own part of speech is accepted, so "shed" is not read as "she".
//  - Anything else is unknown (known = false, derivation "guess", lemma = the lower-cased
//    token): a suffix decides the guess (-tion -sion -ness -ment -ity -ism -ance -ence -ship
//    -hood -dom: abstract noun; -ous -ful -ive -able -ible -al -ic -less -ish: adjective;
//    -ize -ise -ate -ify -ed -ing: verb; -ly: adverb; -s but not -ss/-us/-is: plural noun),
//    else a singular noun (the open class most new words fall in). A token with no ASCII letter
//    or digit (CJK, emoji, other scripts, symbols) is PartOfSpeech::Unknown; so is "".
//  - identity = fnv1a64(lemma): inflected forms share their lemma's identity ("cats" and
//    "cat"), and unknown words still get a stable one.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/enum_names.h"

namespace core {

enum class PartOfSpeech {
    Determiner,
    Noun,
    Pronoun,
    Verb,
    Adjective,
    Adverb,
    Preposition,
    Conjunction,
    Punctuation,
    Number,
    Unknown
};
// The codes lexicon.tsv uses ("det", "sg", "person", "animal", ...); None is "none".
inline constexpr EnumName<PartOfSpeech> kPartOfSpeechNames[] = {
    {PartOfSpeech::Determiner, "det", ""},    {PartOfSpeech::Noun, "noun", ""},
    {PartOfSpeech::Pronoun, "pron", ""},      {PartOfSpeech::Verb, "verb", ""},
    {PartOfSpeech::Adjective, "adj", ""},     {PartOfSpeech::Adverb, "adv", ""},
    {PartOfSpeech::Preposition, "prep", ""},  {PartOfSpeech::Conjunction, "conj", ""},
    {PartOfSpeech::Punctuation, "punct", ""}, {PartOfSpeech::Number, "num", ""},
    {PartOfSpeech::Unknown, "unknown", ""}};
constexpr std::span<const EnumName<PartOfSpeech>> enumNames(PartOfSpeech) {
    return kPartOfSpeechNames;
}
enum class GrammaticalNumber { None, Singular, Plural };
inline constexpr EnumName<GrammaticalNumber> kGrammaticalNumberNames[] = {
    {GrammaticalNumber::None, "none", ""},
    {GrammaticalNumber::Singular, "sg", ""},
    {GrammaticalNumber::Plural, "pl", ""}};
constexpr std::span<const EnumName<GrammaticalNumber>> enumNames(GrammaticalNumber) {
    return kGrammaticalNumberNames;
}
enum class Animacy { None, Person, Animate, Inanimate };
inline constexpr EnumName<Animacy> kAnimacyNames[] = {{Animacy::None, "none", ""},
                                                      {Animacy::Person, "person", ""},
                                                      {Animacy::Animate, "animate", ""},
                                                      {Animacy::Inanimate, "inanimate", ""}};
constexpr std::span<const EnumName<Animacy>> enumNames(Animacy) {
    return kAnimacyNames;
}
enum class SemanticClass {
    None,
    Animal,
    Person,
    Place,
    Object,
    Food,
    Time,
    Motion,
    State,
    Communication,
    Cognition,
    Quantity,
    Body,
    Nature,
    Abstract
};
inline constexpr EnumName<SemanticClass> kSemanticClassNames[] = {
    {SemanticClass::None, "none", ""},
    {SemanticClass::Animal, "animal", ""},
    {SemanticClass::Person, "person", ""},
    {SemanticClass::Place, "place", ""},
    {SemanticClass::Object, "object", ""},
    {SemanticClass::Food, "food", ""},
    {SemanticClass::Time, "time", ""},
    {SemanticClass::Motion, "motion", ""},
    {SemanticClass::State, "state", ""},
    {SemanticClass::Communication, "communication", ""},
    {SemanticClass::Cognition, "cognition", ""},
    {SemanticClass::Quantity, "quantity", ""},
    {SemanticClass::Body, "body", ""},
    {SemanticClass::Nature, "nature", ""},
    {SemanticClass::Abstract, "abstract", ""}};
constexpr std::span<const EnumName<SemanticClass>> enumNames(SemanticClass) {
    return kSemanticClassNames;
}

struct WordFeatures {
    PartOfSpeech pos = PartOfSpeech::Unknown;
    GrammaticalNumber number = GrammaticalNumber::None;
    Animacy animacy = Animacy::None;
    SemanticClass semanticClass = SemanticClass::None;
    std::string lemma;          // the listed base word, or the lower-cased token when unknown
    bool known = false;         // listed, derived from a listed lemma, a numeral or punctuation
    bool irregular = false;     // a listed irregular form or contraction ("sat", "mice", "n't")
    std::string derivation;     // "", "plural", "3sg", "past", "participle", "present", "ing",
                                // "ly", "comparative", "superlative", "contraction", "numeral",
                                // "guess"
    std::uint64_t identity = 0; // fnv1a64(lemma)
};

// Features of one token (see the contract above). Thread-safe; the table is parsed on first use.
WordFeatures lookupWord(std::string_view token);

// Rows loaded from the table: lemmas plus irregular forms and contractions.
std::size_t lexiconSize();

// The embedded lexicon, by path under assets/ (generated at build time).
std::string_view textAsset(std::string_view name);

} // namespace core
