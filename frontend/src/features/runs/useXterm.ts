import { FitAddon } from "@xterm/addon-fit";
import { type ITheme, Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { type RefObject, useEffect, useState } from "react";

/** The terminal's colours and font, from the design tokens (which follow the colour scheme). */
function themeOf(element: HTMLElement): { theme: ITheme; fontFamily: string } {
  const style = getComputedStyle(element);
  const token = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  const background = token("--terminal-bg", "#101216");
  const foreground = token("--terminal-text", "#e6e8eb");
  return {
    theme: { background, foreground, cursor: foreground, cursorAccent: background, selectionBackground: "#4f5b93" },
    fontFamily: token("--font-mono", "monospace"),
  };
}

/**
 * Copy and paste in a terminal, where Ctrl+C and Ctrl+V belong to the shell:
 * Ctrl+Shift+C (Cmd+Shift+C) copies the selection, Ctrl+Shift+V lets the
 * browser paste as it does for that key; the browser's own copy and paste
 * (menu, Cmd+C/V) work as well. Shift+Tab leaves the terminal, so that
 * keyboard users are not held in it (Tab stays the shell's completion).
 */
export function clipboardKeys(term: Terminal) {
  return (event: KeyboardEvent): boolean => {
    if (event.type !== "keydown") return true;
    const modified = (event.ctrlKey || event.metaKey) && event.shiftKey;
    if (modified && event.code === "KeyC") {
      event.preventDefault();
      if (term.hasSelection()) void navigator.clipboard?.writeText(term.getSelection());
      return false;
    }
    if (modified && event.code === "KeyV") return false;
    if (event.key === "Tab" && event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey) return false;
    return true;
  };
}

/**
 * An xterm.js terminal in the container, sized to it as it resizes (the
 * fit addon, on each ResizeObserver report; a hidden container keeps the
 * last size). Its input is labelled, and described by the element describedBy
 * names. Null until mounted.
 */
export function useXterm(container: RefObject<HTMLDivElement | null>, label: string, describedBy: string): Terminal | null {
  const [term, setTerm] = useState<Terminal | null>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const { theme, fontFamily } = themeOf(element);
    const next = new Terminal({
      cursorBlink: true,
      fontFamily,
      fontSize: 13,
      scrollback: 5000,
      theme,
    });
    const fit = new FitAddon();
    next.loadAddon(fit);
    next.attachCustomKeyEventHandler(clipboardKeys(next));
    next.open(element);
    next.textarea?.setAttribute("aria-label", label);
    next.textarea?.setAttribute("aria-describedby", describedBy);
    fit.fit();
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(element);
    const scheme = window.matchMedia("(prefers-color-scheme: dark)");
    const restyle = () => (next.options.theme = themeOf(element).theme);
    scheme.addEventListener("change", restyle);
    setTerm(next);
    return () => {
      scheme.removeEventListener("change", restyle);
      observer.disconnect();
      next.dispose();
      setTerm(null);
    };
  }, [container, label, describedBy]);

  return term;
}
