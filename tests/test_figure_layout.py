"""Every figure, desktop and phone variant, laid out as drawn: no text on top of
data (lines, markers, scatter points), no text on top of other text, no text cut
off at the figure's edge, no text across a drawn frame (a plot's spines, a colour
bar's outline: a bar label over the spine, an axis label under a colour bar), no
text with less than 4.5:1 against the image cell or the page it is on (WCAG
1.4.3). Geometry comes from matplotlib's own renderer, in display pixels: text
extents from ``Text.get_window_extent``, data from the artists' paths."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.colors import to_hex
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.text import Text

from posenc_docs.figures import FIGURES, draw
from posenc_docs.figures.spec import PAGE_BACKGROUNDS, THEMES, dark_variant
from posenc_docs.figures.style import themed
from tests.page_checks import contrast

STEP = 1.0  # px between points sampled along a line segment
PAD = 0.5  # px a text box is shrunk by before testing, so touching is allowed


def drawn_texts(fig) -> list[Text]:
    """Lay ``fig`` out and draw it with Agg's renderer, its output switched off (the
    same text boxes as a full draw on every figure, 25 % faster); return the texts
    drawn (not ticks out of view)."""
    drawn, original = [], Text.draw

    def record(text, renderer):
        drawn.append(text)
        return original(text, renderer)

    Text.draw = record
    try:
        fig.draw_without_rendering()
    finally:
        Text.draw = original
    return drawn


def texts(fig, renderer, drawn) -> list[tuple[str, object]]:
    """(text, extent) of every drawn, non-empty text; a legend counts as one box."""
    legends = fig.findobj(Legend)
    in_legends = {id(t) for legend in legends for t in legend.findobj(Text)}
    found = [
        (text.get_text(), Text.get_window_extent(text, renderer))  # no arrow
        for text in drawn
        if text.get_visible() and text.get_text().strip() and id(text) not in in_legends
    ]
    legend_boxes = [("legend", box.get_window_extent(renderer)) for box in legends]
    return found + legend_boxes


def data_points(ax, renderer) -> list[np.ndarray]:
    """Display coordinates, (n, 2) each, of what ``ax`` plots, with a marker radius."""
    shapes = []
    clip = ax.get_window_extent(renderer)
    for line in ax.get_lines():
        xy = line.get_transform().transform(line.get_path().vertices)  # (n, 2)
        xy = xy[np.isfinite(xy).all(axis=1)]
        dense = [xy[:1]]
        for a, b in zip(xy[:-1], xy[1:], strict=True):
            n = max(int(np.hypot(*(b - a)) / STEP), 1)
            dense.append(a + np.linspace(0, 1, n + 1)[1:, None] * (b - a))
        marked = line.get_marker() not in ("", "None", None)
        radius = line.get_markersize() / 2 if marked else 0
        points = np.concatenate(dense)
        shapes.append((points[_inside(points, clip)], radius * ax.figure.dpi / 72))
    for collection in ax.collections:
        if isinstance(collection, PathCollection) and len(collection.get_offsets()):
            xy = collection.get_offset_transform().transform(collection.get_offsets())
            radius = np.sqrt(collection.get_sizes().max()) / 2 * ax.figure.dpi / 72
            shapes.append((xy[_inside(xy, clip)], radius))
    return shapes


def _inside(points: np.ndarray, box) -> np.ndarray:
    return (
        (points[:, 0] >= box.x0)
        & (points[:, 0] <= box.x1)
        & (points[:, 1] >= box.y0)
        & (points[:, 1] <= box.y1)
    )


def hits(extent, points: np.ndarray, radius: float) -> bool:
    """Whether any point, grown by ``radius``, falls inside the shrunk text box."""
    x0, y0 = extent.x0 + PAD - radius, extent.y0 + PAD - radius
    x1, y1 = extent.x1 - PAD + radius, extent.y1 - PAD + radius
    inside = (points[:, 0] > x0) & (points[:, 0] < x1)
    return bool((inside & (points[:, 1] > y0) & (points[:, 1] < y1)).any())


def frames(fig, renderer) -> list:
    """Window extents of the axes whose frame is drawn (plots and colour bars, not
    an axis-off canvas for a diagram)."""
    return [
        ax.get_window_extent(renderer)
        for ax in fig.axes
        if ax.axison and any(spine.get_visible() for spine in ax.spines.values())
    ]


def crosses(extent, frame) -> bool:
    """Whether the text box reaches into ``frame`` without lying wholly inside it."""
    inside = frame.padded(PAD)
    wholly = inside.contains(extent.x0, extent.y0) and inside.contains(
        extent.x1, extent.y1
    )
    return extent.padded(-PAD).overlaps(frame) and not wholly


def cell_under(image: AxesImage, x: float, y: float):
    """The RGBA of ``image``'s cell at data point (x, y) (a masked cell's is the
    colour map's "bad" colour); None off the image."""
    values = image.get_array()
    left, right, bottom, top = image.get_extent()
    first_row_at = top if image.origin == "upper" else bottom
    last_row_at = bottom if image.origin == "upper" else top
    row = int(
        np.floor((y - first_row_at) / (last_row_at - first_row_at) * values.shape[0])
    )
    col = int(np.floor((x - left) / (right - left) * values.shape[1]))
    if not (0 <= row < values.shape[0] and 0 <= col < values.shape[1]):
        return None
    return image.to_rgba(values[row : row + 1, col : col + 1])[0, 0]  # masked: "bad"


def ground(text, images: list[AxesImage]):
    """What ``text``'s anchor is read on: its own box if opaque, else the cell of
    one of the figure's ``images`` under it, or for a see-through cell the axes'
    face if opaque, else (None) the page. Other shapes under a text, and a text's
    own alpha, are not looked at."""
    box = text.get_bbox_patch()
    if box is not None and box.get_facecolor()[3] == 1:
        return box.get_facecolor()
    anchor = text.get_transform().transform(text.get_position())
    on_top = sorted(images, key=lambda image: image.axes is not text.axes)  # own axes
    for image in on_top:
        xy = image.axes.transData.inverted().transform(anchor)
        if (cell := cell_under(image, *xy)) is not None:
            face = image.axes.patch.get_facecolor()
            return cell if cell[3] == 1 else face if face[3] == 1 else None
    return None


def faint_texts(fig, drawn) -> list[str]:
    """Drawn texts with under 4.5:1 against what they are read on, in the light
    figure and in its dark variant (its colours swapped as the build swaps them)."""
    defects, images = [], fig.findobj(AxesImage)  # found once: it walks every artist
    for text in (t for t in drawn if t.get_visible() and t.get_text().strip()):
        ink, under = to_hex(text.get_color()), ground(text, images)
        for theme in THEMES:
            page = PAGE_BACKGROUNDS[theme]
            pair = (ink, page if under is None else to_hex(under))
            if theme == "dark":  # the page is dark already; swap the rest
                pair = [dark_variant(c.encode()).decode() for c in pair]
            if (ratio := contrast(*pair)) < 4.5:
                defects.append(f"{text.get_text()!r} has {ratio:.2f}:1 in {theme}")
    return defects


def layout_defects(fig) -> list[str]:
    drawn = drawn_texts(fig)
    renderer = fig.canvas.get_renderer()
    boxes = texts(fig, renderer, drawn)
    shapes = [shape for ax in fig.axes for shape in data_points(ax, renderer)]
    drawn_frames = frames(fig, renderer)
    defects = []
    for label, extent in boxes:
        if any(hits(extent, points, radius) for points, radius in shapes):
            defects.append(f"{label!r} lies on data")
        if any(crosses(extent, frame) for frame in drawn_frames):
            defects.append(f"{label!r} crosses a plot's frame")
        if not fig.bbox.padded(1).contains(extent.x0, extent.y0) or not (
            fig.bbox.padded(1).contains(extent.x1, extent.y1)
        ):
            defects.append(f"{label!r} is cut off by the figure's edge")
    shrunk = [(label, extent.padded(-PAD)) for label, extent in boxes]
    for i, (first, a) in enumerate(shrunk):
        for second, b in shrunk[i + 1 :]:
            if a.overlaps(b):
                defects.append(f"{first!r} overlaps {second!r}")
    return defects + faint_texts(fig, drawn)


def beside(legend, frame) -> bool:
    """Whether a legend's box sits beside a frame, left or right: level with it,
    and less than half of its width over it."""
    level = legend.y0 < frame.y1 and legend.y1 > frame.y0
    shared = min(legend.x1, frame.x1) - max(legend.x0, frame.x0)
    return level and shared < legend.width / 2


def legends_beside(fig) -> list[str]:
    """A phone's defect: a legend beside its axes, which keep what is left of the
    column (lab-rope-scalings' plot had 37 % of it)."""
    renderer = fig.canvas.get_renderer()
    return [
        f"a legend beside an axes {ax.get_title()!r}"
        for ax in fig.axes
        if (legend := ax.get_legend()) is not None
        and beside(legend.get_window_extent(renderer), ax.get_window_extent(renderer))
    ]


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("spec", FIGURES, ids=lambda s: s.slug)
def test_no_text_on_data_or_text(spec, phone):
    fig = draw(spec.slug, "light", phone)
    try:
        assert layout_defects(fig) + (legends_beside(fig) if phone else []) == []
    finally:
        plt.close(fig)


def test_the_check_sees_a_legend_beside_its_plot():
    with themed("light"):
        fig, ax = plt.subplots(layout="constrained")
        ax.plot([0, 1], label="a line")
        for place in [(1.01, 1), (0.9, 1)]:  # right of it, or mostly right of it
            ax.legend(loc="upper left", bbox_to_anchor=place)
            assert legends_beside(fig) == ["a legend beside an axes ''"], place
        ax.legend(loc="upper right", bbox_to_anchor=(-0.15, 1))  # left of it
        assert legends_beside(fig) == ["a legend beside an axes ''"]
        for place in ["upper left", "lower center"]:  # inside; below, as a phone's
            ax.legend(loc=place, **({"bbox_to_anchor": (0.5, -0.3)} if "lower" in
                                    place else {}))  # fmt: skip
            assert legends_beside(fig) == [], place
        plt.close(fig)


def test_the_check_sees_a_label_on_a_line():
    with themed("light"):  # ticks in the theme's ink, as every figure has them
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        ax.text(0.5, 0.5, "on the line", ha="center", va="center")
        ax.text(0.05, 0.9, "clear of it")
        assert layout_defects(fig) == ["'on the line' lies on data"]
        plt.close(fig)


def test_the_check_sees_faint_text_on_a_cell_and_on_the_page():
    with themed("light"):
        fig, ax = plt.subplots()
        ax.imshow([[0.0, 1.0]], cmap="gray", vmin=0, vmax=1)  # a black and a white cell
        ax.text(0, 0, "white on black", color="white")
        ax.text(1, 0, "silver on white", color="#c0c0c0")
        ax.text(5, 5, "off the image: on the page", color="#1f1f1f")
        ax.text(0, 0, "boxed", color="black", bbox={"facecolor": "white"})  # own ground
        ax.set_title("grey on the page", color="#999999")
        masked = ax.inset_axes([0.6, 0.6, 0.3, 0.3], facecolor="#666666")
        masked.set(xticks=[], yticks=[])
        masked.imshow(np.ma.masked_all((1, 1)))  # see-through: the face shows
        masked.text(0, 0, "black on the grey face", color="black")
        assert faint_texts(fig, drawn_texts(fig)) == [
            "'silver on white' has 1.82:1 in light",
            "'silver on white' has 1.82:1 in dark",
            "'grey on the page' has 2.85:1 in light",
            "'black on the grey face' has 3.66:1 in light",
            "'black on the grey face' has 3.66:1 in dark",
        ]
        plt.close(fig)


def test_the_check_sees_text_across_a_frame():
    with themed("light"):
        fig, (ax, other) = plt.subplots(1, 2, layout="constrained")
        ax.set_xlim(0, 1)
        ax.annotate("past the spine", xy=(0.95, 0.5))  # runs out of the axes
        ax.text(0.05, 0.5, "inside")
        fig.colorbar(plt.cm.ScalarMappable(), ax=other)
        fig.text(0.99, 0.5, "under the bar", ha="right")  # ends inside the colour bar
        assert layout_defects(fig) == [
            "'past the spine' crosses a plot's frame",
            "'under the bar' crosses a plot's frame",
        ]
        plt.close(fig)
