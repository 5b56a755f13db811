import { vi } from "vitest";

/**
 * Stands in for the browser's WebSocket: records what the page sends, and
 * lets a test play the server (open, frames, close) as a real socket would
 * deliver them.
 */
export class FakeWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static instances: FakeWebSocket[] = [];

  readonly url: string;
  binaryType: BinaryType = "blob";
  readyState = FakeWebSocket.CONNECTING;
  /** Frames the page sent, in order. */
  readonly sent: (string | Uint8Array)[] = [];
  /** The code the page closed with, if it did. */
  closedWith: number | undefined;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;

  constructor(url: string) {
    this.url = url;
    FakeWebSocket.instances.push(this);
  }

  send(frame: string | ArrayBufferView) {
    if (this.readyState !== FakeWebSocket.OPEN) throw new Error("send on a socket that is not open");
    this.sent.push(typeof frame === "string" ? frame : new Uint8Array(frame.buffer, frame.byteOffset, frame.byteLength).slice());
  }

  close(code = 1000) {
    if (this.readyState === FakeWebSocket.CLOSED) return;
    this.closedWith = code;
    this.readyState = FakeWebSocket.CLOSED;
  }

  /** The text of the binary frames sent so far, decoded as UTF-8. */
  keystrokes(): string {
    const bytes = this.sent.filter((f): f is Uint8Array => typeof f !== "string");
    return bytes.map((b) => new TextDecoder().decode(b)).join("");
  }

  /** The text frames sent so far, parsed. */
  controls(): unknown[] {
    return this.sent.filter((f): f is string => typeof f === "string").map((f) => JSON.parse(f) as unknown);
  }

  serverOpen() {
    this.readyState = FakeWebSocket.OPEN;
    this.onopen?.(new Event("open"));
  }

  serverSends(frame: string | Uint8Array) {
    const data = typeof frame === "string" ? frame : frame.slice().buffer;
    if (typeof frame !== "string" && this.binaryType !== "arraybuffer") throw new Error("binary frames read as Blob");
    this.onmessage?.(new MessageEvent("message", { data }));
  }

  serverCloses(code: number, reason = "") {
    this.readyState = FakeWebSocket.CLOSED;
    this.onclose?.(new CloseEvent("close", { code, reason, wasClean: code !== 1006 }));
  }
}

export function fakeWebSocket() {
  FakeWebSocket.instances = [];
  vi.stubGlobal("WebSocket", FakeWebSocket);
  return FakeWebSocket.instances;
}
