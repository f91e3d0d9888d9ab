"""Headless Chromium (Debian's `chromium`) for looking at the HTML mails as a phone would."""

from __future__ import annotations

import base64
import html
import json
import re
import shutil
import subprocess
import tempfile
from email.message import EmailMessage
from pathlib import Path

from tests.samples import parts

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)

# Runs in the outer page once every mail has loaded in its frame: for each frame, how wide
# its page really is, and every element that reaches past the frame's right edge outside a <pre>.
MEASURE = """
<script>
window.addEventListener("load", () => {
  const report = {};
  for (const frame of document.querySelectorAll("iframe")) {
    const doc = frame.contentDocument, win = frame.contentWindow;
    const width = win.innerWidth;
    const outside = [];
    for (const el of doc.body.querySelectorAll("*")) {
      if (el.closest("pre")) continue;
      const right = el.getBoundingClientRect().right;
      if (right > width + 0.5) outside.push(el.tagName.toLowerCase() + " to " + Math.round(right));
    }
    report[frame.id] = {
      width: width,
      scrollWidth: doc.documentElement.scrollWidth,
      height: Math.ceil(doc.body.getBoundingClientRect().bottom),
      outside: outside.slice(0, 10),
      images: Array.from(doc.images).map(i => i.naturalWidth),
      imageWidths: Array.from(doc.images).map(i => Math.round(i.getBoundingClientRect().width)),
      direction: win.getComputedStyle(doc.body).direction,
      pre: Array.from(doc.querySelectorAll("pre")).map(p => win.getComputedStyle(p).direction),
      // each paragraph's text: how far it stays from the paragraph's right and left edges
      paragraphs: Array.from(doc.querySelectorAll("p")).slice(0, 8).map(p => {
        const range = doc.createRange();
        range.selectNodeContents(p);
        const text = range.getBoundingClientRect(), box = p.getBoundingClientRect();
        return [Math.round(box.right - text.right), Math.round(text.left - box.left)];
      }),
      // each beach letter or island name marked changed ("a*"): how many lines its text takes
      starred: Array.from(doc.querySelectorAll("td, b"))
        .filter(el => el.children.length == 0 && /\\S\\*$/.test(el.textContent.trim()))
        .map(el => {
          const range = doc.createRange();
          range.selectNodeContents(el);
          return new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top))).size;
        }),
      // the first options of a decision: how far the number's text is from its command's
      options: Array.from(doc.querySelectorAll("tr"))
        .filter(tr => tr.cells.length == 2 && /^\\d+\\)$/.test(tr.cells[0].textContent.trim()))
        .slice(0, 5).map(tr => {
          const [number, command] = Array.from(tr.cells).map(cell => {
            const range = doc.createRange();
            range.selectNodeContents(cell);
            return range.getBoundingClientRect();
          });
          return Math.round(Math.max(number.left - command.right, command.left - number.right));
        }),
    };
  }
  document.getElementById("report").textContent = JSON.stringify(report);
});
</script>
"""


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def viewable(mail: EmailMessage) -> str:
    """The HTML part with its inline picture as a data: URL, as a mail client shows it."""
    _, page = parts(mail)
    for part in mail.walk():
        if part.get_content_type() == "image/png":
            cid = str(part["Content-ID"]).strip("<>")
            data = base64.b64encode(part.get_content()).decode("ascii")
            page = page.replace(f"cid:{cid}", f"data:image/png;base64,{data}")
    return page


def _run(arguments: list[str], folder: Path) -> str:
    binary = chromium()
    assert binary is not None
    result = subprocess.run(
        [binary, *FLAGS, f"--user-data-dir={folder / 'profile'}", *arguments],
        capture_output=True,
        text=True,
        timeout=600,
    )
    result.check_returncode()
    return result.stdout


def measure(pages: dict[str, str], width: int) -> dict[str, dict[str, object]]:
    """Lay out every page in a frame `width` CSS pixels wide; what each one measures."""
    frames = "".join(
        f'<iframe id="{name}" width="{width}" height="6000" style="border:0;display:block" '
        f'srcdoc="{html.escape(page, quote=True)}"></iframe>'
        for name, page in pages.items()
    )
    outer = f'<html><body style="margin:0">{frames}<pre id="report"></pre>{MEASURE}</body></html>'
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "all.html").write_text(outer)
        dom = _run(
            [
                f"--window-size={width + 40},900",
                "--virtual-time-budget=10000",
                "--dump-dom",
                (folder / "all.html").as_uri(),
            ],
            folder,
        )
    found = re.search(r'<pre id="report">(.*?)</pre>', dom, re.S)
    assert found and found.group(1), "Chromium gave no report"
    report: dict[str, dict[str, object]] = json.loads(html.unescape(found.group(1)))
    return report


def screenshot(page: str, width: int, height: int, target: Path) -> None:
    """A picture of a page as a window `width` pixels wide sees it, from the top."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "mail.html").write_text(page)
        _run(
            [
                f"--window-size={width},{height}",
                f"--screenshot={target}",
                (folder / "mail.html").as_uri(),
            ],
            folder,
        )
