#include "platform/window_icon.h"

#include "figures/app_icon.h"

#include <GLFW/glfw3.h>

#include <vector>

namespace app {

void setWindowIcon(GLFWwindow* window) {
    // Several sizes: the window manager picks the one nearest to what it draws.
    std::vector<core::Image> images;
    for (int size : {16, 32, 48, 64, 128}) images.push_back(core::appIcon(size));
    std::vector<GLFWimage> icons;
    for (core::Image& image : images)
        icons.push_back(GLFWimage{image.width, image.height, image.rgba.data()});
    glfwSetWindowIcon(window, int(icons.size()), icons.data()); // copied by GLFW
}

} // namespace app
