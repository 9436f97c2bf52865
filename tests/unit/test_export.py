"""`web-research export`: CSL-JSON and W3C Web Annotations, validated against their published
schemas (vendored under tests/fixtures/, see tests/fixtures/README-vendored-schemas.md)."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from web_research import formats
from web_research.cli import main
from web_research.exitcodes import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE
from web_research.evidence.snapshots import find_snapshot
from web_research.evidence.quote_links import shown_text, shown_words
from web_research.report.export import csl_id, date_parts, stated_metadata
from example_run import copy_example_to, judge_statements

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "observability-pricing"
FIXTURES = ROOT / "tests" / "fixtures"
CSL_SCHEMA = FIXTURES / "csl-schema" / "csl-data.json"
ANNOTATION_TESTS = FIXTURES / "web-annotation-tests"


def export(capsys, run: Path, kind: str, *flags: str):
    assert main(["export", str(run), "--format", kind, *flags]) == EXIT_OK, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def annotation_must_validators() -> list[tuple[str, jsonschema.Draft4Validator]]:
    """One validator per MUST assertion of the W3C Web Annotation test suite (annotationMusts.test),
    its `$ref`s to the suite's definitions resolved offline."""
    resources = []
    for path in sorted(ANNOTATION_TESTS.rglob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((schema["id"], Resource.from_contents(schema, default_specification=DRAFT4)))
    registry = Registry().with_resources(resources)
    musts = json.loads((ANNOTATION_TESTS / "annotationMusts.test").read_text(encoding="utf-8"))["assertions"]
    out = []
    for rel in musts:
        schema = json.loads((ANNOTATION_TESTS / rel).read_text(encoding="utf-8"))
        assert schema["expectedResult"] == "valid"
        out.append((rel, jsonschema.Draft4Validator(schema, registry=registry)))
    return out


def test_csl_json_validates_against_the_csl_data_schema_and_holds_every_source(capsys) -> None:
    items = export(capsys, EXAMPLE, "csl-json")
    jsonschema.Draft7Validator(json.loads(CSL_SCHEMA.read_text(encoding="utf-8"))).validate(items)
    report = (EXAMPLE / formats.REPORT_FILE).read_text(encoding="utf-8")
    urls = [line.split("**URL**:", 1)[1].strip() for line in report.splitlines() if "**URL**:" in line]
    assert [item["URL"] for item in items] == list(dict.fromkeys(urls))  # one reference per page
    first = items[0]
    # The site as the page states it; where it states none (the example's pages), the domain.
    stated = stated_metadata(find_snapshot(EXAMPLE, "https://docs.acme.example/logs/pricing"))
    expected = {"id": csl_id("https://docs.acme.example/logs/pricing"), "type": "webpage",
                "title": "Log Management Pricing | Acme Observability Docs",
                "URL": "https://docs.acme.example/logs/pricing", "container-title": stated.site_name or "acme.example",
                "accessed": {"date-parts": [[2026, 4, 18]]}}
    if stated.published:
        expected["issued"] = date_parts(stated.published)
    assert first == expected
    assert first["id"].startswith("acme-example-") and len({item["id"] for item in items}) == len(items)


def test_the_csl_schema_catches_a_broken_item() -> None:
    """The validation above can fail: a date given as a string where date-parts are expected."""
    bad = [{"id": "x", "type": "webpage", "accessed": {"date-parts": "2026-04-18"}}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(json.loads(CSL_SCHEMA.read_text(encoding="utf-8"))).validate(bad)


def test_annotations_meet_every_must_of_the_web_annotation_model(capsys) -> None:
    page = export(capsys, EXAMPLE, "annotations")
    assert page["type"] == "AnnotationPage" and page["@context"][0] == "http://www.w3.org/ns/anno.jsonld"
    items = page["items"]
    validators = annotation_must_validators()
    assert len(validators) >= 50
    for annotation in items:
        standalone = {"@context": page["@context"], **annotation}  # as an annotation tool takes one from the page
        for rel, validator in validators:
            errors = [e.message for e in validator.iter_errors(standalone)]
            assert not errors, (rel, annotation["id"], errors[:3])
    # One per claim of report.md and footnote it cites, each on the passage as the page shows it.
    claims = json.loads(_claims_json(capsys))
    expected = sum(len([e for e in c["excerpts"] if e["url"]]) for c in claims if c["file"].endswith("report.md"))
    assert len(items) == expected == page["partOf"]["total"]
    first = items[0]
    assert first["body"][0]["value"].startswith("Vendors bill logs by different units")
    assert first["body"][1] == {"type": "TextualBody", "purpose": "assessing", "format": "text/plain",
                                "value": "not judged: this run's plan has no claim check"}
    selector = first["target"]["selector"]
    stored = (EXAMPLE / "sources" / "ab5df75a983eece4.txt").read_text(encoding="utf-8")
    assert selector["prefix"] + selector["exact"] + selector["suffix"] in shown_text(stored, shown_words(stored))
    assert selector["exact"].startswith("Log Management is billed on two dimensions")
    # One TimeState a copy kept of the page: its WARC when it was archived, then its stored text.
    snap = find_snapshot(EXAMPLE, "https://docs.acme.example/logs/pricing")
    copies = [p.resolve().as_uri() for p in (snap.archive_path, snap.text_path) if p is not None]
    assert first["target"]["state"] == [{"type": "TimeState", "sourceDate": "2026-04-18T09:03:02+00:00",
                                         "cached": uri} for uri in copies]
    assert first["created"] == page["partOf"]["created"] and first["created"].endswith("Z")


def test_the_annotation_musts_catch_a_broken_annotation(capsys) -> None:
    items = export(capsys, EXAMPLE, "annotations")["items"]
    broken = dict(items[0], **{"@context": "http://example.org/other.jsonld"})
    del broken["target"]
    failing = {rel for rel, v in annotation_must_validators() if any(True for _ in v.iter_errors(broken))}
    assert {"annotations/3.1-annotationContextValidated.json", "annotations/3.1-targetKeyFound.json"} <= failing


def _claims_json(capsys) -> str:
    assert main(["claims", str(EXAMPLE), "--json"]) == EXIT_OK
    return json.dumps(json.loads(capsys.readouterr().out)["claims"])


def test_output_to_a_file_and_refusals(tmp_path: Path, capsys) -> None:
    target = tmp_path / "refs.json"
    assert main(["export", str(EXAMPLE), "--format", "csl-json", "--output", str(target)]) == EXIT_OK
    assert "reference(s) written to" in capsys.readouterr().out
    assert json.loads(target.read_text(encoding="utf-8"))[0]["id"].startswith("acme-example-")
    run = tmp_path / "no-report"
    copy_example_to(run)
    (run / formats.REPORT_FILE).unlink()
    assert main(["export", str(run), "--format", "csl-json"]) == EXIT_USAGE
    assert "nothing to export" in capsys.readouterr().err


@pytest.mark.parametrize("value, parts", [("2026-04-18", [[2026, 4, 18]]), ("2026-04", [[2026, 4]]),
                                          ("2026", [[2026]]), ("2026-04-18T09:00:00+00:00", [[2026, 4, 18]])])
def test_dates_become_date_parts(value, parts) -> None:
    assert date_parts(value) == {"date-parts": parts}


@pytest.mark.parametrize("value", [None, "", "April 2026", "2026-13-01", "2026-02-40"])
def test_other_dates_are_left_out(value) -> None:
    assert date_parts(value) is None


# --- Independent readers: a CSL processor and a JSON-LD processor ---------------------------------

ANNO_CONTEXT = FIXTURES / "web-annotation-context" / "anno.jsonld"
PRICING = "https://docs.acme.example/logs/pricing"


def _with_site_metadata(tmp_path: Path) -> Path:
    """The example, its pricing page's record stating what fetch now reads from the page's metadata."""
    run = tmp_path / "run"
    copy_example_to(run)
    record = find_snapshot(run, PRICING).meta_path
    data = json.loads(record.read_text(encoding="utf-8"))
    data.update(site_name="Acme Observability Docs", published="2026-03-02T10:00:00Z")
    record.write_text(json.dumps(data), encoding="utf-8")
    return run


def _bibliography(items: list[dict]) -> list[str]:
    """The items rendered by citeproc-py in the Cite Them Right Harvard style it ships (the test extra:
    a missing reader is a failure, never a skip)."""
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    bibliography = CitationStylesBibliography(CitationStylesStyle("harvard-cite-them-right", validate=False),
                                              CiteProcJSON(items), formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    return [str(entry) for entry in bibliography.bibliography()]


def test_a_csl_processor_renders_the_site_the_date_and_the_access(tmp_path: Path, capsys) -> None:
    items = export(capsys, _with_site_metadata(tmp_path), "csl-json")
    first = next(item for item in items if item["URL"] == PRICING)
    assert first["container-title"] == "Acme Observability Docs" and first["issued"] == {"date-parts": [[2026, 3, 2]]}
    rendered = _bibliography(items)
    assert len(rendered) == len(items)
    entry = next(line for line in rendered if PRICING in line)
    assert "(2026)" in entry and ", Acme Observability Docs. Available at: " + PRICING in entry, entry
    assert "(Accessed: April 18, 2026)" in entry and "acme.example" not in entry.replace(PRICING, ""), entry
    # The same page as exported before issue 45: the domain as the site, no date. The reader shows the difference.
    old = dict(first, **{"container-title": "acme.example"})
    del old["issued"]
    assert "(no date)" in _bibliography([old])[0] and ", acme.example." in _bibliography([old])[0]


def test_csl_ids_are_the_same_in_every_run_and_differ_between_pages() -> None:
    assert csl_id(PRICING) == csl_id("HTTPS://docs.acme.example:443/logs/pricing#fees") == csl_id(PRICING + "/")
    assert csl_id(PRICING) != csl_id("https://docs.acme.example/logs/retention")
    assert csl_id(PRICING).startswith("acme-example-") and len(csl_id(PRICING, 64)) == len("acme-example-") + 64


def _loader(url: str, options: dict | None = None) -> dict:
    """pyld's document loader, offline: the vendored W3C annotation context and nothing else."""
    from pyld.jsonld import JsonLdError

    if url.rstrip("/") in ("http://www.w3.org/ns/anno.jsonld", "https://www.w3.org/ns/anno.jsonld"):
        return {"contentType": "application/ld+json", "contextUrl": None, "documentUrl": url,
                "document": json.loads(ANNO_CONTEXT.read_text(encoding="utf-8"))}
    raise JsonLdError(f"offline: no document at {url}", "jsonld.LoadDocumentError", code="loading document failed")


def _terms(node, path: str = "") -> set[str]:
    """Every key path of a JSON document (arrays of one item read as the item, as JSON-LD compacts them)."""
    if isinstance(node, list):
        return set().union(*(_terms(item, path) for item in node)) if node else set()
    if isinstance(node, dict):
        return set().union(*({f"{path}/{key}"} | _terms(value, f"{path}/{key}") for key, value in node.items()))
    return set()


def test_a_json_ld_processor_reads_every_term_of_the_annotation_page(capsys) -> None:
    from pyld import jsonld  # the test extra: a missing reader is a failure, never a skip

    page = export(capsys, EXAMPLE, "annotations")
    options = {"documentLoader": _loader}
    expanded = jsonld.expand(page, options)
    assert expanded[0]["@type"] == ["http://www.w3.org/ns/activitystreams#OrderedCollectionPage"]
    items = expanded[0]["http://www.w3.org/ns/activitystreams#items"][0]["@list"]
    assert len(items) == len(page["items"])
    target = items[0]["http://www.w3.org/ns/oa#hasTarget"][0]
    state = target["http://www.w3.org/ns/oa#hasState"][0]
    assert state["@type"] == ["http://www.w3.org/ns/oa#TimeState"]
    assert state["http://www.w3.org/ns/oa#cachedSource"][0]["@id"].startswith("file:///")
    purposes = {b["http://www.w3.org/ns/oa#hasPurpose"][0]["@id"] for b in items[0]["http://www.w3.org/ns/oa#hasBody"]}
    assert purposes == {"http://www.w3.org/ns/oa#commenting", "http://www.w3.org/ns/oa#assessing"}
    label = expanded[0]["http://www.w3.org/ns/activitystreams#partOf"][0]["http://www.w3.org/2000/01/rdf-schema#label"]
    assert label[0]["@value"].startswith("web-research run on ") and "verified: the run passed verify" in label[0]["@value"]
    # Compacted again with the same context, nothing the export wrote was lost: every term is the model's.
    compacted = jsonld.compact(expanded, {"@context": page["@context"]}, options)
    assert _terms(compacted) == _terms(page)
    assert compacted["items"][0]["body"][1]["purpose"] == "assessing"
    # A term the context does not define is dropped by the processor, and the comparison sees it.
    broken = json.loads(json.dumps(page))
    broken["items"][0]["target"]["selectr"] = broken["items"][0]["target"].pop("selector")
    assert _terms(jsonld.compact(jsonld.expand(broken, options), {"@context": page["@context"]}, options)) != \
        _terms(broken)


# --- The run's outcome (issue 43) ----------------------------------------------------------------

def test_an_unverified_run_is_exported_only_when_asked_and_then_says_so(tmp_path: Path, capsys) -> None:
    """A run whose checker found a claim unsupported ends unverified: export refuses it (exit 1,
    nothing on stdout); with --unverified it exports, the outcome first and each claim's verdict."""
    from test_verdicts import judge_all, prompt_for_run, tiered

    run = tiered(tmp_path)
    keys = list(prompt_for_run(run)[0].keys)
    judge_all(run, 1, **{keys[1]: "unsupported"})
    for kind in ("annotations", "csl-json"):
        assert main(["export", str(run), "--format", kind]) == EXIT_CHECK_FAILED
        out, err = capsys.readouterr()
        assert out == "" and "UNVERIFIED" in err and "--unverified" in err and "report.claims.verdict" in err
    page = export(capsys, run, "annotations", "--unverified")
    label = page["partOf"]["label"]
    assert "UNVERIFIED: the run did not pass verify" in label and "report.claims.verdict" in label
    verdicts = [item["body"][1]["value"] for item in page["items"]]
    assert any(v.startswith("claim-checker verdict: unsupported (as the excerpt says)") for v in verdicts), verdicts
    assert sum(v == "claim-checker verdict: supported" for v in verdicts) >= len(verdicts) - 3
    assert all(v.startswith("claim-checker verdict: ") for v in verdicts)
    items = export(capsys, run, "csl-json", "--unverified")
    assert all(item["note"].startswith("web-research: UNVERIFIED") for item in items)
    target = tmp_path / "annotations.json"
    assert main(["export", str(run), "--format", "annotations", "--unverified", "-o", str(target)]) == EXIT_OK
    out, err = capsys.readouterr()
    assert "(run UNVERIFIED)" in out and "UNVERIFIED" in err


def test_a_verified_run_exports_each_claim_with_its_verdict(tmp_path: Path, capsys) -> None:
    from test_verdicts import judge_all, tiered

    run = tiered(tmp_path)
    judge_all(run, 1)
    page = export(capsys, run, "annotations")
    assert page["partOf"]["label"].split(": ", 1)[1].startswith("verified: the run passed verify")
    assert {item["body"][1]["value"] for item in page["items"]} == {"claim-checker verdict: supported"}
    assert "note" not in export(capsys, run, "csl-json")[0]


TABLE_EXCERPT = "Ingested data per GB Indexed events per million events"


def _table_run(tmp_path: Path) -> Path:
    """The example, its pricing page's stored text holding a table, footnote 1 quoting two of its rows
    as a person reads them (no pipes) in the report and in the findings file it comes from."""
    from web_research.evidence.snapshots import text_sha256

    run = tmp_path / "run"
    copy_example_to(run)
    snap = find_snapshot(run, PRICING)
    text = snap.text().replace("\n\nPrices on this page", "\n| Dimension | Billed |\n|---|---|\n"
                               "| Ingested data | per GB |\n| Indexed events | per million events |\n\nPrices on this page", 1)
    snap.text_path.write_text(text, encoding="utf-8")
    record = json.loads(snap.meta_path.read_text(encoding="utf-8"))
    record.update(sha256=text_sha256(text), chars=len(text))
    snap.meta_path.write_text(json.dumps(record), encoding="utf-8")
    old = "Log Management is billed on two dimensions: data ingested, per GB, and events indexed, per million events."
    # The rows give no count of the dimensions: the claims citing them say the dimensions without it.
    claims = {formats.REPORT_FILE: ("bills two dimensions, data", "bills data"),
              "findings/billing-units-and-retention-tiers.md": ("bills logs in two parts: a", "bills logs by a")}
    for name, (said, unsaid) in claims.items():
        path = run / name
        text = path.read_text(encoding="utf-8").replace(old, TABLE_EXCERPT, 1)
        assert said in text
        path.write_text(text.replace(said, unsaid, 1), encoding="utf-8")
    judge_statements(run)  # the statements of absence stand against one more stored page
    return run


def test_a_table_passage_is_exported_as_the_page_shows_it(tmp_path: Path, capsys) -> None:
    """Issue 45: the row quoted without the stored text's pipes verifies, and the annotation's quote has
    none either (the pipes are not on the page, so an annotation tool would find nothing)."""
    run = _table_run(tmp_path)
    assert main(["verify", str(run)]) == EXIT_OK, capsys.readouterr().out
    capsys.readouterr()
    selector = export(capsys, run, "annotations")["items"][0]["target"]["selector"]
    assert selector["exact"] == TABLE_EXCERPT and "|" not in selector["prefix"] + selector["suffix"], selector
    assert selector["prefix"].endswith("Dimension Billed ") and selector["suffix"].startswith(" Prices on this page")


def test_an_excerpt_not_in_its_page_is_annotated_as_written(tmp_path: Path, capsys) -> None:
    """An unverified run's excerpt that is not in its page: the quote is the excerpt as written, with
    no context taken from a page that does not hold it."""
    import view_runs

    run = view_runs.changed_excerpt(tmp_path)
    assert main(["export", str(run), "--format", "annotations"]) == EXIT_CHECK_FAILED
    capsys.readouterr()
    items = export(capsys, run, "annotations", "--unverified")["items"]
    changed = [i["target"]["selector"] for i in items if "1.5x" in i["target"]["selector"]["exact"]]
    assert changed and all(set(s) == {"type", "exact"} for s in changed), changed
    assert changed[0]["exact"].startswith("Indexed retention defaults to 15 days.")


def test_export_reads_an_archived_page_in_the_charset_its_meta_declares(tmp_path: Path, capsys) -> None:
    """A page whose response names no charset and whose <meta> does (windows-1251, Cyrillic): export's
    reading of the archived HTML decodes it as extraction and the checker's context do
    (evidence/extraction.decode_html), not as cp1252, the fallback for bytes that are no UTF-8."""
    pytest.importorskip("trafilatura")

    from page_server import PageServer  # noqa: PLC0415
    from web_research.cli import main  # noqa: PLC0415
    from web_research.evidence.extraction import decode_html  # noqa: PLC0415
    from web_research.evidence.snapshots import find_snapshot  # noqa: PLC0415
    from web_research.report.export import archived_html  # noqa: PLC0415

    said = "\u0422\u0430\u0440\u0438\u0444 \u0441\u0442\u043e\u0438\u0442 4 \u0434\u043e\u043b\u043b\u0430\u0440\u0430"
    body = ('<html><head><meta charset="windows-1251"><title>Pricing</title></head><body><main>'
            f"<h1>Pricing</h1><p>{said} per host per month, billed yearly.</p>"
            + "<p>Filler text about the tier and its limits, for the extractor to keep.</p>" * 20
            + "</main></body></html>").encode("cp1251")
    assert decode_html(body, None) == body.decode("cp1251")
    run = copy_example_to(tmp_path / "run")
    with PageServer() as server:
        url = server.serve("/tariff", body, content_type="text/html")
        assert main(["fetch", url, "--run", str(run), "--allow-loopback"]) == 0, capsys.readouterr().err
    snap = find_snapshot(run, url)
    assert said in snap.text()
    html = archived_html(snap)
    assert html is not None and said in html
