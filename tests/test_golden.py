"""Every kind of mail of the sample game, text and HTML, against its golden file.

After a deliberate change to what players see, run `python3 dev.py golden` and review the diff.
"""

from __future__ import annotations

import pytest

from tests.samples import GOLDEN, parts, sample_mails

KINDS = (
    "welcome",
    "prompt-setup",
    "prompt-turn",
    "prompt-land",
    "prompt-emigrate",
    "prompt-put-tile",
    "prompt-colony-boat",
    "update",
    "update-automatic",
    "gm",
    "answer",
    "reminder",
    "error",
    "not-applied",
    "game-over",
)


def test_the_sample_game_has_every_kind_of_mail() -> None:
    assert set(sample_mails()) == set(KINDS)


def test_every_golden_file_belongs_to_a_mail() -> None:
    names = {path.stem for path in GOLDEN.iterdir()}
    assert names == set(KINDS)


@pytest.mark.parametrize("name", KINDS)
def test_text_matches_golden(name: str) -> None:
    mail = sample_mails()[name]
    text, _ = parts(mail)
    assert f"Subject: {mail['Subject']}\n\n{text}" == (GOLDEN / f"{name}.txt").read_text()


@pytest.mark.parametrize("name", KINDS)
def test_html_matches_golden(name: str) -> None:
    _, html = parts(sample_mails()[name])
    assert html == (GOLDEN / f"{name}.html").read_text()
