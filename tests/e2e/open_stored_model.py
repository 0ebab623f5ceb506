#!/usr/bin/python3
"""End-to-end: the "Open model" dialog lists what local LLM apps keep. HOME is a temporary
folder holding a fake Ollama store (two pulled models: the random GGUF fixture llama3_q8_0 as
tiny:latest, with Ollama's config layer, and a "mamba" model this build does not run) and a fake
LM Studio folder (the same fixture as pub/tiny-GGUF, and an IQ3_XXS file). The dialog lists all
four with family and quantization, the two it cannot run greyed with the reason; a click on a
greyed one does nothing; a click on tiny:latest opens the GGUF off the frame thread, named by
the store's name (not its blob's digest). Usage: tests/e2e/open_stored_model.py build/app/mha-viz
"""
import json
import os
import shutil
import sys
import tempfile

from harness import App, check

GGUF = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                                    "gguf", "llama3_q8_0.gguf"))


def pull(store, name, family, file_type, blob_hex, config_hex, weights):
    """A model as `ollama pull` leaves it: a manifest naming a config blob and a model blob."""
    manifest = os.path.join(store, "manifests", "registry.ollama.ai", "library", name, "latest")
    os.makedirs(os.path.dirname(manifest), exist_ok=True)
    blobs = os.path.join(store, "blobs")
    os.makedirs(blobs, exist_ok=True)
    with open(os.path.join(blobs, "sha256-" + config_hex), "w") as f:
        json.dump({"model_format": "gguf", "model_family": family, "model_type": "0.01B",
                   "file_type": file_type}, f)
    shutil.copy(weights, os.path.join(blobs, "sha256-" + blob_hex))
    with open(manifest, "w") as f:
        json.dump({"schemaVersion": 2, "config": {"digest": "sha256:" + config_hex},
                   "layers": [{"mediaType": "application/vnd.ollama.image.model",
                               "digest": "sha256:" + blob_hex, "size": 1}]}, f)


def centre(rect):
    x0, y0, x1, y1 = rect
    return int((x0 + x1) / 2), int((y0 + y1) / 2)


with tempfile.TemporaryDirectory() as home:
    store = os.path.join(home, ".ollama", "models")
    pull(store, "tiny", "llama", "Q8_0", "aa11", "c0ff", GGUF)
    pull(store, "snake", "mamba", "Q4_K_M", "bb22", "c1ff", GGUF)
    lms = os.path.join(home, ".lmstudio", "models")
    os.makedirs(os.path.join(lms, "pub", "tiny-GGUF"))
    shutil.copy(GGUF, os.path.join(lms, "pub", "tiny-GGUF", "tiny-Q8_0.gguf"))
    os.makedirs(os.path.join(lms, "pub", "big-GGUF"))
    shutil.copy(GGUF, os.path.join(lms, "pub", "big-GGUF", "big-IQ3_XXS.gguf"))
    os.environ["HOME"] = home
    for name in ("OLLAMA_MODELS", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME",
                 "XDG_CACHE_HOME"):
        os.environ.pop(name, None)
    with App(sys.argv[1]) as app:
        app.chord("ctrl+shift+o")
        state = app.wait_state(lambda s: s["open_model"]["shown"] and len(s["open_model"]["stored"]) == 4
                               and all(m["at"][2] > 0 for m in s["open_model"]["stored"]),
                               "the dialog lists the stores' four models")
        dialog = state["open_model"]
        check(dialog["ollama_dir"] == store, f"Ollama's store searched: {dialog['ollama_dir']}")
        by_name = {m["name"]: m for m in dialog["stored"]}
        tiny, snake = by_name["tiny:latest"], by_name["snake:latest"]
        check(tiny["store"] == "ollama" and tiny["family"] == "llama" and tiny["quantization"] == "Q8_0"
              and tiny["unsupported"] == "", f"tiny listed as runnable: {tiny}")
        check("architecture mamba" in snake["unsupported"], f"the mamba model greyed, why: {snake}")
        check(by_name["pub/tiny-GGUF"]["quantization"] == "Q8_0", f"LM Studio's: {by_name}")
        check("IQ3_XXS" in by_name["pub/big-GGUF"]["unsupported"], "the IQ3_XXS file greyed, why")

        app.click(*centre(snake["at"]))  # greyed: a click does nothing
        state = app.sync()
        check(state["open_model"]["shown"] and not state["model"]["open"]
              and state["open_model"]["loading"] == "", "a click on a greyed model opens nothing")

        app.click(*centre(tiny["at"]))
        state = app.wait_state(lambda s: s["model"]["real"] and s["open_model"]["loading"] == ""
                               and s["model"]["predictions"], "a click on tiny:latest opens it")
        check(state["open_model"]["recent"] == ["ollama:tiny:latest"],
              f"it is the recent list by the store's name: {state['open_model']['recent']}")
        check("Q8_0" in state["model"]["architecture"], f"the describe line: {state['model']['architecture']}")
        check("sha256" not in state["model"]["architecture"], "no blob digest shown")
print("1 passed, 0 failed")
