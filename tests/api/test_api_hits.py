"""What the API reports of a hit, a collection and a context (TestClient, fake encoder)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from tests.fakes import FAKE_SPEC, FakeEncoder
from tests.long_function import QUERY, accumulate_source

LINES, TOTAL = accumulate_source()
SOURCE = "\n".join(LINES)


@pytest.fixture
def client(tmp_path: Path, fake_encoder: FakeEncoder) -> Iterator[TestClient]:
    settings = ServerSettings(store=tmp_path / "store", preload_model=False)
    with TestClient(create_app(settings)) as c:
        created = c.post("/v1/collections", json={"name": "c", "encoder": FAKE_SPEC})
        assert created.status_code == 201, created.text
        up = c.post("/v1/collections/c/documents", json={"documents": [
            {"id": "m", "text": SOURCE, "path": "m.py"},
        ]})
        assert up.status_code == 200, up.text
        yield c


def test_a_hit_is_the_whole_definition_with_its_matched_piece(client: TestClient) -> None:
    body = client.post("/v1/collections/c/search",
                       json={"query": QUERY, "k": 2, "highlight": True}).json()
    top = body["results"][0]
    assert (top["path"], top["start_line"], top["end_line"]) == ("m.py", 1, TOTAL)
    assert (top["kind"], top["symbol"], top["document_id"]) == ("function", "accumulate", "m")
    assert 1 < top["match_start_line"] <= top["match_end_line"] < TOTAL
    assert top["text"] == "\n".join(SOURCE.splitlines()[:TOTAL])
    assert len({h["id"] for h in body["results"]}) == len(body["results"])  # one per unit

    line = r'<span class="line([^"]*)"><span class="linenos"> *(\d+)</span>'
    lines = re.findall(line, top["html"])
    assert [int(n) for _, n in lines] == list(range(1, TOTAL + 1))
    matched = [int(n) for classes, n in lines if "match" in classes.split()]
    assert matched == list(range(top["match_start_line"], top["match_end_line"] + 1))
    shown = [int(n) for classes, n in lines if "folded" not in classes.split()]
    assert shown[:12] == list(range(1, 13)) and top["match_start_line"] in shown
    assert len(shown) < TOTAL


def test_collections_and_metrics_count_units_beside_chunks(client: TestClient) -> None:
    info = client.get("/v1/collections/c").json()
    assert info["units"] == 2 and info["chunks"] > info["units"]  # accumulate() was split
    assert [c["units"] for c in client.get("/v1/collections").json()] == [2]
    metrics = client.get("/metrics").text
    assert 'embedstore_collection_units{collection="c"} 2.0' in metrics


def test_context_blocks_say_which_lines_they_hold(client: TestClient) -> None:
    body = client.post("/v1/collections/c/context",
                       json={"query": QUERY, "max_tokens": 150}).json()
    first = body["blocks"][0]
    assert first["ranges"][0] == [1, 1] and len(first["ranges"]) == 2  # signature, piece
    # The text's header spans them; the `…` line marks the gap between the two runs.
    (start, _), (_, end) = first["ranges"]
    assert body["text"].startswith(f"m.py:{start}-{end}\n") and body["tokens"] <= 150
    assert body["text"].split("```")[1].count("\n…\n") == 1


def test_every_score_is_rounded_to_six_places_as_the_cli_prints_them(client: TestClient) -> None:
    for path, body in (("/v1/collections/c/search", {"query": QUERY, "k": 5}),
                       ("/v1/search", {"query": QUERY, "k": 5})):
        hits = client.post(path, json=body).json()["results"]
        scores = [h[key] for h in hits for key in ("score", "dense_score", "lexical_score")
                  if h[key] is not None]
        assert scores and all(score == round(score, 6) for score in scores), scores
        # The fake encoder's cosines are never that short before rounding.
        assert any(len(repr(score)) > 4 for score in scores)
