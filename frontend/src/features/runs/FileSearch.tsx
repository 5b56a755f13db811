import { Search } from "lucide-react";
import { type FormEvent, useState } from "react";
import { Button } from "../../ui/Button";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { type SearchMode, useSearchFiles } from "./api/searchFiles";
import { baseName } from "./paths";

/**
 * Finds files under the folder on screen, by name (wildcards * and ?, or
 * any part of a name) or by the text they hold; a hit opens its file.
 */
export function FileSearch({ runId, dir, onOpen }: { runId: string; dir: string; onOpen: (path: string) => void }) {
  const [mode, setMode] = useState<SearchMode>("names");
  const [query, setQuery] = useState("");
  const search = useSearchFiles();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (query.trim() !== "") search.mutate({ runId, mode, query: query.trim(), dir });
  };

  return (
    <div className="file-search">
      <form className="file-search__form" role="search" aria-label="Search files" onSubmit={submit}>
        <select className="input" aria-label="Search by" value={mode} onChange={(e) => setMode(e.target.value as SearchMode)}>
          <option value="names">File names</option>
          <option value="text">Text in files</option>
        </select>
        <input
          className="input mono"
          aria-label={mode === "names" ? "File name or pattern" : "Text to find"}
          placeholder={mode === "names" ? "*.py, report" : "def main"}
          value={query}
          maxLength={1024}
          spellCheck={false}
          onChange={(e) => setQuery(e.target.value)}
        />
        <Button type="submit" size="sm" busy={search.isPending} disabled={search.isPending || query.trim() === ""}>
          <Search size={13} aria-hidden="true" /> Search
        </Button>
      </form>
      {search.isError && <ProblemMessage error={search.error} />}
      {search.data && (
        <section aria-label="Search results">
          <p className="muted" role="status">
            {search.data.hits.length === 0 ? "Nothing found." : `${search.data.hits.length} found.`}
          </p>
          {search.data.hits.length > 0 && (
            <ul className="files__list">
              {search.data.hits.map((hit) => (
                <li key={`${hit.path}:${hit.line ?? ""}`}>
                  <button type="button" className="files__entry" onClick={() => onOpen(hit.path)} title={hit.path}>
                    <span className="truncate mono">
                      {hit.line === undefined ? hit.path : `${baseName(hit.path)}:${hit.line}`}
                    </span>
                    {hit.text !== undefined && <span className="truncate muted file-search__text">{hit.text}</span>}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {search.data.truncated && <p className="field__help">Only the first results are shown: narrow the search.</p>}
        </section>
      )}
    </div>
  );
}
