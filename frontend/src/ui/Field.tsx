import { useId, type ReactNode } from "react";

/** What a Field hands to its control so label, help and error are wired up. */
export interface ControlProps {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
  "aria-required"?: true;
}

interface FieldProps {
  /** The control's id, for a link to it (an error summary's); made up when not given. */
  id?: string;
  label: ReactNode;
  help?: ReactNode;
  error?: string | string[];
  required?: boolean;
  /** Extra content beside the label, such as a Clear action. */
  action?: ReactNode;
  children: (control: ControlProps) => ReactNode;
}

export function Field({ id: givenId, label, help, error, required, action, children }: FieldProps) {
  const madeId = useId();
  const id = givenId ?? madeId;
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const errors = error === undefined ? [] : Array.isArray(error) ? error : [error];
  const describedBy = [errors.length > 0 && errorId, help && helpId].filter(Boolean).join(" ");
  return (
    <div className={errors.length > 0 ? "field field--invalid" : "field"}>
      <div className="field__label-row">
        <label className="field__label" htmlFor={id}>
          {label}
          {required && (
            <span className="field__required" aria-hidden="true">
              {" "}
              *
            </span>
          )}
        </label>
        {action}
      </div>
      {children({
        id,
        ...(describedBy ? { "aria-describedby": describedBy } : {}),
        ...(errors.length > 0 ? { "aria-invalid": true as const } : {}),
        ...(required ? { "aria-required": true as const } : {}),
      })}
      {errors.length > 0 && (
        <div className="field__error" id={errorId}>
          {errors.map((message) => (
            <p key={message}>{message}</p>
          ))}
        </div>
      )}
      {help && (
        <p className="field__help" id={helpId}>
          {help}
        </p>
      )}
    </div>
  );
}
