import { useState } from "react";
import { Button } from "../../ui/Button";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { changedLines, useEditFile } from "./api/editFile";
import { baseName } from "./paths";

/**
 * Edits a text file: the person changes its text, reviews the changed
 * lines, then saves them as one edit of the file as it was read. Where the
 * agent's binding makes editing need approval, the call waits in the
 * approval card, and saving again after the approval goes ahead.
 */
export function FileEditor({ runId, path, original, onDone }: { runId: string; path: string; original: string; onDone: () => void }) {
  const [text, setText] = useState(original);
  const [reviewing, setReviewing] = useState(false);
  const edit = useEditFile();
  const change = changedLines(original, text);
  const unchanged = text === original;
  const name = baseName(path);

  if (original === "") return <p className="muted">An empty file cannot be edited here: write it anew instead.</p>;

  return (
    <div className="editor">
      {reviewing ? (
        <>
          <p className="muted" id="diff-help">
            {change.removed.length} line(s) replaced by {change.added.length}; {change.kept} line(s) unchanged.
          </p>
          <pre className="editor__diff mono" tabIndex={0} aria-label={`Changes to ${name}`} aria-describedby="diff-help">
            {change.removed.map((l, i) => (
              <span key={`r${i}`} className="editor__removed">
                {`- ${l}\n`}
              </span>
            ))}
            {change.added.map((l, i) => (
              <span key={`a${i}`} className="editor__added">
                {`+ ${l}\n`}
              </span>
            ))}
          </pre>
        </>
      ) : (
        <textarea
          className="input mono editor__text"
          aria-label={`Text of ${name}`}
          value={text}
          spellCheck={false}
          rows={14}
          onChange={(e) => setText(e.target.value)}
        />
      )}
      {edit.isError && <ProblemMessage error={edit.error} />}
      <div className="editor__actions">
        {reviewing ? (
          <>
            <Button
              variant="primary"
              size="sm"
              busy={edit.isPending}
              disabled={edit.isPending}
              onClick={() => edit.mutate({ runId, path, before: original, after: text }, { onSuccess: onDone })}
            >
              Save
            </Button>
            <Button size="sm" onClick={() => setReviewing(false)}>
              Back to editing
            </Button>
          </>
        ) : (
          <Button variant="primary" size="sm" disabled={unchanged} onClick={() => setReviewing(true)}>
            Review changes
          </Button>
        )}
        <Button size="sm" variant="ghost" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </div>
  );
}
