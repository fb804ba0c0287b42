"""Read back, through Phoenix's own Python client, every span of a project and every annotation
on those spans. One request per line on standard input (`BASE_URL PROJECT`), one JSON line per
request on standard output: {"spans": [span_id, ...], "annotations": [{...}, ...]}. A loop, so
that the client (which imports all of Phoenix) is imported once per test, not once per read.

Usage: python read_annotations.py < requests
"""

import json
import sys

from phoenix.client import Client


def read(base_url, project):
    client = Client(base_url=base_url)
    spans = client.spans.get_spans(project_identifier=project, limit=1000)
    span_ids = sorted(s["context"]["span_id"] for s in spans)
    annotations = client.spans.get_span_annotations(
        span_ids=span_ids, project_identifier=project
    )
    out = [
        {
            "id": a["id"],
            "span_id": a["span_id"],
            "name": a["name"],
            "identifier": a.get("identifier", ""),
            "annotator_kind": a["annotator_kind"],
            "label": (a.get("result") or {}).get("label"),
            "explanation": (a.get("result") or {}).get("explanation"),
            "rule": (a.get("metadata") or {}).get("rule"),
        }
        for a in annotations
    ]
    out.sort(key=lambda a: (a["span_id"], a["identifier"]))
    return {"spans": span_ids, "annotations": out}


def main():
    for line in sys.stdin:
        base_url, project = line.rstrip("\n").split(" ", 1)
        sys.stdout.write(json.dumps(read(base_url, project)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
