// The hyblint extension: runs `hyblint lsp` for Python files and shows its state in the status bar.
// Diagnostics, quick fixes and the fix-all action come from the server; this side finds the
// server, passes the editor's settings to it and applies fix-all on save where asked.
import * as vscode from "vscode";
import {
  CodeActionRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from "vscode-languageclient/node";
import { findServer, ServerCommand } from "./server";

const FIX_ALL_KIND = "source.fixAll.hyblint";
// Settings that choose the server: a change starts the server again.
const SERVER_SETTINGS = ["hyblint.path", "hyblint.interpreter", "python.defaultInterpreterPath"];
// VS Code gives the save participants 1.5 s in all, and stops calling one that overruns three
// times; fixes that take longer (a busy machine, a large file) are applied after the save.
const SAVE_BUDGET_MS = 1200;

let client: LanguageClient | undefined;
let server: ServerCommand | undefined;
let output: vscode.OutputChannel;
let status: vscode.StatusBarItem;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("hyblint");
  status = vscode.window.createStatusBarItem("hyblint.status", vscode.StatusBarAlignment.Right, 100);
  status.name = "hyblint";
  status.command = "hyblint.showOutput";
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand("hyblint.restart", restart),
    vscode.commands.registerCommand("hyblint.showOutput", () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (SERVER_SETTINGS.some((name) => event.affectsConfiguration(name))) {
        void restart();
      }
    }),
    vscode.workspace.onWillSaveTextDocument((event) => {
      if (event.document.languageId === "python" && fixAllOnSave(event.document)) {
        event.waitUntil(fixAllBeforeSave(event.document));
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

async function start(): Promise<void> {
  server = findServer({
    path: hyblintSetting("path"),
    interpreter: hyblintSetting("interpreter"),
    pythonInterpreter: explicitPythonInterpreter(),
    folders: (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath),
  });
  output.appendLine(`Starting ${[server.command, ...server.args].join(" ")} (from ${server.origin})`);
  const serverOptions: ServerOptions = {
    command: server.command,
    args: server.args,
    options: { cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
    ],
    outputChannel: output,
    // The server reads select/ignore from these at start, and from the `hyblint` section of each
    // workspace/didChangeConfiguration the client sends when a setting changes.
    initializationOptions: editorSettings(),
    synchronize: {
      configurationSection: "hyblint",
      fileEvents: vscode.workspace.createFileSystemWatcher("**/pyproject.toml"),
    },
  };
  const starting = new LanguageClient("hyblint", "hyblint", serverOptions, clientOptions);
  client = starting;
  starting.onDidChangeState((event) => {
    if (client === starting) {
      showState(event.newState);
    }
  });
  showState(State.Starting);
  try {
    await starting.start();
  } catch (error) {
    showState(State.Stopped, String(error));
    const choice = await vscode.window.showErrorMessage(
      `hyblint: cannot start \`${[server.command, ...server.args].join(" ")}\` (from ${server.origin}): ${error}. ` +
        "Install hyblint in the workspace's Python environment (pip install hyblint) or set hyblint.path.",
      "Show Output",
    );
    if (choice) {
      output.show(true);
    }
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop();
    } catch (error) {
      output.appendLine(`Stopping the server failed: ${error}`);
    }
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

function showState(state: State, problem?: string): void {
  const command = server ? [server.command, ...server.args].join(" ") : "hyblint lsp";
  if (state === State.Running) {
    const version = client?.initializeResult?.serverInfo?.version;
    status.text = "$(check) hyblint";
    status.tooltip = `hyblint ${version ?? ""} running: ${command} (from ${server?.origin})`;
    status.backgroundColor = undefined;
  } else if (state === State.Starting) {
    status.text = "$(sync~spin) hyblint";
    status.tooltip = `Starting ${command}`;
    status.backgroundColor = undefined;
  } else {
    status.text = "$(error) hyblint";
    status.tooltip = `hyblint is not running${problem ? `: ${problem}` : ""}. Click for its output; run "hyblint: Restart Server" to start it again.`;
    status.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
  }
  status.show();
}

/** The fix-all edits if they come within the budget; else none now, and a second save with them. */
async function fixAllBeforeSave(document: vscode.TextDocument): Promise<vscode.TextEdit[]> {
  const version = document.version;
  const edits = fixAllEdits(document).catch((error) => {
    output.appendLine(`Fix all on save failed: ${error}`);
    return [];
  });
  const late = Symbol("late");
  const inTime = await Promise.race([edits, new Promise<typeof late>((done) => setTimeout(done, SAVE_BUDGET_MS, late))]);
  if (inTime !== late) {
    return inTime;
  }
  output.appendLine(`Fix all on save took longer than ${SAVE_BUDGET_MS} ms: it is applied after the save.`);
  void edits.then(async (fixes) => {
    if (fixes.length && !document.isClosed && document.version === version) {  // not edited since
      const edit = new vscode.WorkspaceEdit();
      edit.set(document.uri, fixes);
      if (await vscode.workspace.applyEdit(edit)) {
        await document.save();
      }
    }
  });
  return [];
}

/** The safe fixes of the whole document, asked for as the fix-all source action. */
async function fixAllEdits(document: vscode.TextDocument): Promise<vscode.TextEdit[]> {
  const running = client;
  if (!running || running.state !== State.Running) {
    return [];
  }
  const whole = new vscode.Range(0, 0, document.lineCount, 0);
  const actions = await running.sendRequest(CodeActionRequest.type, {
    textDocument: { uri: running.code2ProtocolConverter.asUri(document.uri) },
    range: running.code2ProtocolConverter.asRange(whole),
    context: { diagnostics: [], only: [FIX_ALL_KIND] },
  });
  for (const action of actions ?? []) {
    if ("edit" in action && action.edit) {
      const edit = await running.protocol2CodeConverter.asWorkspaceEdit(action.edit);
      return edit.get(document.uri);
    }
  }
  return [];
}

function fixAllOnSave(document: vscode.TextDocument): boolean {
  return vscode.workspace.getConfiguration("hyblint", document).get<boolean>("fixAll", false);
}

function editorSettings(): { select: string[]; ignore: string[] } {
  const settings = vscode.workspace.getConfiguration("hyblint");
  return { select: settings.get<string[]>("select", []), ignore: settings.get<string[]>("ignore", []) };
}

function hyblintSetting(name: string): string {
  return vscode.workspace.getConfiguration("hyblint").get<string>(name, "");
}

function explicitPythonInterpreter(): string | undefined {
  const inspected = vscode.workspace.getConfiguration("python").inspect<string>("defaultInterpreterPath");
  return inspected?.workspaceFolderValue ?? inspected?.workspaceValue ?? inspected?.globalValue;
}
