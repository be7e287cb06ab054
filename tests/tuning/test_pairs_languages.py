"""Training pairs in every mined language: doc comment -> the definition without it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from embedstore.tuning.pairs import held_out, mine_pairs, sample_pairs

FILES = {
    "src/cache.ts": (
        "/**\n * Evicts the least recently used entry once the cache is full.\n */\n"
        "export function evictOldest(cache: Map<string, number>, limit: number): void {\n"
        "  while (cache.size > limit) {\n"
        "    cache.delete(cache.keys().next().value as string);\n  }\n}\n"
    ),
    "retry/backoff.go": (
        "package retry\n\n"
        "// Backoff doubles the wait after every failed attempt up to a ceiling.\n"
        "func Backoff(attempt int, ceiling int) int {\n"
        "\twait := 1 << attempt\n\tif wait > ceiling {\n\t\treturn ceiling\n\t}\n"
        "\treturn wait\n}\n"
    ),
    "src/ring.rs": (
        "/// Pushes a value and drops the oldest one when the ring buffer is full.\n"
        "#[inline]\n"
        "pub fn push_bounded(ring: &mut Vec<u32>, value: u32, cap: usize) {\n"
        "    if ring.len() == cap {\n        ring.remove(0);\n    }\n    ring.push(value);\n}\n"
    ),
    "tools/slug.py": (
        "def slugify(title):\n"
        '    """Turn a page title into a lowercase identifier for its address."""\n'
        "    return '-'.join(title.lower().split())\n"
    ),
}


def words(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def test_each_languages_doc_comment_pairs_with_its_definition(tmp_path: Path) -> None:
    for rel, text in FILES.items():
        (tmp_path / "r" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "r" / rel).write_text(text)
    pairs = {p.language: p for p in mine_pairs([tmp_path / "r"], max_tokens=200,
                                               count_tokens=words)}
    assert set(pairs) == {"typescript", "go", "rust", "python"}
    ts, go, rust = pairs["typescript"], pairs["go"], pairs["rust"]
    assert ts.query == "Evicts the least recently used entry once the cache is full"
    assert "export function evictOldest(" in ts.positive and "Evicts" not in ts.positive
    # Go's doc names the function first; the query drops the name, as the benchmark's does.
    assert go.query == "doubles the wait after every failed attempt up to a ceiling"
    assert "func Backoff(" in go.positive and "doubles" not in go.positive
    assert "pub fn push_bounded(" in rust.positive and "Pushes" not in rust.positive
    # Embedded as the indexer embeds it: the path header first.
    assert all(p.positive.startswith(p.path.split("/", 1)[1] + "\n") for p in pairs.values())


def test_a_sample_caps_each_language_and_never_takes_held_out_files(tmp_path: Path) -> None:
    go_file = ("package m\n\n// Frobnicates the widget number {0} with extra care today.\n"
               "func F{0}() int {{ return {0} }}\n")
    rs_file = "/// Spins the rotor number {0} until it settles down again.\npub fn r{0}() {{}}\n"
    for i in range(40):
        (tmp_path / "r" / f"f{i}.go").parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "r" / f"f{i}.go").write_text(go_file.format(i))
        (tmp_path / "r" / f"r{i}.rs").write_text(rs_file.format(i))
    held = sum(held_out(f"r/f{i}.go") for i in range(40))
    assert 0 < held < 30  # some files are held out, enough are not
    sample = sample_pairs([tmp_path / "r"], 10, seed=0, max_tokens=200, count_tokens=words)
    assert Counter(p.language for p in sample) == {"go": 10, "rust": 10}
    assert not any(held_out(p.path) for p in sample)
    again = sample_pairs([tmp_path / "r"], 10, seed=0, max_tokens=200, count_tokens=words)
    assert again == sample  # seeded
    everything = sample_pairs([tmp_path / "r"], 100, seed=0, max_tokens=200,
                              count_tokens=words)
    assert Counter(p.language for p in everything)["go"] == 40 - held
