import { Link } from "react-router-dom";
import { usePageTitle } from "../ui/usePageTitle";

export function NotFound() {
  usePageTitle("Not found");
  return (
    <div className="page">
      <h1>Nothing here</h1>
      <p className="muted">
        This page does not exist, or your token's role cannot see it. <Link to="/agents">Go to Agents</Link>
      </p>
    </div>
  );
}
