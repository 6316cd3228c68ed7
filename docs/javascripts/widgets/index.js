// Mounts the interactive widgets into <div class="posenc-widget" data-widget="...">.
// Runs on every page Material shows (document$ fires on first load and after each
// instant navigation); a widget's code is loaded only on pages that have one.

const LOADERS = {
  "encoding-explorer": () => import("./encoding-explorer.js"),
  "context-extension": () => import("./context-extension.js"),
};
const live = new Set();

async function mountAll() {
  for (const widget of [...live]) {
    if (!widget.root.isConnected) {
      widget.destroy();
      live.delete(widget);
    }
  }
  for (const root of document.querySelectorAll(".posenc-widget[data-widget]")) {
    const load = LOADERS[root.dataset.widget];
    if (!load || root.dataset.mounted) continue; // idempotent
    root.dataset.mounted = "loading";
    const { mount } = await load();
    live.add(mount(root));
    root.dataset.mounted = "ready";
  }
}

// Redraw canvases when the reader switches light/dark (Material sets this attribute).
new MutationObserver(() => live.forEach((widget) => widget.redraw())).observe(document.body, {
  attributes: true,
  attributeFilter: ["data-md-color-scheme"],
});

// Accessibility fixes for what the theme and the notebook plugin emit (axe-core):
// name Material's search dialog; make notebook code cells, which scroll sideways,
// reachable by keyboard, as Material does for its own code blocks.
function themeFixes() {
  const search = document.querySelector(".md-search[role=dialog]");
  if (search && !search.hasAttribute("aria-label")) search.setAttribute("aria-label", "Search");
  for (const cell of document.querySelectorAll(".jupyter-wrapper .highlight-ipynb, .jupyter-wrapper .jp-OutputArea-output pre")) {
    cell.tabIndex = 0;
  }
}

async function onPage() {
  themeFixes();
  await mountAll();
  document.documentElement.dataset.posencWidgets = "ready"; // for tests
}

if (window.document$) window.document$.subscribe(onPage);
else onPage();
