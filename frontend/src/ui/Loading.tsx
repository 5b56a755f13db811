export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="loading muted" role="status">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}
