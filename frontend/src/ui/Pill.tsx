import type { ReactNode } from "react";

interface PillProps {
  tone?: "neutral" | "accent" | "ok" | "danger" | "warn";
  children: ReactNode;
  title?: string;
}

export function Pill({ tone = "neutral", children, title }: PillProps) {
  return (
    <span className={`pill pill--${tone}`} title={title}>
      {children}
    </span>
  );
}
