export interface Layer {
  layer: "shared" | "api" | "ui" | "session" | "feature" | "app" | "root" | "test" | "unknown";
  feature?: string;
}
export interface Violation {
  from: string;
  to: string;
  why: string;
}
export function layerOf(path: string): Layer | null;
export function forbidden(from: string, to: string): string | null;
export function importsOf(text: string): string[];
export function violations(srcDir: string): Violation[];
