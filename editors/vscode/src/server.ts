// Which `hyblint lsp` to start: the one the settings name, else the workspace's Python
// environment, else the one on PATH. Kept apart from the extension's wiring so that the order of
// the places searched reads in one function.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where the command came from, shown in the status item's tooltip and the output. */
  origin: string;
}

export interface Places {
  /** `hyblint.path` */
  path: string;
  /** `hyblint.interpreter` */
  interpreter: string;
  /** `python.defaultInterpreterPath` where it was set (its default, "python", is not a place) */
  pythonInterpreter: string | undefined;
  /** the workspace folders' paths, the first one first */
  folders: string[];
}

const WINDOWS = process.platform === "win32";
const SCRIPTS = WINDOWS ? "Scripts" : "bin";
const EXECUTABLE = WINDOWS ? "hyblint.exe" : "hyblint";

export function findServer(places: Places, exists: (file: string) => boolean = isFile): ServerCommand {
  const folder = places.folders[0];
  if (places.path.trim()) {
    return { command: expand(places.path, folder), args: ["lsp"], origin: "hyblint.path" };
  }
  if (places.interpreter.trim()) {
    return fromInterpreter(expand(places.interpreter, folder), "hyblint.interpreter", exists);
  }
  if (places.pythonInterpreter && /[\\/]/.test(places.pythonInterpreter)) {
    return fromInterpreter(expand(places.pythonInterpreter, folder), "python.defaultInterpreterPath", exists);
  }
  for (const root of places.folders) {
    for (const venv of [".venv", "venv"]) {
      const candidate = path.join(root, venv, SCRIPTS, EXECUTABLE);
      if (exists(candidate)) {
        return { command: candidate, args: ["lsp"], origin: path.join(venv, SCRIPTS) + " in the workspace" };
      }
    }
  }
  return { command: "hyblint", args: ["lsp"], origin: "PATH" };
}

/** The console script beside the interpreter where there is one (a venv's bin/), else `-m hyblint`. */
function fromInterpreter(interpreter: string, origin: string, exists: (file: string) => boolean): ServerCommand {
  const beside = path.join(path.dirname(interpreter), EXECUTABLE);
  if (exists(beside)) {
    return { command: beside, args: ["lsp"], origin };
  }
  return { command: interpreter, args: ["-m", "hyblint", "lsp"], origin };
}

/** `~`, `${workspaceFolder}` and `${userHome}` as VS Code users write them; relative paths from the folder. */
export function expand(value: string, folder: string | undefined): string {
  let expanded = value.trim().replace(/\$\{userHome\}/g, os.homedir());
  if (folder) {
    expanded = expanded.replace(/\$\{workspaceFolder\}/g, folder);
  }
  if (expanded === "~" || expanded.startsWith("~/")) {
    expanded = path.join(os.homedir(), expanded.slice(1));
  }
  if (folder && /[\\/]/.test(expanded) && !path.isAbsolute(expanded)) {
    expanded = path.join(folder, expanded);
  }
  return expanded;
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
