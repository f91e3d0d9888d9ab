"""Which mail each player gets at a moment of a game: its kind, its subject and its view.

Pure: the service passes a state and plain facts about the seats; out come `view.Mail`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine import (
    Event,
    Phase,
    State,
    Termination,
    what_is_asked,
)
from pbem import view
from pbem.kinds import LineOutcome, MailKind
from pbem.view import Answer, LineResult, Mail, Player


@dataclass(frozen=True)
class Moment:
    """What every mail about one moment of a game shares; built once per round."""

    game: int
    board: view.Board
    happened: tuple[str, ...]
    decision: view.Decision | None  # the open decision, without a deadline
    final: view.Final | None
    waiting: str
    summary: str  # the open decision in a few words, for subjects
    picture: str | None
    paused: bool = False  # by the game master: nobody may move, so nobody is prompted

    @property
    def everyone(self) -> tuple[Player, ...]:
        return self.board.players


def moment(
    game: int,
    state: State,
    names: Sequence[str],
    bots: Sequence[bool],
    events: Sequence[Event] = (),
    picture: str | None = None,
    *,
    announced: Sequence[str] = (),
    ended: Termination | None = None,
    paused: bool = False,
    resigned: Sequence[bool] = (),
) -> Moment:
    """`announced`: what the service or the game master did, told before the events;
    `ended`: why the game ended when the rules did not end it (the game master did)."""
    board = view.board(state, names, bots, resigned)
    over = ended is not None or state.decision is None
    return Moment(
        game=game,
        board=board,
        happened=(*announced, *view.happened(events)),
        decision=None if over else view.decision(state),
        final=view.final(state, board.players, ended) if over else None,
        waiting=waiting(state, names, over=over, paused=paused),
        summary=summary(state),
        picture=picture,
        paused=paused,
    )


def waiting(state: State, names: Sequence[str], *, over: bool = False, paused: bool = False) -> str:
    """Whose decision it is, in a sentence."""
    decision = state.decision
    if decision is None or over:
        return "The game is over."
    if paused:
        return (
            f"The game master paused the game at decision {decision.number}, "
            f"{names[decision.seat]}'s ({decision.colour}): no move can be made until it resumes."
        )
    return (
        f"Now waiting for {names[decision.seat]} ({decision.colour}), "
        f"decision {decision.number}: {_lower_first(what_is_asked(state))}"
    )


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def summary(state: State) -> str:
    decision = state.decision
    if decision is None:
        return "the game is over"
    return {
        Phase.SETUP: "place a set-up boat on Tonga",
        Phase.TURN: "start your turn",
        Phase.EMIGRATE: "choose the next emigration",
        Phase.LAND: f"land your group on {decision.island}",
        Phase.PUT_TILE: f"place tile {decision.tile}",
        Phase.COLONY_BOAT: f"put a boat on {decision.island}",
    }[decision.kind]


def welcome(at: Moment, seat: int) -> Mail:
    return Mail(
        kind=MailKind.WELCOME,
        game=at.game,
        subject=f"Welcome to game {at.game}",
        you=at.everyone[seat],
        seats=at.everyone,
    )


def letter(
    at: Moment,
    seat: int,
    *,
    results: Sequence[LineResult] = (),
    answers: Sequence[Answer] = (),
    remark: str = "",
    subject: str = "",
    news: bool = True,
    show_board: bool = True,
    deadline: view.Deadline | None = None,
) -> Mail:
    """The mail `seat` gets now: their prompt, news of the game, an error or the final result.

    `results` and `answers` are for the player whose reply caused this moment.
    """
    decision = at.decision
    mine = decision is not None and not at.paused and at.everyone[seat].colour == decision.colour
    rejected = any(r.outcome == LineOutcome.REJECTED for r in results)
    happened = at.happened if news else ()
    headline = subject
    if rejected and not mine:
        kind, subject = MailKind.ERROR, "Not applied: see why"
    elif at.final is not None:
        kind, subject = MailKind.GAME_OVER, _game_over_subject(at)
    elif mine:
        kind, subject = MailKind.PROMPT, ""
    elif not happened:
        said = [r.line for r in results if r.outcome in (LineOutcome.ANSWERED, LineOutcome.APPLIED)]
        asked = [line.split()[0].lower()[:20] for line in said]
        asked = asked or [a.kind for a in answers]
        kind, subject = MailKind.ANSWER, "Your answer: " + ", ".join(dict.fromkeys(asked))
    elif at.paused and decision is not None:
        kind, subject = MailKind.UPDATE, f"Paused at decision {decision.number}"
    else:
        kind, subject = MailKind.UPDATE, f"Waiting for {_decider(at)}"
    if headline and kind in (MailKind.UPDATE, MailKind.ANSWER):
        subject = headline
    if mine and decision is not None:
        decision = replace(decision, deadline=deadline)
        subject = subject or f"Your move: {at.summary} (decision {decision.number})"
        if rejected:  # the open decision is theirs: a prompt, with the refused line inside
            subject += "; a line of your reply was not applied"
    return Mail(
        kind=kind,
        game=at.game,
        subject=subject,
        you=at.everyone[seat],
        remark=remark,
        results=tuple(results),
        answers=tuple(answers),
        happened=happened,
        waiting=at.waiting if not mine and at.final is None else "",
        until=deadline if not mine and at.final is None else None,
        decision=decision if mine else None,
        board=at.board if show_board or mine or at.final else None,
        final=at.final,
        picture=at.picture if show_board or mine or at.final else None,
    )


def reminder(at: Moment, seat: int, deadline: view.Deadline | None) -> Mail:
    assert at.decision is not None
    return Mail(
        kind=MailKind.REMINDER,
        game=at.game,
        subject=f"Reminder: {at.summary} (decision {at.decision.number})",
        you=at.everyone[seat],
        decision=replace(at.decision, deadline=deadline),
        board=at.board,
        picture=at.picture,
    )


def watch(
    at: Moment,
    name: str,
    *,
    results: Sequence[LineResult] = (),
    answers: Sequence[Answer] = (),
    subject: str = "",
) -> Mail:
    """The mail of someone who watches the game: the news, the board and the final result;
    never a decision to make."""
    you = Player(seat=-1, name=name, colour="", points=0, islands=(), reserve=0)
    if at.final is not None:
        kind, title = MailKind.GAME_OVER, _game_over_subject(at)
    else:
        kind, title = MailKind.WATCH, "Watching: the game is paused"
        if at.decision is not None and not at.paused:
            title = f"Watching: waiting for {_decider(at)} (decision {at.decision.number})"
    return Mail(
        kind=kind,
        game=at.game,
        subject=subject or title,
        you=you,
        results=tuple(results),
        answers=tuple(answers),
        happened=at.happened,
        waiting=at.waiting if at.final is None else "",
        board=at.board,
        final=at.final,
        seats=at.everyone,
        picture=at.picture,
    )


def _decider(at: Moment) -> str:
    assert at.decision is not None
    player = next(p for p in at.everyone if p.colour == at.decision.colour)
    return f"{player.name} ({player.colour})"


def _game_over_subject(at: Moment) -> str:
    assert at.final is not None
    winners = [player.name for rank, player, _ in at.final.standings if rank == 1]
    return f"Game over: {' and '.join(winners)} {'won' if len(winners) == 1 else 'share the win'}"
