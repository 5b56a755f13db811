import type { ButtonHTMLAttributes, ReactNode, Ref } from "react";
import { Tooltip } from "./Tooltip";

interface IconButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, "aria-label"> {
  /** The accessible name, also shown as a tooltip. */
  label: string;
  icon: ReactNode;
  tone?: "default" | "danger";
  ref?: Ref<HTMLButtonElement>;
}

export function IconButton({ label, icon, tone = "default", className, ...rest }: IconButtonProps) {
  return (
    <Tooltip content={label}>
      <button
        type="button"
        aria-label={label}
        className={["icon-btn", tone === "danger" && "icon-btn--danger", className].filter(Boolean).join(" ")}
        {...rest}
      >
        {icon}
      </button>
    </Tooltip>
  );
}
