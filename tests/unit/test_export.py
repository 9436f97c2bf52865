"""`web-research export`: CSL-JSON and W3C Web Annotations, validated against their published
schemas (vendored under tests/fixtures/, see tests/fixtures/README-vendored-schemas.md)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from web_research import formats
from web_research.cli import main
from web_research.exitcodes import EXIT_OK, EXIT_USAGE
from web_research.report.export import date_parts

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "observability-pricing"
FIXTURES = ROOT / "tests" / "fixtures"
CSL_SCHEMA = FIXTURES / "csl-schema" / "csl-data.json"
ANNOTATION_TESTS = FIXTURES / "web-annotation-tests"


def export(capsys, run: Path, kind: str) -> list:
    assert main(["export", str(run), "--format", kind]) == EXIT_OK
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
    assert first == {"id": "source-1", "type": "webpage", "title": "Log Management Pricing | Acme Observability Docs",
                     "URL": "https://docs.acme.example/logs/pricing", "container-title": "acme.example",
                     "accessed": {"date-parts": [[2026, 4, 18]]}}


def test_the_csl_schema_catches_a_broken_item() -> None:
    """The validation above can fail: a date given as a string where date-parts are expected."""
    bad = [{"id": "x", "type": "webpage", "accessed": {"date-parts": "2026-04-18"}}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(json.loads(CSL_SCHEMA.read_text(encoding="utf-8"))).validate(bad)


def test_annotations_meet_every_must_of_the_web_annotation_model(capsys) -> None:
    items = export(capsys, EXAMPLE, "annotations")
    validators = annotation_must_validators()
    assert len(validators) >= 50
    for annotation in items:
        for rel, validator in validators:
            errors = [e.message for e in validator.iter_errors(annotation)]
            assert not errors, (rel, annotation["id"], errors[:3])
    # One per claim of report.md and footnote it cites, each on the passage as the stored page has it.
    claims = json.loads(_claims_json(capsys))
    expected = sum(len([e for e in c["excerpts"] if e["url"]]) for c in claims if c["file"].endswith("report.md"))
    assert len(items) == expected
    first = items[0]
    assert first["body"]["value"].startswith("Vendors bill logs by different units")
    selector = first["target"]["selector"]
    page = (EXAMPLE / "sources" / "ab5df75a983eece4.txt").read_text(encoding="utf-8")
    assert selector["prefix"] + selector["exact"] + selector["suffix"] in page
    assert selector["exact"].startswith("Log Management is billed on two dimensions")


def test_the_annotation_musts_catch_a_broken_annotation(capsys) -> None:
    items = export(capsys, EXAMPLE, "annotations")
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
    assert json.loads(target.read_text(encoding="utf-8"))[0]["id"] == "source-1"
    run = tmp_path / "no-report"
    shutil.copytree(EXAMPLE, run)
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
