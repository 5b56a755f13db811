import { Check, Copy } from "lucide-react";
import { useState } from "react";

interface CopyFieldProps {
  value: string;
  label: string;
  id?: string;
}

/** A read-only value with a button that copies it. */
export function CopyField({ value, label, id }: CopyFieldProps) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // Without clipboard access the value is still selectable by hand.
      setCopied(false);
    }
  };
  return (
    <div className="input-group">
      <input
        id={id}
        className="input mono"
        readOnly
        value={value}
        aria-label={label}
        onFocus={(e) => e.currentTarget.select()}
      />
      <button type="button" className="input-group__button" onClick={copy} aria-label={`Copy ${label.toLowerCase()}`}>
        {copied ? <Check size={14} aria-hidden="true" /> : <Copy size={14} aria-hidden="true" />}
      </button>
      <span className="visually-hidden" role="status">
        {copied ? "Copied" : ""}
      </span>
    </div>
  );
}
