"""AliasMatcher.scan finds every alias occurrence, in text order, as a step per token does."""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterator

from kgcert.loaders.wikidata_common import AliasMatcher, earliest_alias, words


def _step_by_step(matcher: AliasMatcher, tokens: list[str]
                  ) -> Iterator[tuple[int, int, set[Hashable]]]:
    """The scan as one Python step per token (what scan skips ahead of)."""
    for position in range(len(tokens)):
        for length in matcher._lengths.get(tokens[position], ()):
            found = matcher._owners.get(tuple(tokens[position:position + length]))
            if position + length <= len(tokens) and found:
                yield position, length, found


def test_scan_matches_a_step_per_token_on_random_texts() -> None:
    draw = random.Random(7)
    vocabulary = [f"w{i}" for i in range(12)]
    for _ in range(300):
        matcher = AliasMatcher()
        pairs = [(tuple(draw.choices(vocabulary, k=draw.randint(1, 3))), draw.randint(0, 4))
                 for _ in range(draw.randint(0, 6))]
        matcher.add_keys(pairs)
        tokens = draw.choices(vocabulary, k=draw.randint(0, 30))
        assert list(matcher.scan(tokens)) == list(_step_by_step(matcher, tokens))


def test_add_keys_is_add_in_order_and_skips_empty_keys() -> None:
    one, many = AliasMatcher(), AliasMatcher()
    pairs = [(("new", "york"), 1), ((), 2), (("york",), 3), (("new", "york"), 4)]
    for key, owner in pairs:
        one.add(key, owner)
    many.add_keys(pairs)
    assert one._owners == many._owners and one._lengths == many._lengths
    tokens = words("New York, or york: NEW YORK")
    assert [(p, n, sorted(o)) for p, n, o in many.scan(tokens)] == \
        [(0, 2, [1, 4]), (1, 1, [3]), (3, 1, [3]), (4, 2, [1, 4]), (5, 1, [3])]
    assert earliest_alias("It was in York, then New York.", ["New York", "York"]) == "York"
