// The audit screen's filters, kept in the URL's query so a view can be linked.

export const filterNames = ["actor", "resource_type", "resource_id", "action", "outcome", "since", "until"] as const;

export type FilterName = (typeof filterNames)[number];
export type AuditFilters = Partial<Record<FilterName, string>>;

/** The filters a URL query names; unknown parameters and empty values are left out. */
export function filtersFromSearch(search: URLSearchParams): AuditFilters {
  const filters: AuditFilters = {};
  for (const name of filterNames) {
    const value = search.get(name)?.trim();
    if (value) filters[name] = value;
  }
  return filters;
}

/** The URL query for filters, in a stable order. */
export function searchFromFilters(filters: AuditFilters): URLSearchParams {
  const search = new URLSearchParams();
  for (const name of filterNames) {
    const value = filters[name]?.trim();
    if (value) search.set(name, value);
  }
  return search;
}

/** A datetime-local input's value (local time, to the minute) for an RFC 3339 instant. */
export function toLocalInput(iso: string | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** The RFC 3339 instant of a datetime-local input's value; "" when empty or unreadable. */
export function fromLocalInput(value: string): string {
  if (!value) return "";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString();
}
