// Token ids from the JavaScript reference of Hugging Face's tokenizers (the npm package
// @huggingface/tokenizers, installed by `bash cmake/setup.sh test`), for the cross-checks of
// the WordPiece and RoBERTa tokenizers (tokenizer_random_check.py):
//   node tokenizer_reference_ids.mjs PACKAGE_DIR TOKENIZER_JSON TOKENIZER_CONFIG_JSON < lines
// Each input line is a JSON string, or [text, pair]; each output line the JSON list of ids with
// the model's special tokens, or {"error": "..."}.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [packageDir, tokenizerJson, tokenizerConfig] = process.argv.slice(2);
const { Tokenizer } = await import(
    pathToFileURL(`${packageDir}/dist/tokenizers.mjs`).href);
const tokenizer = new Tokenizer(JSON.parse(readFileSync(tokenizerJson, "utf8")),
                                JSON.parse(readFileSync(tokenizerConfig, "utf8")));
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
    const input = JSON.parse(line);
    const [text, pair] = Array.isArray(input) ? input : [input, null];
    try {
        const encoded = tokenizer.encode(text, { text_pair: pair, add_special_tokens: true });
        process.stdout.write(JSON.stringify(encoded.ids) + "\n");
    } catch (e) {
        process.stdout.write(JSON.stringify({ error: String(e) }) + "\n");
    }
}
