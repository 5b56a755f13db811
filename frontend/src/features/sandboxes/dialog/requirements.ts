/**
 * Splits pip requirements typed one per line or separated by commas (as in
 * "pandas==2.2.*, matplotlib, openpyxl") into the list that is saved.
 *
 * A comma separates two requirements, except where a version operator
 * follows it: that comma continues the specifiers ("pandas>=2,<3" stays
 * whole, as a requirement name never starts with an operator), as do
 * commas inside extras ("pkg[a,b]") or parentheses ("pkg (>=1, <2)"), and
 * commas in a direct reference's URL ("pkg @ https://…").
 */
export function splitRequirements(text: string): string[] {
  return text.split("\n").flatMap(splitLine).map((r) => r.trim()).filter((r) => r !== "");
}

const continuesSpecifiers = /^\s*[<>=!~]/;

function splitLine(line: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  // A direct reference's URL runs from the first non-space after "@" to the
  // next space; a comma just before that space ends it and separates.
  let url: "none" | "ahead" | "inside" = "none";
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    const space = /\s/.test(c);
    if (url === "ahead" && !space) url = "inside";
    else if (url === "inside" && space) url = "none";
    if (url === "inside" && c === "," && /^(\s|$)/.test(line.slice(i + 1))) url = "none";
    if (url === "inside") continue;
    if (c === "@") url = "ahead";
    else if (c === "[" || c === "(") depth++;
    else if ((c === "]" || c === ")") && depth > 0) depth--;
    else if (c === "," && depth === 0 && !continuesSpecifiers.test(line.slice(i + 1))) {
      parts.push(line.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(line.slice(start));
  return parts;
}
