import { Eye, EyeOff } from "lucide-react";
import { useState, type InputHTMLAttributes } from "react";

interface PasswordInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "type"> {
  /** What the field holds, for the toggle's name ("Show API key"). */
  subject: string;
}

/** A secret input with a toggle that shows what was typed. */
export function PasswordInput({ subject, className, ...rest }: PasswordInputProps) {
  const [shown, setShown] = useState(false);
  return (
    <div className="input-group">
      <input
        type={shown ? "text" : "password"}
        className={["input", className].filter(Boolean).join(" ")}
        autoComplete="off"
        spellCheck={false}
        {...rest}
      />
      <button
        type="button"
        className="input-group__button"
        aria-pressed={shown}
        aria-label={`${shown ? "Hide" : "Show"} ${subject}`}
        onClick={() => setShown((s) => !s)}
        disabled={rest.disabled}
      >
        {shown ? <EyeOff size={14} aria-hidden="true" /> : <Eye size={14} aria-hidden="true" />}
      </button>
    </div>
  );
}
