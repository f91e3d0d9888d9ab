"""The pieces of a mail rendered once and shared (issue 31: the service's CPU per move): an
island of the board, a row of the players' table, once per language while it does not
change; every mail reads as if each were rendered for it alone."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from engine import Setup, State, make_bot
from pbem.commands.manual import COMMAND_HELP
from pbem.views import letters, render
from pbem.views.i18n import Words, words

NAMES = ("Ana", "Ben", "Cy", "Dai")


def _moments(players: int, seed: int, every: int = 7) -> list[letters.Moment]:
    """Moments of a greedy bot game, each as its round's mails see it."""
    colours = ("blue", "red", "green", "yellow")[:players]
    state = State(Setup.from_seed(colours, seed))
    bot = make_bot("greedy", seed)
    moments, n = [], 0
    while state.decision is not None:
        if n % every == 0:
            moments.append(letters.moment(3, state.copy(), NAMES[:players], [False] * players))
        state.apply(bot.choose(state))
        n += 1
    return moments


def _fresh(mail: object, reader: Words) -> tuple[str, str]:
    """The mail rendered with nothing shared kept from before."""
    render._pieces.clear()
    render._shared_cache.clear()
    return render.render(mail, COMMAND_HELP, reader)  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", ["en", "he", "hu"])
def test_a_mail_of_shared_pieces_is_the_mail_rendered_alone(lang: str) -> None:
    reader = words(lang, "Asia/Tokyo")
    kept: list[tuple[object, tuple[str, str]]] = []
    render._pieces.clear()
    for at in _moments(3, 5):
        for seat in range(3):  # every reader of the round, the pieces shared between them
            mail = letters.letter(at, seat)
            kept.append((mail, render.render(mail, COMMAND_HELP, reader)))
    assert len(render._pieces) > 0
    for mail, shared in kept[::5]:
        assert shared == _fresh(mail, reader)


def test_each_reader_is_marked_in_their_own_row_only() -> None:
    at = _moments(4, 2)[3]
    for seat, name in enumerate(NAMES):
        text, page = render.render(letters.letter(at, seat), COMMAND_HELP)
        marked = [line for line in text.splitlines() if line.endswith("<- you")]
        assert len(marked) == 1 and f" {name} " in marked[0]
        bold = re.findall(r'<tr style="font-weight:bold;">.*?</tr>', page)
        assert len(bold) == 1 and f"{name} (you)" in bold[0]


def test_a_changed_island_is_rendered_anew() -> None:
    first, later = _moments(2, 3, every=1)[8:10]
    before = render.render_board_text(first.board)
    after = render.render_board_text(later.board)
    assert before != after  # a move changed the board: no piece of the last one shows
    assert after == render.render_board_text(later.board)
    render._pieces.clear()
    assert after == render.render_board_text(later.board)


def test_the_pieces_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "PIECES", 10)
    render._pieces.clear()
    for at in _moments(3, 4, every=3):
        render.render(letters.letter(at, 0), COMMAND_HELP)
        assert len(render._pieces) <= 10


def test_threads_rendering_at_once_read_the_same_mails(monkeypatch: pytest.MonkeyPatch) -> None:
    """A service answering in threads shares the pieces; a small bound makes them evict each
    other's pieces while they render."""
    monkeypatch.setattr(render, "PIECES", 6)
    mails = [letters.letter(at, seat) for at in _moments(3, 6, every=9) for seat in range(3)]
    alone = [_fresh(mail, words("en")) for mail in mails]
    render._pieces.clear()
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(3):
            together = list(pool.map(lambda mail: render.render(mail, COMMAND_HELP), mails))
            assert together == alone
