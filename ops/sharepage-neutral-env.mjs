// Renders model-viewer's own 'neutral' environment once, offline, into the small
// equirectangular Radiance file the share page, embed and product page ship
// (web/src/public-viewer/neutral-env.hdr, see neutral-env.ts for why).
//
// It runs model-viewer's very code in Chromium (TextureUtils' generated neutral
// room: a 256² half-float cube render, then its σ = 0.04 rad blur), then samples
// that cube onto a W×H equirectangular grid (2×2 supersampled) and writes RGBE.
// model-viewer also raises the exposure by its COMMERCE_EXPOSURE (1.3) while the
// environment is its 'neutral' keyword (Renderer.preRender), not for a file: the
// factor is baked into the file, which gives the same pixels (the model is lit by
// the environment alone, linearly, before tone mapping; the shadow is black).
// Re-run after a model-viewer upgrade that changes its neutral environment:
//
//   node ops/sharepage-neutral-env.mjs [out.hdr] [width]     (default 256 → 256×128)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { launchPhoneBrowser } from './sharepage-phone.mjs';

const web = fileURLToPath(new URL('../web/', import.meta.url));
const require = createRequire(web + 'package.json');
const { build } = require('rolldown');
const { encodeRgbe } = await import(new URL('../web/scripts/env-maps.mjs', import.meta.url));

const rendererJs = readFileSync(web + 'node_modules/@google/model-viewer/lib/three-components/Renderer.js', 'utf8');
const commerce = Number(/const COMMERCE_EXPOSURE = ([\d.]+);/.exec(rendererJs)?.[1]);
if (!(commerce > 0)) throw new Error("model-viewer's COMMERCE_EXPOSURE not found in Renderer.js: check what it does now");

const out = process.argv[2] || web + 'src/public-viewer/neutral-env.hdr';
const width = Number(process.argv[3] || 256);
if (!Number.isInteger(width) || width < 16 || width % 4) throw new Error('width: a multiple of 4, at least 16');

// The entry lives under web/node_modules so that 'three' resolves to the one copy model-viewer uses.
const dir = web + 'node_modules/.neutral-env/';
mkdirSync(dir, { recursive: true });
writeFileSync(
  dir + 'entry.mjs',
  `
import { Mesh, OrthographicCamera, PlaneGeometry, Scene, ShaderMaterial, WebGLRenderer, WebGLRenderTarget,
  FloatType, RGBAFormat, NearestFilter, NoToneMapping, LinearSRGBColorSpace } from 'three';
import TextureUtils from '@google/model-viewer/lib/three-components/TextureUtils.js';

window.renderNeutral = async (w, h) => {
  const renderer = new WebGLRenderer({ canvas: document.createElement('canvas') });
  renderer.toneMapping = NoToneMapping;
  renderer.outputColorSpace = LinearSRGBColorSpace;
  const cube = await new TextureUtils(renderer).loadGeneratedEnvironmentMapAlt();
  // Three's equirectUv() inverted: u = atan(z, x)/2π + ½, v = asin(y)/π + ½.
  const material = new ShaderMaterial({
    uniforms: { env: { value: cube } },
    vertexShader: 'varying vec2 vUv; void main() { vUv = uv; gl_Position = vec4(position.xy, 0.0, 1.0); }',
    fragmentShader: \`
      uniform samplerCube env; varying vec2 vUv;
      void main() {
        float phi = (vUv.x - 0.5) * 6.283185307179586;
        float theta = (vUv.y - 0.5) * 3.141592653589793;
        vec3 dir = vec3(cos(theta) * cos(phi), sin(theta), cos(theta) * sin(phi));
        gl_FragColor = vec4(textureCube(env, dir).rgb, 1.0);
      }\`,
  });
  const scene = new Scene();
  scene.add(new Mesh(new PlaneGeometry(2, 2), material));
  const target = new WebGLRenderTarget(w, h, { type: FloatType, format: RGBAFormat, minFilter: NearestFilter, magFilter: NearestFilter });
  renderer.setRenderTarget(target);
  renderer.render(scene, new OrthographicCamera(-1, 1, 1, -1, 0, 1));
  const px = new Float32Array(w * h * 4);
  renderer.readRenderTargetPixels(target, 0, 0, w, h, px);
  return Array.from(px);
};
`,
);
const bundle = await build({ input: dir + 'entry.mjs', write: false, output: { format: 'iife' }, logLevel: 'warn' });
rmSync(dir, { recursive: true, force: true });

const browser = await launchPhoneBrowser();
try {
  const page = await browser.newPage();
  await page.addScriptTag({ content: bundle.output[0].code });
  const W = width * 2;
  const H = width;
  // The render target's rows run bottom-up; Radiance files run top-down (three flips them back).
  const px = await page.evaluate(([w, h]) => window.renderNeutral(w, h), [W, H]);
  const w = width;
  const h = width / 2;
  const data = new Float32Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]]) sum += px[((2 * y + dy) * W + 2 * x + dx) * 4 + c];
        data[((h - 1 - y) * w + x) * 4 + c] = (sum / 4) * commerce;
      }
    }
  }
  writeFileSync(out, encodeRgbe({ width: w, height: h, data }));
  console.log(`wrote ${out}: ${w}×${h}, × ${commerce} (COMMERCE_EXPOSURE)`);
} finally {
  await browser.close();
}
