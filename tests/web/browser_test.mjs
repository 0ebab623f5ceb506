// The browser build as a student meets it, in Debian's headless Chromium (SwiftShader's WebGL 2),
// served from 127.0.0.1 by this script: the page loads and says it is ready, a sentence typed
// into the canvas reaches the trace (Ctrl+E downloads the window's PNG and the trace's JSON), the
// export panel downloads a head's PNG, text pasted from the clipboard arrives, Ctrl+S keeps a
// scene across a reload, the induction demo trains in the page until its held-out loss drops, a
// model's files dropped on the page open it (a folder's files, a GGUF, an attention file, an encoder-decoder whose decoder writes), and a pixel ratio of 2 draws at twice the pixels. Waits for what the app reports (its --state-file, read from the page's
// file system), never for a fixed time. Also checks the site's size budget and prints the first
// frame's time and the app's own frame statistics (--bench-frames): README's "In the browser".
//   node tests/web/browser_test.mjs SITE_DIR NODE_MODULES_DIR OUT_DIR
// OUT_DIR gets the screenshots (explorer.png, train.png) and the downloads.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';

const [site, modules, out] = process.argv.slice(2);
if (!out) {
    console.error('usage: node browser_test.mjs SITE_DIR NODE_MODULES_DIR OUT_DIR');
    process.exit(2);
}
const { chromium } = await import(path.join(path.resolve(modules), 'playwright-core', 'index.mjs'));
const TIMEOUT = Number(process.env.MHA_WEB_TIMEOUT || 120) * 1000; // per wait
const TRAIN_TIMEOUT = Number(process.env.MHA_WEB_TRAIN_TIMEOUT || 600) * 1000;
let failures = 0;

function check(ok, what) {
    console.log((ok ? 'ok: ' : 'FAIL: ') + what);
    if (!ok) failures++;
}

// --- The site: its size budget, and a static server for it ------------------------------------

function siteBudget() {
    let bytes = 0, gzipped = 0;
    for (const name of fs.readdirSync(site)) {
        const data = fs.readFileSync(path.join(site, name));
        bytes += data.length;
        gzipped += zlib.gzipSync(data, { level: 9 }).length;
    }
    const mb = (n) => (n / 1e6).toFixed(2) + ' MB';
    check(bytes <= 8e6, `the site is ${mb(bytes)} (budget 8 MB)`);
    check(gzipped <= 3e6, `gzipped ${mb(gzipped)} (budget 3 MB)`);
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm',
                '.data': 'application/octet-stream' };

function serve() {
    const server = http.createServer((req, res) => {
        const name = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '');
        const file = path.join(site, name || 'index.html');
        if (!file.startsWith(path.resolve(site)) || !fs.existsSync(file)) {
            res.writeHead(404);
            res.end();
            return;
        }
        res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
        fs.createReadStream(file).pipe(res);
    });
    return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

// --- The page and the app in it -----------------------------------------------------------------

async function openPage(browser, port, args, screen = { width: 1600, height: 1000 }) {
    const { deviceScaleFactor = 1, ...viewport } = screen;
    const context = await browser.newContext({ viewport, deviceScaleFactor, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'],
                                   { origin: `http://127.0.0.1:${port}` });
    const page = await context.newPage();
    page.consoleLines = [];
    page.on('console', (m) => page.consoleLines.push(m.text()));
    page.on('pageerror', (e) => check(false, 'no error in the page: ' + e.message));
    page.downloads = [];
    page.on('download', async (d) => {
        const file = path.join(out, d.suggestedFilename());
        await d.saveAs(file);
        page.downloads.push(file);
    });
    const query = args.map((a) => 'arg=' + encodeURIComponent(a)).join('&');
    await page.goto(`http://127.0.0.1:${port}/index.html?${query}`);
    await page.waitForSelector('body[data-mha-ready]', { state: 'attached', timeout: TIMEOUT });
    [page.firstFrameMs, page.readyMs] = await page.evaluate(() =>
        [document.body.dataset.mhaFirstFrame, document.body.dataset.mhaReady].map(Number));
    return page;
}

async function state(page) {
    return page.evaluate(() => {
        try {
            return JSON.parse(Module.FS.readFile('/state.json', { encoding: 'utf8' }));
        } catch (e) {
            return null; // not written yet
        }
    });
}

async function waitFor(what, predicate, timeout = TIMEOUT) {
    const until = Date.now() + timeout;
    let last;
    for (;;) {
        try {
            last = await predicate();
            if (last) return last;
        } catch (e) {
            last = e;
        }
        if (Date.now() > until) throw new Error(`timed out waiting for ${what} (last: ${last})`);
        await new Promise((ok) => setTimeout(ok, 100));
    }
}

async function waitState(page, what, predicate, timeout = TIMEOUT) {
    return waitFor(what, async () => {
        const s = await state(page);
        return s && predicate(s) ? s : null;
    }, timeout);
}

// The app has taken every key and click so far, and drawn their result.
async function settled(page) {
    return waitState(page, 'the input taken', (s) => !s.input_pending && !s.computing);
}

function pngSize(file) {
    const data = fs.readFileSync(file);
    if (data.length < 24 || data.toString('latin1', 1, 4) !== 'PNG') return null;
    return [data.readUInt32BE(16), data.readUInt32BE(20)];
}

async function typedSentenceIsExported(page) {
    const sentence = 'the dog chased a red ball';
    await page.mouse.click(200, 40); // the first sentence's field
    await page.keyboard.press('Control+a');
    await page.keyboard.type(sentence);
    await waitState(page, 'the typed sentence', (s) => s.sentences[0] === sentence && !s.computing);
    await page.keyboard.press('Escape');
    await page.mouse.move(300, 180); // off the field: no tooltip over the picture
    await settled(page);
    await page.screenshot({ path: path.join(out, 'explorer.png') });
    const before = page.downloads.length;
    await page.keyboard.press('Control+e');
    await waitFor('the PNG and JSON downloads', () => page.downloads.length >= before + 2);
    const files = page.downloads.slice(before);
    const png = files.find((f) => f.endsWith('.png'));
    const json = files.find((f) => f.endsWith('.json'));
    const size = png && pngSize(png);
    check(size && size[0] === 1600 && size[1] === 1000, `Ctrl+E downloads the window as PNG (${size})`);
    const trace = json ? JSON.parse(fs.readFileSync(json, 'utf8')) : null;
    const tokens = trace ? trace.sentences[0].tokens : [];
    check(tokens.join(' ') === sentence, `the trace downloaded holds the typed tokens: ${tokens}`);
    const s = await state(page);
    check(s.notice.startsWith('Downloaded'), `the window says where it went: "${s.notice}"`);
}

// Ctrl+S keeps the scene in the browser's storage: after a reload it is still there.
async function sceneIsKept(page, port) {
    await page.keyboard.press('Control+s');
    const s = await waitState(page, 'the saved notice', (s) => s.notice.startsWith('Saved '));
    const name = s.notice.split(' ')[1];
    const asked = await page.evaluate(() => Module.mhaFlushes);
    await waitFor('the scene written to IndexedDB', () =>
        page.evaluate((n) => Number(document.body.dataset.mhaKept || 0) >= n, asked));
    await page.reload();
    await page.waitForSelector('body[data-mha-ready]', { state: 'attached', timeout: TIMEOUT });
    const kept = await page.evaluate((file) => Module.FS.analyzePath(file).exists,
                                     '/persist/Pictures/mha-viz/' + name);
    check(kept, `Ctrl+S kept ${name} in the browser across a reload ("${s.notice}")`);
}

// Text pasted from the system clipboard (Ctrl+V), accents and all, reaches the sentence.
async function pastedTextArrives(page) {
    const text = 'the café is naïve';
    await page.evaluate((t) => navigator.clipboard.writeText(t), text);
    await page.mouse.click(200, 40);
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Control+v');
    const s = await waitState(page, 'the pasted sentence', (s) => s.sentences[0] === text);
    // The maps follow the pasted text: its 4 tokens, not the demo's.
    const shown = await waitState(page, 'the maps of the pasted sentence',
                                  (s) => s.shown_sentences[0] === text && !s.computing);
    check(s.sentences[0] === text && shown.shown.tokens[0] === 4,
          `Ctrl+V pasted "${text}" into the sentence, and the maps show its ${shown.shown.tokens[0]} tokens`);
    await page.keyboard.press('Escape');
}

// HiDPI: at a device pixel ratio of 2 the canvas has twice the CSS pixels each way, and the UI
// is drawn at scale 2 (Ctrl+E's PNG is the canvas).
async function hidpiCanvas(browser, port) {
    const page = await openPage(browser, port, ['--state-file', '/state.json'],
                                { width: 800, height: 500, deviceScaleFactor: 2 });
    await page.keyboard.press('Control+e');
    await waitFor('the HiDPI window PNG', () => page.downloads.some((f) => f.endsWith('.png')));
    const size = pngSize(page.downloads.find((f) => f.endsWith('.png')));
    check(size && size[0] === 1600 && size[1] === 1000,
          `an 800 x 500 page at pixel ratio 2 draws 1600 x 1000 pixels (${size})`);
    await page.screenshot({ path: path.join(out, 'hidpi.png') });
    await page.close();
}

async function headPngIsExported(page) {
    const before = page.downloads.length;
    await page.keyboard.press('Control+Shift+E'); // the export panel, "Selected head" chosen
    await waitState(page, 'the export panel', (s) => s.export_panel);
    await page.keyboard.press('Enter');
    await waitFor('the head export downloads', () =>
        page.downloads.slice(before).some((f) => f.endsWith('.png')));
    const png = page.downloads.slice(before).find((f) => f.endsWith('.png'));
    const size = pngSize(png);
    check(size && size[0] > 100 && size[1] > 100, `the head's PNG downloads: ${path.basename(png)} ${size}`);
    await page.keyboard.press('Escape');
}

// Files dropped on the page together, as a person drags them from a file manager.
async function dropFiles(page, paths) {
    const files = paths.map((p) => ({
        name: path.basename(p), base64: fs.readFileSync(p).toString('base64') }));
    await page.evaluate((files) => {
        const transfer = new DataTransfer();
        for (const f of files) {
            const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
            transfer.items.add(new File([bytes], f.name));
        }
        const canvas = document.getElementById('canvas');
        canvas.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true }));
    }, files);
}

// A model's files dropped together: the fixture opens, as its folder does on the desktop, and
// the describe line says `expected`.
async function droppedModelOpens(page, fixture, expected) {
    const folder = new URL(`../fixtures/${fixture}/`, import.meta.url).pathname;
    const files = fs.readdirSync(folder).map((name) => path.join(folder, name));
    await dropFiles(page, files);
    const s = await waitState(page, `${fixture} open`,
                              (s) => s.model.real && s.open_model.loading === '' && !s.computing &&
                                     s.model.architecture.includes(expected));
    check(s.notice.startsWith('Opened') && s.model.architecture.includes(expected),
          `dropping ${fixture}'s ${files.length} files opens it: "${s.notice}", ` +
          `"${s.model.architecture}"`);
}

// One file dropped: a quantized GGUF opens as a model, an attention file without one.
async function droppedFileOpens(page, fixture, what, ready) {
    const file = new URL(`../fixtures/${fixture}`, import.meta.url).pathname;
    await dropFiles(page, [file]);
    const s = await waitState(page, `${fixture} open`,
                              (s) => s.open_model.loading === '' && !s.computing && ready(s));
    check(s.notice.startsWith('Opened'), `dropping ${fixture} opens ${what}: "${s.notice}", ` +
          `"${s.model.architecture}"`);
}

// Ctrl+O then 6: the "induction heads form" demo trains in the page (one thread, in the frames).
async function inductionDrops(page) {
    await page.keyboard.press('Control+o');
    await page.keyboard.press('6');
    await waitState(page, 'the Train view training', (s) => s.train.active && s.train.state === 'training');
    const started = Date.now();
    const s = await waitState(page, 'the held-out loss drop', (s) => {
        const loss = s.train.heldout_loss;
        return loss.length > 5 && Math.max(...loss.slice(0, 5)) > 2.5 && loss[loss.length - 1] < 1.5;
    }, TRAIN_TIMEOUT);
    const loss = s.train.heldout_loss;
    // The drop is where the desktop's comes (the same updates): past step 500, before 3000.
    check(s.train.step > 500 && s.train.step < 3000 && s.train.phase !== 'plateau',
          `held-out loss ${Math.max(...loss.slice(0, 5)).toFixed(2)} -> ` +
          `${loss[loss.length - 1].toFixed(2)} at step ${s.train.step} (phase ${s.train.phase}), ` +
          `${((Date.now() - started) / 1000).toFixed(1)} s after the demo opened`);
    await page.screenshot({ path: path.join(out, 'train.png') });
    await page.keyboard.press('F9'); // Ctrl+T is the browser's (a new tab)
    const explorer = await waitState(page, 'F9 back to the explorer', (s) => !s.train.active);
    await page.keyboard.press('F9');
    const back = await waitState(page, 'F9 back to the Train view', (s) => s.train.active);
    // The run goes on behind the explorer: nothing is lost on the way there and back.
    check(!explorer.train.active && back.train.active && back.train.step >= s.train.step,
          `F9 goes to the explorer and back to the Train view, the run at step ${back.train.step}`);
}

// The app's own frame statistics over 300 frames of the demo, the sentence changing each frame.
async function frameStatistics(browser, port) {
    const page = await openPage(browser, port, ['--bench-frames', '300']);
    await page.waitForSelector('body[data-mha-finished]', { state: 'attached', timeout: TIMEOUT });
    const lines = page.consoleLines.filter((l) => /frames|p50|p95/.test(l));
    check(lines.length > 0, 'the --bench-frames statistics:\n  ' + lines.join('\n  '));
    await page.close();
}

fs.mkdirSync(out, { recursive: true });
siteBudget();
const server = await serve();
const port = server.address().port;
const browser = await chromium.launch({
    executablePath: process.env.MHA_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // WebGL 2 on SwiftShader, the page composited in software: what Chromium does on a
    // machine without a GPU (compositing on SwiftShader too would take the cores WebGL needs).
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
           '--disable-gpu-compositing', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
    const page = await openPage(browser, port, ['--state-file', '/state.json']);
    console.log(`ok: the first frame is drawn ${page.firstFrameMs} ms after the page was asked ` +
                `for, the app is ready (3 frames) at ${page.readyMs} ms`);
    await typedSentenceIsExported(page);
    await pastedTextArrives(page);
    await headPngIsExported(page);
    await sceneIsKept(page, port);
    await inductionDrops(page);
    await droppedModelOpens(page, 'gpt2/f32', '4 heads (d_head 8)');
    // A BF16 Gemma 2 with grouped K/V heads, soft caps and windows: its weights stay BF16.
    await droppedModelOpens(page, 'llama/gemma2_bf16', '4 query heads, 2 K/V heads');
    // A GGUF file quantized to Q8_0 (dequantized per block, in the page too) and an
    // attention file saved elsewhere.
    await droppedFileOpens(page, 'gguf/llama3_q8_0.gguf', 'the GGUF as a model',
                           (s) => s.model.real && s.model.architecture.includes('Q8_0'));
    await droppedFileOpens(page, 'attention/f32.safetensors', 'the maps without a model',
                           (s) => s.model.attention_only && s.model.open);
    // An encoder-decoder (the Marian fixture's folder): its decoder writes in the page.
    await droppedModelOpens(page, 'seq2seq/marian', '2 encoder + 2 decoder layers');
    const written = await waitState(page, 'the decoder writes, its alignment shown',
                                    (s) => s.model.seq2seq && s.model.written &&
                                           s.model.written_tokens > 0 && s.model.written_shown === -1);
    check(written.model.grid === 'alignment' && written.shown.keys === written.model.source_chips.length,
          `the Marian fixture writes ${written.model.written_tokens} tokens in the page, its alignment ` +
          `reading the ${written.shown.keys} source tokens`);
    await page.close();
    await hidpiCanvas(browser, port);
    await frameStatistics(browser, port);
} catch (e) {
    check(false, e.message);
} finally {
    await browser.close();
    server.close();
}
console.log(failures ? `${failures} failed` : 'all passed');
process.exit(failures ? 1 : 0);
