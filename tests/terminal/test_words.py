"""The terminal's words for counts and names (the screens' tests read them in place)."""

from __future__ import annotations

from rich.cells import cell_len

from ligretto.terminal.words import fit, plural, together


def test_counts_and_lists_read_as_english() -> None:
    points = [plural(n, "point") for n in (1, -1, 0, 2, -15)]
    assert points == ["1 point", "-1 point", "0 points", "2 points", "-15 points"]
    assert plural(1, "match", "matches") == "1 match" and plural(3, "match", "matches") == "3 matches"
    assert [together(names) for names in ([], ["Ann"], ["Ann", "Bo"], ["Ann", "Bo", "Cy"])] == [
        "",
        "Ann",
        "Ann and Bo",
        "Ann, Bo and Cy",
    ]


def test_a_name_cut_to_fit_keeps_the_end_that_tells_it_apart() -> None:
    assert fit("Smart bot 10", 12) == "Smart bot 10", "a name that fits stays whole"
    assert [fit(f"Smart bot {n}", 9) for n in (1, 10, 11)] == ["Smart… 1", "Smart… 10", "Smart… 11"]
    assert fit("Bartholomew Smart bot 10", 17) == "Bartholomew S… 10"
    assert fit("Bartholomewsmartbot", 9) == "Barth…bot", "one word: its last third"
    # two cells a character: never half of one
    assert [fit("東京タワー 12", cells) for cells in (8, 7)] == ["東京… 12", "東… 12"]
    assert all(cell_len(fit("東京タワー 12", cells)) <= cells for cells in range(14))
