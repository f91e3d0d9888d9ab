"""A whole bot game in the terminal: every decision, what followed, the final scores."""

from __future__ import annotations

import argparse

from engine import COLOURS, Setup, State, make_bot


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Watch bots play a game of Tongiaki.")
    parser.add_argument("--seed", type=int, default=2004)
    parser.add_argument("--players", type=int, default=4, choices=range(2, 7))
    parser.add_argument("--bot", choices=("greedy", "random"), default="greedy")
    args = parser.parse_args(argv)
    colours = COLOURS[: args.players]
    state = State(Setup.from_seed(colours, args.seed))
    bots = [make_bot(args.bot, args.seed * 10 + seat) for seat in range(args.players)]
    print(f"Tongiaki, {args.players} {args.bot} bots, seed {args.seed}.")
    print("Stack:", " ".join(state.setup.stack))
    while (decision := state.decision) is not None:
        choice = bots[decision.seat].choose(state)
        print(
            f"#{decision.number} {decision.colour} ({len(state.legal_choices())} options): {choice}"
        )
        for event in state.apply(choice)[1:]:
            print("    " + str(event))
    outcome = state.outcome
    assert outcome is not None
    print(f"\nFinal scores ({outcome.reason}; decided by {outcome.decided_by}):")
    for standing in outcome.standings:
        print(
            f"  {standing.rank}. {standing.colour:<7} {standing.points:>3} points, "
            f"{len(standing.islands)} islands, {standing.boats} boats on the board"
        )


if __name__ == "__main__":
    main()
