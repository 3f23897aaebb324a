// Which server findServer picks, place by place (run by `npm test`, with Node's test runner).
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { expand, findServer, Places } from "./server";

const ROOT = path.join(os.tmpdir(), "project");
const NOWHERE: Places = { path: "", interpreter: "", pythonInterpreter: undefined, folders: [ROOT] };
const VENV_SCRIPT = path.join(ROOT, ".venv", "bin", "hyblint");

function existing(...files: string[]): (file: string) => boolean {
  return (file) => files.includes(file);
}

test("hyblint.path comes first, run with lsp", () => {
  const found = findServer({ ...NOWHERE, path: "/opt/hyblint/bin/hyblint", interpreter: "/usr/bin/python3" },
    existing(VENV_SCRIPT));
  assert.deepEqual(found, { command: "/opt/hyblint/bin/hyblint", args: ["lsp"], origin: "hyblint.path" });
});

test("hyblint.interpreter runs the script beside it, else -m hyblint", () => {
  const python = path.join(ROOT, "env", "bin", "python");
  const beside = path.join(ROOT, "env", "bin", "hyblint");
  assert.deepEqual(findServer({ ...NOWHERE, interpreter: python }, existing(beside)),
    { command: beside, args: ["lsp"], origin: "hyblint.interpreter" });
  assert.deepEqual(findServer({ ...NOWHERE, interpreter: python }, existing()),
    { command: python, args: ["-m", "hyblint", "lsp"], origin: "hyblint.interpreter" });
});

test("python.defaultInterpreterPath counts only where it is a path", () => {
  const found = findServer({ ...NOWHERE, pythonInterpreter: "${workspaceFolder}/env/bin/python" }, existing(VENV_SCRIPT));
  assert.deepEqual(found, {
    command: path.join(ROOT, "env", "bin", "python"), args: ["-m", "hyblint", "lsp"],
    origin: "python.defaultInterpreterPath",
  });
  assert.equal(findServer({ ...NOWHERE, pythonInterpreter: "python3" }, existing(VENV_SCRIPT)).command, VENV_SCRIPT);
});

test("a workspace folder's .venv, then venv, then PATH", () => {
  const venv = path.join(ROOT, "venv", "bin", "hyblint");
  const second = path.join(os.tmpdir(), "second");
  const secondVenv = path.join(second, ".venv", "bin", "hyblint");
  assert.equal(findServer(NOWHERE, existing(venv, VENV_SCRIPT)).command, VENV_SCRIPT);
  assert.equal(findServer(NOWHERE, existing(venv)).command, venv);
  assert.equal(findServer({ ...NOWHERE, folders: [ROOT, second] }, existing(secondVenv)).command, secondVenv);
  assert.deepEqual(findServer(NOWHERE, existing()), { command: "hyblint", args: ["lsp"], origin: "PATH" });
  assert.deepEqual(findServer({ ...NOWHERE, folders: [] }, existing()).command, "hyblint");
});

test("paths are expanded as VS Code users write them", () => {
  assert.equal(expand("~/bin/hyblint", ROOT), path.join(os.homedir(), "bin", "hyblint"));
  assert.equal(expand("${userHome}/bin/hyblint", undefined), path.join(os.homedir(), "bin", "hyblint"));
  assert.equal(expand(" ${workspaceFolder}/.venv/bin/hyblint ", ROOT), VENV_SCRIPT);
  assert.equal(expand(".venv/bin/hyblint", ROOT), VENV_SCRIPT);
  assert.equal(expand("hyblint", ROOT), "hyblint");  // a bare name is looked up on PATH
});
