// Every closed set's name table (base/enum_names.h): names unique and non-empty, each value
// once, parse(toString(v)) == v, and the lists the CLI and error messages are made from.
#include "base/enum_names.h"
#include "engine/attention.h"
#include "engine/scene.h"
#include "engine/simd.h"
#include "figures/colormap.h"
#include "io/scene_json.h"
#include "text/lexicon.h"
#include "train/optimizer.h"
#include "train/tasks.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

template <core::NamedEnum Enum>
void expectWellFormed(const char* what) {
    std::set<std::string_view> names;
    std::set<int> values;
    for (const core::EnumName<Enum>& entry : core::namesOf<Enum>()) {
        EXPECT_FALSE(entry.name.empty()) << what;
        EXPECT_TRUE(names.insert(entry.name).second) << what << ": " << entry.name << " twice";
        EXPECT_TRUE(values.insert(int(entry.value)).second) << what << ": a value twice";
        EXPECT_EQ(core::toString(entry.value), entry.name) << what;
        EXPECT_EQ(core::parseEnum<Enum>(entry.name), entry.value) << what;
        EXPECT_FALSE(core::labelOf(entry.value).empty()) << what;
    }
    // The table lists every value of the enum: 0 .. n-1 (the enums here are dense).
    for (int v = 0; v < int(values.size()); ++v) EXPECT_TRUE(values.count(v)) << what << " " << v;
    EXPECT_EQ(core::enumNameList<Enum>().size(), names.size()) << what;
    EXPECT_FALSE(core::parseEnum<Enum>("no such name")) << what;
    EXPECT_FALSE(core::parseEnum<Enum>("")) << what;
}

TEST(EnumNames, EveryTableIsWellFormed) {
    expectWellFormed<core::ScaleKind>("ScaleKind");
    expectWellFormed<core::MaskKind>("MaskKind");
    expectWellFormed<core::WeightsKind>("WeightsKind");
    expectWellFormed<core::SimdLevel>("SimdLevel");
    expectWellFormed<core::ColormapId>("ColormapId");
    expectWellFormed<core::ViewTab>("ViewTab");
    expectWellFormed<core::Theme>("Theme");
    expectWellFormed<core::train::TaskKind>("TaskKind");
    expectWellFormed<core::train::OptimizerKind>("OptimizerKind");
    expectWellFormed<core::PartOfSpeech>("PartOfSpeech");
    expectWellFormed<core::GrammaticalNumber>("GrammaticalNumber");
    expectWellFormed<core::Animacy>("Animacy");
    expectWellFormed<core::SemanticClass>("SemanticClass");
}

TEST(EnumNames, TheNamesFilesAndFlagsUse) {
    EXPECT_EQ(core::toString(core::ScaleKind::SqrtDHead), "sqrt_d_head");
    EXPECT_EQ(core::labelOf(core::ScaleKind::SqrtDHead), "1 / sqrt(d_head)");
    EXPECT_EQ(core::toString(core::Theme::HighContrast), "high-contrast");
    EXPECT_EQ(core::parseEnum<core::train::TaskKind>("previous-token"),
              core::train::TaskKind::PreviousToken);
    EXPECT_FALSE(core::parseEnum<core::train::TaskKind>("Induction")); // exact, case and all
    EXPECT_EQ(core::enumNameList<core::MaskKind>(), (std::vector<std::string>{"none", "causal"}));
    EXPECT_EQ(core::enumIndex(core::ViewTab::Cost), 7);
}

TEST(EnumNames, DescribedAsAMessageSaysThem) {
    EXPECT_EQ(core::describeEnumNames<core::MaskKind>(), "none or causal");
    EXPECT_EQ(core::describeEnumNames<core::train::TaskKind>(),
              "previous-token, induction or agreement");
    EXPECT_EQ(core::describeEnumNames<core::ColormapId>(),
              "one of viridis, magma, cividis, greys or rdbu");
}

} // namespace

namespace {

// V / Shift+V and T step through the table's order, wrapping around both ways.
TEST(EnumNames, CyclingFollowsTheTablesOrderAndWraps) {
    EXPECT_EQ(core::cycleEnum(core::ViewTab::Head, 1), core::ViewTab::Mean);
    EXPECT_EQ(core::cycleEnum(core::ViewTab::Head, -1), core::ViewTab::Cost);
    EXPECT_EQ(core::cycleEnum(core::ViewTab::Cost, 1), core::ViewTab::Head);
    EXPECT_EQ(core::cycleEnum(core::Theme::HighContrast, 1), core::Theme::Dark);
    for (const auto& entry : core::kViewTabNames) // once round: back where it started
        EXPECT_EQ(core::cycleEnum(entry.value, int(std::size(core::kViewTabNames))), entry.value);
}

} // namespace
