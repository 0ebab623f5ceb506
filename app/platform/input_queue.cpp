#include "platform/input_queue.h"

#include "platform/astral_proxy.h"
#include "session/shortcuts.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <cfloat>
#include <deque>
#include <set>

namespace app {

namespace {

struct InputEvent {
    enum class Type { Key, Char, Button, Move, Scroll } type;
    int code = 0, action = 0, mods = 0, scancode = 0; // key or button; char: code = codepoint
    double x = 0, y = 0;                              // move: position; scroll: offsets
};

struct InputQueue {
    GLFWwindow* window = nullptr;
    std::deque<InputEvent> events;
    bool buttons[ImGuiMouseButton_COUNT] = {}; // state after the events applied so far
    bool moved = false;                        // a position was applied since start-up
    double x = 0, y = 0;
    long long syncMarks = 0; // Pause presses applied (see syncMarks())
};

InputQueue& queue() {
    static InputQueue instance;
    return instance;
}

void onKey(GLFWwindow*, int key, int scancode, int action, int mods) {
    queue().events.push_back({InputEvent::Type::Key, key, action, mods, scancode});
}
void onChar(GLFWwindow*, unsigned int codepoint) {
    queue().events.push_back({InputEvent::Type::Char, int(codepoint)});
}
void onButton(GLFWwindow*, int button, int action, int mods) {
    queue().events.push_back({InputEvent::Type::Button, button, action, mods});
}
void onMove(GLFWwindow*, double x, double y) {
    auto& events = queue().events; // consecutive moves: only the last position matters
    if (!events.empty() && events.back().type == InputEvent::Type::Move) events.pop_back();
    events.push_back({InputEvent::Type::Move, 0, 0, 0, 0, x, y});
}
// Leaving the window: X sends no more motion, so the last position inside would stay hovered.
void onCursorEnter(GLFWwindow* window, int entered) {
    ImGui_ImplGlfw_CursorEnterCallback(window, entered);
    if (!entered) onMove(window, -FLT_MAX, -FLT_MAX);
}
void onScroll(GLFWwindow*, double dx, double dy) {
    queueScroll(dx, dy);
}

// A key that only types (letters, digits, punctuation, without Ctrl or Alt): its press may
// share a frame with the characters typed, since the text field reads those, not the key.
bool typesOnly(const InputEvent& e) {
    return e.code >= GLFW_KEY_SPACE && e.code <= GLFW_KEY_GRAVE_ACCENT &&
           (e.mods & (GLFW_MOD_CONTROL | GLFW_MOD_ALT | GLFW_MOD_SUPER)) == 0;
}

bool isModifier(int key) {
    return key >= GLFW_KEY_LEFT_SHIFT && key <= GLFW_KEY_RIGHT_SUPER;
}

// What this frame has applied so far, to see whether the next event must wait.
struct FrameSoFar {
    std::set<int> keys;     // keys whose state changed
    bool otherKeys = false; // a key that is not Ctrl, Shift, Alt or Super changed
    bool editKeys = false;  // Enter, Tab, arrows, Backspace...: ImGui applies text before them
    unsigned buttons = 0;   // buttons whose state changed (bit per button)
    bool text = false, moved = false, scrolled = false;

    bool mustWait(const InputEvent& e) const {
        switch (e.type) {
        case InputEvent::Type::Key: // Ctrl released after A in one frame: ImGui sees no Ctrl+A
            return keys.count(e.code) > 0 || buttons != 0 || (text && !typesOnly(e)) ||
                   (isModifier(e.code) && otherKeys);
        case InputEvent::Type::Char: // "m" after Enter must not land in the field Enter left
            return buttons != 0 || moved || scrolled || editKeys;
        case InputEvent::Type::Button:
            // After a move too: a slider released in the frame the pointer moved ignores the move.
            return (buttons & (1u << e.code)) != 0 || moved || scrolled || text || !keys.empty();
        case InputEvent::Type::Move:
            return buttons != 0 || scrolled || text;
        case InputEvent::Type::Scroll:
            return buttons != 0 || moved;
        }
        return false;
    }
};

void apply(InputQueue& q, const InputEvent& e, FrameSoFar& frame) {
    ImGuiIO& io = ImGui::GetIO();
    switch (e.type) {
    case InputEvent::Type::Key:
        ImGui_ImplGlfw_KeyCallback(q.window, e.code, e.scancode, e.action, e.mods);
        if (e.action == GLFW_PRESS || e.action == GLFW_REPEAT)
            addShortcutPress(e.code, e.mods, e.action == GLFW_REPEAT);
        if (e.action == GLFW_PRESS && e.code == GLFW_KEY_PAUSE) ++q.syncMarks;
        if (e.action != GLFW_REPEAT) frame.keys.insert(e.code);
        frame.otherKeys |= !isModifier(e.code);
        frame.editKeys |= !isModifier(e.code) && !typesOnly(e);
        break;
    case InputEvent::Type::Char:
        io.AddInputCharacter(imguiChar(unsigned(e.code))); // an emoji as its stand-in
        frame.text = true;
        break;
    case InputEvent::Type::Button:
        if (e.code < 0 || e.code >= ImGuiMouseButton_COUNT) break;
        q.buttons[e.code] = e.action == GLFW_PRESS;
        frame.buttons |= 1u << e.code;
        break;
    case InputEvent::Type::Move:
        q.x = e.x, q.y = e.y, q.moved = true;
        frame.moved = true;
        break;
    case InputEvent::Type::Scroll:
        io.MouseWheelH += float(e.x);
        io.MouseWheel += float(e.y);
        frame.scrolled = true;
        break;
    }
}

} // namespace

void queueScroll(double dx, double dy) {
    queue().events.push_back({InputEvent::Type::Scroll, 0, 0, 0, 0, dx, dy});
}

void installInputQueue(GLFWwindow* window) {
    queue().window = window;
    glfwSetKeyCallback(window, onKey);
    glfwSetCharCallback(window, onChar);
    glfwSetMouseButtonCallback(window, onButton);
    glfwSetCursorPosCallback(window, onMove);
    glfwSetScrollCallback(window, onScroll);
    // The backend's own callbacks for what needs no queue (it is initialised without any).
    glfwSetWindowFocusCallback(window, ImGui_ImplGlfw_WindowFocusCallback);
    glfwSetCursorEnterCallback(window, onCursorEnter);
}

void feedInputQueue() {
    InputQueue& q = queue();
    FrameSoFar frame;
    while (!q.events.empty() && !frame.mustWait(q.events.front())) {
        apply(q, q.events.front(), frame);
        q.events.pop_front();
    }
    // The backend read the live pointer and buttons; ImGui sees the queued ones instead.
    ImGuiIO& io = ImGui::GetIO();
    for (int b = 0; b < ImGuiMouseButton_COUNT; ++b) io.MouseDown[b] = q.buttons[b];
    if (q.moved && io.MousePos.x != -FLT_MAX)         // -FLT_MAX: the pointer is outside the window
        io.MousePos = ImVec2(float(q.x), float(q.y)); // -FLT_MAX after the pointer left
}

bool inputPending() {
    return !queue().events.empty();
}

long long syncMarks() {
    return queue().syncMarks;
}

} // namespace app
