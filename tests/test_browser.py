"""The HTML mails in headless Chromium at phone (360 px) and desktop (800 px) width: nothing
but the <pre> map may scroll sideways."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.flow.service import SeatSpec
from pbem.views.i18n import TRANSLATED
from tests.samples import GOLDEN, sample_mails
from tests.support.browser import chromium, measure, viewable
from tests.support.localmail import START, local_service, take_mail

pytestmark = pytest.mark.skipif(
    chromium() is None, reason="Chromium is not installed (python3 dev.py test installs it)"
)


@pytest.mark.parametrize("width", [360, pytest.param(800, marks=pytest.mark.slow)])
def test_no_mail_scrolls_sideways_outside_the_map(width: int) -> None:
    pages = {name: viewable(mail) for name, mail in sample_mails().items()}
    report = measure(pages, width)
    assert set(report) == set(pages)
    for name, page in report.items():
        assert page["width"] == width, name
        assert page["scrollWidth"] == width, (name, page)
        assert page["outside"] == [], (name, page["outside"])


def test_no_translated_mail_scrolls_sideways_on_a_phone() -> None:
    """The golden mails of every language (longer words than English) at 360 px."""
    pages = {
        f"{path.parent.name}-{path.stem}": path.read_text()
        for path in sorted(GOLDEN.glob("*/*.html"))
    }
    assert len(pages) == 15 * len(TRANSLATED)
    for name, page in measure(pages, 360).items():
        assert page["scrollWidth"] == 360 and page["outside"] == [], (name, page["outside"])


def test_the_board_picture_loads_and_fits_a_phone() -> None:
    mail = sample_mails()["game-over"]
    report = measure({"game-over": viewable(mail)}, 360)["game-over"]
    assert report["images"] and all(isinstance(w, int) and w > 0 for w in report["images"])
    assert report["outside"] == []


@pytest.mark.parametrize("width", [360, 390])
def test_a_changed_beach_keeps_its_mark_on_its_line(width: int) -> None:
    """Issue 30: at 390 px the `*` of a changed beach dropped to a line of its own."""
    mails = sample_mails()
    pages = {
        name: viewable(mails[name]) for name in ("game-over", "prompt-land", "prompt-emigrate")
    }
    for name, page in measure(pages, width).items():
        assert page["starred"], name  # the samples mark changed beaches
        assert set(page["starred"]) == {1}, (name, page["starred"])  # type: ignore[arg-type]


def _first_prompt(folder: Path, lang: str) -> EmailMessage:
    """The set-up prompt of a new game whose players read `lang` (board picture included)."""
    service = local_service(folder)
    seats = [SeatSpec("Ana", "ana@example.test"), SeatSpec("Ben", "ben@example.test")]
    service.new_game(seats, seed=3, deadline_seconds=48 * 3600, lang=lang, now=START)
    return next(m for m in take_mail(service) if m["X-Tongiaki-Decision"])


def test_a_hebrew_mail_reads_right_to_left_at_phone_width(tmp_path: Path) -> None:
    """Hebrew text is right-aligned, the map and notation stay left to right, the board
    picture loads whole; the same mail in English is left-aligned (the check can fail)."""
    pages = {lang: viewable(_first_prompt(tmp_path / lang, lang)) for lang in ("he", "en")}
    report = measure(pages, 360)
    hebrew, english = report["he"], report["en"]
    assert hebrew["direction"] == "rtl" and english["direction"] == "ltr"
    assert hebrew["pre"] and set(hebrew["pre"]) == {"ltr"}
    gaps = hebrew["paragraphs"]
    assert gaps and all(right <= 1 for right, _ in gaps), gaps  # flush right
    assert any(left > 20 for _, left in gaps), gaps  # a short line leaves room on the left
    assert any(right > 20 for right, _ in english["paragraphs"])
    for report in (hebrew, english):  # an option's number stands right by its command
        assert report["options"] and all(gap <= 24 for gap in report["options"]), report  # type: ignore[attr-defined]
    assert hebrew["images"] and all(isinstance(w, int) and w > 0 for w in hebrew["images"])
    assert all(0 < w <= 360 for w in hebrew["imageWidths"])  # type: ignore[attr-defined]
    assert hebrew["scrollWidth"] == 360 and hebrew["outside"] == []


def test_the_measurement_sees_a_page_that_is_too_wide() -> None:
    wide = '<html><body><table width="500"><tr><td>wide</td></tr></table></body></html>'
    scrolled = "<div style='overflow-x:auto'><pre>" + "x" * 300 + "</pre></div>"
    fine = f"<html><body>{scrolled}</body></html>"
    report = measure({"wide": wide, "fine": fine}, 360)
    assert report["wide"]["scrollWidth"] != 360 and report["wide"]["outside"] != []
    assert report["fine"]["scrollWidth"] == 360 and report["fine"]["outside"] == []
