"""A solo Bananagrams game on the server: the bag, the tiles held, peel, dump and bananas.

The rules are those of heuristics/game.py (the official leaflet, one
player): 21 tiles to start; when every tile held is in one valid layout the
player peels and takes one more; a dump puts a tile back and takes three (it
needs three in the bag); with the bag empty, a valid layout of every tile
held ends the game ("Bananas!"). ``bag`` may be cut below 144 tiles for a
short game. Each move is checked by the project's validator
(cpmodel.core.validate.banana_problems), never by the page.

Where: the page sends its layout as the CLI's text (the tiles' bounding box) with
the board coordinates of that box's first row and column (``top``, ``left``), so
every position given back, in a problem's words or in the tiles it marks, is a
square of the board the player sees, not of the box (which moves as tiles are added).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from cpmodel.core.boards import parse_layout, runs_of
from cpmodel.core.errors import InputError
from cpmodel.core.specs import banana_bag
from cpmodel.core.validate import banana_problems

OPENING = 21


@dataclass
class Game:
    seed: int
    bag: list[str]  # tiles still in the bag, drawn from the end
    held: list[str] = field(default_factory=list)  # every tile the player has: on the board and in the rack
    peels: int = 0
    dumps: int = 0
    finished: bool = False

    def to_json(self) -> dict:
        return {"seed": self.seed, "held": "".join(sorted(self.held)), "tiles": len(self.held),
                "bag_left": len(self.bag), "peels": self.peels, "dumps": self.dumps, "finished": self.finished}


def new_game(seed: int, bag_size: int = 144, hand: str | None = None) -> Game:
    """Shuffle the bag with ``seed``, keep ``bag_size`` tiles, deal the opening hand; or, with
    ``hand`` (typed, checked as the CLI checks a HAND), hold exactly those tiles with an empty bag."""
    if hand is not None:
        from cpmodel.core.specs import parse_hand

        tiles = parse_hand(hand)
        if len(tiles) > 144:
            raise InputError(f"a hand may hold at most 144 tiles (the whole bag), got {len(tiles)}")
        return Game(seed, [], list(tiles))
    if not OPENING <= bag_size <= 144:
        raise InputError(f"the bag holds {OPENING} to 144 tiles, got {bag_size}")
    bag = banana_bag()
    random.Random(seed).shuffle(bag)
    game = Game(seed, bag[:bag_size])
    game.held = [game.bag.pop() for _ in range(OPENING)]
    return game


def on_board(layout: str, top: int = 0, left: int = 0) -> dict:
    """The layout's tiles at the board's coordinates: its first row is row ``top`` of the
    board, its first column column ``left``. {(row, column): letter}; empty for an empty layout."""
    cells = parse_layout(layout) if layout.strip() else {}
    return {(r + top, c + left): letter for (r, c), letter in cells.items()}


def check(game: Game, cells: dict, word_set) -> list[str]:
    """Every rule the tiles on the board break, against every tile held (the validator's words,
    its positions those of ``cells``)."""
    return banana_problems(cells, "".join(game.held), word_set) if cells else ["rule 1: the board is empty"]


def marked(cells: dict, word_set) -> list[tuple[int, int]]:
    """The tiles a broken rule points at: each run that is not a word (rule 3) and each island
    but the largest (rule 2), so the page marks them without reading the problems' words."""
    import networkx as nx

    bad = {cell for _, run in runs_of(cells) if "".join(cells[cell] for cell in run) not in word_set for cell in run}
    graph = nx.Graph()  # built as the validator builds it, so the largest island is the one it names
    graph.add_nodes_from(cells)
    graph.add_edges_from(((r, c), (r + dr, c + dc)) for (r, c) in cells for dr, dc in ((0, 1), (1, 0))
                         if (r + dr, c + dc) in cells)
    islands = sorted(nx.connected_components(graph), key=len, reverse=True)
    return sorted(bad.union(*islands[1:]))


def peel(game: Game, cells: dict, word_set) -> tuple[list[str], str]:
    """Peel (or, with the bag empty, call Bananas): only with a valid layout of every tile held.
    Returns the problems (empty when the move was made) and the tiles drawn."""
    problems = check(game, cells, word_set)
    if problems or game.finished:
        return problems, ""
    if not game.bag:
        game.finished = True
        return [], ""
    drawn = game.bag.pop()
    game.held.append(drawn)
    game.peels += 1
    return [], drawn


def dump(game: Game, tile: str, rng: random.Random) -> str:
    """Put ``tile`` back in the bag at a random place and take three."""
    tile = (tile or "").strip().lower()
    if len(tile) != 1 or tile not in game.held:
        raise InputError(f"dump: {tile!r} is not a tile you hold")
    if len(game.bag) < 3:
        raise InputError(f"dump: the bag holds {len(game.bag)} tiles; a dump needs 3")
    if game.finished:
        raise InputError("dump: the game is over")
    game.held.remove(tile)
    game.bag.insert(rng.randrange(len(game.bag) + 1), tile)
    drawn = "".join(game.bag.pop() for _ in range(3))
    game.held.extend(drawn)
    game.dumps += 1
    return drawn


def rack(game: Game, cells: dict) -> str:
    """The tiles held that are not on the board."""
    placed = Counter(cells.values())
    return "".join(sorted((Counter(game.held) - placed).elements()))
