#version 330 core
// Draws one attention map (x = key, y = query) from its cells' colours, made on the CPU with
// the figures' colormap lookup; masked cells (alpha 0) show a hatch pattern, so they never look
// like a weight of 0.
// Compiled with HATCH for maps that have masked cells and with SEAMS for maps whose cells are
// big enough to read as a grid; a map pays only for what it shows.
// Written for llvmpipe (software GL), where every per-pixel texture read counts: one (two with
// HATCH) nearest-filtered reads. The seams are a few vector operations here; drawn by ImGui as
// lines they were two long, thin triangles each, the rasteriser's most costly shape.
in vec2 uv;
out vec4 fragColor;

uniform sampler2D colors;       // RGBA8, M x N texels, GL_NEAREST; alpha 0 = masked
uniform sampler2D hatchPattern; // 8 x 8 RGBA8, GL_REPEAT: grey diagonal stripes
uniform vec2 cells;             // SEAMS: (columns, rows) of the map
uniform vec2 halfPixel;         // SEAMS: half a pixel, in cells: 0.5 * cells / map's pixels

void main() {
    vec2 cell = vec2(uv.x, 1.0 - uv.y); // query 0 at the top
    vec4 color = texture(colors, cell);
    vec3 rgb = color.rgb;
#ifdef HATCH
    vec3 hatch = texture(hatchPattern, gl_FragCoord.xy * (1.0 / 8.0)).rgb;
    rgb = mix(rgb, hatch, step(color.a, 0.5));
#endif
#ifdef SEAMS
    // A seam is the one pixel column (row) an inner cell border falls in, darkened by 31%. Each
    // pixel's window is shifted a quarter pixel left (up): a border exactly on a pixel edge
    // (common, as the map starts on a whole pixel) is then well inside one window, never on
    // the edge of two, where rounding could darken both pixels or neither.
    vec2 at = cell * cells;
    vec2 hi = at + 0.5 * halfPixel, lo = at - 1.5 * halfPixel;
    vec2 crossed = floor(hi) - floor(lo);
    vec2 inner = step(1.0, hi) * (1.0 - step(cells, hi));
    rgb *= 1.0 - 0.31 * max(crossed.x * inner.x, crossed.y * inner.y);
#endif
    fragColor = vec4(rgb, 1.0);
}
