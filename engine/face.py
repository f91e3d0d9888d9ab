"""The engine's face: every name the package `engine` offers, grouped below by what a
program does with it, each imported from the module that makes it. `engine/__init__.py`
loads this module when a program first uses one of these names; import them from `engine`,
never from here.

Outside the engine, a game is played through `State`: `decision` says who must decide what,
`legal_choices` lists the options in a fixed order, `is_legal` says whether a choice (or a
shorter form of one) would be accepted, `resolve` fills in its shorter form or raises the
refusal (a `ChoiceError` with a translatable `Message`), and `apply` makes it and returns the
events. Views read the game through the state's queries, never its data. The benchmarks'
hooks into the engine's caches are in `engine.hooks`, not here.
"""

from engine.board import RouteEnd, Voyage, empty_places
from engine.botkind import BOT_KINDS, BotKind
from engine.bots import Bot, GreedyBot, RandomBot, make_bot
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
    DirectionError,
    EngineError,
    GameOverError,
    IllegalChoiceError,
    IslandNameError,
    NotationError,
)
from engine.events import (
    BoatMoved,
    BoatsPlaced,
    BoatsRecalled,
    ChoiceMade,
    Event,
    Events,
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
from engine.explain import WHO, explain_direction, explain_illegal, explain_island, what_is_asked
from engine.hexgrid import (
    CENTRE,
    DIRECTION_WORDS,
    DIRECTIONS,
    Position,
    neighbour,
    opposite,
    parse_direction,
)
from engine.message import N_, Joined, Message, counted
from engine.notation import SYNTAX, is_move_word, parse_choice
from engine.outcome import DecidedBy, Outcome, Standing, Termination
from engine.phase import Decision, Phase
from engine.previews import (
    Aftermath,
    Arrival,
    ClosedPreview,
    Crossing,
    Draw,
    Emigration,
    End,
    FullBeach,
    Next,
    Nothing,
    OpenWater,
    Placement,
    Preview,
    Removal,
    Returned,
    TilePreview,
    TrailView,
    preview,
)
from engine.setup import Setup, SetupError, tile_name
from engine.state import State
from engine.tiles import (
    BEACH_LETTERS,
    ISLAND_ALIASES,
    ISLANDS,
    SEAS,
    STACK_TILES,
    START_ISLAND,
    TILES,
    IslandTile,
    SeaTile,
    match_island,
    tile_words,
    without_accents,
)

# A game: its set-up, the state (`State.decision`, `legal_choices`, `is_legal`, `resolve`,
# `apply`, and the queries views read), whose decision it is, the end and the score
__all__ = [
    "BOATS_PER_PLAYER",
    "BY_LETTER",
    "COLOURS",
    "LETTERS",
    "DecidedBy",
    "Decision",
    "Outcome",
    "Phase",
    "Setup",
    "SetupError",
    "Standing",
    "State",
    "Termination",
    "tile_name",
]

# The choices, their text form (`str(choice)`, `parse_choice`) and the refusals
__all__ += [
    "SYNTAX",
    "WHO",
    "AmbiguousChoiceError",
    "Choice",
    "ChoiceError",
    "Colonise",
    "DirectionError",
    "Emigrate",
    "EmigrateClosed",
    "EngineError",
    "Expand",
    "FoundRoyal",
    "GameOverError",
    "IllegalChoiceError",
    "IslandNameError",
    "Land",
    "NotationError",
    "Pass",
    "Place",
    "PutTile",
    "explain_direction",
    "explain_illegal",
    "explain_island",
    "is_move_word",
    "parse_choice",
    "what_is_asked",
]

# What happened: the events `State.apply` returns
__all__ += [
    "BoatMoved",
    "BoatsPlaced",
    "BoatsRecalled",
    "ChoiceMade",
    "Event",
    "Events",
    "GameEnded",
    "GroupArrived",
    "GroupLanded",
    "GroupSailed",
    "IslandRemoved",
    "RoyalIslandFounded",
    "StayedAtSea",
    "TileDrawn",
    "TilePlaced",
    "TurnPassed",
    "TurnStarted",
    "TurnedBack",
    "VoyageFailed",
    "VoyagePassed",
]

# What a choice would do, before it is made (`preview`)
__all__ += [
    "Aftermath",
    "Arrival",
    "ClosedPreview",
    "Crossing",
    "Draw",
    "Emigration",
    "End",
    "FullBeach",
    "Next",
    "Nothing",
    "OpenWater",
    "Placement",
    "Preview",
    "Removal",
    "Returned",
    "TilePreview",
    "TrailView",
    "preview",
]

# The table: tiles, islands, positions and directions, routes
__all__ += [
    "BEACH_LETTERS",
    "CENTRE",
    "DIRECTIONS",
    "DIRECTION_WORDS",
    "ISLANDS",
    "ISLAND_ALIASES",
    "SEAS",
    "STACK_TILES",
    "START_ISLAND",
    "TILES",
    "IslandTile",
    "Position",
    "RouteEnd",
    "SeaTile",
    "Voyage",
    "empty_places",
    "match_island",
    "neighbour",
    "opposite",
    "parse_direction",
    "tile_words",
    "without_accents",
]

# The bots
__all__ += [
    "BOT_KINDS",
    "Bot",
    "BotKind",
    "GreedyBot",
    "RandomBot",
    "make_bot",
]

# Words for the mails, translated by the service (`Message`, `counted`, `N_`)
__all__ += [
    "N_",
    "Joined",
    "Message",
    "counted",
]
