"""Which mail each player gets at a moment of a game: its kind, its subject and its view.

Pure: the service passes a state and plain facts about the seats; out come `view.Mail`s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from engine import (
    START_ISLAND,
    Decision,
    Event,
    Joined,
    Message,
    Outcome,
    Phase,
    Position,
    State,
    Termination,
    tile_words,
)
from pbem.core import LineOutcome, MailKind
from pbem.views import news, view
from pbem.views.final import final as final_table
from pbem.views.i18n import listed, with_names
from pbem.views.view import Answer, LineResult, Mail, Player


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
    events: tuple[Event, ...] = ()  # what happened in this round, as the engine told it
    announced: tuple[str, ...] = ()  # what the service or the game master did, told first
    tiles: Mapping[Position, tuple[str, int]] = field(default_factory=dict)  # State.tiles

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
    outcome: Outcome | None = None,
    paused: bool = False,
    resigned: Sequence[bool] = (),
    removed: Sequence[bool] = (),
) -> Moment:
    """`announced`: what the service or the game master did, told before the events;
    `outcome`: the game's score when it is not the state's alone (`Table.outcome`: the game
    master may have ended it)."""
    board = view.marked(view.board(state, names, bots, resigned, removed), view.changes(events))
    tiles = state.tiles  # a snapshot of its own
    outcome = outcome or state.standings()
    over = state.decision is None or outcome.termination is Termination.GAME_MASTER
    return Moment(  # what players read names the islands in their language
        game=game,
        board=board,
        happened=(*announced, *with_names(view.happened(events, tiles))),
        decision=None if over else with_names(view.decision(state)),
        final=with_names(final_table(outcome, board.players)) if over else None,
        waiting=with_names(waiting(state, names, over=over, paused=paused)),
        summary=with_names(summary(state)),
        picture=picture,
        paused=paused,
        events=tuple(events),
        announced=tuple(announced),
        tiles=tiles,
    )


def waiting(state: State, names: Sequence[str], *, over: bool = False, paused: bool = False) -> str:
    """Whose decision it is, in a sentence."""
    decision = state.decision
    if decision is None or over:
        return Message("The game is over.")
    if paused:
        return Message(
            "The game master paused the game at decision {number}, "
            "{name}'s ({colour}): no move can be made until it resumes.",
            number=decision.number,
            name=names[decision.seat],
            colour=news.colour(decision.colour),
        )
    return awaited(decision, names[decision.seat])


def awaited(decision: Decision, name: str) -> str:
    """What the table awaits, in prose for those who wait (issue 29): the player who decides
    reads the same decision as what they must do, with the commands, in their prompt."""
    said = {
        "name": name,
        "colour": news.colour(decision.colour),
        "number": decision.number,
    }
    kind = decision.kind
    if kind is Phase.SETUP:
        return Message(
            "Now waiting for {name} ({colour}) to put a set-up boat on a beach of {island} "
            "(decision {number}).",
            island=START_ISLAND,
            **said,
        )
    if kind is Phase.TURN:
        return Message(
            "Now waiting for {name} ({colour}) to start the turn (decision {number}).", **said
        )
    if kind is Phase.EMIGRATE:
        return Message(
            "Now waiting for {name} ({colour}) to choose which full beach emigrates next "
            "(decision {number}).",
            **said,
        )
    if kind is Phase.LAND:
        return Message(
            "Now waiting for {name} ({colour}) to land the group arriving at {island} "
            "(decision {number}).",
            island=decision.island,
            **said,
        )
    if kind is Phase.PUT_TILE:
        return Message(
            "Now waiting for {name} ({colour}) to place the drawn tile {tile} (decision {number}).",
            tile=tile_words(decision.tile or ""),
            **said,
        )
    return Message(
        "Now waiting for {name} ({colour}) to put a boat on a beach of the new island {island} "
        "(decision {number}).",
        island=decision.island,
        **said,
    )


def summary(state: State) -> str:
    decision = state.decision
    if decision is None:
        return Message("the game is over")
    kind = decision.kind
    if kind is Phase.LAND:
        return Message("land your group on {island}", island=decision.island)
    if kind is Phase.PUT_TILE:
        return Message("place tile {tile}", tile=tile_words(decision.tile or ""))
    if kind is Phase.COLONY_BOAT:
        return Message("put a boat on {island}", island=decision.island)
    return {
        Phase.SETUP: Message("place a set-up boat on Tonga"),
        Phase.TURN: Message("start your turn"),
        Phase.EMIGRATE: Message("choose the next emigration"),
    }[kind]


def welcome(at: Moment, seat: int) -> Mail:
    return Mail(
        kind=MailKind.WELCOME,
        game=at.game,
        subject=Message("Welcome to game {game}", game=at.game),
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
    earlier: Sequence[Event] = (),
) -> Mail:
    """The mail `seat` gets now: their prompt, news of the game, an error or the final result.

    `results` and `answers` are for the player whose reply caused this moment; `earlier`:
    what happened before this round since the last mail `seat` got, told and marked too.
    """
    decision = at.decision
    mine = decision is not None and not at.paused and at.everyone[seat].colour == decision.colour
    rejected = any(r.outcome == LineOutcome.REJECTED for r in results)
    done = [n for n, r in enumerate(results, 1) if r.outcome == LineOutcome.APPLIED]
    happened, board = _since(at, news, earlier)
    kind, said = _kind(at, results, answers, happened, mine=mine, rejected=rejected, done=done)
    if subject and kind in (MailKind.UPDATE, MailKind.ANSWER):
        said = subject  # the headline given
    if mine and decision is not None:
        decision = replace(decision, deadline=deadline)
        said = said or _prompt_subject(at, decision.number, rejected)
    shown = show_board or mine or at.final is not None
    return Mail(
        kind=kind,
        game=at.game,
        subject=said,
        you=at.everyone[seat],
        notice=_partly_applied(at.game, done, results) if rejected and done else "",
        remark=remark,
        results=with_names(tuple(results)),  # 'applied: expand Fiji a' in English
        answers=with_names(tuple(answers)),  # the log says Fiji in English too
        happened=happened,
        waiting=at.waiting if not mine and at.final is None else "",
        until=deadline if not mine and at.final is None else None,
        decision=decision if mine else None,
        board=board if shown else None,
        final=at.final,
        picture=at.picture if shown else None,
    )


def _since(at: Moment, news: bool, earlier: Sequence[Event]) -> tuple[tuple[str, ...], view.Board]:
    """What a mail tells as happened and its board: this round's news, or with `earlier`
    (what happened since the reader's last mail) told and marked too."""
    happened = at.happened if news else ()
    if not earlier:
        return happened, at.board
    if news and not at.announced:  # told with this round's events, so that they read on
        happened = with_names(view.happened((*earlier, *at.events), at.tiles))
    else:
        told = view.happened(earlier, at.tiles, later=at.events)
        happened = (*with_names(told), *happened)
    return happened, view.marked(at.board, view.changes((*earlier, *at.events)))


def _kind(
    at: Moment,
    results: Sequence[LineResult],
    answers: Sequence[Answer],
    happened: Sequence[str],
    *,
    mine: bool,
    rejected: bool,
    done: Sequence[int],
) -> tuple[MailKind, str]:
    """The kind of the mail and its subject ("" for a prompt: `_prompt_subject`)."""
    if rejected and not mine and not done:
        return MailKind.ERROR, Message("Not applied: see why")
    if at.final is not None:
        return MailKind.GAME_OVER, _game_over_subject(at)
    if mine:
        return MailKind.PROMPT, ""
    if not happened:
        said = [r.line for r in results if r.outcome in (LineOutcome.ANSWERED, LineOutcome.APPLIED)]
        asked = [line.split()[0].lower()[:20] for line in said]
        asked = asked or [a.kind for a in answers]
        commands = ", ".join(dict.fromkeys(asked))
        return MailKind.ANSWER, Message("Your answer: {commands}", commands=commands)
    if at.paused and at.decision is not None:
        return MailKind.UPDATE, Message("Paused at decision {number}", number=at.decision.number)
    if rejected:  # lines were applied, then one was refused: news of the game, and why
        return MailKind.UPDATE, Message(
            "Waiting for {player}; a line of your reply was not applied", player=_decider(at)
        )
    return MailKind.UPDATE, Message("Waiting for {player}", player=_decider(at))


def _prompt_subject(at: Moment, number: int, rejected: bool) -> str:
    """The subject of a prompt; `rejected`: with the refused line of the reply inside."""
    if rejected:
        return Message(
            "Your move: {summary} (decision {number}); a line of your reply was not applied",
            summary=at.summary,
            number=number,
        )
    return Message("Your move: {summary} (decision {number})", summary=at.summary, number=number)


def changes(
    at: Moment,
    seat: int,
    happened: Sequence[str],
    *,
    subject: str = "",
    deadline: view.Deadline | None = None,
    remark: str = "",
) -> Mail:
    """A short mail of changes that are no move (a deadline, an observer, a bot): the lines,
    whose decision it is and until when; no board, no picture, no prompt again (the one who
    decides answers the mail that asked them)."""
    return Mail(
        kind=MailKind.UPDATE,
        game=at.game,
        subject=subject or Message("News of game {game}", game=at.game),
        you=at.everyone[seat],
        remark=remark,
        happened=tuple(happened),
        waiting=at.waiting if at.final is None else "",
        until=deadline if at.final is None and at.decision is not None else None,
        final=at.final,
    )


def talk(at: Moment, seat: int) -> Mail:
    """A mail of table talk alone (the talk is the envelope's): whose decision it is."""
    return Mail(
        kind=MailKind.UPDATE,
        game=at.game,
        subject=Message("Table talk in game {game}", game=at.game),
        you=at.everyone[seat],
        waiting=at.waiting if at.final is None else "",
    )


def _partly_applied(game: int, done: Sequence[int], results: Sequence[LineResult]) -> str:
    """What a reply did when its first lines were applied and a later one was refused."""
    refused = next(n for n, r in enumerate(results, 1) if r.outcome == LineOutcome.REJECTED)
    lines = Joined(", ", [str(n) for n in done])
    if len(done) == 1:
        return Message(
            "Your mail to game {game} was applied in part: line {lines} was applied, "
            "line {refused} was not (why is below) and nothing after it was read.",
            game=game,
            lines=lines,
            refused=refused,
        )
    return Message(
        "Your mail to game {game} was applied in part: lines {lines} were applied, "
        "line {refused} was not (why is below) and nothing after it was read.",
        game=game,
        lines=lines,
        refused=refused,
    )


def reminder(at: Moment, seat: int, deadline: view.Deadline | None) -> Mail:
    assert at.decision is not None
    return Mail(
        kind=MailKind.REMINDER,
        game=at.game,
        subject=Message(
            "Reminder: {summary} (decision {number})",
            summary=at.summary,
            number=at.decision.number,
        ),
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
        kind, title = MailKind.WATCH, Message("Watching: the game is paused")
        if at.decision is not None and not at.paused:
            title = Message(
                "Watching: waiting for {player} (decision {number})",
                player=_decider(at),
                number=at.decision.number,
            )
    return Mail(
        kind=kind,
        game=at.game,
        subject=subject or title,
        you=you,
        results=with_names(tuple(results)),  # 'applied: expand Fiji a' in English
        answers=with_names(tuple(answers)),  # the log says Fiji in English too
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
    return Message("{name} ({colour})", name=player.name, colour=news.colour(player.colour))


def _game_over_subject(at: Moment) -> str:
    assert at.final is not None
    winners = [player.name for rank, player, _ in at.final.standings if rank == 1]
    if len(winners) == 1:
        return Message("Game over: {name} won", name=winners[0])
    return Message("Game over: {names} share the win", names=listed(winners))
