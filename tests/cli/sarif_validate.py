#!/usr/bin/env python3
"""Validates SARIF files against the OASIS SARIF 2.1.0 JSON schema (tests/data) and checks the
fields GitHub code scanning relies on. usage: sarif_validate.py FILE..."""
import json
import pathlib
import sys

import jsonschema

schema = json.loads((pathlib.Path(__file__).resolve().parent.parent / "data" / "sarif-schema-2.1.0.json").read_text())
bad = 0
for name in sys.argv[1:]:
    doc = json.loads(pathlib.Path(name).read_text())
    try:
        jsonschema.validate(doc, schema)
        run = doc["runs"][0]
        assert run["tool"]["driver"]["rules"], "no rule metadata"
        for r in run["tool"]["driver"]["rules"]:
            assert r["help"]["text"], f"rule {r['id']} has no help"
        for res in run["results"]:
            assert res["ruleId"] and res["level"] and res["message"]["text"]
            loc = res["locations"][0]["physicalLocation"]
            assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%", "URI not relative to %SRCROOT%"
            assert "primaryLocationLineHash" in res["partialFingerprints"]
        print(f"{name}: valid SARIF 2.1.0 ({len(run['results'])} results)")
    except (jsonschema.ValidationError, AssertionError, KeyError, IndexError) as e:
        bad += 1
        print(f"{name}: INVALID: {getattr(e, 'message', e)}")
sys.exit(1 if bad or len(sys.argv) < 2 else 0)
