// The official MCP TypeScript SDK client, as MCP hosts embed it, driven by a plan from the Python tests.
// Usage: node mcp_client.mjs PLAN.json > REPORT.json
// PLAN: {command, args, env, cwd, calls: [{tool, arguments, nest?: {key, depth}}]}, or {url, calls} for a server
// reached over Streamable HTTP. It starts the server over stdio (or connects to the URL), lists the tools, makes every call (callTool validates structured content against the tool's output
// schema, as hosts do), reads every resource a result links and reports what it saw: sizes, texts, errors and
// the sha256 of each reassembled answer. A protocol error is reported, never thrown, so the test names it.
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const bytes = (value) => Buffer.byteLength(JSON.stringify(value), "utf8");

function nested(value, depth) {
  let built = value;
  for (let level = 1; level < depth; level += 1) built = [built];
  return built;
}

function argumentsOf(call) {
  const args = { ...call.arguments };
  if (call.nest) args[call.nest.key] = nested(call.nest.value, call.nest.depth);
  return args;
}

async function readLinks(client, links) {
  const texts = [];
  let largest = 0;
  for (const link of links) {
    const read = await client.readResource({ uri: link.uri });
    largest = Math.max(largest, bytes(read));
    texts.push(read.contents[0].text);
  }
  const body = Buffer.from(texts.join(""), "utf8");
  return { bytes: body.length, sha256: createHash("sha256").update(body).digest("hex"), largestReadBytes: largest };
}

async function makeCall(client, call) {
  const report = { tool: call.tool };
  try {
    const result = await client.callTool({ name: call.tool, arguments: argumentsOf(call) });
    const links = result.content.filter((block) => block.type === "resource_link");
    Object.assign(report, {
      isError: result.isError === true,
      contentTypes: result.content.map((block) => block.type),
      firstText: result.content[0]?.type === "text" ? result.content[0].text : null,
      textBytes: result.content[0]?.type === "text" ? Buffer.byteLength(result.content[0].text, "utf8") : 0,
      resultBytes: bytes(result),
      hasStructured: result.structuredContent !== undefined,
      releaseId: result._meta?.releaseId ?? null,
      links: links.map((link) => ({ uri: link.uri, size: link.size, mimeType: link.mimeType })),
      body: links.length ? await readLinks(client, links) : null,
    });
  } catch (error) {
    report.protocolError = { code: error.code ?? null, message: String(error.message ?? error) };
  }
  return report;
}

const transport = plan.url
  ? new StreamableHTTPClientTransport(new URL(plan.url))
  : new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, cwd: plan.cwd, stderr: "ignore" });
const client = new Client({ name: "ras-tests", version: "1.0.0" });
let closed = null;
client.onclose = () => { closed = closed ?? "closed"; };
await client.connect(transport);
const listed = await client.listTools();
const report = {
  server: client.getServerVersion(),
  protocolVersion: transport.protocolVersion ?? null,
  toolsList: {
    bytes: bytes(listed),
    names: listed.tools.map((tool) => tool.name),
    entries: Object.fromEntries(listed.tools.map((tool) => [tool.name, bytes(tool)])),
    nextCursor: listed.nextCursor ?? null,
  },
  calls: [],
};
for (const call of plan.calls) report.calls.push(await makeCall(client, call));
report.connectionClosedEarly = closed !== null;
await client.close();
process.stdout.write(JSON.stringify(report));
