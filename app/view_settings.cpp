#include "view_settings.h"

#include <iterator>
#include <string_view>

namespace app {

namespace {

// kViewTabs lists the tabs in ViewState::Tab's order.
static_assert(std::size(core::kViewTabs) == std::size_t(ViewState::Tab::Cost) + 1);

constexpr Theme kThemeOrder[] = {Theme::Dark, Theme::Light, Theme::HighContrast}; // kThemes

} // namespace

core::SceneView sceneViewOf(const ViewState& view) {
    core::SceneView s;
    s.tab = core::kViewTabs[int(view.tab)];
    s.colormap = view.colormap;
    s.theme = core::kThemes[int(view.appearance.theme)];
    s.selectedHead = view.selectedHead;
    s.compareHead = view.compareHead;
    s.perHeadScale = view.perHeadScale;
    return s;
}

void applySceneView(const core::SceneView& s, ViewState& view) {
    for (std::size_t t = 0; t < std::size(core::kViewTabs); ++t)
        if (s.tab == core::kViewTabs[t]) view.tab = ViewState::Tab(t);
    view.tabRequested = true;
    view.colormap = s.colormap;
    for (std::size_t t = 0; t < std::size(core::kThemes); ++t)
        if (s.theme == core::kThemes[t]) view.appearance.theme = kThemeOrder[t];
    view.selectedHead = s.selectedHead;
    view.compareHead = s.compareHead;
    view.perHeadScale = s.perHeadScale;
}

} // namespace app
