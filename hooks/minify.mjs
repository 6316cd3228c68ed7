// Minifies the widget ES modules of the built site in place: node minify.mjs FILE...
import { readFile, writeFile } from "node:fs/promises";
import { minify } from "terser";

for (const path of process.argv.slice(2)) {
  const source = await readFile(path, "utf8");
  const result = await minify(source, { module: true, compress: { passes: 2 }, mangle: true });
  await writeFile(path, result.code);
}
