import { ArrowUp, Download, File, Folder, RefreshCw, Upload, X } from "lucide-react";
import { type RefObject, useRef, useState } from "react";
import { Button } from "../../ui/Button";
import { IconButton } from "../../ui/IconButton";
import { Loading } from "../../ui/Loading";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { isApiError } from "../../api/problem";
import { needsApproval } from "./api/approval";
import { useDownloadFile } from "./api/downloadFile";
import { useApprovedListing, useDirectory } from "./api/listDirectory";
import { useApprovedRead, useFileContent } from "./api/readFile";
import { useUploadFile } from "./api/uploadFile";
import { FileEditor } from "./FileEditor";
import { FileSearch } from "./FileSearch";
import { baseName, formatSize, joinPath, parentPath } from "./paths";

/**
 * The run's working directory: browse it, open a file read-only, upload one.
 * Where the agent's binding makes a tool need approval, the refusal offers
 * to approve that one call; nothing is ever sent as approved unless a
 * person clicked for it, and a click sends one call.
 */
export function FilePane({ runId }: { runId: string }) {
  const [dir, setDir] = useState("");
  const [openFile, setOpenFile] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const listing = useDirectory(runId, dir);
  const file = useFileContent(runId, openFile);
  const approvedListing = useApprovedListing(runId);
  const approvedRead = useApprovedRead(runId);
  const upload = useUploadFile();
  const download = useDownloadFile();
  const picker = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const viewerHeading = useRef<HTMLHeadingElement>(null);
  const parent = parentPath(dir);

  // An approval answers the one refusal on screen: going elsewhere, or
  // asking again, forgets it (and its failure).
  const openDir = (next: string) => {
    approvedListing.reset();
    setDir(next);
  };
  const refresh = () => {
    approvedListing.reset();
    void listing.refetch();
  };
  const showFile = (next: string | null) => {
    approvedRead.reset();
    download.reset();
    setEditing(false);
    setOpenFile(next);
  };
  // The refusal holding the clicked button goes once its call succeeds:
  // keep keyboard focus in the pane.
  const focusOnSuccess = (target: RefObject<HTMLElement | null>) => ({
    onSuccess: () => requestAnimationFrame(() => target.current?.focus()),
  });

  const entries = [...(listing.data ?? [])].sort(
    (a, b) => (a.type === b.type ? baseName(a.path).localeCompare(baseName(b.path)) : a.type === "directory" ? -1 : 1),
  );

  return (
    <section className="files" aria-labelledby="files-heading">
      <header className="files__header">
        <h2 id="files-heading" ref={heading} tabIndex={-1}>
          Files
        </h2>
        <span className="mono files__path truncate" title={dir}>
          {dir === "" ? "working directory" : dir}
        </span>
        <span className="spacer" />
        <IconButton
          label="Up one folder"
          icon={<ArrowUp size={15} aria-hidden="true" />}
          disabled={parent === null}
          onClick={() => parent !== null && openDir(parent)}
        />
        <IconButton label="Refresh files" icon={<RefreshCw size={14} aria-hidden="true" />} onClick={refresh} />
        <Button size="sm" busy={upload.isPending} disabled={upload.isPending} onClick={() => picker.current?.click()}>
          <Upload size={13} aria-hidden="true" /> Upload
        </Button>
        <input
          ref={picker}
          type="file"
          className="visually-hidden"
          tabIndex={-1}
          aria-label="File to upload"
          onChange={(e) => {
            const chosen = e.target.files?.[0];
            e.target.value = "";
            if (chosen) upload.mutate({ runId, path: joinPath(dir, chosen.name), file: chosen });
          }}
        />
      </header>
      {upload.isError && (
        <ProblemMessage
          error={upload.error}
          action={
            needsApproval(upload.error) ? (
              <>
                <span className="mono truncate" title={upload.variables.path}>
                  {upload.variables.path}
                </span>
                <Button
                  size="sm"
                  onClick={() => upload.mutate({ ...upload.variables, approved: true }, focusOnSuccess(heading))}
                >
                  {upload.variables.overwrite ? "Approve and replace" : "Approve and upload"}
                </Button>
              </>
            ) : (
              isApiError(upload.error, "file_exists") && (
                <Button
                  size="sm"
                  variant="danger"
                  onClick={() => upload.mutate({ ...upload.variables, overwrite: true, approved: true }, focusOnSuccess(heading))}
                >
                  Replace {baseName(upload.variables.path)}
                </Button>
              )
            )
          }
        />
      )}
      <FileSearch runId={runId} dir={dir} onOpen={showFile} />
      {upload.isSuccess && (
        <p className="success" role="status">
          Uploaded {baseName(upload.variables.path)}.
        </p>
      )}

      {listing.isPending && <Loading label="Listing files…" />}
      {listing.isError && (
        <ProblemMessage
          error={approvedListing.error ?? listing.error}
          action={
            isApiError(listing.error, "run_not_active") ? undefined : needsApproval(listing.error) ? (
              <Button
                size="sm"
                busy={approvedListing.isPending}
                disabled={approvedListing.isPending}
                onClick={() => approvedListing.mutate(dir, focusOnSuccess(heading))}
              >
                Approve and list
              </Button>
            ) : (
              <Button size="sm" onClick={refresh}>
                Retry
              </Button>
            )
          }
        />
      )}
      {listing.data && entries.length === 0 && <p className="muted">This folder is empty.</p>}
      {entries.length > 0 && (
        <ul className="files__list" aria-label="Folder contents">
          {entries.map((entry) => (
            <li key={entry.path}>
              <button
                type="button"
                className={openFile === entry.path ? "files__entry files__entry--open" : "files__entry"}
                onClick={() => (entry.type === "directory" ? openDir(entry.path) : showFile(entry.path))}
              >
                {entry.type === "directory" ? <Folder size={14} aria-hidden="true" /> : <File size={14} aria-hidden="true" />}
                <span className="truncate">{baseName(entry.path)}</span>
                <span className="visually-hidden">{entry.type === "directory" ? " (folder)" : ""}</span>
                {entry.type === "file" && <span className="muted files__size">{formatSize(entry.size)}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}

      {openFile && (
        <section className="viewer" aria-label={`File ${baseName(openFile)}`}>
          <header className="files__header">
            <h3 className="mono truncate" ref={viewerHeading} tabIndex={-1}>
              {openFile}
            </h3>
            <span className="spacer" />
            {file.data && !editing && !file.data.truncated && file.data.total_lines <= file.data.lines && (
              <Button size="sm" onClick={() => setEditing(true)}>
                Edit
              </Button>
            )}
            <Button
              size="sm"
              busy={download.isPending}
              disabled={download.isPending}
              onClick={() => download.mutate({ runId, path: openFile })}
            >
              <Download size={13} aria-hidden="true" /> Download
            </Button>
            <IconButton label="Close file" icon={<X size={15} aria-hidden="true" />} onClick={() => showFile(null)} />
          </header>
          {download.isError && (
            <ProblemMessage
              error={download.error}
              action={
                needsApproval(download.error) && (
                  <Button size="sm" onClick={() => download.mutate({ ...download.variables, approved: true })}>
                    Approve and download
                  </Button>
                )
              }
            />
          )}
          {file.isPending && <Loading label="Reading…" />}
          {file.isError && (
            <ProblemMessage
              error={approvedRead.error ?? file.error}
              action={
                needsApproval(file.error) && (
                  <Button
                    size="sm"
                    busy={approvedRead.isPending}
                    disabled={approvedRead.isPending}
                    onClick={() => approvedRead.mutate(openFile, focusOnSuccess(viewerHeading))}
                  >
                    Approve and open
                  </Button>
                )
              }
            />
          )}
          {file.data && editing && (
            <FileEditor runId={runId} path={openFile} original={file.data.content} onDone={() => setEditing(false)} />
          )}
          {file.data && !editing && (
            <>
              <pre className="viewer__content" tabIndex={0} aria-label={`Contents of ${baseName(openFile)}`}>
                {file.data.content}
              </pre>
              {file.data.total_lines > file.data.lines && (
                <p className="field__help">
                  Showing the first {file.data.lines} of {file.data.total_lines} lines.
                </p>
              )}
            </>
          )}
        </section>
      )}
    </section>
  );
}
