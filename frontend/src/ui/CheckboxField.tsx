import { useId, type ReactNode } from "react";

interface CheckboxFieldProps {
  /** The checkbox's id, for a link to it (an error summary's); made up when not given. */
  id?: string;
  label: ReactNode;
  help?: ReactNode;
  error?: string[] | string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}

/** A checkbox whose label is its field name, with help and errors beneath. */
export function CheckboxField({ id: givenId, label, help, error, checked, onChange, disabled }: CheckboxFieldProps) {
  const madeId = useId();
  const id = givenId ?? madeId;
  const errors = error === undefined ? [] : Array.isArray(error) ? error : [error];
  const describedBy = [errors.length > 0 && `${id}-error`, help && `${id}-help`].filter(Boolean).join(" ");
  return (
    <div className={errors.length > 0 ? "field field--invalid" : "field"}>
      <div className="checkbox">
        <input
          type="checkbox"
          id={id}
          checked={checked}
          disabled={disabled}
          aria-describedby={describedBy || undefined}
          aria-invalid={errors.length > 0 || undefined}
          onChange={(e) => onChange(e.target.checked)}
        />
        <label className="field__label" htmlFor={id}>
          {label}
        </label>
      </div>
      {errors.length > 0 && (
        <div className="field__error" id={`${id}-error`}>
          {errors.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </div>
      )}
      {help && (
        <p className="field__help checkbox__help" id={`${id}-help`}>
          {help}
        </p>
      )}
    </div>
  );
}
