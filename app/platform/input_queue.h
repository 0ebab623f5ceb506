// Keyboard and mouse events, handed to Dear ImGui a frame at a time. ImGui 1.86 reads key and
// button state once per frame, so a press and its release inside one frame were lost (a slow
// frame while a large scene computes, a busy machine, xdotool, a fast typist), and a click and
// the letters typed after it arrived in the same frame, before the clicked field was active.
// GLFW's callbacks only queue here; feedInputQueue() applies the events in order and stops for
// the frame where ImGui could not tell them apart (the rules of ImGui 1.87's input queue):
// a second change of one key or button, a click after a move or typing, typing after a click.
#pragma once

struct GLFWwindow;

namespace app {

// Installs every input callback; call before ImGui_ImplGlfw_InitForOpenGL(window, false).
void installInputQueue(GLFWwindow* window);

// Call after ImGui_ImplGlfw_NewFrame() and before ImGui::NewFrame(): applies this frame's
// events to ImGui's io and queues the key presses for the shortcuts.
void feedInputQueue();

// A wheel turn, in notches (up positive), as GLFW's scroll callback reports it. The browser
// build feeds it from the page's own wheel events (emscripten's GLFW passes them unscaled).
void queueScroll(double dx, double dy);

// Events wait for later frames: keep the frame loop running instead of sleeping.
bool inputPending();

// Pause presses applied so far. A script sends Pause after its input and waits for this count
// (in --state-file) to grow: the queue is in order, so everything before it has been applied.
long long syncMarks();

} // namespace app
