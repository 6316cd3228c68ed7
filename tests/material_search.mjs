// Rank search queries with the built site's own Material search worker, in Node:
// the same lunr index, field weights and page grouping the reader's browser uses.
// node tests/material_search.mjs SITE_DIR QUERY... -> {query: [[location, score]]}
// (one entry per page, best-scoring section first, in the order the reader sees).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";

const [site, ...queries] = process.argv.slice(2);
const workers = join(site, "assets", "javascripts", "workers");
const worker = readdirSync(workers).find((n) => /^search\..*\.js$/.test(n));
const replies = [];
let handler;
const context = {
  console,
  postMessage: (message) => replies.push(message),
  addEventListener: (_type, listener) => (handler = listener),
};
context.self = context;
vm.createContext(context);
vm.runInContext(readFileSync(join(workers, worker), "utf8"), context);
const index = JSON.parse(readFileSync(join(site, "search", "search_index.json"), "utf8"));
const send = async (data) => {
  const before = replies.length;
  handler({ data });
  while (replies.length === before) await new Promise((r) => setTimeout(r, 1));
  return replies.at(-1);
};
await send({ type: 0, data: { ...index, options: { suggest: false } } });
const ranked = {};
for (const query of queries) {
  const { data } = await send({ type: 2, data: query });
  ranked[query] = data.items.map((group) => [group[0].location, group[0].score]);
}
console.log(JSON.stringify(ranked));
