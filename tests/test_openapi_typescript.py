"""openapi-typescript + openapi-fetch + `tsc --strict`: a client typed from the served document compiles calling
every operation with only its required arguments, `change` is typed as a union (not unknown), and the compiled
client gets a 200 from every operation of a live `ras serve`."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import orjson
import pytest

from builder.api.contract import OPERATIONS
from tests.node_clients import bin_path, installed, require_node
from tests.servers import running_server

PACK = "13f-copycat"
TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "outDir": "out",
        "skipLibCheck": False,
        "noUncheckedIndexedAccess": True,
    },
    "files": ["client.ts"],
}
TYPE_CHECKS = """
type Change = components["schemas"]["ArtifactPosition"]["change"];
type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;
type IsUnknown<T> = unknown extends T ? true : false;
export const changeIsAUnion: IsUnion<Change> = true;
export const changeIsNotUnknown: IsUnknown<Change> = false;
export const kindNarrowsTheChange = (change: Change): number | null =>
  change.kind === "unknown" ? change.shareDelta : change.shareDelta;
"""


def call_of(operation, arguments: dict) -> str:
    """One openapi-fetch call of `operation` with only its required arguments (a POST: an empty body)."""
    path = {p.name: arguments[p.name] for p in operation.params if p.location == "path"}
    query = {p.name: arguments[p.name] for p in operation.params if p.location == "query" and p.required}
    params = {key: value for key, value in (("path", path), ("query", query)) if value}
    options = {"params": params} if params else {}
    if operation.method == "POST":
        options["body"] = {}
    argument = f", {json.dumps(options)}" if options else ""
    return f'  results.push(["{operation.id}", (await client.{operation.method}("{operation.route}"{argument})).response.status]);'


def client_source(versions: list[str], ticker: str) -> str:
    arguments = {"packId": PACK, "from": versions[-2], "to": versions[-1], "ticker": ticker}
    calls = "\n".join(call_of(operation, arguments) for operation in OPERATIONS)
    return f"""import createClient from "openapi-fetch";
import type {{ components, paths }} from "./schema.js";
declare const process: {{ argv: string[]; stdout: {{ write(text: string): void }} }};  // no @types/node needed
{TYPE_CHECKS}
const client = createClient<paths>({{ baseUrl: process.argv[2] }});
const results: [string, number][] = [];
{calls}
process.stdout.write(JSON.stringify(results));
"""


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, f"{' '.join(command[:2])}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def compiled(release) -> Path:
    """client.ts typed from the release's document, compiled by tsc --strict into out/client.js."""
    node, _ = require_node()
    work = Path(tempfile.mkdtemp(prefix="openapi-ts-", dir=installed()))  # under the folder of node_modules
    try:
        (work / "openapi.json").write_bytes(orjson.dumps(release.data.openapi))
        run([node, str(bin_path("openapi-typescript")), "openapi.json", "-o", "schema.d.ts"], work)
        ticker = release.data.openapi["paths"]["/api/v1/packs/{packId}/positions/{ticker}/explanation"]["get"][
            "parameters"
        ][1]["example"]
        (work / "client.ts").write_text(client_source(release.data.versions, ticker))
        (work / "tsconfig.json").write_text(json.dumps(TSCONFIG))
        run([node, str(bin_path("tsc")), "-p", "tsconfig.json"], work)
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_change_is_generated_as_a_union_and_request_bodies_need_no_field(compiled):
    schema = (compiled / "schema.d.ts").read_text()
    body = schema.split("ViewRequest: {", 1)[1].split("};", 1)[0]
    assert "?:" in body and "mode: " not in body and "packId: " not in body  # every field optional
    assert (compiled / "out" / "client.js").is_file()


def test_the_compiled_client_gets_a_200_from_every_operation(compiled, published):
    node, _ = require_node()
    with running_server(published) as (base, _process):
        result = run([node, str(compiled / "out" / "client.js"), base], compiled)
    statuses = dict(orjson.loads(result.stdout))
    assert statuses == {operation.id: 200 for operation in OPERATIONS}
