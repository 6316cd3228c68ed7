// Renders TeX to HTML for the MkDocs math hook: one process per build.
// stdin: one JSON array of [tex, displayMode] per line; stdout: one JSON line back,
// {"html": [...]} or {"error": {"index": i, "message": "..."}}.
import { createInterface } from "node:readline";
import katex from "katex";

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const items = JSON.parse(line);
  const html = [];
  let error = null;
  for (const [index, [tex, displayMode]] of items.entries()) {
    try {
      html.push(katex.renderToString(tex, { displayMode, throwOnError: true }));
    } catch (e) {
      error = { index, message: String(e.message) };
      break;
    }
  }
  process.stdout.write(JSON.stringify(error ? { error } : { html }) + "\n");
}
