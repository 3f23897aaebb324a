// The extension in a real VS Code (code-server), driven as a person would with Playwright and
// Chromium: a diagnostic in the Problems panel, its quick fix from the editor's lightbulb menu,
// fix all on save, the status item and the restart command. Run by ../test.sh, which installs
// what this needs; arguments come as environment variables so that the script has one caller.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

const CODE_SERVER = need("CODE_SERVER");   // the code-server executable
const PROFILE = need("E2E_PROFILE");       // a fresh folder for code-server's user data and extensions
const WORKSPACE = need("E2E_WORKSPACE");   // the folder opened, with .venv holding hyblint
const SHOTS = need("E2E_SHOTS");           // where the screenshots go
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const BROKEN = [
  "from mxnet.gluon import nn",
  "",
  "",
  "class Flatten(nn.HybridBlock):",
  "    def hybrid_forward(self, F, x):",
  "        return x.reshape((x.shape[0], -1))",
  "",
  "",
  "class Shift(nn.HybridBlock):",
  "    def hybrid_forward(self, F, x):",
  "        x += 1",  // HYB006, which the workspace's hyblint.ignore turns off until the end
  "        return x",
  "",
].join("\n");
const FIXED = "return F.reshape(x, shape=(0, -1))";
const STEP_MS = 45_000;
let codeServer;  // stopped however the run ends

function need(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run this through editors/vscode/test.sh`);
  }
  return value;
}

function step(text) {
  console.log(`[e2e ${new Date().toISOString().slice(11, 19)}] ${text}`);
}

/** Starts code-server on a free loopback port and resolves with its address. */
function startCodeServer() {
  const child = spawn(CODE_SERVER, [
    "--auth", "none", "--bind-addr", "127.0.0.1:0", "--disable-telemetry", "--disable-update-check",
    "--disable-workspace-trust", "--disable-getting-started-override", "--user-data-dir", path.join(PROFILE, "data"),
    "--extensions-dir", path.join(PROFILE, "extensions"), "--config", path.join(PROFILE, "config.yaml"), WORKSPACE,
  ], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PASSWORD: "" } });
  codeServer = child;
  const log = fs.createWriteStream(path.join(PROFILE, "code-server.log"));
  child.stderr.pipe(log);
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`code-server did not start in 60 s:\n${seen}`)), 60_000);
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      log.write(chunk);
      const match = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] });
      }
    });
    child.on("exit", (code) => reject(new Error(`code-server exited with ${code}:\n${seen}`)));
  });
}

async function openFile(page, name) {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(name);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().waitFor();
  await page.keyboard.press("Enter");
  await page.locator(`.tab.active[aria-label*="${name}"]`).waitFor();
  await page.locator(".monaco-editor .view-lines").first().click();
}

async function runCommand(page, title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor();
  await page.keyboard.press("Enter");
}

/** The text of the active editor, as shown (Monaco renders spaces as no-break spaces). */
async function editorText(page) {
  const text = await page.locator(".editor-group-container.active .monaco-editor .view-lines").innerText();
  return text.replace(/\u00a0/g, " ");
}

async function main() {
  fs.writeFileSync(path.join(WORKSPACE, "net.py"), BROKEN);
  fs.writeFileSync(path.join(WORKSPACE, "on_save.py"), BROKEN);
  fs.writeFileSync(path.join(WORKSPACE, "after_restart.py"), BROKEN);
  const { url } = await startCodeServer();
  step(`code-server at ${url}`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage({ viewport: { width: 1100, height: 640 } });
  try {
    page.setDefaultTimeout(STEP_MS);
    await page.goto(`${url}/?folder=${encodeURIComponent(WORKSPACE)}`);
    await page.locator(".monaco-workbench .part.editor").waitFor();
    step("workbench loaded");

    await openFile(page, "net.py");
    await page.keyboard.press("Control+Shift+M");  // the Problems panel
    const problems = page.locator(".markers-panel");
    const problem = problems.locator(".monaco-list-row", { hasText: "A Symbol has no `.shape`" });
    await problem.first().waitFor();
    const row = (await problem.first().textContent()).replace(/\s+/g, " ");
    // The source, the code (a link to its page; the parentheses are drawn by CSS), the position.
    if (!/hyblint\s*HYB002\s*\[Ln 6, Col 27\]/.test(row)) {
      throw new Error(`the problem is not hyblint's HYB002 at line 6, column 27: ${row}`);
    }
    const ignored = problems.locator(".monaco-list-row", { hasText: "In-place `+=`" });
    if (await ignored.count()) {
      throw new Error("HYB006 is shown, though the workspace's hyblint.ignore names it");
    }
    step("HYB002 is in the Problems panel, and HYB006, which hyblint.ignore names, is not");
    const status = page.locator(".statusbar-item", { hasText: "hyblint" });
    await status.first().waitFor();
    await page.locator(".statusbar-item .codicon-check").first().waitFor();
    if (serverStarts() !== 1) {
      throw new Error(`the hyblint output should say the server started once, not ${serverStarts()} times`);
    }
    step("the status item says the server runs");

    // To the problem's position (Go to Line/Column), and the quick fix menu there (Ctrl+.).
    await page.locator(".monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+G");
    const line = page.locator(".quick-input-widget input");
    await line.waitFor({ state: "visible" });
    await line.fill(":6:27");
    await page.keyboard.press("Enter");
    await page.locator(".statusbar-item", { hasText: "Ln 6, Col 27" }).first().waitFor();
    await page.keyboard.press("Control+.");
    const fix = page.locator(".action-widget .monaco-list-row", { hasText: "HYB002: Use reshape's special codes" });
    await fix.first().waitFor();
    await page.locator(".action-widget", { hasText: "Disable HYB002 for this line" }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, "e2e-problem.png") });
    step("the quick fix is offered");
    await fix.first().click();
    await page.waitForFunction(
      (fixed) => document.querySelector(".editor-group-container.active .view-lines")?.textContent
        ?.replace(/\u00a0/g, " ").includes(fixed), FIXED);
    await problem.first().waitFor({ state: "detached" });
    await problems.getByText("No problems have been detected").first().waitFor();
    if (!(await editorText(page)).includes(FIXED)) {
      throw new Error("the quick fix did not rewrite the line");
    }
    await page.screenshot({ path: path.join(SHOTS, "e2e-fixed.png") });
    step("the quick fix rewrote the line and the problem is gone");

    await openFile(page, "on_save.py");
    await problem.first().waitFor();
    await page.keyboard.press("Control+S");
    await waitFor(() => fs.readFileSync(path.join(WORKSPACE, "on_save.py"), "utf8").includes(FIXED),
      "hyblint.fixAll to rewrite on_save.py when it is saved");
    if (!fs.readFileSync(path.join(WORKSPACE, "on_save.py"), "utf8").includes("x += 1")) {
      throw new Error("fix all on save fixed HYB006, which hyblint.ignore names");
    }
    await problem.first().waitFor({ state: "detached" });
    step("hyblint.fixAll fixed on_save.py on save");

    await runCommand(page, "hyblint: Restart Server");
    await waitFor(() => serverStarts() === 2, "a second start of the server in the hyblint output");
    await page.locator(".statusbar-item .codicon-check").first().waitFor();
    await openFile(page, "after_restart.py");
    await problem.first().waitFor();
    step("hyblint: Restart Server started the server again, which checks newly opened files");

    const settings = path.join(WORKSPACE, ".vscode", "settings.json");
    fs.writeFileSync(settings, fs.readFileSync(settings, "utf8").replace(/"hyblint\.ignore": \[[^\]]*\]/, '"hyblint.ignore": []'));
    await ignored.first().waitFor();
    step("hyblint.ignore emptied in the settings: HYB006 is shown at once");

    // A hyblint.path that does not exist: the change starts the server again, which fails.
    const missing = path.join(WORKSPACE, "no-such-dir", "hyblint");
    fs.writeFileSync(settings, fs.readFileSync(settings, "utf8").replace("{", `{\n  "hyblint.path": ${JSON.stringify(missing)},`));
    await page.locator(".notifications-toasts", { hasText: `cannot start \`${missing} lsp\` (from hyblint.path)` }).first().waitFor();
    await page.locator(".statusbar-item .codicon-error").first().waitFor();
    step("a missing hyblint.path is reported, and the status item shows the server is not running");
  } catch (error) {
    await page.screenshot({ path: path.join(PROFILE, "failure.png") }).catch(() => {});
    throw error;
  } finally {
    await browser.close();
  }
}

/** How often the hyblint output channel (which VS Code writes to a log file) says it started a server. */
function serverStarts() {
  const logs = path.join(PROFILE, "data", "logs");
  const found = fs.readdirSync(logs, { recursive: true }).filter((name) => /[\\/]\d+-hyblint\.log$/.test(name));
  const text = found.map((name) => fs.readFileSync(path.join(logs, name), "utf8")).join("");
  return (text.match(/^Starting .*hyblint lsp \(from /gm) || []).length;
}

async function waitFor(test, what) {
  const until = Date.now() + STEP_MS;
  while (!test()) {
    if (Date.now() > until) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

main().then(() => {
  codeServer?.kill();
  step("passed");
  process.exit(0);
}, (error) => {
  codeServer?.kill();
  console.error(`[e2e] FAILED: ${error.stack || error}`);
  process.exit(1);
});
