import { Link } from "react-router-dom";
import { hasScreen, useResourceLink } from "./api/resourceExists";

/** A link to the entry's resource while it exists; otherwise says it is gone. */
export function ResourceLink({ type, id }: { type: string; id: string }) {
  const link = useResourceLink(type, id, true);
  if (!id || !hasScreen(type)) return null;
  if (link.isPending) return <span className="audit-entry__muted">Looking for the {type}…</span>;
  if (link.isError) return <span className="audit-entry__muted">Could not check whether the {type} still exists.</span>;
  if (link.data === null) return <span className="audit-entry__muted">This {type} no longer exists.</span>;
  return <Link to={link.data}>Open the {type}</Link>;
}
