"""The texts of the mails: prompts, updates, errors, meta answers, the end of the game.

Plain text for now; every mail is sent as text plus the same text in a simple HTML part.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine import State
from engine.events import ChoiceMade, Event
from engine.explain import what_is_asked
from engine.notation import SYNTAX
from pbem.boardtext import board_text

MAX_LISTED = 120

HELP = (
    """HOW TO PLAY BY MAIL
Reply to a mail that asks for your decision. Write one command per line at the top
of your reply: the number of a listed option, or the command itself. Several lines
are applied in order (for the decisions that follow in your turn) until one fails.

Commands:
"""
    + "\n".join(f"  {text}" for text in SYNTAX.values())
    + """

Beaches are letters a-f, colours B R G Y O P, directions S SW NW N NE SE.
Island names may be shortened (hiva, rar) and written without spaces or accents.
At any time: help, board (the current board), status (whose decision), log (all moves)."""
)


@dataclass(frozen=True)
class LineResult:
    line: str
    outcome: str  # applied | rejected | ignored | answered
    detail: str = ""


def results_text(results: Sequence[LineResult]) -> str:
    lines = ["YOUR REPLY"]
    for result in results:
        detail = f": {result.detail}" if result.detail else ""
        lines.append(f"> {result.line}\n  {result.outcome}{detail}")
    return "\n".join(lines)


def events_text(events: Sequence[Event]) -> str:
    shown = [str(e) for e in events if not (isinstance(e, ChoiceMade) and not e.forced)]
    return "WHAT HAPPENED\n" + "\n".join(f"- {line}" for line in shown) if shown else ""


def options_text(state: State) -> str:
    decision = state.decision
    assert decision is not None
    legal = state.legal_choices()
    lines = [f"YOUR DECISION (number {decision.number})", what_is_asked(state), ""]
    lines += [f"  {n}) {choice}" for n, choice in enumerate(legal[:MAX_LISTED], start=1)]
    if len(legal) > MAX_LISTED:
        lines.append(f"  ... and {len(legal) - MAX_LISTED} more: write the command itself.")
    lines += ["", f"Reply with a number (1-{len(legal)}) or a command, for example: {legal[0]}"]
    return "\n".join(lines)


def waiting_text(state: State, names: Sequence[str]) -> str:
    decision = state.decision
    if decision is None:
        return final_text(state, names)
    who = names[decision.seat]
    return f"Now waiting for {who} ({decision.colour}), decision {decision.number}.\n" + (
        what_is_asked(state)
    )


def final_text(state: State, names: Sequence[str]) -> str:
    outcome = state.standings()
    lines = [f"GAME OVER: {outcome.reason}."]
    for s in outcome.standings:
        seat = state.colours.index(s.colour)
        lines.append(
            f"  {s.rank}. {names[seat]} ({s.colour}): {s.points} points, "
            f"{len(s.islands)} islands, {s.boats} boats on the board"
        )
    tie = {
        "points": "",
        "islands": "Equal points: more islands decided.",
        "boats": "Equal points and islands: fewer boats on the board decided.",
        "shared": "A complete tie: the win is shared.",
    }[outcome.decided_by]
    if tie:
        lines.append(tie)
    return "\n".join(lines)


def body(*sections: str) -> str:
    return "\n\n".join(s for s in sections if s) + "\n"


def board_section(state: State, names: Sequence[str]) -> str:
    return "BOARD\n" + board_text(state, list(names))


def log_text(moves: Sequence[tuple[int, str, str]]) -> str:
    lines = ["LOG (decision, player, choice)"]
    lines += [f"  {number:>3}  {who:<12} {choice}" for number, who, choice in moves]
    return "\n".join(lines)
