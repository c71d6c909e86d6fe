"""large-tiles: the rule's proved sites, and where it could not size the copies, one guessed site at half weight
that verification settles (the editor does not offer it before)."""

from __future__ import annotations

from paths import EXAMPLES

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import load_operator

MOTIF = MOTIFS["large-tiles"]


def test_a_proved_site_has_the_rules_edit_and_the_values_in_between():
    [site] = MOTIF.detect(MotifContext(load_operator(EXAMPLES / "add_custom_slow_tiny_tiles")))
    assert site.weight == 1.0 and site.edits and site.edits[0].new_text == "8192"
    assert [label for label, _ in site.alternatives] == [
        "TILE_LENGTH = 128",
        "TILE_LENGTH = 512",
        "TILE_LENGTH = 2048",
    ]


def test_an_unproved_tile_constant_is_one_guess_at_half_weight():
    [site] = MOTIF.detect(MotifContext(load_operator(EXAMPLES / "rms_norm")))
    assert site.weight == 0.5 and "not proved" in site.why and site.edits


def test_a_constant_that_is_neither_declared_tunable_nor_named_a_tile_is_no_guess():
    sites = MOTIF.detect(MotifContext(load_operator(EXAMPLES / "leaky_relu")))
    assert all(s.weight == 1.0 for s in sites)  # SCRATCH_TILES beside a proved TILE_LENGTH site: no guess added
