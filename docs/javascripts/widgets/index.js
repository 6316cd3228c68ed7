// Mounts the interactive widgets into <div class="posenc-widget" data-widget="...">,
// and makes a few fixes to every page. Runs on every page Material shows (document$
// fires on first load and after each instant navigation); a widget's code is loaded
// only on pages that have one.

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
  nearScreen.disconnect();
  for (const root of document.querySelectorAll(".posenc-widget[data-widget]")) {
    const load = LOADERS[root.dataset.widget];
    if (!load || root.dataset.mounted) continue; // idempotent
    root.dataset.mounted = "loading";
    let module;
    try {
      module = await load();
    } catch (error) {
      fail(root, error);
      continue;
    }
    const { mount, CAPTION } = module;
    const giveBack = takeOverFigures(root, CAPTION);
    keepPlainKeys(root);
    root.posencMount = () => {
      try {
        live.add(mount(root));
      } catch (error) {
        fail(root, error, giveBack);
        return;
      }
      const caption = root.querySelector(":scope > .posenc-widget__caption");
      if (caption) root.append(caption); // below the controls mount() appended
      root.dataset.mounted = "ready";
    };
    nearScreen.observe(root);
  }
}

// A widget whose code fails to load, or whose mount throws, must not leave a blank
// gap where it kept its room: its static figures come back (the inline rule in
// overrides/main.html hides them unless data-mounted is "failed", and the room is
// kept only until then, extra.css), with their numbers and ids, and whatever the
// widget built is removed. The error is logged, not thrown: other widgets mount.
function fail(root, error, giveBack = () => {}) {
  console.error(`posenc-docs: the ${root.dataset.widget} widget failed, showing its static figures.`, error);
  root.querySelector(":scope > .pw")?.remove();
  giveBack();
  for (const figure of root.querySelectorAll(":scope > figure.posenc-fig")) figure.hidden = false; // hideFallback()
  root.dataset.mounted = "failed";
}

// A widget's controls and canvases are built when it comes within a screen of
// the viewport, not at load: on a phone, a widget far down the page cost a long
// task (117 ms in Lighthouse's trace of the context-extension page) before the
// reader could scroll. Its caption and its figures' anchors are there from the
// start, so a "Figure N" link lands on it; its room is kept (extra.css).
const nearScreen = new IntersectionObserver(
  (entries) => {
    for (const { target, isIntersecting } of entries) {
      if (!isIntersecting || !target.posencMount) continue;
      nearScreen.unobserve(target);
      target.posencMount();
      delete target.posencMount;
    }
  },
  { rootMargin: "100% 0px" },
);

// The mounted widget hides the static figures it replaces (an inline rule in
// overrides/main.html), so it takes over their "Figure N" numbers, in a caption
// below it, and their ids, as anchors at its top: links to them land on it.
function takeOverFigures(root, caption) {
  const figures = [...root.querySelectorAll("figure.posenc-fig[id]")];
  if (figures.length === 0) return () => {};
  const numbers = figures.map((figure) => figure.querySelector("figcaption strong").textContent.match(/\d+/)[0]);
  const label = numbers.length === 1 ? `Figure ${numbers[0]}` : `Figures ${numbers[0]}\u2013${numbers.at(-1)}`;
  const anchors = figures.map((figure) => {
    const anchor = document.createElement("span");
    anchor.id = figure.id;
    figure.removeAttribute("id");
    return anchor;
  });
  const text = document.createElement("p");
  text.className = "posenc-widget__caption";
  text.id = `${anchors[0].id}-interactive`;
  const strong = document.createElement("strong");
  strong.id = `${text.id}-label`; // the figure's name; the caption is read as text
  strong.textContent = `${label} (interactive).`;
  text.append(strong, ` ${caption}`);
  root.prepend(...anchors);
  root.append(text);
  root.setAttribute("role", "figure");
  root.setAttribute("aria-labelledby", strong.id);
  return () => { // if the widget fails to mount: the figures get their ids and numbers back
    figures.forEach((figure, i) => { figure.id = anchors[i].id; });
    anchors.forEach((anchor) => anchor.remove());
    text.remove();
    root.removeAttribute("role");
    root.removeAttribute("aria-labelledby");
  };
}

// Material's one-key shortcuts (n, p, s, f, /) must not fire from a focused tab or
// button in a widget: the page would change and the widget's state be lost.
function keepPlainKeys(root) {
  root.addEventListener("keydown", (e) => {
    if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) e.stopPropagation();
  });
}

// Redraw canvases when the reader switches light/dark (Material sets this attribute).
new MutationObserver(() => live.forEach((widget) => widget.redraw())).observe(document.body, {
  attributes: true,
  attributeFilter: ["data-md-color-scheme"],
});

// Material's search dialog has no accessible name (axe-core): give it one.
function themeFixes() {
  const search = document.querySelector(".md-search[role=dialog]");
  if (search && !search.hasAttribute("aria-label")) search.setAttribute("aria-label", "Search");
}

// A display formula wider than the screen scrolls sideways in its block (16 of 57
// at 390 px), and so does a listing with long lines; a block that scrolls takes
// keyboard focus, so a reader without a pointer can scroll it too (axe-core:
// scrollable-region-focusable). Material does this for a listing only when it
// mounts it, once it is on screen (its content.lazy feature, on here: mounting
// every listing at start-up forced a layout for each one): until then, this does
// it. A ResizeObserver reads the sizes after layout, so no layout is forced.
const SCROLLERS = "div.arithmatex, .md-typeset .highlight > pre > code";
const scrollers = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    if (target.scrollWidth > target.clientWidth) target.tabIndex = 0;
    else target.removeAttribute("tabindex");
  }
});

function observeScrollers() {
  scrollers.disconnect();
  document.querySelectorAll(SCROLLERS).forEach((block) => scrollers.observe(block));
}

// A KaTeX font that arrives late widens a formula without resizing its block, so
// the observer would not hear of it: observe again (it reports every block anew).
document.fonts.addEventListener("loadingdone", observeScrollers);

// The Install page's pip commands name the site's published address (its
// site_url, in data-posenc-site); a copy served elsewhere, `mkdocs serve` included,
// serves the same wheel at its own address: the commands say the one the reader is
// on, so they work as copied. This file sits two folders below the site's root.
const SITE_ROOT = new URL("../../", import.meta.url).href;

function pointAtThisSite() {
  for (const block of document.querySelectorAll("[data-posenc-site]")) {
    const published = block.dataset.posencSite;
    const texts = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let text = texts.nextNode(); text; text = texts.nextNode()) {
      text.data = text.data.replaceAll(published, SITE_ROOT);
    }
    block.dataset.posencSite = SITE_ROOT; // idempotent
  }
}

const nextFrame = () => new Promise(requestAnimationFrame);

async function onPage() {
  themeFixes();
  pointAtThisSite();
  observeScrollers();
  await mountAll();
  await document.fonts.ready; // the fonts this page asked for so far
  await nextFrame(); // the scrollers' observer reports after the next layout:
  await nextFrame(); // wait it out before saying ready
  document.documentElement.dataset.posencWidgets = "ready"; // for tests
}

function start() {
  if (window.document$) window.document$.subscribe(onPage);
  else onPage(); // Material's script failed to load
}

// Material's script is added after the first paint (hooks/material_bundle.py);
// it announces itself once it has run, or failed to load, and leaves a flag for a
// module that arrives after that.
if (window.document$ || window.posencMaterialSettled) start();
else addEventListener("posenc:material", start, { once: true });
