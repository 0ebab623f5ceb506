#!/usr/bin/env python3
"""The layers of core/ stay layers: each folder includes only itself and the folders above it
(base -> text -> engine -> train -> figures -> io -> models), engine includes no JSON, image, GL or ImGui
header, and no core file includes GL, GLFW, glad or ImGui. Reads the sources; usage: layers_check.py ROOT"""
import pathlib
import re
import sys

from checks import check_all, cpp_files, fail

ORDER = ["base", "text", "engine", "train", "figures", "io", "models"]
# Third-party headers a layer may not include, on top of the GUI ones no core file may.
GUI = ("imgui", "GLFW/", "glad/", "GL/")
FORBIDDEN = {"engine": ("nlohmann/", "stb_"), "text": ("nlohmann/", "stb_", "Eigen/"),
             "base": ("nlohmann/", "stb_", "Eigen/")}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)


def problems_in(core):
    """Yields one line per include that crosses the layers the wrong way."""
    for path in sorted(core.rglob("*")):
        if path.suffix not in (".h", ".cpp"):
            continue
        layer = path.relative_to(core).parts[0]
        if layer not in ORDER:
            yield f"{path}: core files live in a layer folder {ORDER}"
            continue
        allowed = ORDER[: ORDER.index(layer) + 1]
        for header in INCLUDE.findall(path.read_text()):
            if header.startswith(GUI):
                yield f"{path}: core includes the GUI header <{header}>"
            if header.startswith(FORBIDDEN.get(layer, ())):
                yield f"{path}: the {layer} layer includes <{header}>"
            folder = header.split("/")[0]
            if folder in ORDER and folder not in allowed:
                yield f"{path}: {layer} includes {header} from a later layer"


def main(root):
    files = cpp_files(root, ("core",), 20)
    check_all(list(problems_in(pathlib.Path(root) / "core")),
              f"{len(files)} core files include only their own and earlier layers")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: layers_check.py ROOT")
    main(sys.argv[1])
