"""The HTML mails in headless Chromium at phone (360 px) and desktop (800 px) width: nothing
but the <pre> map may scroll sideways."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.flow.service import SeatSpec
from pbem.views.i18n import TRANSLATED
from tests.samples import GOLDEN, KINDS, sample_mails
from tests.support.browser import chromium, measure, viewable
from tests.support.localmail import START, local_service, take_mail

pytestmark = pytest.mark.skipif(
    chromium() is None, reason="Chromium is not installed (python3 dev.py test installs it)"
)


PHONE = 360  # CSS pixels
WIDE = '<html><body><table width="500"><tr><td>wide</td></tr></table></body></html>'
FINE = "<html><body><div style='overflow-x:auto'><pre>" + "x" * 300 + "</pre></div></body></html>"


@pytest.fixture(scope="module")
def phone(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """What every page the tests below look at measures at phone width, laid out by one run
    of Chromium (each page in its own frame: a start of Chromium costs more than its pages):
    the sample mails by name, the first prompt of a game in Hebrew and in English
    (`first-he`, `first-en`), and two pages for the measurement itself (`wide`, `fine`)."""
    pages = {name: viewable(mail) for name, mail in sample_mails().items()}
    folder = tmp_path_factory.mktemp("first")
    for lang in ("he", "en"):
        pages[f"first-{lang}"] = viewable(_first_prompt(folder / lang, lang))
    report = measure({**pages, "wide": WIDE, "fine": FINE}, PHONE)
    assert set(report) == {*pages, "wide", "fine"}
    return report


def _no_sideways_scroll(report: dict[str, dict[str, object]], width: int) -> None:
    for name, page in report.items():
        assert page["width"] == width, name
        assert page["scrollWidth"] == width, (name, page)
        assert page["outside"] == [], (name, page["outside"])


def test_no_mail_scrolls_sideways_outside_the_map(phone: dict[str, dict[str, object]]) -> None:
    _no_sideways_scroll({name: phone[name] for name in sample_mails()}, PHONE)


@pytest.mark.slow  # the same at desktop width (Chromium: another run)
def test_no_mail_scrolls_sideways_outside_the_map_on_a_desktop() -> None:
    pages = {name: viewable(mail) for name, mail in sample_mails().items()}
    report = measure(pages, 800)
    assert set(report) == set(pages)
    _no_sideways_scroll(report, 800)


@pytest.mark.slow  # the same measurement as above, in every language (Chromium: long)
def test_no_translated_mail_scrolls_sideways_on_a_phone() -> None:
    """The golden mails of every language (longer words than English) at 360 px."""
    pages = {
        f"{path.parent.name}-{path.stem}": path.read_text()
        for path in sorted(GOLDEN.glob("*/*.html"))
    }
    assert len(pages) == len(KINDS) * len(TRANSLATED)
    for name, page in measure(pages, PHONE).items():
        assert page["scrollWidth"] == PHONE and page["outside"] == [], (name, page["outside"])


def test_the_board_picture_loads_and_fits_a_phone(phone: dict[str, dict[str, object]]) -> None:
    report = phone["game-over"]
    assert report["images"] and all(isinstance(w, int) and w > 0 for w in report["images"])  # type: ignore[attr-defined]
    assert report["outside"] == []


BEACHES = ("game-over", "prompt-land", "prompt-emigrate")


def _beaches_keep_their_marks(report: dict[str, dict[str, object]]) -> None:
    for name in BEACHES:
        starred = report[name]["starred"]
        assert starred, name  # the samples mark changed beaches
        assert set(starred) == {1}, (name, starred)  # type: ignore[arg-type]


def test_a_changed_beach_keeps_its_mark_on_its_line(phone: dict[str, dict[str, object]]) -> None:
    _beaches_keep_their_marks(phone)


@pytest.mark.slow  # the same at 390 px (Chromium: another run)
def test_a_changed_beach_keeps_its_mark_on_its_line_at_390_px() -> None:
    """Issue 30: at 390 px the `*` of a changed beach dropped to a line of its own."""
    mails = sample_mails()
    _beaches_keep_their_marks(measure({name: viewable(mails[name]) for name in BEACHES}, 390))


def _first_prompt(folder: Path, lang: str) -> EmailMessage:
    """The set-up prompt of a new game whose players read `lang` (board picture included)."""
    service = local_service(folder)
    seats = [SeatSpec("Ana", "ana@example.test"), SeatSpec("Ben", "ben@example.test")]
    service.new_game(seats, seed=3, deadline_seconds=48 * 3600, lang=lang, now=START)
    return next(m for m in take_mail(service) if m["X-Tongiaki-Decision"])


def test_a_hebrew_mail_reads_right_to_left_at_phone_width(
    phone: dict[str, dict[str, object]],
) -> None:
    """Hebrew text is right-aligned, the map and notation stay left to right, the board
    picture loads whole; the same mail in English is left-aligned (the check can fail)."""
    hebrew, english = phone["first-he"], phone["first-en"]
    assert hebrew["direction"] == "rtl" and english["direction"] == "ltr"
    assert hebrew["pre"] and set(hebrew["pre"]) == {"ltr"}  # type: ignore[arg-type]
    gaps = hebrew["paragraphs"]
    assert gaps and all(right <= 1 for right, _ in gaps), gaps  # type: ignore[attr-defined]
    assert any(left > 20 for _, left in gaps), gaps  # type: ignore[attr-defined]
    assert any(right > 20 for right, _ in english["paragraphs"])  # type: ignore[attr-defined]
    for report in (hebrew, english):  # an option's number stands right by its command
        assert report["options"] and all(gap <= 24 for gap in report["options"]), report  # type: ignore[attr-defined]
    assert hebrew["images"] and all(isinstance(w, int) and w > 0 for w in hebrew["images"])  # type: ignore[attr-defined]
    assert all(0 < w <= PHONE for w in hebrew["imageWidths"])  # type: ignore[attr-defined]
    assert hebrew["scrollWidth"] == PHONE and hebrew["outside"] == []


def test_the_measurement_sees_a_page_that_is_too_wide(phone: dict[str, dict[str, object]]) -> None:
    wide, fine = phone["wide"], phone["fine"]
    assert wide["scrollWidth"] != PHONE and wide["outside"] != []
    assert fine["scrollWidth"] == PHONE and fine["outside"] == []
