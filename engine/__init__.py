"""Tongiaki, the rules: a pure engine (no I/O, no clock, no global randomness).

A game is a `Setup` plus the list of choices made; `State` holds the game in progress,
says who must decide what (`state.decision`), lists the legal choices and applies one.
"""

__version__ = "0.2.0"  # of the whole project (pyproject.toml reads it from here)


from engine.choices import (
    Choice,
    Colonise,
    Emigrate,
    EmigrateClosed,
    Expand,
    FoundRoyal,
    Land,
    Pass,
    Place,
    PutTile,
)
from engine.errors import (
    AmbiguousChoiceError,
    ChoiceError,
    EngineError,
    GameOverError,
    IllegalChoiceError,
    NotationError,
)
from engine.notation import parse_choice
from engine.outcome import Outcome, Standing, Termination
from engine.phase import Phase
from engine.setup import Setup, SetupError
from engine.state import Decision, State

__all__ = [
    "AmbiguousChoiceError",
    "Choice",
    "ChoiceError",
    "Colonise",
    "Decision",
    "Emigrate",
    "EmigrateClosed",
    "EngineError",
    "Expand",
    "FoundRoyal",
    "GameOverError",
    "IllegalChoiceError",
    "Land",
    "NotationError",
    "Outcome",
    "Pass",
    "Phase",
    "Place",
    "PutTile",
    "Setup",
    "SetupError",
    "Standing",
    "State",
    "Termination",
    "__version__",
    "parse_choice",
]
