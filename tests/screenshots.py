"""Screenshots of every kind of mail of the sample game, as a phone shows the HTML part:
`python3 dev.py screenshots` writes them to docs/screenshots/."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.samples import sample_mails
from tests.support.browser import chromium, measure, screenshot, viewable

TARGET = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
WIDTH = 360


def main() -> int:
    if chromium() is None:
        print("Chromium is not installed: apt-get install chromium", file=sys.stderr)
        return 1
    TARGET.mkdir(parents=True, exist_ok=True)
    pages = {name: viewable(mail) for name, mail in sample_mails().items()}
    heights = {name: int(str(m["height"])) for name, m in measure(pages, WIDTH).items()}
    for name, page in sorted(pages.items()):
        screenshot(page, WIDTH, heights[name], TARGET / f"{name}.png")
        print(f"docs/screenshots/{name}.png ({WIDTH} x {heights[name]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
