#version 330 core
// Colours one attention map: values (x = key, y = query) through a colormap table;
// masked cells (value -2) show a hatch pattern, so they never look like a weight of 0.
// Compiled with HATCH defined for maps that have masked cells, without it for the others.
// Written for llvmpipe (software GL), where every per-pixel instruction counts: two (three
// with HATCH) nearest-filtered texture reads, no per-pixel arithmetic beyond the lookup.
// Cell seams are drawn by ImGui on top, and only when cells are big.
in vec2 uv;
out vec4 fragColor;

uniform sampler2D values;       // R32F, M x N texels, GL_NEAREST
uniform sampler2D colormap;     // 256 x 1 RGBA8, GL_NEAREST
uniform sampler2D hatchPattern; // 8 x 8 RGBA8, GL_REPEAT: grey diagonal stripes
uniform vec2 valueRange;        // x = value of the first colour, y = 1 / (max - min)

void main() {
    float value = texture(values, vec2(uv.x, 1.0 - uv.y)).r; // query 0 at the top
    float t = clamp((value - valueRange.x) * valueRange.y, 0.0, 1.0);
    vec3 rgb = texture(colormap, vec2(t * (255.0 / 256.0) + 0.5 / 256.0, 0.5)).rgb;
#ifdef HATCH // compiled twice: a map without masked cells skips this read (6% of a frame)
    vec3 hatch = texture(hatchPattern, gl_FragCoord.xy * (1.0 / 8.0)).rgb;
    fragColor = vec4(mix(rgb, hatch, step(value, -1.5)), 1.0);
#else
    fragColor = vec4(rgb, 1.0);
#endif
}
