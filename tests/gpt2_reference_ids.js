// GPT-2 ids from the JavaScript reference, the npm package gpt-3-encoder 1.1.4:
//   node tests/gpt2_reference_ids.js NPM_PACKAGE_DIR < lines
// Each input line is one JSON string; each output line is the JSON list of its ids. It made
// tests/fixtures/gpt2_tokenizer_cases.json and is the other side of gpt2_random_check.py.
const path = require('path');
const readline = require('readline');

const { encode } = require(path.resolve(process.argv[2] || '.'));
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
const out = [];
lines.on('line', line => out.push(JSON.stringify(encode(JSON.parse(line)))));
lines.on('close', () => process.stdout.write(out.length ? out.join('\n') + '\n' : ''));
