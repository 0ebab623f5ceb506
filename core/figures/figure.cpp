// Figures from a trace: the numbers and labels of one head, and the caption that says how
// the map was made (so a figure on a slide can always be reproduced).
#include "figures/figure.h"

#include "figures/palette.h"

#include "figures/attention_map.h"
#include "figures/head_views.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace core {

namespace {

// ", K/V heads 2 (GQA)" where query heads share keys and values, else "".
std::string kvHeadsCaption(const Attention& a) {
    if (a.kvHeads <= 0 || a.kvHeads == a.heads) return {};
    return ", K/V heads " + std::to_string(a.kvHeads) + " (" +
           attentionKindName(a.heads, a.kvHeads) + ")";
}

// ", no positions", ", rotary positions (theta 10000)", or "" for positions added to x.
std::string positionsCaption(const Scene& s) {
    switch (positionalInUse(s)) {
    case PositionalKind::None:
        return ", no positions";
    case PositionalKind::Rotary: {
        char text[80];
        std::snprintf(text, sizeof text, ", rotary positions (theta %g)", s.ropeTheta);
        return text;
    }
    default:
        return {};
    }
}

std::vector<std::string> sceneCaption(const Trace& t, int b) {
    const Scene& s = t.scene;
    const std::string kv = kvHeadsCaption(t.attention);
    char sizes[500];
    if (t.isModelLayer() && !t.weights) // attention saved elsewhere: no sizes but its own
        std::snprintf(sizes, sizeof sizes, "H %d, mask %s, %s", s.heads,
                      std::string(toString(s.mask)).c_str(), t.modelWeights.c_str());
    else if (t.isModelLayer()) // a model's layer: its weights' origin, not a scene's seed
        std::snprintf(sizes, sizeof sizes, "d_model %d, H %d%s, d_head %d, mask %s, scale %s, %s",
                      s.d_model, s.heads, kv.c_str(), t.attention.d_head,
                      std::string(toString(s.mask)).c_str(), std::string(toString(s.scale)).c_str(),
                      t.modelWeights.c_str());
    else
        std::snprintf(sizes, sizeof sizes,
                      "d_model %d, H %d%s, d_head %d, mask %s, scale %s, seed %llu, weights %s%s",
                      s.d_model, s.heads, kv.c_str(), s.dHead(),
                      std::string(toString(s.mask)).c_str(), std::string(toString(s.scale)).c_str(),
                      static_cast<unsigned long long>(s.seed),
                      std::string(toString(s.weights)).c_str(), positionsCaption(s).c_str());
    std::vector<std::string> lines{"\"" + t.sentences[std::size_t(b)].text + "\"", sizes};
    if (s.isCross())
        lines.insert(lines.begin() + 1, "keys from \"" + t.sources[std::size_t(b)].text + "\"");
    std::string switches;
    if (!s.outProjection) switches += "W_O off; ";
    if (s.reshapeBug) switches += "reshape bug; ";
    if (!s.ablatedHeads.empty()) {
        switches += "heads off:";
        for (int h : s.ablatedHeads) switches.append(" ").append(std::to_string(h + 1));
        switches += "; ";
    }
    if (!switches.empty()) lines.push_back(switches.substr(0, switches.size() - 2));
    return lines;
}

// A figure of one sentence's map with the scene's caption plus `what` as the last line. A
// sentence pair gets its divider; the cells a pair view leaves out are blank, not hatched: they
// are not masked, only not shown.
HeatmapFigure mapFigure(const Trace& trace, int b, const AttentionMap& map, std::string title,
                        ColormapId colormap, PairView pairView = PairView::All) {
    HeatmapFigure f;
    f.title = std::move(title);
    f.captionLines = sceneCaption(trace, b);
    f.captionLines.push_back(f.title +
                             (trace.batch() > 1 ? ", sentence " + std::to_string(b + 1) : ""));
    f.rowLabels = map.queryLabels;
    f.colLabels = map.keyLabels;
    f.rows = map.rows, f.cols = map.cols;
    f.values = map.values;
    f.colormap = colormap;
    f.pairStart = map.pairStart;
    if (pairView == PairView::All || map.pairStart <= 0) return f;
    for (int i = 0; i < f.rows; ++i)
        for (int j = 0; j < f.cols; ++j)
            if (hiddenByPairView(pairView, map.pairStart, i, j))
                f.values[std::size_t(i) * std::size_t(f.cols) + std::size_t(j)] = kHiddenCell;
    f.captionLines.push_back(pairViewNote(pairView));
    return f;
}

std::string headTitle(const Trace& t, int h) {
    const std::string& name = t.headNames[std::size_t(h)];
    const std::string number = "head " + std::to_string(h + 1);
    return name == number ? number : number + ": " + name;
}

} // namespace

std::string pairViewNote(PairView view) {
    const char* what = view == PairView::AToB ? "sentence A's tokens reading sentence B's"
                                              : "sentence B's tokens reading sentence A's";
    return std::string("pair view ").append(labelOf(view)).append(": ").append(what) +
           "; the blank cells are the other blocks (hatched cells are masked)";
}

float colorPosition(const HeatmapFigure& f, float v) {
    return colorScalePosition(v, f.valueMin, f.valueMax);
}

float tickValue(const HeatmapFigure& f, int k) {
    const bool sane =
        std::isfinite(f.valueMin) && std::isfinite(f.valueMax) && f.valueMax > f.valueMin;
    const float lo = sane ? f.valueMin : 0.0f, hi = sane ? f.valueMax : 1.0f;
    return lo + (hi - lo) * float(k) / 4.0f;
}

HeatmapFigure headFigure(const Trace& trace, int b, int h, ColormapId colormap, PairView pairView) {
    const Attention& a = trace.attention;
    const std::string kv = kvHeadNote(a.heads, a.kvHeads, h); // which keys and values it reads
    HeatmapFigure f =
        mapFigure(trace, b, attentionMap(trace, b, h, pairView),
                  headTitle(trace, h) + (kv.empty() ? "" : " (" + kv + ")"), colormap, pairView);
    f.valueMax = 1.0f;                // one scale for every figure, so they compare
    f.keyColor = headColor(trace, h); // the window frames this map with it
    return f;
}

GridFigure gridFigure(const Trace& trace, int b, ColormapId colormap, PairView pairView) {
    GridFigure g;
    for (int h = 0; h < trace.attention.heads; ++h) {
        g.panels.push_back(headFigure(trace, b, h, colormap, pairView));
        g.panels.back().captionLines.clear();                // one caption for the grid
        if (trace.attention.kvHeads < trace.attention.heads) // short: the caption says GQA
            g.panels.back().title = headTitle(trace, h) + " \xC2\xB7 kv " +
                                    std::to_string(trace.attention.kvHeadOf(h) + 1);
    }
    g.columns = trace.attention.heads <= 4   ? trace.attention.heads
                : trace.attention.heads <= 9 ? 4
                                             : 8;
    g.captionLines = sceneCaption(trace, b);
    if (trace.batch() > 1) g.captionLines.push_back("sentence " + std::to_string(b + 1));
    if (pairView != PairView::All && trace.pairStart > 0)
        g.captionLines.push_back(pairViewNote(pairView));
    return g;
}

namespace {

HeatmapFigure probeMapFigure(const train::ProbeMaps& maps, int layer, int head,
                             ColormapId colormap) {
    const AttentionMap map = attentionMap(maps, layer, head);
    HeatmapFigure f;
    f.title = std::string("L")
                  .append(std::to_string(layer + 1))
                  .append("H")
                  .append(std::to_string(head +
                                         1)); // appended: GCC 12 warns on "L" + string (-Wrestrict)
    f.rowLabels = map.queryLabels;
    f.colLabels = map.keyLabels;
    f.rows = map.rows;
    f.cols = map.cols;
    f.values = map.values;
    f.colormap = colormap;
    f.keyColor = headColor(layer, head, maps.heads); // as its curve and its map's frame
    return f;
}

// A layer's heads per row: all of them up to 8; beyond, the largest divisor of H up to 8, so
// each layer still starts a row. One row of 16 heads at seq 64 made a PNG 20704 px wide, more
// than ImageMagick (16384) and many viewers open.
int mapColumns(int heads) {
    if (heads <= 8) return heads;
    for (int c = 8; c >= 4; --c)
        if (heads % c == 0) return c;
    return heads; // no divisor from 4 to 8 (9, 11, 13, 22, ...): one row per layer
}

} // namespace

GridFigure trainMapsFigure(const train::ProbeMaps& maps, const std::vector<std::string>& caption,
                           ColormapId colormap) {
    GridFigure grid;
    for (int l = 0; l < maps.layers; ++l)
        for (int h = 0; h < maps.heads; ++h)
            grid.panels.push_back(probeMapFigure(maps, l, h, colormap));
    grid.columns = mapColumns(maps.heads);
    grid.captionLines = caption;
    return grid;
}

HeatmapFigure meanFigure(const Trace& trace, int b, ColormapId colormap, PairView pairView) {
    HeatmapFigure f = mapFigure(trace, b, meanAttentionMap(trace, b, pairView),
                                "mean over " + std::to_string(trace.attention.heads) + " heads",
                                colormap, pairView);
    f.valueLabel = "mean attention weight over the heads";
    return f;
}

HeatmapFigure differenceFigure(const Trace& trace, int b, int headA, int headB, PairView pairView) {
    const AttentionMap diff = headDifferenceMap(trace, b, headA, headB, pairView);
    HeatmapFigure f = mapFigure(
        trace, b, diff, headTitle(trace, headA) + " \xE2\x88\x92 " + headTitle(trace, headB),
        ColormapId::RdBu, pairView);
    f.valueMax = differenceExtent(diff.maxWeight), f.valueMin = -f.valueMax;
    f.valueLabel = "weight of head " + std::to_string(headA + 1) + " \xE2\x88\x92 weight of head " +
                   std::to_string(headB + 1);
    f.captionLines.push_back("red: head " + std::to_string(headA + 1) +
                             " attends more; blue: head " + std::to_string(headB + 1) +
                             " attends more");
    return f;
}

HeatmapFigure modelDifferenceFigure(const Trace& trace, const Trace& other, int b, int head,
                                    const std::string& nameA, const std::string& nameB,
                                    PairView pairView) {
    const AttentionMap diff = headDifferenceMap(trace, head, other, head, b, pairView);
    HeatmapFigure f =
        mapFigure(trace, b, diff, headTitle(trace, head) + ": " + nameA + " \xE2\x88\x92 " + nameB,
                  ColormapId::RdBu, pairView);
    f.valueMax = differenceExtent(diff.maxWeight), f.valueMin = -f.valueMax;
    f.valueLabel = "weight in A \xE2\x88\x92 weight in B";
    f.captionLines.push_back("A: " + nameA + "; B: " + nameB + " (the same head, the same text)");
    f.captionLines.push_back("red: A attends more; blue: B attends more");
    return f;
}

HeatmapFigure entropyFigure(const Trace& trace, int b, ColormapId colormap) {
    const EntropyMap entropy = entropyMap(trace, b);
    HeatmapFigure f;
    f.title = "row entropy (bits) per head";
    f.captionLines = sceneCaption(trace, b);
    f.captionLines.push_back("0 bits: one key takes all; log2(keys seen): uniform" +
                             (trace.batch() > 1 ? ", sentence " + std::to_string(b + 1) : ""));
    f.rows = entropy.map.rows, f.cols = entropy.map.cols;
    f.rowLabelChars = 26; // "head 5: pronoun-antecedent"
    f.rowAxis = "head", f.colAxis = "query", f.valueLabel = "row entropy (bits)";
    for (int h = 0; h < f.rows; ++h) f.rowLabels.push_back(headTitle(trace, h));
    f.colLabels = entropy.map.keyLabels;
    f.values = entropy.map.values;
    f.valueMax = entropy.map.maxWeight > 0 ? entropy.map.maxWeight
                                           : 1.0f; // one key each: every entropy is 0
    f.colormap = colormap;
    return f;
}

std::string statisticsCsv(const Trace& trace, int b) {
    const AttentionMap labels = attentionMap(trace, b, 0);
    const auto field = csvField;
    std::ostringstream out;
    out << "head,head_name,query_index,query,entropy_bits,argmax_key_index,argmax_key,max_weight\n";
    for (int h = 0; h < trace.attention.heads; ++h) {
        const HeadStatistics stats = headStatistics(trace, b, h);
        for (int i = 0; i < int(stats.rows.size()); ++i) {
            const RowStatistics& r = stats.rows[std::size_t(i)];
            out << h + 1 << ',' << field(trace.headNames[std::size_t(h)]) << ',' << i + 1 << ','
                << field(labels.queryLabels[std::size_t(i)]) << ',' << r.entropyBits << ',';
            if (r.argmaxKey >= 0)
                out << r.argmaxKey + 1 << ',' << field(labels.keyLabels[std::size_t(r.argmaxKey)])
                    << ',' << r.maxWeight << '\n';
            else
                out << ",,\n"; // every key masked
        }
    }
    return out.str();
}

} // namespace core
