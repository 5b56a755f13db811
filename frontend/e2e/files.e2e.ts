import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, baseUrl, expectAccessible, openBrowser, signIn, uniqueName, type Browser } from "./browser";

interface Created {
  id: string;
}

/** The run shown in the console, from its address (/runs/{id}). */
async function currentRunId(page: Browser["page"]): Promise<string> {
  await page.waitForURL(/\/runs\/[0-9a-f-]+/);
  return new URL(page.url()).pathname.split("/").pop() ?? "";
}

describe("File pane search", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page, undefined, "/runs");
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("finds files by name and by the text they hold, and opens a hit", { timeout: 150_000 }, async () => {
    const { page } = browser;
    const sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", { name: uniqueName("Search box"), provider: "local" });
    const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Seeker") });
    await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: sandbox.id });

    await page.goto(baseUrl() + "/runs");
    const starter = page.getByRole("form", { name: "Start a run" });
    await starter.getByRole("combobox", { name: "Agent" }).selectOption(agent.id);
    await starter.getByRole("button", { name: "Start run" }).click();
    const run = page.getByRole("region", { name: "Current run" });
    await run.getByText("active").first().waitFor({ timeout: 30_000 });
    const command = run.getByRole("textbox", { name: "Command" });
    await command.fill("mkdir -p src/lib && printf 'def main():\\n    return 42\\n' > src/lib/tool.py && echo notes > readme.txt");
    await command.press("Control+Enter");
    await run.getByRole("log", { name: "Command output" }).getByText(/^exit 0\b/).waitFor({ timeout: 30_000 });

    const files = run.getByRole("region", { name: "Files" });
    const search = files.getByRole("search", { name: "Search files" });
    await search.getByRole("textbox", { name: "File name or pattern" }).fill("*.py");
    await search.getByRole("button", { name: "Search" }).click();
    const results = files.getByRole("region", { name: "Search results" });
    await results.getByRole("button", { name: /src\/lib\/tool\.py/ }).click();
    await files.getByLabel("Contents of tool.py").getByText("return 42").waitFor();

    await search.getByRole("combobox", { name: "Search by" }).selectOption("text");
    await search.getByRole("textbox", { name: "Text to find" }).fill("return 42");
    await search.getByRole("textbox", { name: "Text to find" }).press("Enter");
    await results.getByRole("button", { name: /tool\.py:2/ }).waitFor();
    await results.getByText("1 found.").waitFor();
    await expectAccessible(page, "file search");

    // Edit a file: the changed lines are shown before saving.
    await files.getByRole("button", { name: /readme\.txt/ }).first().click();
    const viewer = files.getByRole("region", { name: "File readme.txt" });
    await viewer.getByLabel("Contents of readme.txt").getByText("notes").waitFor();
    await viewer.getByRole("button", { name: "Edit" }).click();
    await viewer.getByRole("textbox", { name: "Text of readme.txt" }).fill("notes, edited in the console\n");
    await viewer.getByRole("button", { name: "Review changes" }).click();
    const diff = viewer.getByLabel("Changes to readme.txt");
    await diff.getByText("- notes", { exact: true }).waitFor();
    await diff.getByText("+ notes, edited in the console", { exact: true }).waitFor();
    await expectAccessible(page, "file editor's changes");
    await viewer.getByRole("button", { name: "Save" }).click();
    await viewer.getByLabel("Contents of readme.txt").getByText("notes, edited in the console").waitFor({ timeout: 30_000 });

    // Upload over an existing file: refused, then replaced when a person says so.
    await files.getByLabel("File to upload").setInputFiles({ name: "readme.txt", mimeType: "text/plain", buffer: Buffer.from("replaced by upload\n") });
    await files.getByText(/already exists/).waitFor({ timeout: 30_000 });
    await expectAccessible(page, "an upload over an existing file");
    await files.getByRole("button", { name: "Replace readme.txt" }).click();
    await files.getByRole("status").getByText("Uploaded readme.txt.").waitFor({ timeout: 30_000 });
    const after = await apiCall<{ content: string }>("GET", `/api/v1/runs/${await currentRunId(page)}/files?path=readme.txt`);
    if (after.content !== "replaced by upload\n") throw new Error(`readme.txt holds ${JSON.stringify(after.content)}`);

    // A binary file cannot be shown, but it can be downloaded as it is.
    const zipped = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0x0a]);
    await files.getByLabel("File to upload").setInputFiles({ name: "archive.zip", mimeType: "application/zip", buffer: zipped });
    await files.getByRole("button", { name: /archive\.zip/ }).click();
    const binary = files.getByRole("region", { name: "File archive.zip" });
    await binary.getByRole("alert").waitFor({ timeout: 30_000 }); // refused as text
    const [saved] = await Promise.all([page.waitForEvent("download"), binary.getByRole("button", { name: "Download" }).click()]);
    expect(saved.suggestedFilename()).toBe("archive.zip");
    const body = readFileSync((await saved.path())!);
    expect(Buffer.compare(body, zipped)).toBe(0);
    await expectAccessible(page, "a binary file, offered for download");
  });
});
