#include "text/lexicon.h"

#include "base/prng.h"
#include "text/tokenizer.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

// "pos number animacy class lemma derivation", so one line states every feature of a word.
std::string features(std::string_view token) {
    const core::WordFeatures f = core::lookupWord(token);
    std::string text = std::string(core::toString(f.pos)) + " " +
                       std::string(core::toString(f.number)) + " " +
                       std::string(core::toString(f.animacy)) + " " +
                       std::string(core::toString(f.semanticClass)) + " " + f.lemma;
    if (!f.derivation.empty()) text += " " + f.derivation;
    return text;
}

core::PartOfSpeech pos(std::string_view token) {
    return core::lookupWord(token).pos;
}

// Data rows of the embedded table, split on tabs (comments and blank lines skipped).
std::vector<std::vector<std::string>> tableRows() {
    std::vector<std::vector<std::string>> rows;
    const std::string_view text = core::textAsset("lexicon.tsv");
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        if (line.empty() || line.front() == '#') continue;
        std::vector<std::string> fields;
        std::size_t from = 0;
        for (std::size_t tab; (tab = line.find('\t', from)) != std::string_view::npos;
             from = tab + 1)
            fields.emplace_back(line.substr(from, tab - from));
        fields.emplace_back(line.substr(from));
        rows.push_back(std::move(fields));
    }
    return rows;
}

TEST(Lexicon, HoldsAtLeast500WordsAnd520Lemmas) {
    EXPECT_GE(core::lexiconSize(), 500u);
    const auto rows = tableRows();
    EXPECT_EQ(core::lexiconSize(), rows.size());
    std::size_t lemmas = 0;
    for (const auto& row : rows) {
        ASSERT_TRUE(row.size() == 5 || row.size() == 7) << row.front();
        if (row.size() == 5) ++lemmas;
    }
    EXPECT_GE(lemmas, 520u);
}

TEST(Lexicon, EveryListedRowLooksUpAsItself) {
    for (const auto& row : tableRows()) {
        const core::WordFeatures f = core::lookupWord(row[0]);
        EXPECT_TRUE(f.known) << row[0];
        EXPECT_EQ(core::toString(f.pos), row[1]) << row[0];
        EXPECT_EQ(f.lemma, row.size() == 7 ? row[5] : row[0]);
        EXPECT_EQ(f.irregular, row.size() == 7) << row[0];
        if (row.size() == 7) {
            // The lemma of an irregular form is a listed base word.
            EXPECT_FALSE(core::lookupWord(row[5]).irregular) << row[0];
            EXPECT_EQ(f.derivation, row[6]);
        }
    }
}

TEST(Lexicon, DemoSentenceIsFullyCovered) {
    const core::Tokenized tokens =
        core::tokenize("The black cat sat on the mat because it was tired.");
    ASSERT_EQ(tokens.tokens.size(), 12u);
    for (const core::Token& token : tokens.tokens)
        EXPECT_TRUE(core::lookupWord(token.text).known) << token.text;
    EXPECT_EQ(features("The"), "det none none none the");
    EXPECT_EQ(features("black"), "adj none none object black");
    EXPECT_EQ(features("cat"), "noun sg animate animal cat");
    EXPECT_EQ(features("sat"), "verb none none state sit past");
    EXPECT_EQ(features("on"), "prep none none place on");
    EXPECT_EQ(features("mat"), "noun sg inanimate object mat");
    EXPECT_EQ(pos("because"), core::PartOfSpeech::Conjunction);
    EXPECT_EQ(features("it"), "pron sg inanimate none it");
    EXPECT_EQ(features("was"), "verb sg none state be past");
    EXPECT_EQ(features("tired"), "adj none none state tired");
    EXPECT_EQ(features("."), "punct none none none .");
}

TEST(Lexicon, OtherDemoSentencesAreCovered) {
    for (const char* sentence : {"Birds sing at dawn in the tall green trees .",
                                 "Time flies like an arrow.", "A dog barked.", "Hello, world!"})
        for (const core::Token& token : core::tokenize(sentence).tokens)
            EXPECT_TRUE(core::lookupWord(token.text).known) << sentence << ": " << token.text;
}

TEST(Lexicon, LookupIgnoresAsciiCase) {
    EXPECT_EQ(features("CAT"), features("cat"));
    EXPECT_EQ(features("Cat"), features("cat"));
    EXPECT_EQ(features("THE"), features("the"));
    EXPECT_EQ(features("Running"), features("running"));
    EXPECT_EQ(core::lookupWord("Cats").lemma, "cat");
}

TEST(Lexicon, RegularPluralsTakeTheNounsFeatures) {
    EXPECT_EQ(features("cats"), "noun pl animate animal cat plural");
    EXPECT_EQ(features("boxes"), "noun pl inanimate object box plural");
    EXPECT_EQ(features("berries"), "noun pl inanimate food berry plural");
    EXPECT_EQ(features("horses"), "noun pl animate animal horse plural");
    EXPECT_EQ(features("glasses"), "noun pl inanimate object glass plural");
    EXPECT_EQ(features("teachers"), "noun pl person person teacher plural");
    EXPECT_TRUE(core::lookupWord("dogs").known);
}

TEST(Lexicon, IrregularPluralsComeFromTheTable) {
    EXPECT_EQ(features("mice"), "noun pl animate animal mouse plural");
    EXPECT_EQ(features("children"), "noun pl person person child plural");
    EXPECT_EQ(features("men"), "noun pl person person man plural");
    EXPECT_EQ(features("women"), "noun pl person person woman plural");
    EXPECT_EQ(features("people"), "noun pl person person person plural");
    EXPECT_EQ(features("feet"), "noun pl inanimate body foot plural");
    EXPECT_EQ(features("teeth"), "noun pl inanimate body tooth plural");
    EXPECT_TRUE(core::lookupWord("mice").irregular);
    EXPECT_FALSE(core::lookupWord("cats").irregular);
}

TEST(Lexicon, ThirdPersonSingularOfVerbs) {
    EXPECT_EQ(features("runs"), "verb sg none motion run 3sg");
    EXPECT_EQ(features("chases"), "verb sg none motion chase 3sg");
    EXPECT_EQ(features("goes"), "verb sg none motion go 3sg");
    EXPECT_EQ(features("carries"), "verb sg none object carry 3sg");
    EXPECT_EQ(features("flies"), "verb sg none motion fly 3sg");
    EXPECT_EQ(features("is"), "verb sg none state be 3sg");
}

TEST(Lexicon, RegularPastTense) {
    EXPECT_EQ(features("chased"), "verb none none motion chase past");
    EXPECT_EQ(features("stopped"), "verb none none abstract stop past");
    EXPECT_EQ(features("carried"), "verb none none object carry past");
    EXPECT_EQ(features("walked"), "verb none none motion walk past");
    EXPECT_EQ(features("liked"), "verb none none cognition like past");
    EXPECT_EQ(features("barked"), "verb none none communication bark past");
    EXPECT_EQ(features("agreed"), "verb none none cognition agree past");
}

TEST(Lexicon, IrregularPastTense) {
    EXPECT_EQ(features("sat"), "verb none none state sit past");
    EXPECT_EQ(features("ran"), "verb none none motion run past");
    EXPECT_EQ(features("went"), "verb none none motion go past");
    EXPECT_EQ(features("ate"), "verb none none food eat past");
    EXPECT_EQ(features("gone"), "verb none none motion go participle");
    EXPECT_EQ(features("thought"), "verb none none cognition think past");
    for (const char* word : {"sat", "ran", "went", "was", "were", "had", "did"})
        EXPECT_TRUE(core::lookupWord(word).irregular) << word;
}

TEST(Lexicon, IngForms) {
    EXPECT_EQ(features("running"), "verb none none motion run ing");
    EXPECT_EQ(features("making"), "verb none none object make ing");
    EXPECT_EQ(features("sitting"), "verb none none state sit ing");
    EXPECT_EQ(features("eating"), "verb none none food eat ing");
    EXPECT_EQ(features("dying"), "verb none none state die ing");
    EXPECT_EQ(features("hoping"), "verb none none cognition hope ing");
    EXPECT_EQ(features("being"), "verb none none state be ing");
}

TEST(Lexicon, LyMakesAdverbsFromAdjectives) {
    EXPECT_EQ(features("quickly"), "adv none none motion quick ly");
    EXPECT_EQ(features("happily"), "adv none none state happy ly");
    EXPECT_EQ(features("simply"), "adv none none abstract simple ly");
    EXPECT_EQ(features("truly"), "adv none none abstract true ly");
    EXPECT_EQ(features("fully"), "adv none none quantity full ly");
    EXPECT_EQ(features("Slowly"), "adv none none motion slow ly");
}

TEST(Lexicon, ComparativesAndSuperlatives) {
    EXPECT_EQ(features("bigger"), "adj none none quantity big comparative");
    EXPECT_EQ(features("nicer"), "adj none none abstract nice comparative");
    EXPECT_EQ(features("happiest"), "adj none none state happy superlative");
    EXPECT_EQ(features("tallest"), "adj none none quantity tall superlative");
    EXPECT_EQ(features("better"), "adj none none abstract good comparative");
    EXPECT_EQ(features("worst"), "adj none none abstract bad superlative");
}

TEST(Lexicon, MorphologyOnlyAcceptsTheLemmasPartOfSpeech) {
    // "shed" - "d" is "she", a pronoun, not a verb: no past tense of it.
    EXPECT_FALSE(core::lookupWord("shed").known);
    EXPECT_NE(core::lookupWord("shed").lemma, "she");
    // "-ly" needs an adjective: "lovely" is not an adverb of the verb "love".
    EXPECT_FALSE(core::lookupWord("lovely").known);
    // Listed words are never stripped.
    EXPECT_EQ(features("this"), "det sg none none this");
    EXPECT_EQ(features("news"), "noun sg inanimate communication news");
    EXPECT_EQ(features("early"), "adj none none time early");
}

TEST(Lexicon, UnknownWordsGetASuffixGuess) {
    const core::WordFeatures information = core::lookupWord("information");
    EXPECT_FALSE(information.known);
    EXPECT_EQ(information.pos, core::PartOfSpeech::Noun);
    EXPECT_EQ(information.semanticClass, core::SemanticClass::Abstract);
    EXPECT_EQ(information.derivation, "guess");
    EXPECT_EQ(pos("happiness"), core::PartOfSpeech::Noun);
    EXPECT_EQ(pos("dangerous"), core::PartOfSpeech::Adjective);
    EXPECT_FALSE(core::lookupWord("dangerous").known);
    EXPECT_EQ(pos("portable"), core::PartOfSpeech::Adjective);
    EXPECT_EQ(pos("realize"), core::PartOfSpeech::Verb);
    EXPECT_EQ(pos("calculate"), core::PartOfSpeech::Verb);
    EXPECT_EQ(pos("lovely"), core::PartOfSpeech::Adverb);
    EXPECT_EQ(features("zxqv"), "noun sg none none zxqv guess");
    EXPECT_FALSE(core::lookupWord("zxqv").known);
    EXPECT_EQ(features("Zxqvs"), "noun pl none none zxqvs guess");
}

TEST(Lexicon, NonEnglishAndEmptyTokensAreUnknown) {
    EXPECT_EQ(pos(""), core::PartOfSpeech::Unknown);
    EXPECT_EQ(pos("日"), core::PartOfSpeech::Unknown);
    EXPECT_EQ(pos("\xF0\x9F\x98\x80"), core::PartOfSpeech::Unknown); // 😀
    EXPECT_FALSE(core::lookupWord("日").known);
    // Latin words outside the table still get an English guess.
    EXPECT_EQ(pos("café"), core::PartOfSpeech::Noun);
}

TEST(Lexicon, NumbersAndNumberWords) {
    EXPECT_EQ(features("42"), "num pl none quantity 42 numeral");
    EXPECT_EQ(features("3.14"), "num pl none quantity 3.14 numeral");
    EXPECT_EQ(features("1,000"), "num pl none quantity 1,000 numeral");
    EXPECT_EQ(features("1"), "num sg none quantity 1 numeral");
    EXPECT_EQ(pos("2nd"), core::PartOfSpeech::Number);
    EXPECT_EQ(features("one"), "num sg none quantity one");
    EXPECT_EQ(features("ten"), "num pl none quantity ten");
    EXPECT_EQ(features("hundred"), "num pl none quantity hundred");
    EXPECT_EQ(features("hundreds"), "num pl none quantity hundred plural");
    EXPECT_NE(pos("10km"), core::PartOfSpeech::Number);
    EXPECT_NE(pos("mp3"), core::PartOfSpeech::Number);
}

TEST(Lexicon, Punctuation) {
    for (const char* mark : {".",   ",",  "!",  "?",  ";", ":", "\"", "'", "(", ")", "-",
                             "...", "--", "!!", "?!", "#", "@", "…",  "—", "“", "”", "’"}) {
        const core::WordFeatures f = core::lookupWord(mark);
        EXPECT_EQ(f.pos, core::PartOfSpeech::Punctuation) << mark;
        EXPECT_TRUE(f.known) << mark;
    }
    for (const core::Token& token : core::tokenize("Wait -- what!!").tokens)
        EXPECT_TRUE(core::lookupWord(token.text).known) << token.text;
}

TEST(Lexicon, PronounFeatures) {
    EXPECT_EQ(features("it"), "pron sg inanimate none it");
    EXPECT_EQ(features("they"), "pron pl none none they");
    EXPECT_EQ(features("them"), "pron pl none none them");
    EXPECT_EQ(features("he"), "pron sg person person he");
    EXPECT_EQ(features("him"), "pron sg person person him");
    EXPECT_EQ(features("she"), "pron sg person person she");
    EXPECT_EQ(features("her"), "pron sg person person her");
    EXPECT_EQ(features("I"), "pron sg person person i");
    EXPECT_EQ(features("we"), "pron pl person person we");
    EXPECT_EQ(features("you"), "pron none person person you");
    EXPECT_EQ(features("its"), "pron sg inanimate none its");
    EXPECT_EQ(features("their"), "pron pl none none their");
}

TEST(Lexicon, ContractionsAsTheTokenizerSplitsThem) {
    std::vector<std::string> texts;
    for (const core::Token& token : core::tokenize("Don't, it's, I'm, won't, can't").tokens)
        texts.push_back(core::lookupWord(token.text).lemma);
    EXPECT_EQ(texts, (std::vector<std::string>{"do", "not", ",", "it", "be", ",", "i", "be", ",",
                                               "will", "not", ",", "can", "not"}));
    EXPECT_EQ(features("n't"), "adv none none abstract not contraction");
    EXPECT_EQ(features("'s"), "verb sg none state be contraction");
    EXPECT_EQ(features("\xE2\x80\x99s"), features("'s")); // typographic apostrophe
    EXPECT_EQ(core::lookupWord("'ll").lemma, "will");
    EXPECT_EQ(core::lookupWord("'ve").lemma, "have");
}

TEST(Lexicon, IdentityIsTheLemmasHash) {
    EXPECT_EQ(core::lookupWord("cats").identity, core::lookupWord("cat").identity);
    EXPECT_EQ(core::lookupWord("mice").identity, core::lookupWord("mouse").identity);
    EXPECT_EQ(core::lookupWord("Ran").identity, core::lookupWord("run").identity);
    EXPECT_EQ(core::lookupWord("cat").identity, core::fnv1a64("cat"));
    EXPECT_EQ(core::lookupWord("Zxqv").identity, core::fnv1a64("zxqv"));
    EXPECT_NE(core::lookupWord("zxqv").identity, core::lookupWord("zxqw").identity);
}

TEST(Lexicon, EveryEnumValueHasADistinctName) {
    using P = core::PartOfSpeech;
    std::set<std::string_view> names;
    for (P p : {P::Determiner, P::Noun, P::Pronoun, P::Verb, P::Adjective, P::Adverb,
                P::Preposition, P::Conjunction, P::Punctuation, P::Number, P::Unknown})
        names.insert(core::toString(p));
    EXPECT_EQ(names.size(), 11u);
    using S = core::SemanticClass;
    names.clear();
    for (S s :
         {S::None, S::Animal, S::Person, S::Place, S::Object, S::Food, S::Time, S::Motion, S::State,
          S::Communication, S::Cognition, S::Quantity, S::Body, S::Nature, S::Abstract})
        names.insert(core::toString(s));
    EXPECT_EQ(names.size(), 15u);
    using N = core::GrammaticalNumber;
    EXPECT_EQ(core::toString(N::None), "none");
    EXPECT_EQ(core::toString(N::Singular), "sg");
    EXPECT_EQ(core::toString(N::Plural), "pl");
    using A = core::Animacy;
    names.clear();
    for (A a : {A::None, A::Person, A::Animate, A::Inanimate}) names.insert(core::toString(a));
    EXPECT_EQ(names.size(), 4u);
}

TEST(Lexicon, ConcurrentLookupsAgree) {
    const std::vector<std::string> words = {"cats", "running", "zxqv", "the", "happily", "42"};
    std::vector<std::vector<std::string>> seen(4);
    std::vector<std::thread> threads;
    for (auto& out : seen)
        threads.emplace_back([&words, &out] {
            for (int round = 0; round < 200; ++round)
                for (const std::string& word : words) out.push_back(features(word));
        });
    for (std::thread& thread : threads) thread.join();
    for (const auto& out : seen) EXPECT_EQ(out, seen.front());
}

} // namespace
