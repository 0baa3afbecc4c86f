"""A whole Bananagrams game, simulated for one player, every step validated.

Rules as played (the official leaflet): the 144-tile bag; each player starts
with 21 tiles (2–4 players), 15 (5–6) or 11 (7–8). When a player has placed
every tile they call "Peel!" and every player takes one more. A player stuck
with a tile may *dump* it: put it back in the bag and take three.

The simulation follows one board through the whole bag, which is the hardest
case: it takes the opening hand of ``players`` and, at each peel, the
``players`` tiles the table would take, until all 144 are placed. Each peel
goes to heuristics.peel (attach, repair, resolve). When the rack cannot be
placed the player dumps by the stated policy ``hardest``: the rack letter
found in the fewest 2- to 4-letter words of the lexicon, so the letters that
hook worst go back first. A dump needs three tiles in the bag; the game ends
unfinished when a rack cannot be placed and no dump is possible (or after
``max_dumps`` dumps in a row).

Every step's layout passes cpmodel.core.validate against the tiles held minus the
rack, so a step that broke a rule would stop the game with an AssertionError.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from cpmodel.core.boards import layout_rows
from cpmodel.core.control import Control
from cpmodel.core.specs import banana_bag
from cpmodel.core.validate import check_banana
from heuristics.bananagrams import ALPHABET, WordTable
from heuristics.peel import STUCK, PeelLimits, peel

START, PEEL, DUMP = "start", "peel", "dump"


def opening_hand(players: int) -> int:
    """Tiles each player draws at the start (official rules; a solo game uses 21)."""
    if not 1 <= players <= 8:
        raise ValueError(f"players must be 1 to 8, got {players}")
    return 21 if players <= 4 else 15 if players <= 6 else 11


@dataclass
class Step:
    action: str  # start | peel | dump
    drawn: str  # tiles taken from the bag in this step
    dumped: str  # the tile put back (dump steps)
    hand: str  # every tile held: on the board and in the rack
    rack: str  # tiles held but not on the board after the step
    grid: list[str] | None  # the layout after the step, '.' for empty
    moved: int  # tiles of the previous layout no longer on their cell
    stage: str  # how the peel placed the tiles (attach, repair, resolve) or stuck
    seconds: float
    nodes: int

    def to_json(self) -> dict:
        return {"action": self.action, "drawn": self.drawn, "dumped": self.dumped, "hand": self.hand,
                "rack": self.rack, "grid": self.grid, "moved": self.moved, "stage": self.stage,
                "seconds": round(self.seconds, 4), "nodes": self.nodes}


@dataclass
class Game:
    seed: int
    players: int
    policy: str
    steps: list[Step] = field(default_factory=list)
    board: dict = field(default_factory=dict)  # the final layout
    placed_in: dict = field(default_factory=dict)  # cell → index of the step that put its tile there
    bag_left: int = 0
    stopped_by: str | None = None

    @property
    def finished(self) -> bool:
        """All 144 tiles on one valid board."""
        return self.bag_left == 0 and len(self.board) == 144 and not self.steps[-1].rack

    def to_json(self) -> dict:
        peels = [s for s in self.steps if s.action == PEEL]
        return {"puzzle": "banana-game", "seed": self.seed, "players": self.players, "dump_policy": self.policy,
                "finished": self.finished, "tiles_placed": len(self.board), "bag_left": self.bag_left,
                "peels": len(peels), "dumps": sum(s.action == DUMP for s in self.steps),
                "moved_total": sum(s.moved for s in self.steps), "stopped_by": self.stopped_by,
                "seconds": round(sum(s.seconds for s in self.steps), 4),
                "steps": [s.to_json() for s in self.steps]}


def hardness(table: WordTable) -> dict[str, int]:
    """Letter → how many 2- to 4-letter words hold it (fewer = harder to place)."""
    short = (table.lengths >= 2) & (table.lengths <= 4)
    holding = (table.counts[short] > 0).sum(axis=0)
    return {letter: int(n) for letter, n in zip(ALPHABET, np.asarray(holding).tolist(), strict=True)}


def play(table: WordTable, seed: int, players: int = 1, control: Control | None = None,
         limits: PeelLimits | None = None, max_dumps: int = 10) -> Game:
    """Simulate one game from ``seed``; each step is validated before it is logged."""
    control = control or Control()
    rng = random.Random(seed)
    bag = banana_bag()
    rng.shuffle(bag)
    game = Game(seed, players, "hardest")
    difficulty = hardness(table)
    held: Counter = Counter()
    rack = ""

    def draw(n: int) -> str:
        taken = "".join(bag.pop() for _ in range(min(n, len(bag))))
        held.update(taken)
        return taken

    def place(action: str, drawn: str, dumped: str) -> bool:
        nonlocal rack
        rack += drawn
        result = peel(game.board, rack, table, control, limits)
        old = game.board
        if result.cells is not None:
            game.board, rack = result.cells, ""
        placed = held - Counter(rack)
        if game.board:
            check_banana(game.board, "".join(sorted(placed.elements())), table.word_set)
        index = len(game.steps)
        game.placed_in = {cell: (game.placed_in[cell] if old.get(cell) == letter else index)
                          for cell, letter in game.board.items()}
        game.steps.append(Step(action, "".join(sorted(drawn)), dumped, "".join(sorted(held.elements())),
                               "".join(sorted(rack)), layout_rows(game.board) if game.board else None,
                               result.moved, result.stage, result.seconds, result.nodes))
        if result.stage == STUCK:
            game.stopped_by = result.stopped_by
        return result.cells is not None

    ok = place(START, draw(opening_hand(players)), "")
    dumps_in_a_row = 0
    while not control.stop_reason():
        if ok:
            dumps_in_a_row = 0
            if not bag:
                break  # every tile placed
            ok = place(PEEL, draw(players), "")
            continue
        if len(bag) < 3 or dumps_in_a_row >= max_dumps:
            break  # stuck, and no dump can help
        tile = min(rack, key=lambda letter: (difficulty[letter], letter))
        rack = rack.replace(tile, "", 1)
        held[tile] -= 1
        bag.insert(rng.randrange(len(bag) + 1), tile)  # mixed back into the bag
        dumps_in_a_row += 1
        ok = place(DUMP, draw(3), tile)
    game.bag_left = len(bag)
    if control.stop_reason():
        game.stopped_by = control.stop_reason()
    elif ok:
        game.stopped_by = None  # a peel that got stuck earlier was overcome by a dump
    return game
