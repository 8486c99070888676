"""Dice: reproducible from a per-campaign secret seed.

The n-th roll of a campaign takes its faces from HMAC-SHA256(seed, "roll:n"): each
byte below 252 gives one face (byte % 6 + 1; 252 = 42 × 6, so every face is equally
likely), bytes ≥ 252 are skipped.  Publishing SHA-256(seed) before the first roll and
the seed at the end lets either player recompute every roll.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

DICE_COUNT = {"dr": 1, "DR": 2}


def new_seed() -> tuple[str, str]:
    """A fresh secret seed and its published SHA-256."""
    seed = secrets.token_hex(32)
    return seed, seed_hash(seed)


def seed_hash(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def faces(seed: str, seq: int, dice: str) -> list[int]:
    count = DICE_COUNT[dice]
    out: list[int] = []
    block = 0
    while len(out) < count:
        digest = hmac.new(seed.encode(), f"roll:{seq}:{block}".encode(), hashlib.sha256).digest()
        out.extend(b % 6 + 1 for b in digest if b < 252)
        block += 1
    return out[:count]
