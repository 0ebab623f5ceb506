#!/usr/bin/python3
"""Writes the colormap tables the app embeds: 256 rows of "r g b" (0-255), low to high.

Source: Debian's python3-matplotlib. viridis and magma (Smith, van der Walt, Firing)
are CC0; cividis (Nunez, Anderton, Renslow 2018) is CC0 as shipped by matplotlib;
Greys is ColorBrewer's (Apache-2.0 style licence, attribution: Cynthia Brewer).
Regenerate: /usr/bin/python3 assets/colormaps/make_colormaps.py
"""
import os

from matplotlib import colormaps

HERE = os.path.dirname(os.path.abspath(__file__))
for name in ["viridis", "magma", "cividis", "Greys", "RdBu_r"]:
    cmap = colormaps[name]
    rows = []
    for i in range(256):
        r, g, b, _ = cmap(i / 255.0)
        rows.append(f"{round(r * 255)} {round(g * 255)} {round(b * 255)}")
    out = os.path.join(HERE, name.lower().replace("_r", "") + ".txt")
    with open(out, "w") as f:
        f.write("\n".join(rows) + "\n")
    print(out)
