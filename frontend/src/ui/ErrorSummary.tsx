import { useEffect, useRef, type MouseEvent } from "react";

/** A field the server (or the form) refused, by the id of its control. */
export interface FieldProblem {
  id: string;
  label: string;
  messages: string[];
}

/** Brings a field into view away from the sticky footer, then puts the cursor in it. */
export function revealField(id: string) {
  const field = document.getElementById(id);
  if (!field) return;
  field.scrollIntoView({ block: "center" });
  field.focus({ preventScroll: true });
}

/**
 * What is wrong after a failed save, beside the Save button: one link per
 * bad field, which takes the cursor there. When it appears it scrolls the
 * first bad field into the middle of the view (clear of a sticky footer)
 * and takes focus itself, so a screen reader reads the list.
 */
export function ErrorSummary({ problems }: { problems: FieldProblem[] }) {
  const box = useRef<HTMLDivElement>(null);
  const first = problems[0]?.id;
  useEffect(() => {
    if (!first) return;
    document.getElementById(first)?.scrollIntoView({ block: "center" });
    box.current?.focus({ preventScroll: true });
  }, [problems, first]);
  if (problems.length === 0) return null;

  const go = (id: string) => (e: MouseEvent) => {
    e.preventDefault();
    revealField(id);
  };
  return (
    <div className="error-summary" role="alert" aria-labelledby="error-summary-title" tabIndex={-1} ref={box}>
      <p className="error-summary__title" id="error-summary-title">
        {problems.length === 1 ? "1 field needs a change before saving:" : `${problems.length} fields need a change before saving:`}
      </p>
      <ul>
        {problems.map((p) => (
          <li key={p.id}>
            <a href={`#${p.id}`} onClick={go(p.id)}>
              {p.label}: {p.messages.join(" ")}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
