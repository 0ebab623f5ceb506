#version 330 core
// Colours one attention map: values (x = key, y = query) through a colormap table;
// masked cells (value -2) show a hatch pattern, so they never look like a weight of 0.
// Compiled with HATCH for maps that have masked cells and with SEAMS for maps whose cells are
// big enough to read as a grid; a map pays only for what it shows.
// Written for llvmpipe (software GL), where every per-pixel texture read counts: two (three
// with HATCH) nearest-filtered reads. The seams are a few vector operations here; drawn by
// ImGui as lines they were two long, thin triangles each, the rasteriser's most costly shape.
in vec2 uv;
out vec4 fragColor;

uniform sampler2D values;       // R32F, M x N texels, GL_NEAREST
uniform sampler2D colormap;     // 256 x 1 RGBA8, GL_NEAREST
uniform sampler2D hatchPattern; // 8 x 8 RGBA8, GL_REPEAT: grey diagonal stripes
uniform vec2 valueRange;        // x = value of the first colour, y = 1 / (max - min)
uniform vec2 cells;             // SEAMS: (columns, rows) of the map
uniform vec2 halfPixel;         // SEAMS: half a pixel, in cells: 0.5 * cells / map's pixels

void main() {
    vec2 cell = vec2(uv.x, 1.0 - uv.y); // query 0 at the top
    float value = texture(values, cell).r;
    float t = clamp((value - valueRange.x) * valueRange.y, 0.0, 1.0);
    vec3 rgb = texture(colormap, vec2(t * (255.0 / 256.0) + 0.5 / 256.0, 0.5)).rgb;
#ifdef HATCH
    vec3 hatch = texture(hatchPattern, gl_FragCoord.xy * (1.0 / 8.0)).rgb;
    rgb = mix(rgb, hatch, step(value, -1.5));
#endif
#ifdef SEAMS
    // A seam is the one pixel column (row) an inner cell border crosses, darkened by 31%.
    vec2 at = cell * cells;
    vec2 crossed = floor(at + halfPixel) - floor(at - halfPixel);
    vec2 inner = step(1.0, at + halfPixel) * (1.0 - step(cells, at + halfPixel));
    rgb *= 1.0 - 0.31 * max(crossed.x * inner.x, crossed.y * inner.y);
#endif
    fragColor = vec4(rgb, 1.0);
}
