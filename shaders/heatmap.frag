#version 330 core
// Colours one attention map: values (x = key, y = query) through a colormap table.
// Negative values mark masked cells, drawn hatched so they never look like a 0.
// Kept cheap: under llvmpipe (software GL) every instruction is paid per pixel.
in vec2 uv;
out vec4 fragColor;

uniform sampler2D values;   // R32F, M x N texels
uniform sampler2D colormap; // 256 x 1 RGBA8
uniform float valueMin;
uniform float valueMax;
uniform vec2 cellPixels;    // on-screen size of one cell
uniform vec3 maskBase;
uniform vec3 maskStripe;
uniform vec3 gridColor;

void main() {
    ivec2 size = textureSize(values, 0);
    vec2 cellPos = vec2(uv.x, 1.0 - uv.y) * vec2(size); // query 0 at the top
    float value = texelFetch(values, min(ivec2(cellPos), size - 1), 0).r;
    float t = clamp((value - valueMin) / max(valueMax - valueMin, 1e-12), 0.0, 1.0);
    vec3 rgb = texelFetch(colormap, ivec2(int(t * 255.0 + 0.5), 0), 0).rgb;
    if (value < 0.0) // masked: diagonal hatching
        rgb = mod(gl_FragCoord.x + gl_FragCoord.y, 7.0) < 2.0 ? maskStripe : maskBase;
    // A one-pixel seam between cells once they are big enough to read as a grid.
    vec2 inCell = fract(cellPos) * cellPixels;
    if (min(cellPixels.x, cellPixels.y) >= 10.0 && min(inCell.x, inCell.y) < 1.0)
        rgb = mix(rgb, gridColor, 0.35);
    fragColor = vec4(rgb, 1.0);
}
