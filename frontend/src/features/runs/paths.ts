/** The last part of a path: what a listing shows. */
export function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1) || trimmed || path;
}

/** The folder above, or null at the top ("" is the working directory). */
export function parentPath(path: string): string | null {
  if (path === "/" || path === "") return null;
  const trimmed = path.replace(/\/+$/, "");
  const cut = trimmed.lastIndexOf("/");
  if (cut === -1) return "";
  return cut === 0 ? "/" : trimmed.slice(0, cut);
}

export function joinPath(dir: string, name: string): string {
  if (dir === "") return name;
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
