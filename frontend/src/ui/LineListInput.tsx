import { useEffect, useState, type TextareaHTMLAttributes } from "react";

interface LineListInputProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "value" | "onChange"> {
  value: string[];
  onChange: (value: string[]) => void;
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
export function LineListInput({ value, onChange, rows, ...rest }: LineListInputProps) {
  const [text, setText] = useState(() => toText(value));

  // Follow the value when it changes from outside (a reset), not on our own edits.
  useEffect(() => {
    setText((current) => (sameList(toLines(current), value) ? current : toText(value)));
  }, [value]);

  return (
    <textarea
      className="input textarea mono"
      rows={rows ?? Math.min(Math.max(value.length + 1, 2), 8)}
      spellCheck={false}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onChange(toLines(e.target.value));
      }}
      {...rest}
    />
  );
}

function sameList(a: string[], b: string[]) {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
