import { useEffect, useState, type TextareaHTMLAttributes } from "react";

interface LineListInputProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "value" | "onChange"> {
  value: string[];
  onChange: (value: string[]) => void;
  /** Reads the typed text as a list; one item a line unless told otherwise. */
  parse?: (text: string) => string[];
}

const toText = (lines: string[]) => lines.join("\n");
const toLines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

/**
 * Edits a list of strings one per line. The text is kept as typed (blank
 * lines included) so typing feels natural; the list it yields has neither
 * blanks nor surrounding spaces.
 */
export function LineListInput({ value, onChange, parse = toLines, rows, ...rest }: LineListInputProps) {
  const [text, setText] = useState(() => toText(value));

  // Follow the value when it changes from outside (a reset), not on our own edits.
  useEffect(() => {
    setText((current) => (sameList(parse(current), value) ? current : toText(value)));
  }, [value, parse]);

  return (
    <textarea
      className="input textarea mono"
      rows={rows ?? Math.min(Math.max(value.length + 1, 2), 8)}
      spellCheck={false}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onChange(parse(e.target.value));
      }}
      {...rest}
    />
  );
}

function sameList(a: string[], b: string[]) {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
