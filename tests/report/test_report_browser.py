"""The HTML report in a real browser: every figure loads, no console errors, nothing fetched.

Builds the report of the tiny crawl's warehouse (``HOSTAWARE_TEST_WAREHOUSE``, marker
``warehouse``; skipped when unset) with ``python -m report``, opens its ``index.html`` over
``file://`` in Debian's headless Chromium (``/usr/bin/chromium``, installed by ``make browser``;
driven by playwright, whose own browser downloads are never used) and checks:

* no console error and no uncaught page error;
* every ``<img>`` is complete with a natural width > 0, and every inline ``<svg>`` figure has a
  non-empty box and draws something;
* as many figures on the page as PNG figures the report wrote into ``figures/``;
* no request for anything but ``file:`` and ``data:`` URLs (others are aborted and reported),
  and no ``file:`` outside the report's folder.

A full-page screenshot is kept at ``build/test-artifacts/report.png``, also when a check fails.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hostaware.paths import PROJECT

pytestmark = pytest.mark.warehouse

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = PROJECT / "build" / "test-artifacts" / "report.png"
# Without these Chromium tries to reach Google's hosts and can hang; playwright adds some too.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOCAL_SCHEMES = ("file:", "data:")
TIMEOUT_MS = 60_000

# Each <img>, and each outermost inline <svg> (an <svg> nested in another is part of it).
_FIGURES_JS = """() => {
  const box = (element) => {
    const rect = element.getBoundingClientRect();
    return {width: rect.width, height: rect.height};
  };
  const images = Array.from(document.images).map((img) => ({
    src: img.currentSrc.slice(0, 80),
    alt: img.alt,
    complete: img.complete,
    naturalWidth: img.naturalWidth,
    naturalHeight: img.naturalHeight,
    ...box(img),
  }));
  const svgs = Array.from(document.querySelectorAll("svg:not(svg svg)")).map((svg) => {
    let drawn = {width: 0, height: 0};
    try {
      const content = svg.getBBox();
      drawn = {width: content.width, height: content.height};
    } catch (error) {}
    return {
      id: svg.id,
      label: svg.getAttribute("aria-label") || (svg.querySelector("title") || {}).textContent,
      elements: svg.querySelectorAll("*").length,
      drawnWidth: drawn.width,
      drawnHeight: drawn.height,
      ...box(svg),
    };
  });
  const figures = Array.from(document.querySelectorAll("figure")).map((figure) => ({
    id: figure.id,
    drawings: figure.querySelectorAll("img, svg:not(svg svg)").length,
  }));
  return {images, svgs, figures};
}"""


@dataclass
class PageCheck:
    """What the browser saw of one page.

    Attributes:
        console_errors: console messages of type ``error`` (with where they came from).
        page_errors: uncaught exceptions in the page.
        failed_requests: requests that failed (a missing file, an aborted remote URL).
        remote_requests: requests for anything but ``file:``/``data:`` URLs (aborted).
        outside_files: ``file:`` requests outside the folder of the page (not self-contained).
        images: per ``<img>``: its src (start), complete, naturalWidth/Height, rendered size.
        svgs: per outermost inline ``<svg>``: its rendered size and its content's box.
        figures: per ``<figure>``: its id and how many images and outermost SVGs it holds.
        seconds: from launching Chromium to the screenshot.
    """

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    remote_requests: set[str] = field(default_factory=set)
    outside_files: set[str] = field(default_factory=set)
    images: list[dict] = field(default_factory=list)
    svgs: list[dict] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)
    seconds: float = 0.0


def render(index: Path, screenshot: Path, profile: Path) -> PageCheck:
    """Open ``index`` in headless Chromium, wait for every image, screenshot the whole page.

    Args:
        index: the HTML file.
        screenshot: where the full-page PNG goes (its folder is created).
        profile: a new, empty Chromium user-data folder.
    """
    from playwright.sync_api import Request, Route, sync_playwright

    check = PageCheck()
    folder = index.resolve().parent.as_uri() + "/"
    started = time.perf_counter()

    def note(request_url: str) -> bool:
        """Record a URL that would leave the report's folder; True when it is local."""
        if request_url.startswith(LOCAL_SCHEMES):
            if request_url.startswith("file:") and not request_url.startswith(folder):
                check.outside_files.add(request_url)
            return True
        check.remote_requests.add(request_url)
        return False

    def only_local(route: Route) -> None:
        if note(route.request.url):
            route.continue_()
        else:
            route.abort("blockedbyclient")

    def on_request(request: Request) -> None:
        note(request.url)

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
            offline=True,
            service_workers="block",
            timeout=TIMEOUT_MS,
        )
        try:
            context.set_default_timeout(TIMEOUT_MS)
            context.route("**/*", only_local)
            context.on("request", on_request)
            page = context.pages[0] if context.pages else context.new_page()
            page.on(
                "console",
                lambda message: (
                    message.type == "error"
                    and check.console_errors.append(f"{message.text} (at {message.location})")
                ),
            )
            page.on("pageerror", lambda error: check.page_errors.append(str(error)))
            page.on(
                "requestfailed",
                lambda request: check.failed_requests.append(
                    f"{request.url[:120]}: {request.failure}"
                ),
            )
            page.on("websocket", lambda socket: check.remote_requests.add(socket.url))
            page.goto(index.resolve().as_uri(), wait_until="load")
            # Lazy images load only near the viewport: bring each into view, then wait for all.
            for image in page.locator("img").all():
                image.scroll_into_view_if_needed()
            page.wait_for_function("Array.from(document.images).every((img) => img.complete)")
            page.evaluate("window.scrollTo(0, 0)")
            figures = page.evaluate(_FIGURES_JS)
            check.images, check.svgs = figures["images"], figures["svgs"]
            check.figures = figures["figures"]
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
        finally:
            context.close()
    check.seconds = time.perf_counter() - started
    return check


def build_report(warehouse: Path, out: Path) -> Path:
    """Run ``python -m report`` into ``out`` and return its ``index.html``."""
    result = subprocess.run(
        [sys.executable, "-m", "report", "--warehouse", str(warehouse), "--out", str(out)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=False,
    )
    index = out / "index.html"
    assert result.returncode == 0 and index.is_file(), (
        f"python -m report failed ({result.returncode}):\n{result.stdout[-4000:]}\n"
        f"{result.stderr[-4000:]}"
    )
    return index


def test_report_renders_in_headless_chromium(
    tiny_warehouse_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: run `make browser` (installs Debian's chromium)")
    out = tmp_path / "report"
    index = build_report(tiny_warehouse_path, out)
    # report/page.py writes each figure as figures/<name>.png and .svg and shows it once, as
    # <figure id="figure-<name>"> holding the SVG (an <img> with a data: URI).
    pngs = sorted(path.stem for path in (out / "figures").glob("*.png"))
    svg_files = sorted(path.stem for path in (out / "figures").glob("*.svg"))

    check = render(index, SCREENSHOT, tmp_path / "chromium-profile")
    with capsys.disabled():
        print(f"\nreport screenshot: {SCREENSHOT} (Chromium {check.seconds:.1f} s)")

    assert check.console_errors == [], "console errors"
    assert check.page_errors == [], "uncaught page errors"
    assert check.remote_requests == set(), "requests that would leave the machine"
    assert check.outside_files == set(), "files read from outside the report's folder"
    assert check.failed_requests == [], "requests that failed"
    broken = [
        image for image in check.images if not image["complete"] or image["naturalWidth"] <= 0
    ]
    assert broken == [], "images that did not load"
    invisible = [image for image in check.images if image["width"] <= 0 or image["height"] <= 0]
    assert invisible == [], "images without a box on the page"
    empty = [
        svg
        for svg in check.svgs
        if min(svg["width"], svg["height"], svg["drawnWidth"], svg["drawnHeight"]) <= 0
    ]
    assert empty == [], "inline SVGs with an empty box or nothing drawn"
    assert pngs, f"the report wrote no figures into {out / 'figures'}"
    assert svg_files == pngs, "every figure as PNG and SVG"
    assert len(check.images) + len(check.svgs) == len(pngs), (
        f"{len(check.images)} <img> and {len(check.svgs)} inline <svg> on the page, "
        f"{len(pngs)} PNG figures: {pngs}"
    )
    shown = sorted(figure["id"].removeprefix("figure-") for figure in check.figures)
    assert shown == pngs, "the page's <figure id=figure-NAME> against figures/NAME.png"
    assert all(figure["drawings"] == 1 for figure in check.figures), check.figures
