// Figures from a trace: the numbers and labels of one head, and the caption that says how
// the map was made (so a figure on a slide can always be reproduced).
#include "figure.h"

#include "attention_map.h"

#include <cstdio>

namespace core {

namespace {

std::vector<std::string> sceneCaption(const Trace& t, int b) {
    const Scene& s = t.scene;
    char sizes[200];
    std::snprintf(sizes, sizeof sizes,
                  "d_model %d, H %d, d_head %d, mask %s, scale %s, seed %llu, weights %s%s",
                  s.d_model, s.heads, s.dHead(), std::string(toString(s.mask)).c_str(),
                  std::string(toString(s.scale)).c_str(), static_cast<unsigned long long>(s.seed),
                  s.weights.c_str(), s.positional ? "" : ", no positions");
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

std::string headTitle(const Trace& t, int h) {
    const std::string& name = t.headNames[std::size_t(h)];
    const std::string number = "head " + std::to_string(h + 1);
    return name == number ? number : number + ": " + name;
}

} // namespace

HeatmapFigure headFigure(const Trace& trace, int b, int h, ColormapId colormap) {
    const AttentionMap map = attentionMap(trace, b, h);
    HeatmapFigure f;
    f.title = headTitle(trace, h);
    f.captionLines = sceneCaption(trace, b);
    f.captionLines.push_back(f.title +
                             (trace.batch() > 1 ? ", sentence " + std::to_string(b + 1) : ""));
    f.rowLabels = map.queryLabels;
    f.colLabels = map.keyLabels;
    f.rows = map.rows, f.cols = map.cols;
    f.values = map.values;
    f.valueMax = 1.0f; // one scale for every figure, so they compare
    f.colormap = colormap;
    return f;
}

GridFigure gridFigure(const Trace& trace, int b, ColormapId colormap) {
    GridFigure g;
    for (int h = 0; h < trace.attention.heads; ++h) {
        g.panels.push_back(headFigure(trace, b, h, colormap));
        g.panels.back().captionLines.clear(); // one caption for the grid
    }
    g.columns = trace.attention.heads <= 4   ? trace.attention.heads
                : trace.attention.heads <= 9 ? 4
                                             : 8;
    g.captionLines = sceneCaption(trace, b);
    if (trace.batch() > 1) g.captionLines.push_back("sentence " + std::to_string(b + 1));
    return g;
}

} // namespace core
