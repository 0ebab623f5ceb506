// core::parseCsv (io/csv_table.h) on good and bad metrics text, and the curve figures built from
// a metrics table (io/metrics_figures.h).
#include "io/csv_table.h"
#include "io/metrics_figures.h"

#include "figures/curve_figure.h"
#include "thrown_message.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using testing_support::thrownMessage;

namespace {

constexpr const char* kMetrics =
    "step,train_loss,heldout_loss,accuracy,L1H1.previous_token,L1H1.induction,"
    "L1H2.previous_token,L1H2.induction,L2H1.previous_token,L2H1.induction,"
    "L2H2.previous_token,L2H2.induction\n"
    "0,3.47,3.46,0.03,0.11,0.09,0.12,0.1,0.1,0.08,0.13,0.1\n"
    "100,3.1,3.2,0.1,0.5,0.1,0.2,0.1,0.1,0.2,0.12,0.3\n"
    "200,1.2,1.3,0.6,0.9,0.1,0.2,0.1,0.1,0.7,0.12,0.6\n";

TEST(ParseCsv, ReadsColumnsByName) {
    const core::CsvTable t = core::parseCsv(kMetrics);
    EXPECT_EQ(t.names.size(), 12u);
    EXPECT_EQ(t.rows(), 3u);
    EXPECT_EQ(t.column("step"), (std::vector<double>{0, 100, 200}));
    EXPECT_EQ(t.column("L2H1.induction"), (std::vector<double>{0.08, 0.2, 0.7}));
    EXPECT_EQ(t.find("nope"), nullptr);
    EXPECT_EQ(thrownMessage([&] { t.column("nope"); }), "CSV has no column \"nope\"");
}

TEST(ParseCsv, AcceptsWhatSpreadsheetsWrite) {
    const core::CsvTable t = core::parseCsv("\xEF\xBB\xBF\"step\",\"a, quoted\"\"name\"\r\n"
                                            "\r\n"
                                            "1, 2.5e-3\r\n"
                                            "+2,\r\n"
                                            "3,nan\r\n"
                                            "4,-inf\r\n"
                                            "\n\n");
    ASSERT_EQ(t.names, (std::vector<std::string>{"step", "a, quoted\"name"}));
    const std::vector<double>& a = t.column("a, quoted\"name");
    ASSERT_EQ(a.size(), 4u);
    EXPECT_DOUBLE_EQ(a[0], 2.5e-3);
    EXPECT_TRUE(std::isnan(a[1])); // empty: missing
    EXPECT_TRUE(std::isnan(a[2]));
    EXPECT_TRUE(std::isinf(a[3]) && a[3] < 0);
    EXPECT_EQ(t.column("step"), (std::vector<double>{1, 2, 3, 4}));
    EXPECT_EQ(core::parseCsv("step,loss\n").rows(), 0u); // a header alone is a table
    EXPECT_EQ(core::parseCsv("x\n1").column("x"), (std::vector<double>{1})); // no final newline
}

TEST(ParseCsv, BadInputNamesTheLineAndColumn) {
    const std::pair<const char*, const char*> cases[] = {
        {"step,loss\n0,3.4\n100,abc\n", "CSV line 3: column \"loss\": \"abc\" is not a number"},
        {"step,loss\n0,3.4x\n", "CSV line 2: column \"loss\": \"3.4x\" is not a number"},
        {"step,loss\n0,3.4\n\n100,3.1,7\n", "CSV line 4: 3 fields, the header has 2"},
        {"step,loss\n0\n", "CSV line 2: 1 fields, the header has 2"},
        {"step,loss\n0,\"3.4\n", "CSV line 2: a quoted field is not closed"},
        {"step,,loss\n", "CSV line 1: column 2 has no name"},
        {"\nstep,loss,step\n", "CSV line 2: column \"step\" appears twice"},
        {"", "CSV has no header row"},
        {"\n \n", "CSV has no header row"},
        {"a,b\n\"x\ny\",1\n", "CSV line 2: column \"a\": \"x y\" is not a number"},
        {"a\n1 2\n", "CSV line 2: column \"a\": \"1 2\" is not a number"},
    };
    for (const auto& [text, message] : cases) {
        const auto& input = text; // a plain reference: clang 14's lambdas cannot capture bindings
        EXPECT_EQ(thrownMessage([&] { core::parseCsv(input); }), message) << text;
    }
    // A field's echo is cut: the message stays one short line.
    const std::string longField = "step\n" + std::string(500, 'z') + "\n";
    EXPECT_LT(thrownMessage([&] { core::parseCsv(longField); }).size(), 100u);
}

TEST(MetricsFigures, LossCurvesOnALogAxis) {
    const core::CurveFigure f = core::lossCurves(core::parseCsv(kMetrics));
    EXPECT_TRUE(f.logY);
    ASSERT_EQ(f.series.size(), 2u);
    EXPECT_EQ(f.series[0].name, "train");
    EXPECT_EQ(f.series[1].name, "held-out");
    ASSERT_EQ(f.series[1].points.size(), 3u);
    EXPECT_EQ(f.series[1].points[2].x, 200);
    EXPECT_EQ(f.series[1].points[2].y, 1.3);
    EXPECT_NE(f.series[0].color.b, f.series[1].color.b);
    EXPECT_FALSE(thrownMessage([] { core::lossCurves(core::parseCsv("step,x\n1,2\n")); }).empty());
}

TEST(MetricsFigures, ChanceLineAndAccuracyFigure) {
    const core::CsvTable metrics = core::parseCsv(kMetrics);
    EXPECT_DOUBLE_EQ(core::chanceLoss(64), std::log(64.0));
    const core::CurveFigure loss = core::lossCurves(metrics, 64);
    ASSERT_EQ(loss.series.size(), 3u);
    const core::CurveSeries& chance = loss.series[2];
    EXPECT_EQ(chance.name, "chance ln V = 4.16");
    EXPECT_TRUE(chance.level && chance.dashed);
    ASSERT_EQ(chance.points.size(), 2u);
    EXPECT_EQ(chance.points[0].x, 0);
    EXPECT_EQ(chance.points[1].x, 200); // across the table's steps
    EXPECT_DOUBLE_EQ(chance.points[1].y, std::log(64.0));
    EXPECT_EQ(core::lossCurves(metrics).series.size(), 2u); // no vocabulary: no line
    EXPECT_NE(core::curveSvg(loss).find("chance ln V = 4.16"), std::string::npos);

    const core::CurveFigure accuracy = core::accuracyCurve(metrics, "accuracy");
    ASSERT_EQ(accuracy.series.size(), 1u);
    EXPECT_EQ(accuracy.series[0].points[2].y, 0.6);
    ASSERT_TRUE(accuracy.yRange);
    EXPECT_EQ(accuracy.yRange->max, 1);
    EXPECT_EQ(accuracy.xLabel, loss.xLabel);
    EXPECT_EQ(thrownMessage([&] { core::accuracyCurve(metrics, "agreement_accuracy"); }),
              "CSV has no column \"agreement_accuracy\"");
}

TEST(MetricsFigures, HeadScoresOneSeriesPerHeadInItsColour) {
    const core::CurveFigure f = core::headScoreCurves(core::parseCsv(kMetrics), "induction");
    ASSERT_EQ(f.series.size(), 4u);
    const char* names[] = {"L1H1", "L1H2", "L2H1", "L2H2"};
    for (int k = 0; k < 4; ++k) {
        const core::CurveSeries& s = f.series[std::size_t(k)];
        EXPECT_EQ(s.name, names[k]);
        const core::Rgb want = core::headColor(k / 2, k % 2, 2);
        EXPECT_EQ(std::tuple(s.color.r, s.color.g, s.color.b), std::tuple(want.r, want.g, want.b));
    }
    EXPECT_EQ(f.series[2].points[2].y, 0.7);
    ASSERT_TRUE(f.yRange);
    EXPECT_EQ(f.yRange->max, 1);
    EXPECT_EQ(f.title, "induction score");
    EXPECT_EQ(core::headScoreCurves(core::parseCsv(kMetrics), "previous_token").series.size(), 4u);
    EXPECT_EQ(thrownMessage([] { core::headScoreCurves(core::parseCsv(kMetrics), "subject"); }),
              "metrics have no L{l}H{h}.subject column");
    // Only whole names count: "L1H1.induction_x" or "XL1H1.induction" are not head columns.
    const core::CsvTable odd =
        core::parseCsv("step,L1H1.induction_x,XL1H1.induction,L1H12.induction\n"
                       "0,1,2,3\n");
    const core::CurveFigure one = core::headScoreCurves(odd, "induction");
    ASSERT_EQ(one.series.size(), 1u);
    EXPECT_EQ(one.series[0].name, "L1H12");
}

TEST(MetricsFigures, MissingValuesBreakTheSeries) {
    const core::CsvTable t = core::parseCsv("step,heldout_loss\n0,3\n100,\n200,1\n");
    const core::CurveSeries s = core::columnSeries(t, "step", "heldout_loss", "h", core::Rgb{});
    ASSERT_EQ(s.points.size(), 3u);
    EXPECT_TRUE(std::isnan(s.points[1].y));
    EXPECT_EQ(core::lossCurves(t).series.size(), 1u); // only the column the table has
    EXPECT_EQ(thrownMessage([&] { core::columnSeries(t, "step", "acc", "a", core::Rgb{}); }),
              "CSV has no column \"acc\"");
}

} // namespace
