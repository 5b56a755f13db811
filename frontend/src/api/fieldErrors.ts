import type { FieldError } from "./types";

export interface PlacedErrors {
  /** Messages per form field key ("name", "config.timeout", …). */
  byField: Record<string, string[]>;
  /** Messages for fields the form does not show; they go above the buttons. */
  unplaced: string[];
}

/**
 * Places the server's errors under the fields they name. A dotted path that
 * goes below a field (config.volume_mounts.2) lands on that field, naming
 * the item: quoted when sent lists it (an item typed among others on a
 * comma-separated line has no line of its own), else by its line.
 */
export function placeFieldErrors(
  errors: FieldError[],
  fieldKeys: Iterable<string>,
  sent?: (fieldKey: string) => unknown,
): PlacedErrors {
  const known = new Set(fieldKeys);
  const placed: PlacedErrors = { byField: {}, unplaced: [] };
  for (const { field, message } of errors) {
    const parts = field.split(".");
    let depth = parts.length;
    while (depth > 0 && !known.has(parts.slice(0, depth).join("."))) depth--;
    if (depth === 0) {
      placed.unplaced.push(field ? `${field}: ${message}` : message);
      continue;
    }
    const key = parts.slice(0, depth).join(".");
    const rest = parts.slice(depth);
    const index = rest.length === 1 ? Number(rest[0]) : NaN;
    const list = sent?.(key);
    const item = Number.isInteger(index) && Array.isArray(list) ? list[index] : undefined;
    const text =
      typeof item === "string"
        ? `“${item}”: ${message}`
        : Number.isInteger(index)
          ? `Line ${index + 1}: ${message}`
          : rest.length
            ? `${rest.join(".")}: ${message}`
            : message;
    (placed.byField[key] ??= []).push(text);
  }
  return placed;
}
