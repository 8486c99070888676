"""Dice: reproducible from a per-campaign secret seed.

Rolls are drawn from streams: ``public`` for open rolls, ``secret-<side>`` for one
side's secret rolls.  The n-th roll of a stream takes its faces from
HMAC-SHA256(seed, "roll:<stream>:n:0") (then ":1", ... if more bytes are needed): each
byte below 252 gives one face (byte % 6 + 1; 252 = 42 × 6, so every face is equally
likely), bytes ≥ 252 are skipped.  Separate streams keep the dice of a player's open
rolls independent of how many secret rolls his opponent made.  Rolls made before
streams existed (stream "") used the campaign-wide count: "roll:n:0".

Publishing SHA-256(seed) before the first roll and the seed at the end lets either
player recompute every roll.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING

DICE_COUNT = {"dr": 1, "DR": 2}


def new_seed() -> tuple[str, str]:
    """A fresh secret seed and its published SHA-256."""
    seed = secrets.token_hex(32)
    return seed, seed_hash(seed)


def seed_hash(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


PUBLIC_STREAM = "public"


def stream_of(side: str, *, secret: bool) -> str:
    """The stream a roll draws from: open rolls share one, each side's secret rolls
    have their own."""
    return f"secret-{side}" if secret else PUBLIC_STREAM


def faces(seed: str, seq: int, dice: str, stream: str = "") -> list[int]:
    """The faces of draw ``seq`` of ``stream`` ("" = the campaign-wide count of rolls
    made before streams existed)."""
    count = DICE_COUNT[dice]
    out: list[int] = []
    block = 0
    prefix = f"roll:{stream}:{seq}" if stream else f"roll:{seq}"
    while len(out) < count:
        digest = hmac.new(seed.encode(), f"{prefix}:{block}".encode(), hashlib.sha256).digest()
        out.extend(b % 6 + 1 for b in digest if b < 252)
        block += 1
    return out[:count]


if TYPE_CHECKING:
    from rules.schema import DiceApart


def read_apart(apart: DiceApart, faces: Sequence[int]) -> str:
    """The result of a DR read die by die (``Table.apart``; C1.31's error DR, Sicily
    British chart footnote i): its faces are (colored, white); the white dr halved,
    rounded up, where the rules say so."""
    colored, white = faces[0], faces[1]
    if apart.white_halved:
        white = -(-white // 2)  # FRU
    hexes = f"{white} hex" if white == 1 else f"{white} hexes"
    return apart.text.format(colored=colored, white=white, white_hexes=hexes) + f" ({apart.rule})"
