"""The one source of randomness for matches: a documented, language-independent generator.

Every random outcome of a match (deal, reshuffles, bot choices) is drawn from an `Rng` derived from the
match seed and a label, so an offline verifier can recompute every shuffle:

    key     = HMAC-SHA256(key=seed as UTF-8, msg=label as UTF-8)
    block_i = SHA-256(key || i as 8-byte big-endian), i = 0, 1, 2, ...
    words   = each block split into four 8-byte big-endian unsigned integers, in order
    below(n): take words until one is < 2**64 - (2**64 mod n); return it mod n   (no modulo bias)
    shuffle:  Fisher-Yates from the last index down: for i = len-1 .. 1, j = below(i + 1), swap i and j

Labels used by the engine: "deal", "move:<version>" (the version the move is decided at) and
"bot:<seat>:<version>".
"""
import hashlib
import hmac
import random
from typing import Sequence, TypeVar

T = TypeVar("T")
_WORD_SPACE = 2**64


class Rng:
    def __init__(self, seed: str, label: str):
        """The key is derived on the first draw: most moves draw nothing, and the HMAC was a tenth of a move's
        time in domain.match."""
        self._seed, self._label = seed, label
        self._key: bytes | None = None
        self._counter = 0
        self._words: list[int] = []

    @classmethod
    def derive(cls, seed: str, label: str) -> "Rng":
        return cls(seed, label)

    def _next_word(self) -> int:
        if not self._words:
            if self._key is None:
                self._key = hmac.new(self._seed.encode(), self._label.encode(), hashlib.sha256).digest()
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._words = [int.from_bytes(block[i:i + 8], "big") for i in range(24, -1, -8)]
        return self._words.pop()

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _WORD_SPACE - _WORD_SPACE % n
        while True:
            word = self._next_word()
            if word < limit:
                return word % n

    def shuffled(self, items: Sequence[T]) -> list[T]:
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.below(i + 1)
            result[i], result[j] = result[j], result[i]
        return result

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def python_random(self) -> random.Random:
        """A fast generator seeded from this stream, for bots' searches (not for anything logged)."""
        return random.Random(self._next_word())
