"""Tongiaki, the rules: a pure engine (no I/O, no clock, no global randomness).

A game is a `Setup` plus the list of choices made; `State` holds the game in progress,
says who must decide what (`state.decision`), lists the legal choices and applies one.
Views read a game through the queries of `State` (`boats_on`, `free_berths`, `tile_at`,
`position_of`, `reserve_of`, `full_beaches`, `is_legal` ...). Everything outside the
engine imports from this package, never from its modules.
"""

__version__ = "0.2.0"  # of the whole project (pyproject.toml reads it from here)


from engine.board import Board, Route
from engine.bots import BOT_KINDS, Bot, GreedyBot, RandomBot, make_bot
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
from engine.colours import BOATS_PER_PLAYER, BY_LETTER, COLOURS, LETTERS
from engine.errors import (
    AmbiguousChoiceError,
    ChoiceError,
    EngineError,
    GameOverError,
    IllegalChoiceError,
    NotationError,
)
from engine.events import (
    BoatMoved,
    BoatsPlaced,
    BoatsRecalled,
    ChoiceMade,
    Event,
    GameEnded,
    GroupArrived,
    GroupLanded,
    GroupSailed,
    IslandRemoved,
    RoyalIslandFounded,
    StayedAtSea,
    TileDrawn,
    TilePlaced,
    TurnedBack,
    TurnPassed,
    TurnStarted,
    VoyageFailed,
    VoyagePassed,
)
from engine.explain import explain_illegal, what_is_asked
from engine.hexgrid import (
    CENTRE,
    DIRECTION_WORDS,
    DIRECTIONS,
    Position,
    neighbour,
    opposite,
    parse_direction,
)
from engine.notation import SYNTAX, parse_choice
from engine.outcome import Outcome, Standing, Termination
from engine.phase import Decision, Phase
from engine.setup import Setup, SetupError, tile_name
from engine.state import State, clear_listing_caches
from engine.tiles import (
    BEACH_LETTERS,
    ISLANDS,
    SEAS,
    STACK_TILES,
    START_ISLAND,
    TILES,
    IslandTile,
    SeaTile,
    match_island,
)

__all__ = [
    "BEACH_LETTERS",
    "BOATS_PER_PLAYER",
    "BOT_KINDS",
    "BY_LETTER",
    "CENTRE",
    "COLOURS",
    "DIRECTIONS",
    "DIRECTION_WORDS",
    "ISLANDS",
    "LETTERS",
    "SEAS",
    "STACK_TILES",
    "START_ISLAND",
    "SYNTAX",
    "TILES",
    "AmbiguousChoiceError",
    "Board",
    "BoatMoved",
    "BoatsPlaced",
    "BoatsRecalled",
    "Bot",
    "Choice",
    "ChoiceError",
    "ChoiceMade",
    "Colonise",
    "Decision",
    "Emigrate",
    "EmigrateClosed",
    "EngineError",
    "Event",
    "Expand",
    "FoundRoyal",
    "GameEnded",
    "GameOverError",
    "GreedyBot",
    "GroupArrived",
    "GroupLanded",
    "GroupSailed",
    "IllegalChoiceError",
    "IslandRemoved",
    "IslandTile",
    "Land",
    "NotationError",
    "Outcome",
    "Pass",
    "Phase",
    "Place",
    "Position",
    "PutTile",
    "RandomBot",
    "Route",
    "RoyalIslandFounded",
    "SeaTile",
    "Setup",
    "SetupError",
    "Standing",
    "State",
    "StayedAtSea",
    "Termination",
    "TileDrawn",
    "TilePlaced",
    "TurnPassed",
    "TurnStarted",
    "TurnedBack",
    "VoyageFailed",
    "VoyagePassed",
    "__version__",
    "clear_listing_caches",
    "explain_illegal",
    "make_bot",
    "match_island",
    "neighbour",
    "opposite",
    "parse_choice",
    "parse_direction",
    "tile_name",
    "what_is_asked",
]
