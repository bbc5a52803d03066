"""errdex/match/_nearc.c: NearIndex's lookup in C (see there and errdex.match.near)."""

from typing_extensions import Buffer

def token_table(ids: dict[str, int], /) -> bytes: ...

class Lookup:
    def __init__(
        self,
        table: Buffer,
        pair_start: Buffer,
        fingerprint: Buffer,
        owner: Buffer,
        words_start: Buffer,
        template_words: Buffer,
        idf: Buffer,
        idf_total: Buffer,
        pair_count: Buffer,
        pair_slots: int,
        pair_templates: int,
        read_cap: int,
        min_words: int,
        candidates: int,
        few_pairs: int,
        threshold: float,
    ) -> None: ...
    def nearest(
        self, lowered: str, /
    ) -> tuple[list[tuple[int, float, tuple[int, int], float]], int]: ...
